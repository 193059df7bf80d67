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

With --no-valgrind the cases run bare: only crash, hang, handled and
unreached can occur (summary "valgrind": false).

Writes <out>/report.json ({"summary": {...}, "cases": [...]}) and
<out>/report.txt (a table), prints the table, and exits 1 if any case is a
crash, leak, memcheck-error or hang.

Scale: --jobs N runs N cases at a time (the clean counting runs of all
programs first, once each, then every case of every program in one pool).
--shard K/N runs only the K-th of N slices of the case list: the cases of
all programs (programs by position, not path), dealt round-robin in the
order of a hash of each, so every machine that sees the same clean runs
cuts the same slices, of sizes within one of each other. A shard
report also records the slice, the whole campaign's case count and a digest
of its case list; --merge checks them (every slice once, same campaign, no
case twice) and writes the report one run would have written.

Distinct paths: --distinct-paths takes, of each point's hits, only those
whose call path (a hash of the stack that reached the point, recorded by
the counting run) no earlier hit of that point took: hit 7 of a point
reached from the same line as hit 3 fails the same way, so the campaign
keeps one case per place a fault can strike and skips the repeats.

usage: campaign.py [--out DIR] [--timeout S] [--jobs N] [--no-valgrind]
                   [--distinct-paths] [--suppressions FILE] [--shard K/N]
                   PROGRAM [PROGRAM...]
       campaign.py --merge SHARD.json [SHARD.json...] [--out DIR]
PROGRAM may carry arguments: 'prog --flag'.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time

BAD = ('crash', 'leak', 'memcheck-error', 'hang')
OUTCOMES = ('handled', 'unreached') + BAD
MODES = ('once', 'persistent')
VG_STATUS = 99


class MergeError(Exception):
    """Shard reports that do not add up to one campaign."""


def parse_shard(text):
    """'K/N' -> (K, N) with 1 <= K <= N; ValueError naming the option otherwise."""
    m = re.fullmatch(r'(\d+)/(\d+)', text or '')
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise ValueError('shard=%s is not a slice: use shard=K/N with 1 <= K <= N '
                         '(e.g. shard=1/2 and shard=2/2)' % text)
    return int(m.group(1)), int(m.group(2))


def read_counts(path, paths=None):
    """{point: hits} from an ACLSIM_FAULT_COUNT file; with a dict `paths`,
    also {point: [path hash of hit 1, of hit 2, ...]} into it."""
    counts = {}
    try:
        with open(path) as f:
            for line in f:
                words = line.split()
                if words and words[0] == 'path':
                    if paths is not None and len(words) >= 2:
                        paths[words[1]] = words[2:]
                    continue
                name, n = words
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


def valgrind_prefix(opts):
    # --vgdb=no: no gdbserver FIFOs in /tmp per case (a campaign never attaches).
    return ['valgrind', '-q', '--vgdb=no', '--leak-check=full',
            '--errors-for-leak-kinds=definite,indirect', '--error-exitcode=%d' % VG_STATUS] + (
                ['--suppressions=' + opts.suppressions] if opts.suppressions else [])


def run_case(argv, point, n, mode, opts, tmp):
    fd, counts = tempfile.mkstemp(dir=tmp, suffix='.counts')
    os.close(fd)
    env = base_env()
    env['ACLSIM_FAULT'] = '%s@%d%s' % (point, n, '+' if mode == 'persistent' else '')
    env['ACLSIM_FAULT_COUNT'] = counts
    cmd = (valgrind_prefix(opts) if opts.valgrind else []) + list(argv)
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


def count_hits(program, opts, tmp):
    """The clean counting run: (argv, {point: hits}, seconds); exits on failure."""
    argv = shlex.split(program)
    fd, counts = tempfile.mkstemp(dir=tmp, suffix='.counts')
    os.close(fd)
    env = base_env()
    env['ACLSIM_FAULT_COUNT'] = counts
    t0 = time.monotonic()
    clean = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=opts.timeout, stdin=subprocess.DEVNULL)
    seconds = time.monotonic() - t0
    paths = {}
    hits = read_counts(counts, paths)
    os.unlink(counts)
    if opts.distinct_paths:
        hits = {p: firsts(paths.get(p, []), h) for p, h in hits.items()}
    if clean.returncode != 0:
        sys.stdout.write(clean.stdout.decode(errors='replace'))
        raise SystemExit('campaign: %s fails without any fault (exit %d)'
                         % (program, clean.returncode))
    if not hits:
        raise SystemExit('campaign: %s reported no fault-point hits; is it linked to aclsim?'
                         % program)
    return argv, hits, seconds


