#!/usr/bin/env python3
"""campaign.py - the systematic fault campaign (SQLite's method, automated).

For each program: run it once cleanly and count the hits of every fault
point (ACLSIM_FAULT_COUNT); then, for every point and every n from 1 to its
hit count, run it again with only the n-th hit failing (ACLSIM_FAULT=p@n),
and again with the n-th and every later hit failing (p@n+), under Valgrind
memcheck, with a timeout. Each case is classified:

  handled         exited by itself (any status < 128), memcheck silent
  crash           killed by a signal, or memcheck saw it die of one
  leak            memcheck found definitely or indirectly lost memory
  memcheck-error  memcheck found an invalid access or similar
  hang            did not finish within the timeout
  unreached       the point was hit fewer than n times in that run

Writes <out>/report.json ({"summary": {...}, "cases": [...]}) and
<out>/report.txt (a table), prints the table, and exits 1 if any case is a
crash, leak, memcheck-error or hang.

usage: campaign.py [--out DIR] [--timeout S] [--jobs N] [--no-valgrind]
                   [--suppressions FILE] PROGRAM [PROGRAM...]
PROGRAM may carry arguments: 'prog --flag'.
"""
import argparse
import concurrent.futures
import json
import os
import shlex
import subprocess
import sys
import tempfile

BAD = ('crash', 'leak', 'memcheck-error', 'hang')
VG_STATUS = 99


def read_counts(path):
    counts = {}
    try:
        with open(path) as f:
            for line in f:
                name, n = line.split()
                counts[name] = int(n)
    except (OSError, ValueError):
        pass
    return counts


def base_env():
    env = dict(os.environ)
    for k in ('ACLSIM_FAULT', 'ACLSIM_FAULT_COUNT', 'FIU_ENABLE', 'FIU_CTRL_FIFO',
              'ACLSIM_LEAK_CHECK', 'ACLSIM_TRACE'):
        env.pop(k, None)
    return env


def run_case(argv, point, n, mode, opts, tmp):
    fd, counts = tempfile.mkstemp(dir=tmp, suffix='.counts')
    os.close(fd)
    env = base_env()
    env['ACLSIM_FAULT'] = '%s@%d%s' % (point, n, '+' if mode == 'persistent' else '')
    env['ACLSIM_FAULT_COUNT'] = counts
    cmd = list(argv)
    if opts.valgrind:
        cmd = ['valgrind', '-q', '--leak-check=full', '--errors-for-leak-kinds=definite,indirect',
               '--error-exitcode=%d' % VG_STATUS] + (
                   ['--suppressions=' + opts.suppressions] if opts.suppressions else []) + cmd
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=opts.timeout, stdin=subprocess.DEVNULL)
        out, status = p.stdout.decode(errors='replace'), p.returncode
    except subprocess.TimeoutExpired as e:
        out, status = (e.output or b'').decode(errors='replace'), None
    hits = read_counts(counts).get(point, 0)
    os.unlink(counts)
    if status is None:
        outcome = 'hang'
    elif status < 0 or status >= 128 or 'Process terminating with default action' in out:
        outcome = 'crash'
    elif status == VG_STATUS and opts.valgrind:
        outcome = 'leak' if ('definitely lost' in out or 'indirectly lost' in out) \
            else 'memcheck-error'
    elif hits < n:
        outcome = 'unreached'
    else:
        outcome = 'handled'
    return {'program': ' '.join(argv), 'point': point, 'n': n, 'mode': mode,
            'outcome': outcome, 'exit': status, 'log': out[-2000:] if outcome in BAD else ''}


def campaign(program, opts, tmp):
    argv = shlex.split(program)
    fd, counts = tempfile.mkstemp(dir=tmp, suffix='.counts')
    os.close(fd)
    env = base_env()
    env['ACLSIM_FAULT_COUNT'] = counts
    clean = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=opts.timeout, stdin=subprocess.DEVNULL)
    hits = read_counts(counts)
    os.unlink(counts)
    if clean.returncode != 0:
        sys.stdout.write(clean.stdout.decode(errors='replace'))
        raise SystemExit('campaign: %s fails without any fault (exit %d)'
                         % (program, clean.returncode))
    if not hits:
        raise SystemExit('campaign: %s reported no fault-point hits; is it linked to aclsim?'
                         % program)
    jobs = [(argv, p, n, mode) for p, h in sorted(hits.items()) if h
            for n in range(1, h + 1) for mode in ('once', 'persistent')]
    with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        return list(pool.map(lambda j: run_case(*j, opts, tmp), jobs))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('programs', nargs='+')
    ap.add_argument('--out', default='build/faultcheck')
    ap.add_argument('--timeout', type=float, default=60)
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 2)
    ap.add_argument('--no-valgrind', dest='valgrind', action='store_false')
    ap.add_argument('--suppressions')
    opts = ap.parse_args()
    os.makedirs(opts.out, exist_ok=True)
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        for prog in opts.programs:
            cases += campaign(prog, opts, tmp)
    summary = {'cases': len(cases), 'programs': opts.programs,
               'points': len({c['point'] for c in cases})}
    for o in ('handled', 'unreached') + BAD:
        summary[o] = sum(c['outcome'] == o for c in cases)
    with open(os.path.join(opts.out, 'report.json'), 'w') as f:
        json.dump({'summary': summary, 'cases': cases}, f, indent=1)
    lines = ['%-34s %3s %-10s %-14s %5s  %s' % ('point', 'n', 'mode', 'outcome', 'exit',
                                                 'program')]
    for c in cases:
        lines.append('%-34s %3d %-10s %-14s %5s  %s' % (c['point'], c['n'], c['mode'],
                                                       c['outcome'], c['exit'], c['program']))
    lines.append('')
    lines.append('%d cases over %d points: ' % (summary['cases'], summary['points']) +
                 ', '.join('%s %d' % (o, summary[o]) for o in ('handled', 'unreached') + BAD))
    text = '\n'.join(lines) + '\n'
    with open(os.path.join(opts.out, 'report.txt'), 'w') as f:
        f.write(text)
    sys.stdout.write(text)
    bad = [c for c in cases if c['outcome'] in BAD]
    for c in bad[:5]:
        sys.stdout.write('\n--- %s@%d (%s): %s, exit %s ---\n%s\n'
                         % (c['point'], c['n'], c['mode'], c['outcome'], c['exit'], c['log']))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
