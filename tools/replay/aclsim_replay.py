#!/usr/bin/env python3
"""aclsim-replay - will this workload fit? Replays an allocation trace
through an allocator on a simulated Ascend NPU and says what it needs and
where it first runs out of memory.

    aclsim-replay [--soc NAME[,NAME...]] [--allocator NAME|PATH]
                  [--alloc-conf CONF] [--hbm BYTES] [--json]
                  [--snapshot OUT.pickle] [--keep-going]
                  [--max-bytes N] [--timeout S] TRACE

TRACE: a torch / torch_npu memory snapshot (pickle), an RMM
logging_resource_adaptor CSV, an aclsim trace (ACLSIM_TRACE) or snapshot
(ACLSIM_SNAPSHOT); readers.py says how each is read. Each SoC (default
Ascend910B1; several give a side-by-side table) runs in a child
(aclsim-replay-driver, with ACLSIM_SOC and ACLSIM_HBM_BYTES set). Allocators:
plain (aclrtMalloc/aclrtFree, the default), caching (torch_npu's caching
allocator, PYTORCH_NPU_ALLOC_CONF or --alloc-conf), expandable (the same
with expandable segments), pool, or a shared library implementing
aclsim/replay.h.

Exit status: 0 every request was granted on every SoC, 3 one was not, 2 the
input cannot be used (a trace that cannot be read, a --soc that names no
profile; one line names the file and the entry), 1 a bad option or a
failure of the tool itself.
"""
import argparse
import json
import os
import pickle
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
DRIVER = os.path.join(HERE, 'aclsim-replay-driver')


class Usage(Exception):
    """A bad option: exit 1."""