def firsts(path_hashes, hits):
    """The hits (1-based) worth a case when one per distinct call path is
    enough: each hit whose path no earlier hit of the point took (all of
    them when the paths are not known)."""
    if len(path_hashes) != hits:
        return list(range(1, hits + 1))
    seen, keep = set(), []
    for n, h in enumerate(path_hashes, 1):
        if h not in seen:
            seen.add(h)
            keep.append(n)
    return keep


def plan(hits_by_program):
    """Every case of the campaign as (program position, point, n, mode), in
    report order: programs as given, points by name, n rising, once first.
    A point's hits are a count (every n up to it) or a list of the n's to
    take (--distinct-paths)."""
    def ns(h):
        return h if isinstance(h, list) else range(1, h + 1)
    return [(i, p, n, mode) for i, hits in enumerate(hits_by_program)
            for p, h in sorted(hits.items()) if h
            for n in ns(h) for mode in MODES]


def digest(keys):
    """A digest of a case list that names programs by position, not path."""
    return hashlib.sha256(json.dumps([list(k) for k in keys]).encode()).hexdigest()


def select(keys, k, n):
    """Shard k of n (1-based), in report order. The cases are dealt round-robin
    in the order of a hash of each, so the slices differ in size by one at
    most and none is all one mode (plain dealing would give shard 1/2 every
    once case and 2/2 every persistent one)."""
    dealt = sorted(keys, key=lambda key: hashlib.sha256(json.dumps(key).encode()).digest())
    mine = set(dealt[k - 1::n])
    return [key for key in keys if key in mine]


def case_key(c, programs):
    """A report's case as its plan() key."""
    if c['mode'] not in MODES:
        raise ValueError('mode %r' % c['mode'])
    return (programs.index(c['program']), c['point'], c['n'], c['mode'])


def order_key(key):
    return key[:3] + (MODES.index(key[3]),)


def summarize(cases, programs, valgrind):
    summary = {'cases': len(cases), 'programs': programs,
               'points': len({c['point'] for c in cases})}
    for o in OUTCOMES:
        summary[o] = sum(c['outcome'] == o for c in cases)
    summary['valgrind'] = valgrind
    return summary


class Progress:
    """What ran so far, told on stderr as it goes (a campaign under memcheck
    runs for many minutes) and kept for the summary of an interrupted run."""

    def __init__(self):
        self.t0 = time.monotonic()
        self.cases = []
        self.total = 0
        self.last = 0.0

    def say(self, text):
        sys.stderr.write('campaign: %s\n' % text)
        sys.stderr.flush()

    def clean(self, done, total):
        self.say('clean runs %d / %d done (counting fault-point hits), %.0f s'
                 % (done, total, time.monotonic() - self.t0))

    def case(self, c):
        self.cases.append(c)
        now = time.monotonic()
        done = len(self.cases)
        if done == self.total or now - self.last >= 2.0 or c['outcome'] in BAD:
            self.last = now
            found = sum(x['outcome'] in BAD for x in self.cases)
            self.say('%d / %d cases done, %.0f s, %d finding(s) so far%s'
                     % (done, self.total, now - self.t0, found,
                        ' (%s@%d: %s)' % (c['point'], c['n'], c['outcome'])
                        if c['outcome'] in BAD else ''))


