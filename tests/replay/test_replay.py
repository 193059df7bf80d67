#!/usr/bin/env python3
"""test_replay.py - aclsim-replay's figures against figures worked out by hand.

Every trace is written here: torch snapshots as pickles with the fields and
state strings torch_npu's Module.cpp gives them (Ascend/pytorch
torch_npu/csrc/npu/Module.cpp @9e73e708 L1290-1340 the segments and their
blocks' states "active_allocated", "active_pending_free", "inactive";
L1385-1450 the trace entries: action, addr, size, stream, pool_id, frames,
no time_us), an RMM logging_resource_adaptor CSV (rapidsai/rmm
src/mr/detail/logging_resource_adaptor_impl.cpp L82, its header), an aclsim
trace and snapshot of a real run. Expected device bytes follow CANN's
aclrtMalloc rules (hicann/runtime docs/zh/api_ref/
11-01_device_memory_malloc_and_free.md: the size rounded up to 32 and 32
bytes of padding on 910B parts; with ACL_MEM_MALLOC_HUGE_FIRST, more than
1 MB takes 2 MB huge pages, less the 64-byte-aligned normal heap) and the
profiles' usable HBM (sim/profile.c: 910B1 64 GB, 910B4 32 GB).

Environment: REPLAY (bin/aclsim-replay), EXAMPLE (examples/caching_allocator),
CC_TREE (the CANN-layout tree, to build an allocator library);
REPLAY_MISTAKE=drop-segments replays the truncated history without its final
segments, and the suite must then fail (the gate bites).
"""
import json
import os
import pickle
import subprocess
import sys
import tempfile

REPLAY = os.environ['REPLAY']
EXAMPLE = os.environ.get('EXAMPLE')
TREE = os.environ.get('CC_TREE')
MISTAKE = os.environ.get('REPLAY_MISTAKE', '')
KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30
PAD = 32                       # 910B malloc padding
HUGE = 2 * MiB
checks = failed = 0
tmp = tempfile.mkdtemp(prefix='test-replay-')


def check(ok, what):
    global checks, failed
    checks += 1
    if not ok:
        failed += 1
        print('FAIL: ' + what)


