#!/usr/bin/env python3
"""aclsim-replay - will this workload fit? Replays an allocation trace
through an allocator on a simulated Ascend NPU and says where it first runs
out of memory.

    aclsim-replay [--soc NAME[,NAME...]] [--allocator NAME|PATH] [--hbm BYTES]
                  [--json] [--memview OUT.html] [--keep-going] TRACE

TRACE: a torch / torch_npu memory snapshot (pickle), an RMM
logging_resource_adaptor CSV, an aclsim trace (ACLSIM_TRACE) or snapshot
(ACLSIM_SNAPSHOT); readers.py says how each is read. Each SoC (default
Ascend910B1; several give a side-by-side table) runs in a child
(aclsim-replay-driver, with ACLSIM_SOC and ACLSIM_HBM_BYTES set). Allocators:
plain (aclrtMalloc/aclrtFree, the default), caching, pool, expandable, or a
shared library implementing aclsim/replay.h.

Exit status: 0 every allocation succeeded on every SoC, 3 one failed, 2 the
trace cannot be read (the message names the file and the entry), 1 a bad
option or a failure of the tool itself.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
for d in (os.path.join(HERE, '..', 'share', 'aclsim', 'replay'), HERE,
          os.path.join(HERE, '..')):
    if os.path.isfile(os.path.join(d, 'readers.py')):
        sys.path.insert(0, d)
        break
import readers  # noqa: E402

GiB = float(1 << 30)


class Usage(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message):  # exit 2 means an unreadable trace here
        raise Usage(message)


def parse(argv):
    p = Parser(prog='aclsim-replay', description=__doc__.split('\n\n')[0])
    p.add_argument('--soc', default='Ascend910B1',
                   help='SoC profile(s), comma-separated (default Ascend910B1)')
    p.add_argument('--allocator', default='plain',
                   help='plain, caching, pool, expandable, or a shared library path')
    p.add_argument('--hbm', type=int, help='device memory in bytes (ACLSIM_HBM_BYTES)')
    p.add_argument('--json', action='store_true', help='one JSON object on stdout')
    p.add_argument('--memview', metavar='OUT.html',
                   help='the memory picture of the (first SoC\'s) replay')
    p.add_argument('--keep-going', action='store_true',
                   help='go on after a failed allocation (default: the replay stops there)')
    p.add_argument('trace')
    return p.parse_args(argv)


def human(n):
    if n is None:
        return '-'
    for unit, div in (('GiB', GiB), ('MiB', float(1 << 20)), ('KiB', 1024.0)):
        if abs(n) >= div:
            return '%.2f %s' % (n / div, unit)
    return '%d B' % n


def run_driver(driver, events, soc, args, ndev, trace_json=None):
    env = dict(os.environ, ACLSIM_SOC=soc, ACLSIM_DEVICE_COUNT=str(ndev))
    for k in ('ACLSIM_TRACE', 'ACLSIM_SNAPSHOT', 'ACLSIM_LEAK_CHECK'):
        env.pop(k, None)
    if args.hbm:
        env['ACLSIM_HBM_BYTES'] = str(args.hbm)
    if trace_json:
        env['ACLSIM_TRACE'] = trace_json
    cmd = [driver, '--allocator', args.allocator] + (['--keep-going'] if args.keep_going else [])
    r = subprocess.run(cmd + [events], env=env, stdout=subprocess.PIPE)
    if r.returncode != 0:
        raise RuntimeError('the replay on %s did not run (exit %d)' % (soc, r.returncode))
    return json.loads(r.stdout)


def summarise(trace, soc, out):
    """One run's figures: the worst device's peaks, the first failure."""
    devs = out['devices']
    run = {'soc': soc, 'allocator': out['allocator'], 'devices': devs,
           'peak_requested': max([d['peak_requested'] for d in devs] or [0]),
           'peak_reserved': max([d['peak_reserved'] for d in devs] or [0]),
           'hbm_free': min([d['hbm_free'] for d in devs] or [0]), 'first_failure': None}
    top = max(devs, key=lambda d: d['peak_reserved'], default=None)
    res = top['peak_reserved'] if top else 0
    if top and res:
        alloc = top['allocated_at_peak']
        cached = top['cached_at_peak']
        run['fragmentation'] = (res - alloc) / float(res)
        run['rounding_loss'] = res - alloc - (cached or 0)
        run['cached_at_peak'] = cached
        run['gap_sq_ratio'] = (top['gap_sq_at_peak'] / float(res) ** 2
                               if top['gap_sq_at_peak'] is not None else None)
        run['peak_index'] = top['peak_index']
    else:
        run.update(fragmentation=0.0, rounding_loss=0, cached_at_peak=None, gap_sq_ratio=None,
                   peak_index=None)
    for d in devs:
        f = d['first_failure']
        if f:
            msg = (f.get('message') or '').strip().splitlines()
            msg = re.sub(r'^\[PID: \d+\] \S+ ', '', msg[0]) if msg else ''
            f = dict(f, device=d['device'], stream=trace.streams[f['stream']], message=msg,
                     frames=trace.frames(d['device'], f['index']))
            f['pool'] = trace.pools[f['pool']] if f['pool'] < len(trace.pools) else None
            if isinstance(f['pool'], tuple):
                f['pool'] = list(f['pool'])
            run['first_failure'] = f
            break
    return run


def frame_text(f):
    return '%s:%s %s' % (f.get('filename', '?'), f.get('line', '?'), f.get('name', '?'))


def table(trace, runs, out):
    p = lambda s='': print(s, file=out)
    p('aclsim-replay: %s (%s: %d entries on %d device%s), allocator %s'
      % (trace.path, trace.format, trace.entries, len(trace.devices),
         '' if len(trace.devices) == 1 else 's', runs[0]['allocator']))
    head = ('SoC', 'free HBM', 'peak requested', 'peak reserved', 'frag@peak', 'gap^2',
            'rounding', 'result')
    rows = []
    for r in runs:
        f = r['first_failure']
        rows.append((r['soc'], human(r['hbm_free']), human(r['peak_requested']),
                     human(r['peak_reserved']), '%.1f%%' % (100 * r['fragmentation']),
                     '-' if r['gap_sq_ratio'] is None else '%.3f' % r['gap_sq_ratio'],
                     human(r['rounding_loss']),
                     'fits' if not f else 'OUT OF MEMORY at event %d' % f['index']))
    w = [max(len(str(x[i])) for x in rows + [head]) for i in range(len(head))]
    for row in [head] + rows:
        p('  '.join(str(c).ljust(w[i]) for i, c in enumerate(row)).rstrip())
    for r in runs:
        f = r['first_failure']
        if f:
            p('%s: device %d, event %d: %s requested on stream %s%s failed%s'
              % (r['soc'], f['device'], f['index'], human(f['size']), f['stream'],
                 '' if not f['pool'] else ' (pool %s)' % (f['pool'],),
                 ': ' + f['message'] if f['message'] else ''))
            for fr in f['frames'][:8]:
                p('    ' + frame_text(fr))
    p('frag@peak: (reserved - allocated) / reserved when reserved peaked; gap^2: sum of squared '
      'free gaps / reserved^2 (memory_viz); rounding: reserved - allocated - cached at that peak')


def main(argv):
    try:
        args = parse(argv)
    except Usage as e:
        print('aclsim-replay: %s (aclsim-replay --help)' % e, file=sys.stderr)
        return 1
    driver = os.path.join(HERE, 'aclsim-replay-driver')
    if not os.access(driver, os.X_OK):
        print('aclsim-replay: no %s beside this script' % driver, file=sys.stderr)
        return 1
    tty = sys.stderr.isatty()
    if tty:
        print('aclsim-replay: reading %s ...' % args.trace, file=sys.stderr, end='\r')
    try:
        trace = readers.read(args.trace)
    except readers.TraceError as e:
        print('aclsim-replay: %s' % e, file=sys.stderr)
        return 2
    socs = [s for s in args.soc.split(',') if s]
    ndev = 1 + max(trace.devices) if trace.devices else 1
    runs = []
    with tempfile.TemporaryDirectory(prefix='aclsim-replay-') as tmp:
        events = os.path.join(tmp, 'events.bin')
        readers.write(trace, events)
        for i, soc in enumerate(socs):
            tj = os.path.join(tmp, 'trace.json') if args.memview and i == 0 else None
            try:
                out = run_driver(driver, events, soc, args, ndev, tj)
            except (RuntimeError, ValueError) as e:
                print('aclsim-replay: %s' % e, file=sys.stderr)
                return 1
            runs.append(summarise(trace, soc, out))
            if tj:
                mv = os.path.join(os.path.dirname(readers.__file__), 'memview.py')
                if not os.path.isfile(mv):
                    mv = os.path.join(HERE, '..', 'memview.py')
                r = subprocess.run([sys.executable, mv, tj, '-o', args.memview],
                                   stdout=subprocess.DEVNULL)
                if r.returncode != 0:
                    print('aclsim-replay: the memory picture was not written', file=sys.stderr)
                    return 1
    failed = any(r['first_failure'] for r in runs)
    if args.json:
        doc = {'trace': args.trace, 'format': trace.format, 'events': trace.entries,
               'device_count': len(trace.devices), 'streams': len(trace.streams)}
        doc.update(runs[0])
        doc['runs'] = runs
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write('\n')
    else:
        table(trace, runs, sys.stdout)
    return 3 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