def campaign(opts, progress):
    """Runs the campaign (or its shard): (cases, shard info or None)."""
    jobs = max(1, opts.jobs)
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        progress.clean(0, len(opts.programs))
        clean = []
        for i, r in enumerate(pool.map(lambda prog: count_hits(prog, opts, tmp),
                                       opts.programs)):
            clean.append(r)
            progress.clean(i + 1, len(opts.programs))
        keys = plan([hits for _, hits, _ in clean])
        mine = select(keys, *opts.shard) if opts.shard else keys
        progress.total = len(mine)
        # Longest first: a program's clean run predicts its cases' length, so
        # the pool does not end with one long case running alone.
        order = sorted(range(len(mine)), key=lambda j: -clean[mine[j][0]][2])
        futures = {j: pool.submit(run_case, clean[mine[j][0]][0], *mine[j][1:], opts, tmp)
                   for j in order}
        try:
            for f in concurrent.futures.as_completed(futures.values()):
                progress.case(f.result())
        except BaseException:
            for f in futures.values():
                f.cancel()
            raise
        cases = [futures[j].result() for j in range(len(mine))]
    shard = None
    if opts.shard:
        shard = {'k': opts.shard[0], 'n': opts.shard[1], 'total': len(keys),
                 'digest': digest(keys)}
    return cases, shard


def merge_reports(reports):
    """reports: [(name, report dict)] of shard reports -> one report, or MergeError."""
    if not reports:
        raise MergeError('no shard reports given')
    for name, r in reports:
        if not isinstance(r.get('shard'), dict):
            raise MergeError('%s is not a shard report (it has no "shard"; run the campaign '
                             'with --shard K/N, or scons faultcheck shard=K/N)' % name)
    name0, r0 = reports[0]
    s0 = r0['shard']
    for name, r in reports[1:]:
        s = r['shard']
        if s['n'] != s0['n']:
            raise MergeError('%s is shard %d/%d but %s is shard %d/%d: shards of different '
                             'splits cannot be merged' % (name, s['k'], s['n'], name0,
                                                          s0['k'], s0['n']))
        if (s['total'], s['digest']) != (s0['total'], s0['digest']):
            raise MergeError('%s and %s come from different campaigns (%d and %d cases, or '
                             'different case lists): their clean runs differ'
                             % (name, name0, s['total'], s0['total']))
        if r['summary']['programs'] != r0['summary']['programs']:
            raise MergeError('%s and %s name different programs: %s vs %s'
                             % (name, name0, r['summary']['programs'], r0['summary']['programs']))
        if r['summary'].get('valgrind', True) != r0['summary'].get('valgrind', True):
            raise MergeError('%s and %s differ in valgrind: one ran under memcheck, the '
                             'other without' % (name, name0))
    seen = {}
    for name, r in reports:
        k = r['shard']['k']
        if k in seen:
            raise MergeError('shard %d/%d is given twice: %s and %s'
                             % (k, s0['n'], seen[k], name))
        seen[k] = name
    missing = [k for k in range(1, s0['n'] + 1) if k not in seen]
    if missing:
        raise MergeError('shard%s%s missing (got %s)'
                         % (' ' if len(missing) == 1 else 's ',
                            ', '.join('%d/%d' % (k, s0['n']) for k in missing)
                            + (' is' if len(missing) == 1 else ' are'),
                            ', '.join(name for name, _ in reports)))
    programs = r0['summary']['programs']
    owner, cases = {}, []
    for name, r in reports:
        for c in r['cases']:
            try:
                key = case_key(c, programs)
            except (KeyError, ValueError) as e:
                raise MergeError('%s has a case that is not of this campaign: %s (%s)'
                                 % (name, c, e))
            if key in owner:
                raise MergeError('case %s@%d (%s) of %s is in %s and in %s'
                                 % (c['point'], c['n'], c['mode'], c['program'], owner[key],
                                    name))
            owner[key] = name
            cases.append((key, c))
    cases.sort(key=lambda kc: order_key(kc[0]))
    if len(cases) != s0['total'] or digest([k for k, _ in cases]) != s0['digest']:
        raise MergeError('the shards hold %d cases, not the campaign\'s %d (or other ones)'
                         % (len(cases), s0['total']))
    cases = [c for _, c in cases]
    return {'summary': summarize(cases, programs, r0['summary'].get('valgrind', True)),
            'cases': cases,
            'merged': {'shards': s0['n'], 'reports': [name for name, _ in reports],
                       'runs': [r.get('run') for _, r in reports]}}