def huge(n):
    """Device bytes of aclrtMalloc(n, HUGE_FIRST) above 1 MB: 2 MB pages."""
    return (((n + 31) // 32 * 32 + PAD) + HUGE - 1) // HUGE * HUGE


def small(n):
    """... and up to 1 MB: normal pages, 64-byte granules."""
    return (((n + 31) // 32 * 32 + PAD) + 63) // 64 * 64


def replay(path, *opts):
    r = subprocess.run([REPLAY, '--json'] + list(opts) + [path], capture_output=True, text=True)
    doc = json.loads(r.stdout) if r.stdout.strip().startswith('{') else None
    return r.returncode, doc, r.stderr


def snapshot(name, traces, segments=()):
    path = os.path.join(tmp, name)
    with open(path, 'wb') as f:
        pickle.dump({'segments': list(segments), 'device_traces': traces}, f)
    return path


def ev(action, addr, size, stream=0, pool=(0, 0), frames=None):
    e = {'action': action, 'addr': addr, 'size': size, 'stream': stream, 'pool_id': pool,
         'frames': frames or [{'filename': 'model.py', 'line': 10, 'name': 'step'}]}
    return e


def alloc_free(addr, size, **kw):
    return [ev('free_requested', addr, size, **kw), ev('free_completed', addr, size, **kw)]


def segment(addr, size, blocks, stream=0, pool=(0, 0)):
    """A segment as Module.cpp emits it, blocks (address, size, requested, state)."""
    return {'device': 0, 'address': addr, 'total_size': size,
            'allocated_size': sum(b[1] for b in blocks if b[3] != 'inactive'),
            'active_size': sum(b[1] for b in blocks if b[3] != 'inactive'),
            'requested_size': sum(b[2] for b in blocks if b[3] != 'inactive'),
            'stream': stream, 'segment_type': 'large', 'segment_pool_id': pool,
            'is_expandable': False, 'frames': [],
            'blocks': [{'address': a, 'size': s, 'requested_size': r, 'state': st, 'frames': []}
                       for a, s, r, st in blocks]}


def test_truncated_history():
    # The ring buffer lost A's alloc (A is live at the end: the final
    # segment says so) and B's (freed in the window). Live at the start:
    # A 4 MiB + B 2 MiB; B goes, C 8 MiB comes: peak 4 + 8 = 12 MiB, not
    # the 8 MiB a replay from an empty live set would say.
    A, B, C = 0x100000000, 0x100400000, 0x100800000
    trace = alloc_free(B, 2 * MiB) + [ev('alloc', C, 8 * MiB)] + alloc_free(C, 8 * MiB)
    segs = [segment(A, 20 * MiB, [(A, 4 * MiB, 4 * MiB, 'active_allocated'),
                                  (B, 2 * MiB, 2 * MiB, 'inactive'),
                                  (C, 8 * MiB, 8 * MiB, 'inactive')])]
    if MISTAKE == 'drop-segments':
        segs = []
    rc, r, err = replay(snapshot('truncated.pickle', [trace], segs))
    check(rc == 0 and r, 'truncated history: exit %d %s' % (rc, err))
    if not r:
        return
    check(r['events'] == 5, 'events %d, the trace has 5 entries' % r['events'])
    check(r['devices'][0]['initial_live'] == 2, 'live at start: %d blocks, want A and B'
          % r['devices'][0]['initial_live'])
    check(r['peak_requested'] == 12 * MiB, 'peak requested %d, want 12 MiB' % r['peak_requested'])
    # plain: A, B then A, C held: max(4+2, 4+8) MiB, each padded to its 2 MB pages
    want = max(huge(4 * MiB) + huge(2 * MiB), huge(4 * MiB) + huge(8 * MiB))
    check(r['peak_reserved'] == want, 'peak reserved %d, want %d' % (r['peak_reserved'], want))


def test_graph_pool():
    # A graph's private pool (pool_id != (0, 0)) keeps its freed block: the
    # caching allocator cannot hand it to the default pool's request of the
    # same size, so it holds two blocks; the same trace in one pool reuses.
    P, Q = 0x200000000, 0x200200000
    def trace(pool):
        return [ev('alloc', P, MiB, pool=pool)] + alloc_free(P, MiB, pool=pool) + \
               [ev('alloc', Q, MiB)] + alloc_free(Q, MiB)
    rc, r, _ = replay(snapshot('graph.pickle', [trace((1, 7))]), '--allocator', 'caching')
    rc2, r2, _ = replay(snapshot('nograph.pickle', [trace((0, 0))]), '--allocator', 'caching')
    check(rc == 0 and rc2 == 0 and r and r2, 'graph pool: exits %d %d' % (rc, rc2))
    if r and r2:
        check(r['peak_reserved'] == 2 * huge(MiB), 'graph pool: reserved %d, want two blocks %d'
              % (r['peak_reserved'], 2 * huge(MiB)))
        check(r2['peak_reserved'] == huge(MiB), 'one pool: reserved %d, want one block %d'
              % (r2['peak_reserved'], huge(MiB)))
        # at the peak the graph's block is cached (1 MiB at 512-byte rounding)
        check(r['cached_at_peak'] == MiB, 'graph pool: cached %s at peak' % r['cached_at_peak'])


def test_rmm_csv():
    path = os.path.join(tmp, 'rmm.csv')
    with open(path, 'w') as f:
        f.write('Thread,Time,Action,Pointer,Size,Stream\n'
                '1,00:00:00.000001,allocate,0x7f0000000000,1048576,0x0\n'
                '1,00:00:00.000002,allocate,0x7f0000100000,4096,0x0\n'
                '1,00:00:00.000003,allocate failure,0x0,99999999999,0x0\n'
                '1,00:00:00.000004,free,0x7f0000000000,1048576,0x0\n'
                '1,00:00:00.000005,free,0x7f0000100000,4096,0x0\n')
    rc, r, err = replay(path)
    check(rc == 0 and r, 'RMM CSV: exit %d %s' % (rc, err))
    if not r:
        return
    res = huge(MiB) + small(4096)           # 2 MiB + 4160
    check(r['events'] == 5 and r['peak_requested'] == MiB + 4096, 'RMM: %s' % r)
    check(r['peak_reserved'] == res, 'RMM: reserved %d, want %d' % (r['peak_reserved'], res))
    frag = (res - MiB - 4096) / res
    check(abs(r['fragmentation'] - frag) < 1e-12, 'RMM: fragmentation %r, want %r'
          % (r['fragmentation'], frag))
    check(r['rounding_loss'] == res - MiB - 4096, 'RMM: rounding %d' % r['rounding_loss'])
    gsq = ((huge(MiB) - MiB) ** 2 + (small(4096) - 4096) ** 2) / res ** 2
    check(abs(r['gap_sq_ratio'] - gsq) < 1e-12, 'RMM: gap^2 %r, want %r'
          % (r['gap_sq_ratio'], gsq))


def test_fits_64_not_32():
    # 16 GiB stays, 8 GiB comes and goes, then 16 GiB on stream 7: 32 GiB
    # live. Ascend910B1's 60.97 GiB hold it; Ascend910B4's 29.49 GiB do not,
    # and the 16 GiB request (entry 3) is the one that fails.
    X, Y, Z = 0x1000000000, 0x1600000000, 0x1a00000000
    fr = [{'filename': 'train.py', 'line': 77, 'name': 'backward'}]
    trace = [ev('alloc', X, 16 * GiB), ev('alloc', Y, 8 * GiB), ev('free_completed', Y, 8 * GiB),
             ev('alloc', Z, 16 * GiB, stream=7, frames=fr)] + alloc_free(Z, 16 * GiB, stream=7) + \
            alloc_free(X, 16 * GiB)
    path = snapshot('big.pickle', [trace])
    rc, r, err = replay(path, '--soc', 'Ascend910B1')
    check(rc == 0 and r and r['first_failure'] is None, '910B1: exit %d %s' % (rc, err))
    if r:
        check(r['peak_requested'] == 32 * GiB, '910B1: peak %d' % r['peak_requested'])
    rc, r, err = replay(path, '--soc', 'Ascend910B4')
    check(rc == 3 and r and r['first_failure'], '910B4 should fail with 3: exit %d %s' % (rc, err))
    if r and r['first_failure']:
        f = r['first_failure']
        check(f['index'] == 3 and f['size'] == 16 * GiB and f['stream'] == 7,
              '910B4: first failure %s, want entry 3 (16 GiB on stream 7)' % f)
        check(f['frames'] == fr, '910B4: failure frames %s' % f['frames'])
    out = subprocess.run([REPLAY, '--soc', 'Ascend910B1,Ascend910B4', path], capture_output=True,
                         text=True)
    check(out.returncode == 3 and 'OUT OF MEMORY at event 3' in out.stdout and
          'train.py:77 backward' in out.stdout and 'fits' in out.stdout,
          'side-by-side table:\n' + out.stdout)


def test_expandable_vs_plain():
    # 100 blocks of 1.5 MiB live at once. Plain: each its own 2 MB pages,
    # 200 MiB held, a quarter of it rounding. Expandable: carved end to end
    # in one range, 150 MiB mapped in 75 pieces of 2 MB, nothing lost.
    n, size = 100, 3 * MiB // 2
    addrs = [0x300000000 + i * 4 * MiB for i in range(n)]
    trace = [ev('alloc', a, size) for a in addrs] + sum((alloc_free(a, size) for a in addrs), [])
    path = snapshot('many.pickle', [trace])
    _, p, _ = replay(path, '--allocator', 'plain')
    _, e, _ = replay(path, '--allocator', 'expandable')
    check(p and e, 'expandable vs plain: no report')
    if not (p and e):
        return
    check(p['peak_reserved'] == n * huge(size) == 200 * MiB, 'plain reserved %d' % p['peak_reserved'])
    check(abs(p['fragmentation'] - 0.25) < 1e-9 and p['rounding_loss'] == 50 * MiB,
          'plain: fragmentation %r, rounding %d' % (p['fragmentation'], p['rounding_loss']))
    check(e['peak_reserved'] == 150 * MiB, 'expandable reserved %d' % e['peak_reserved'])
    check(e['fragmentation'] == 0 and e['rounding_loss'] == 0 and e['gap_sq_ratio'] == 0,
          'expandable: %s' % e)
    # The caching allocator takes each block with aclrtMalloc, as plain does.
    rc, c, _ = replay(path, '--allocator', 'caching')
    check(rc == 0 and c['peak_reserved'] == 200 * MiB, 'caching reserved %s' % (c and c['peak_reserved']))


def test_bad_input():
    good = open(snapshot('ok.pickle', [[ev('alloc', 0x1000, 4096)]]), 'rb').read()
    cases = {
        'cut.pickle': (good[:len(good) // 2], 'cut.pickle'),
        'entry.pickle': (pickle.dumps({'segments': [], 'device_traces': [
            [ev('alloc', 0x1000, 64), {'action': 'free_completed', 'addr': 0x1000}]]}),
                         'device_traces[0][1]'),
        'notrace.pickle': (pickle.dumps([1, 2, 3]), 'notrace.pickle'),
        'class.pickle': (pickle.dumps({'segments': [], 'device_traces': [], 'x': ValueError()}),
                         'builtins.ValueError'),
        'junk.csv': (b'hello,world\n1,2\n', 'line 1'),
        'row.csv': (b'Thread,Time,Action,Pointer,Size,Stream\n1,t,allocate,zz,12,0x0\n', 'line 2'),
        'trace.json': (b'{"traceEvents": [{"ph": "i", "name": "malloc", "pid": 1, "ts": 1}]}',
                       'traceEvents[0]'),
    }
    for name, (data, where) in cases.items():
        path = os.path.join(tmp, name)
        with open(path, 'wb') as f:
            f.write(data)
        r = subprocess.run([REPLAY, path], capture_output=True, text=True)
        check(r.returncode == 2 and where in r.stderr and 'Traceback' not in r.stderr,
              '%s: exit %d, stderr %r (want 2, naming %s)' % (name, r.returncode, r.stderr, where))
    r = subprocess.run([REPLAY, os.path.join(tmp, 'absent.pickle')], capture_output=True, text=True)
    check(r.returncode == 2 and 'absent.pickle' in r.stderr, 'missing file: %r' % r.stderr)
    r = subprocess.run([REPLAY, '--allocator', 'nosuch', os.path.join(tmp, 'ok.pickle')],
                       capture_output=True, text=True)
    check(r.returncode == 1 and 'nosuch' in r.stderr, 'unknown allocator: %r' % r.stderr)


def test_aclsim_run():
    # A real run (the caching-allocator example), written both ways: its
    # ACLSIM_TRACE and its ACLSIM_SNAPSHOT replay the same blocks.
    if not EXAMPLE:
        return
    tj, sp = os.path.join(tmp, 'run.json'), os.path.join(tmp, 'run.pickle')
    env = dict(os.environ, ACLSIM_TRACE=tj, ACLSIM_SNAPSHOT=sp, ACLSIM_TRACK='1')
    subprocess.run([EXAMPLE], env=env, stdout=subprocess.DEVNULL, check=True)
    snap = pickle.load(open(sp, 'rb'))
    evs = snap['device_traces'][0]
    allocs = [e for e in evs if e['action'] == 'alloc']
    trace = json.load(open(tj))['traceEvents']
    mallocs = [e for e in trace if e.get('ph') == 'i' and e['name'] == 'malloc']
    check(len(allocs) == len(mallocs) > 0, 'snapshot allocs %d, trace mallocs %d'
          % (len(allocs), len(mallocs)))
    check(all(e['frames'] for e in allocs) and
          any(f['filename'].endswith('main.c') for f in allocs[0]['frames']),
          'ACLSIM_TRACK frames missing: %s' % allocs[0]['frames'])
    segs = sum(1 for e in evs if e['action'] == 'segment_alloc')
    check(segs == len(allocs), 'one segment per block: %d of %d' % (segs, len(allocs)))
    rc1, a, _ = replay(tj)
    rc2, b, _ = replay(sp)
    check(rc1 == 0 and rc2 == 0 and a and b, 'replays of the run: exits %d %d' % (rc1, rc2))
    if a and b:
        check(a['format'] == 'aclsim trace' and b['format'] == 'torch snapshot', 'formats')
        check(a['peak_requested'] == b['peak_requested'] > 0 and
              a['peak_reserved'] == b['peak_reserved'],
              'trace and snapshot replay differently: %d/%d vs %d/%d'
              % (a['peak_requested'], a['peak_reserved'], b['peak_requested'], b['peak_reserved']))


def test_own_allocator():
    # A library through aclsim/replay.h: it never gives memory back, so a
    # 1 MiB alloc, free, alloc holds two blocks where plain holds one.
    if not TREE:
        return
    src, lib = os.path.join(tmp, 'keep.c'), os.path.join(tmp, 'libkeep.so')
    with open(src, 'w') as f:
        f.write('#include <stdlib.h>\n#include "aclsim/replay.h"\n'
                'static void *op(int32_t d) { (void)d; return malloc(1); }\n'
                'static void *al(void *s, size_t n, aclrtStream st, uint32_t p) {\n'
                '  void *q = NULL; (void)s; (void)st; (void)p;\n'
                '  return aclrtMalloc(&q, n, ACL_MEM_MALLOC_HUGE_FIRST) ? NULL : q; }\n'
                'static void fr(void *s, void *q, size_t n, aclrtStream st) {\n'
                '  (void)s; (void)q; (void)n; (void)st; }\n'
                'static void cl(void *s) { free(s); }\n'
                'static const aclsim_replay_allocator t = {ACLSIM_REPLAY_ABI, "keep", op, al, fr,'
                ' NULL, cl, NULL};\n'
                'const aclsim_replay_allocator *aclsim_replay_allocator_get(void) { return &t; }\n')
    b = subprocess.run(['gcc', '-std=c11', '-Wall', '-Werror', '-shared', '-fPIC', '-I',
                        os.path.join(TREE, 'include'), src, '-o', lib, '-L',
                        os.path.join(TREE, 'lib64'), '-lascendcl'], capture_output=True, text=True)
    check(b.returncode == 0, 'the allocator library does not build: ' + b.stderr)
    A, B = 0x500000000, 0x500200000
    path = snapshot('own.pickle', [[ev('alloc', A, MiB)] + alloc_free(A, MiB) +
                                   [ev('alloc', B, MiB)] + alloc_free(B, MiB)])
    rc, r, err = replay(path, '--allocator', lib)
    check(rc == 0 and r and r['allocator'] == 'keep' and r['peak_reserved'] == 2 * huge(MiB),
          'own allocator: exit %d %s %s' % (rc, r and r['peak_reserved'], err))
    rc, r, _ = replay(path, '--allocator', os.path.join(tmp, 'keep.c'))
    check(rc == 1, 'a file that is no library: exit %d' % rc)


tests = (test_truncated_history, test_graph_pool, test_rmm_csv, test_fits_64_not_32,
         test_expandable_vs_plain, test_bad_input, test_aclsim_run, test_own_allocator)
for t in tests[:1] if MISTAKE else tests:
    t()
subprocess.run(['rm', '-rf', tmp])
print('%d passed, %d failed' % (checks - failed, failed))
sys.exit(1 if failed else 0)