class Unusable(Exception):
    """Input that cannot be used: exit 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message):  # exit 2 means unusable input here
        raise Usage(message)


def parse(argv):
    p = Parser(prog='aclsim-replay', description=__doc__.split('\n\n')[0])
    p.add_argument('--soc', default='Ascend910B1',
                   help='SoC profile(s), comma-separated (default Ascend910B1)')
    p.add_argument('--allocator', default='plain',
                   help='plain, caching, expandable, pool, or a shared library path')
    p.add_argument('--alloc-conf', metavar='CONF',
                   help='PYTORCH_NPU_ALLOC_CONF for caching and expandable '
                        '(default: the environment\'s)')
    p.add_argument('--hbm', type=int, help='device memory in bytes (ACLSIM_HBM_BYTES)')
    p.add_argument('--json', action='store_true', help='one JSON object on stdout')
    p.add_argument('--snapshot', metavar='OUT.pickle',
                   help='the (first SoC\'s) replayed allocator as a torch memory snapshot')
    p.add_argument('--memview', metavar='OUT.html', help=argparse.SUPPRESS)
    p.add_argument('--keep-going', action='store_true',
                   help='after a request is refused, go on asking the allocator '
                        '(default: it gets no more)')
    p.add_argument('--max-bytes', type=int, default=readers.MAX_BYTES,
                   help='read at most this much of the trace (default 4 GiB)')
    p.add_argument('--timeout', type=float, default=readers.TIMEOUT,
                   help='seconds to wait for a trace that is not a file (default 60)')
    p.add_argument('trace')
    a = p.parse_args(argv)
    if a.memview:
        raise Usage('--memview was retired: write --snapshot OUT.pickle and open it in '
                    'memory_viz (pytorch.org/memory_viz)')
    if a.hbm is not None and a.hbm <= 0:
        raise Usage('--hbm %d: a device needs some memory' % a.hbm)
    if a.max_bytes <= 0 or not a.timeout > 0:
        raise Usage('--max-bytes and --timeout take positive numbers')
    return a


def human(n):
    if n is None:
        return '-'
    for unit, div in (('GiB', GiB), ('MiB', float(1 << 20)), ('KiB', 1024.0)):
        if abs(n) >= div:
            return '%.2f %s' % (n / div, unit)
    return '%d B' % n


def run(cmd, env=None):
    try:
        return subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    except OSError as e:
        raise RuntimeError('%s: %s' % (cmd[0], e.strerror or e))


def profiles():
    r = run([DRIVER, '--profiles'])
    names = r.stdout.split()
    if r.returncode != 0 or not names:
        raise RuntimeError('the SoC profiles cannot be listed (%s --profiles)' % DRIVER)
    return names


def distance(a, b):
    a, b = a.lower(), b.lower()
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def nearest(name, names):
    """The profile a misspelt name most likely means."""
    low = name.lower()
    inside = [n for n in names if low and low in n.lower()]
    if len(inside) == 1:
        return inside[0]
    return min(names, key=lambda n: (distance(name, n), n))


def socs_of(arg):
    socs = [s.strip() for s in arg.split(',') if s.strip()]
    if not socs:
        raise Unusable('--soc %r names no SoC profile (e.g. --soc Ascend910B1)' % arg)
    names = profiles()
    exact = {n.lower(): n for n in names}
    out = []
    for s in socs:
        if s.lower() not in exact:
            raise Unusable('--soc %s: no such SoC profile; did you mean %s? (profiles: %s)'
                           % (s[:60], nearest(s, names), ', '.join(names)))
        out.append(exact[s.lower()])
    return out


def clean(msg):
    """A CANN message in one line: no [PID ...] stamp, no Solution or TraceBack tail."""
    lines = (msg or '').strip().splitlines()
    first = lines[0].strip() if lines else ''
    return re.sub(r'^\[PID: \d+\] \S+ ', '', first)


def run_driver(events, soc, args, ndev, record=None):
    env = dict(os.environ, ACLSIM_SOC=soc, ACLSIM_DEVICE_COUNT=str(ndev))
    for k in ('ACLSIM_TRACE', 'ACLSIM_SNAPSHOT', 'ACLSIM_LEAK_CHECK', 'ACLSIM_HBM_BYTES'):
        env.pop(k, None)
    if args.hbm:
        env['ACLSIM_HBM_BYTES'] = str(args.hbm)
    if args.alloc_conf is not None:
        env['PYTORCH_NPU_ALLOC_CONF'] = args.alloc_conf
    cmd = [DRIVER, '--allocator', args.allocator] + (['--keep-going'] if args.keep_going else [])
    cmd += ['--record', record] if record else []
    r = run(cmd + [events], env)
    if r.returncode != 0 or not r.stdout.startswith('{'):
        why = [clean(l) for l in r.stderr.splitlines() if l.startswith('aclsim-replay: ')]
        why = why[-1][len('aclsim-replay: '):] if why else 'exit %d' % r.returncode
        if 'ACLSIM_HBM_BYTES' in why:
            raise Unusable('--hbm %d: %s' % (args.hbm, why.split('is invalid: ')[-1]))
        raise RuntimeError('the replay on %s did not run: %s' % (soc, why))
    return json.loads(r.stdout)


def pool_id(trace, n):
    p = trace.pools[n] if 0 <= n < len(trace.pools) else None
    return list(p) if isinstance(p, tuple) else p


def summarise(trace, soc, out):
    """One run's figures: the worst device's, the first failure."""
    devs = out['devices']
    for d in devs:
        d['events'] = len(trace.devices.get(d['device'], []))
        f = d['first_failure']
        if f:
            frames = trace.frames(d['device'], f['index'])
            f.update(device=d['device'], stream=trace.streams[f['stream']],
                     pool=pool_id(trace, f['pool']), message=clean(f['message']),
                     frames=[x for x in frames if readers.shown(x)],
                     user_frame=readers.user_frame(frames))
    run = {'soc': soc, 'allocator': out['allocator'], 'devices': devs,
           'events': sum(d['events'] for d in devs),
           'hbm_total': min(d['hbm_total'] for d in devs),
           'hbm_free': min(d['hbm_free'] for d in devs),
           'peak_requested': max(d['peak_requested'] for d in devs),
           'peak_reserved': max(d['peak_reserved'] for d in devs),
           'first_failure': next((d['first_failure'] for d in devs if d['first_failure']), None)}
    top = max(devs, key=lambda d: (d['allocated_at_peak'], d['reserved_at_peak']))
    res = top['reserved_at_peak']
    run['peak_index'] = top['peak_index'] if top['allocated_at_peak'] else None
    if res:
        alloc, cached = top['allocated_at_peak'], top['cached_at_peak']
        run['fragmentation'] = (res - alloc) / float(res)
        run['rounding_loss'] = res - alloc - (cached or 0)
        run['cached_at_peak'] = cached
        run['gap_sq_ratio'] = (top['gap_sq_at_peak'] / float(res) ** 2
                               if top['gap_sq_at_peak'] is not None else None)
    else:
        run.update(fragmentation=None, rounding_loss=None, cached_at_peak=None,
                   gap_sq_ratio=None)
    return run


def frame_text(f):
    return '%s:%s %s' % (f.get('filename', '?'), f.get('line', '?'), f.get('name', '?'))


def table(trace, runs, out):
    p = lambda s='': print(s, file=out)
    p('aclsim-replay: %s (%s: %d entries on %d device%s), allocator %s'
      % (trace.path, trace.format, trace.entries, max(1, len(trace.devices)),
         '' if len(trace.devices) <= 1 else 's', runs[0]['allocator']))
    head = ('SoC', 'free HBM', 'peak requested', 'peak reserved', 'frag@peak', 'gap^2',
            'rounding', 'result')
    rows = []
    for r in runs:
        f = r['first_failure']
        g = r['gap_sq_ratio']
        rows.append((r['soc'], human(r['hbm_free']), human(r['peak_requested']),
                     human(r['peak_reserved']),
                     '-' if r['fragmentation'] is None else '%.1f%%' % (100 * r['fragmentation']),
                     '-' if g is None else '%.3g' % g, human(r['rounding_loss']),
                     'fits' if not f else 'OUT OF MEMORY at event %d' % f['index']))
    w = [max(len(str(x[i])) for x in rows + [head]) for i in range(len(head))]
    for row in [head] + rows:
        p('  '.join(str(c).ljust(w[i]) for i, c in enumerate(row)).rstrip())
    for r in runs:
        f = r['first_failure']
        if not f:
            continue
        p('%s: device %d, event %d: %s requested on stream %s%s with %s granted: refused%s'
          % (r['soc'], f['device'], f['index'], human(f['size']), f['stream'],
             '' if f['pool'] is None else ' (pool %s)' % (f['pool'],),
             human(f['granted']), ': ' + f['message'] if f['message'] else ''))
        p('    the workload needs %s at its peak; %s holds %s'
          % (human(r['peak_requested']), r['soc'], human(r['hbm_free'])))
        shown = ([f['user_frame']] if f['user_frame'] else []) + \
            [x for x in f['frames'] if x is not f['user_frame']]
        for fr in shown[:8]:
            p('    ' + frame_text(fr))
    p('peak requested: the most the workload held at once, granted or not; frag@peak: '
      '(reserved - allocated) / reserved at the peak of use; gap^2: sum of squared free gaps / '
      'reserved^2 (memory_viz); rounding: reserved - allocated - cached at that peak')


def write_outputs(trace, record, args, run0):
    """--snapshot from the driver's record of the first SoC."""
    devs, cur = {}, None
    with open(record) as f:
        for line in f:
            w = line.split()
            if w[0] == 'D':
                cur = devs.setdefault(int(w[1]), {'trace': [], 'segments': [], 'device': int(w[1])})
            elif w[0] == 'E':
                action, index, addr, size, stream, pool, reserved = w[1], int(w[2]), *map(int, w[3:])
                e = {'action': action, 'addr': addr, 'size': size,
                     'stream': trace.streams[stream], 'pool_id': pool_id(trace, pool) or (0, 0),
                     'frames': trace.frames(cur['device'], index),
                     'index': index, 'reserved': reserved}
                if action == 'oom':
                    e['device_free'] = e.pop('addr')
                cur['trace'].append(e)
            elif w[0] == 'S':
                addr, size, stream, pool, small, exp = map(int, w[1:])
                cur['segments'].append({
                    'address': addr, 'total_size': size, 'stream': trace.streams[stream],
                    'segment_type': 'small' if small else 'large', 'is_expandable': bool(exp),
                    'segment_pool_id': pool_id(trace, pool) or (0, 0), 'frames': [],
                    'blocks': []})
            elif w[0] == 'B':
                addr, size, req, allocated, index = map(int, w[1:])
                cur['segments'][-1]['blocks'].append({
                    'address': addr, 'size': size, 'requested_size': req,
                    'state': 'active_allocated' if allocated else 'inactive',
                    'frames': trace.frames(cur['device'], index) if index >= 0 else []})
    if args.snapshot:
        segments, traces = [], []
        for d in range(max(devs) + 1 if devs else 1):
            dv = devs.get(d, {'trace': [], 'segments': []})
            traces.append([{k: v for k, v in e.items() if k not in ('index', 'reserved')}
                           for e in dv['trace']])
            for s in dv['segments']:
                b = s['blocks']
                act = [x for x in b if x['state'] == 'active_allocated']
                segments.append(dict(s, device=d, allocated_size=sum(x['size'] for x in act),
                                     active_size=sum(x['size'] for x in act),
                                     requested_size=sum(x['requested_size'] for x in act)))
        try:
            with open(args.snapshot, 'wb') as f:
                pickle.dump({'segments': segments, 'device_traces': traces}, f, protocol=4)
        except OSError as e:
            raise RuntimeError('%s: cannot be written: %s' % (args.snapshot, e.strerror or e))