def write_report(out, report, notes=()):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, 'report.json'), 'w') as f:
        json.dump(report, f, indent=1)
    summary, cases = report['summary'], report['cases']
    lines = ['%-34s %3s %-10s %-14s %5s  %s' % ('point', 'n', 'mode', 'outcome', 'exit',
                                                 'program')]
    for c in cases:
        lines.append('%-34s %3d %-10s %-14s %5s  %s' % (c['point'], c['n'], c['mode'],
                                                       c['outcome'], c['exit'], c['program']))
    lines.append('')
    lines += list(notes)
    if not summary.get('valgrind', True):
        lines.append('without Valgrind: leak and memcheck-error cannot be detected')
    lines.append('%d cases over %d points: ' % (summary['cases'], summary['points']) +
                 ', '.join('%s %d' % (o, summary[o]) for o in OUTCOMES))
    text = '\n'.join(lines) + '\n'
    with open(os.path.join(out, 'report.txt'), 'w') as f:
        f.write(text)
    sys.stdout.write(text)
    bad = [c for c in cases if c['outcome'] in BAD]
    for c in bad[:5]:
        sys.stdout.write('\n--- %s@%d (%s): %s, exit %s ---\n%s\n'
                         % (c['point'], c['n'], c['mode'], c['outcome'], c['exit'], c['log']))
    return 1 if bad else 0


def shard_arg(text):
    try:
        return parse_shard(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('programs', nargs='*')
    ap.add_argument('--out', default='build/faultcheck')
    ap.add_argument('--timeout', type=float, default=60)
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 2)
    ap.add_argument('--no-valgrind', dest='valgrind', action='store_false')
    ap.add_argument('--suppressions')
    ap.add_argument('--distinct-paths', action='store_true',
                    help='one case per distinct call path of each point, not per hit')
    ap.add_argument('--shard', type=shard_arg, help='K/N: run only the K-th of N slices')
    ap.add_argument('--merge', nargs='+', metavar='SHARD.json',
                    help='merge shard reports into <out>/report.json instead of running')
    opts = ap.parse_args(argv)
    if opts.merge:
        if opts.programs or opts.shard:
            ap.error('--merge takes shard reports, not programs or --shard')
        try:
            reports = []
            for path in opts.merge:
                try:
                    with open(path) as f:
                        reports.append((path, json.load(f)))
                except (OSError, ValueError) as e:
                    raise MergeError('cannot read %s: %s' % (path, e))
            report = merge_reports(reports)
        except MergeError as e:
            sys.stderr.write('campaign: merge: %s\n' % e)
            return 2
        return write_report(opts.out, report, ['merged %d shards: %s' % (
            report['merged']['shards'], ' '.join(opts.merge))])
    if not opts.programs:
        ap.error('no PROGRAM given')
    t0 = time.monotonic()
    progress = Progress()
    # SIGTERM (a CI timeout, `timeout`) ends the run as Ctrl-C does: with
    # the summary of the cases that ran.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        cases, shard = campaign(opts, progress)
    except KeyboardInterrupt:
        done = progress.cases
        summary = summarize(done, list(opts.programs), opts.valgrind)
        progress.say('stopped after %.0f s: %d of %d cases ran: ' % (
            time.monotonic() - t0, len(done), progress.total) +
            ', '.join('%s %d' % (o, summary[o]) for o in OUTCOMES))
        for c in [c for c in done if c['outcome'] in BAD][:5]:
            progress.say('finding: %s@%d (%s): %s, exit %s, %s'
                         % (c['point'], c['n'], c['mode'], c['outcome'], c['exit'],
                            c['program']))
        return 130
    programs = list(opts.programs)
    report = {'summary': summarize(cases, programs, opts.valgrind), 'cases': cases,
              'run': {'jobs': opts.jobs, 'seconds': round(time.monotonic() - t0, 3),
                      'valgrind': opts.valgrind,
                      'shard': '%d/%d' % opts.shard if opts.shard else None}}
    notes = []
    if shard:
        report['shard'] = shard
        notes.append('shard %d/%d: %d of the campaign\'s %d cases'
                     % (shard['k'], shard['n'], len(cases), shard['total']))
    status = write_report(opts.out, report, notes)
    if shard:
        # A copy named after the slice, for collecting shards in one place.
        with open(os.path.join(opts.out, 'shard-%d-of-%d.json' % (shard['k'], shard['n'])),
                  'w') as f:
            json.dump(report, f, indent=1)
    return status


if __name__ == '__main__':
    sys.exit(main())
