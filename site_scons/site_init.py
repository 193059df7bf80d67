# site_scons/site_init.py - helpers shared by aclsim's SConscripts.
#
# RunCheck(env, alias, prog, argv_prefix=[], want=0, extra_env={}): an alias
# action that runs prog (optionally under a tool such as valgrind) and fails
# the build unless the exit status is `want`. A non-zero `want` makes an
# expected failure: a planted defect that the gate must catch.
import os
import subprocess

from SCons.Script import Action, AlwaysBuild


def _runner(prog, prefix, want, extra_env, label):
    def run(target, source, env):
        e = dict(env['ENV'])
        e.update(extra_env)
        argv = list(prefix) + [prog.abspath]
        log = prog.abspath + '.%s.log' % label
        with open(log, 'w') as out:
            rc = subprocess.run(argv, env=e, stdout=out, stderr=subprocess.STDOUT).returncode
        text = open(log).read()
        if want == 0:
            print(text, end='')
            if rc != 0:
                print('%s: %s exited %d' % (label, prog.name, rc))
                return 1
            return 0
        if rc == want:
            print('expected failure: %s (%s) exits %d: the gate bites' % (prog.name, label, rc))
            return 0
        print(text, end='')
        print('%s: %s exited %d, but the gate must catch it with %d' % (label, prog.name, rc, want))
        return 1
    return run


def RunCheck(env, alias, prog, prefix=(), want=0, extra_env=None, label=None):
    label = label or alias
    act = Action(_runner(prog, prefix, want, extra_env or {}, label),
                 '%s %s' % (label, prog.name) if want == 0 else None)
    a = env.Alias(alias, [prog], act)
    AlwaysBuild(a)
    return a