def main(argv):
    try:
        args = parse(argv)
        if not os.access(DRIVER, os.X_OK):
            raise RuntimeError('no %s beside this script' % DRIVER)
        socs = socs_of(args.soc)
        if sys.stderr.isatty():
            print('aclsim-replay: reading %s ...' % args.trace, file=sys.stderr, end='\r')
        trace = readers.read(args.trace, args.max_bytes, args.timeout)
        ndev = 1 + max(trace.devices) if trace.devices else 1
        runs = []
        with tempfile.TemporaryDirectory(prefix='aclsim-replay-') as tmp:
            events = os.path.join(tmp, 'events.bin')
            readers.write(trace, events)
            for i, soc in enumerate(socs):
                rec = os.path.join(tmp, 'record') if i == 0 and args.snapshot else None
                runs.append(summarise(trace, soc, run_driver(events, soc, args, ndev, rec)))
                if rec:
                    write_outputs(trace, rec, args, runs[0])
    except Usage as e:
        print('aclsim-replay: %s (aclsim-replay --help)' % e, file=sys.stderr)
        return 1
    except (Unusable, readers.TraceError) as e:
        print('aclsim-replay: %s' % e, file=sys.stderr)
        return 2
    except (RuntimeError, ValueError, OSError) as e:
        print('aclsim-replay: %s' % str(e).splitlines()[0], file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print('aclsim-replay: interrupted', file=sys.stderr)
        return 1
    failed = any(r['first_failure'] for r in runs)
    if args.json:
        doc = {'trace': args.trace, 'format': trace.format,
               'device_count': max(1, len(trace.devices)), 'streams': len(trace.streams)}
        doc.update(runs[0])
        doc['runs'] = runs
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write('\n')
    else:
        table(trace, runs, sys.stdout)
    return 3 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
