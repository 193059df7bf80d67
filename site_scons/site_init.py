# site_scons/site_init.py - helpers shared by aclsim's SConscripts.
#
# CopyQuiet: an action that copies a file into the build tree and prints
# "COPY    <target>", as the build prints its compiles.
#
# RunCheck(env, alias, prog, argv_prefix=[], want=0, extra_env={}): an alias
# action that runs prog (optionally under a tool such as valgrind) and fails
# the build unless the exit status is `want`. A non-zero `want` makes an
# expected failure: a planted defect that the gate must catch.
#
# What a run prints: one line per program that does what it must
# ("ok   test_streams  [  PASSED  ] 15 test(s)"), its full output kept in its
# log file beside the program (<prog>.<label>.log); the full log of one that does
# not; and, when the run ends, one total line "N passed, M failed" with
# cmocka's own counts summed (a program that is not a cmocka suite counts
# as one). The total is printed from an atexit handler, after everything
# SCons prints itself (nothing, with -Q), so it is the run's last line
# also when scons -k runs on past a failure.
import atexit
import os
import re
import subprocess
import threading

from SCons.Script import Action, AlwaysBuild

_PASSED = re.compile(r'^\[  PASSED  \] (\d+) test\(s\)\.', re.M)
_FAILED = re.compile(r'^\[  FAILED  \] (\d+) test\(s\)', re.M)
_lock = threading.Lock()
_tally = {'passed': 0, 'failed': 0, 'programs': 0}


def _counts(text):
    """cmocka's (passed, failed) summed over the log's groups, or None."""
    passed = [int(n) for n in _PASSED.findall(text)]
    failed = [int(n) for n in _FAILED.findall(text)]
    if not passed and not failed:
        return None
    return sum(passed), sum(failed)


def _total():
    if _tally['programs']:
        print('%d passed, %d failed (%d programs)' % (
            _tally['passed'], _tally['failed'], _tally['programs']), flush=True)


atexit.register(_total)


def _report(name, label, ok, what, text=None, log=None):
    """Count one program and print its line (its log too, when it failed)."""
    with _lock:
        _tally['programs'] += 1
        if text is not None:
            print(text, end='' if text.endswith('\n') or not text else '\n')
        print('%s %s  %s%s%s' % ('ok  ' if ok else 'FAIL', name, what,
                                 '' if label == 'test' else '  (%s)' % label,
                                 '' if ok or not log else '; log: ' + log), flush=True)


def _runner(prog, prefix, want, extra_env, label, log):
    def run(target, source, env):
        e = dict(env['ENV'])
        e.update(extra_env)
        argv = list(prefix) + [prog.abspath]
        with open(log, 'w') as out:
            rc = subprocess.run(argv, env=e, stdout=out, stderr=subprocess.STDOUT).returncode
        text = open(log, errors='replace').read()
        counts = _counts(text) if want == 0 else None
        if want == 0:
            passed, failed = counts if counts else (1 if rc == 0 else 0, 0)
            if rc != 0 and failed == 0:
                failed = 1      # crashed, or failed before cmocka's summary
        else:
            passed, failed = (1, 0) if rc == want else (0, 1)
        with _lock:
            _tally['passed'] += passed
            _tally['failed'] += failed
        if want == 0 and rc == 0:
            # cmocka's own summary words, which scripts grep for.
            _report(prog.name, label, True,
                    '[  PASSED  ] %d test(s)' % passed if counts else 'exit 0')
            return 0
        if want != 0 and rc == want:
            _report(prog.name, label, True, 'must fail: exits %d, the gate bites' % rc)
            return 0
        if want == 0:
            what = 'exited %d%s' % (rc, ', %d of %d tests failed' % (failed, passed + failed)
                                    if counts else '')
        else:
            what = 'exited %d, but the gate must catch it with %d' % (rc, want)
        _report(prog.name, label, False, what, text, log)
        return 1
    return run


_names = set()


def RunCheck(env, alias, prog, prefix=(), want=0, extra_env=None, label=None):
    """Each check is a node of its own under the alias, so that scons -j runs
    checks side by side and scons -k runs on past a failing one."""
    label = label or alias
    name = '%s.%s' % (prog.abspath, label)
    n = 1
    while name + ('' if n == 1 else '-%d' % n) in _names:
        n += 1
    name += '' if n == 1 else '-%d' % n
    _names.add(name)
    act = Action(_runner(prog, prefix, want, extra_env or {}, label, name + '.log'), None)
    check = env.Alias('%s:%s.%s' % (alias, prog.path, name.rsplit('.', 1)[1]), [prog], act)
    AlwaysBuild(check)
    return env.Alias(alias, check)


def _copy(target, source, env):
    import shutil
    shutil.copyfile(source[0].abspath, target[0].abspath)
    return 0


# A file copied into the build tree, printed as the build prints a compile.
CopyQuiet = Action(_copy, 'COPY    $TARGET')
