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

The caching and expandable allocators' expected figures follow torch_npu's
NPUCachingAllocator (Ascend/pytorch @9e73e708 torch_npu/csrc/core/npu/
NPUCachingAllocator.cpp, "CA:line", and NPUAllocatorConfig.h, "CFG:line"):
a request is padded by 32 bytes on 910B parts (AddPadSize CA:161-174) and
rounded up to 512 (round_size CA:2202); up to 1 MiB it is the small pool's
(CA:98, get_pool CA:2685), whose segments are 2 MiB (CFG:16); a larger one
under 10 MiB takes a 20 MiB segment (CFG:17-18), a larger one its size
rounded up to 2 MiB (get_allocation_size CA:2771); a cached block is split
when more than 1 MiB is left (should_split CA:2718). Segments are taken
with aclrtMallocAlign32 (no padding), so a segment of a multiple of 2 MiB
costs the device exactly its size: the only figures here that depend on
aclsim's device heap are the plain allocator's (huge(), small()).

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


def rounded(n):
    """torch_npu's block size for a request of n bytes on a 910B part."""
    return (n + 32 + 511) // 512 * 512


def segment_of(n):
    """torch_npu's segment for a request of n bytes (CA:2771)."""
    r = rounded(n)
    if r <= MiB:
        return 2 * MiB
    if r < 10 * MiB:
        return 20 * MiB
    return (r + 2 * MiB - 1) // (2 * MiB) * (2 * MiB)


def huge(n):
    """Device bytes of aclrtMalloc(n, HUGE_FIRST) above 1 MB: 2 MB pages."""
    return (((n + 31) // 32 * 32 + PAD) + HUGE - 1) // HUGE * HUGE


def small(n):
    """... and up to 1 MB: the driver's 4 KiB normal pages."""
    return (((n + 31) // 32 * 32 + PAD) + 4095) // 4096 * 4096


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
    # same size, so each pool holds a segment; the same trace in one pool
    # reuses. 1 MiB padded and rounded is 1 MiB + 512: the large pool's, in
    # a 20 MiB segment (CA:2685, CA:2771).
    P, Q = 0x200000000, 0x200200000
    def trace(pool):
        return [ev('alloc', P, MiB, pool=pool)] + alloc_free(P, MiB, pool=pool) + \
               [ev('alloc', Q, MiB)] + alloc_free(Q, MiB)
    rc, r, _ = replay(snapshot('graph.pickle', [trace((1, 7))]), '--allocator', 'caching')
    rc2, r2, _ = replay(snapshot('nograph.pickle', [trace((0, 0))]), '--allocator', 'caching')
    check(rc == 0 and rc2 == 0 and r and r2, 'graph pool: exits %d %d' % (rc, rc2))
    if r and r2:
        check(segment_of(MiB) == 20 * MiB and r['peak_reserved'] == 2 * segment_of(MiB),
              'graph pool: reserved %d, want two segments' % r['peak_reserved'])
        check(r2['peak_reserved'] == segment_of(MiB), 'one pool: reserved %d, want one segment'
              % r2['peak_reserved'])
        # at the peak of use (Q live, both segments held) the rest is cached
        # and only the 512-byte rounding is lost
        check(r['cached_at_peak'] == 2 * segment_of(MiB) - rounded(MiB) and
              r['rounding_loss'] == rounded(MiB) - MiB == 512,
              'graph pool: cached %s, rounding %s at peak' % (r['cached_at_peak'],
                                                              r['rounding_loss']))


def test_split_cached_block():
    # An 8 GiB block, freed, then four 1 GiB requests: the caching allocator
    # splits the cached segment (rest > 1 MiB, CA:2718), so it holds the one
    # segment of 8 GiB + 512 rounded up to 2 MiB (CA:2771); a caching
    # allocator that did not split would hold 12 GiB.
    A = 0x100000000
    trace = [ev('alloc', A, 8 * GiB)] + alloc_free(A, 8 * GiB) + \
        [ev('alloc', A + i * GiB, GiB) for i in range(4)]
    path = snapshot('split.pickle', [trace])
    rc, r, err = replay(path, '--allocator', 'caching')
    check(rc == 0 and r and r['peak_reserved'] == segment_of(8 * GiB) == 8 * GiB + 2 * MiB,
          'split: exit %d, reserved %s %s' % (rc, r and r['peak_reserved'], err))
    # max_split_size_mb:2048: no block of 2 GiB or more serves a smaller
    # request (get_free_block CA:2826), so each 1 GiB is a segment of its own
    rc, r, err = replay(path, '--allocator', 'caching', '--alloc-conf', 'max_split_size_mb:2048')
    want = segment_of(8 * GiB) + 4 * segment_of(GiB)
    check(rc == 0 and r and r['peak_reserved'] == want,
          'max_split_size: reserved %s, want %d %s' % (r and r['peak_reserved'], want, err))
    rc, r, err = replay(path, '--allocator', 'caching', '--alloc-conf', 'max_split_size_mb:x')
    check(rc == 1 and err.count('\n') == 1 and 'PYTORCH_NPU_ALLOC_CONF' in err,
          'a bad --alloc-conf: exit %d %r' % (rc, err))


def test_small_pool():
    # Small requests share a 2 MiB segment (CFG:16), split down to 512 bytes
    # (CA:2718): 1000 requests of 480 bytes (512 with the pad) fill 500 KiB
    # of one segment.
    trace = [ev('alloc', 0x300000000 + i * 4096, 480) for i in range(1000)]
    rc, r, err = replay(snapshot('small.pickle', [trace]), '--allocator', 'caching')
    check(rc == 0 and r and r['peak_reserved'] == 2 * MiB and
          r['cached_at_peak'] == 2 * MiB - 1000 * 512 and rounded(480) == 512,
          'small pool: %s %s' % (r and (r['peak_reserved'], r['cached_at_peak']), err))

def test_rmm_csv():
    # The failed allocation (93 GiB) is a request the workload made: it
    # counts in what the workload needs, and 910B1's 64 GB do not hold it.
    path = os.path.join(tmp, 'rmm.csv')
    with open(path, 'w') as f:
        f.write('Thread,Time,Action,Pointer,Size,Stream\n'
                '1,00:00:00.000001,allocate,0x7f0000000000,1048576,0x0\n'
                '1,00:00:00.000002,allocate,0x7f0000100000,4096,0x0\n'
                '1,00:00:00.000003,allocate failure,(nil),99999999999,0x0\n'
                '1,00:00:00.000004,free,0x7f0000000000,1048576,0x0\n'
                '1,00:00:00.000005,free,0x7f0000100000,4096,0x0\n')
    rc, r, err = replay(path)
    check(rc == 3 and r, 'RMM CSV: exit %d %s' % (rc, err))
    if not r:
        return
    res = huge(MiB) + small(4096)           # 2 MiB + 8 KiB
    check(r['events'] == 5 and r['peak_requested'] == MiB + 4096 + 99999999999, 'RMM: %s' % r)
    f = r['first_failure']
    check(f and f['index'] == 2 and f['size'] == 99999999999 and f['granted'] == MiB + 4096,
          'RMM: failure %s' % f)
    check(r['peak_reserved'] == res, 'RMM: reserved %d, want %d' % (r['peak_reserved'], res))
    frag = (res - MiB - 4096) / res
    check(abs(r['fragmentation'] - frag) < 1e-12, 'RMM: fragmentation %r, want %r'
          % (r['fragmentation'], frag))
    check(r['rounding_loss'] == res - MiB - 4096, 'RMM: rounding %d' % r['rounding_loss'])
    gsq = ((huge(MiB) - MiB) ** 2 + (small(4096) - 4096) ** 2) / res ** 2
    check(abs(r['gap_sq_ratio'] - gsq) < 1e-12, 'RMM: gap^2 %r, want %r'
          % (r['gap_sq_ratio'], gsq))


def test_recorded_oom():
    # The recording died asking for 60 GiB with 10 GiB live (torch_npu
    # writes an "oom" entry with "device_free" in place of "addr", Module.cpp
    # L1431): the workload needs 70 GiB. 910B1's 64 GB do not hold it, the
    # 128 GB of Ascend950PR_9599 do.
    A = 0x100000000
    trace = [ev('alloc', A, 10 * GiB), {'action': 'oom', 'device_free': GiB, 'size': 60 * GiB,
                                         'stream': 0, 'pool_id': (0, 0), 'frames': []}]
    path = snapshot('oom.pickle', [trace])
    rc, r, err = replay(path, '--soc', 'Ascend910B1')
    f = r and r['first_failure']
    check(rc == 3 and f and f['index'] == 1 and f['size'] == 60 * GiB and
          r['peak_requested'] == 70 * GiB, 'oom on 910B1: exit %d %s %s' % (rc, f, err))
    rc, r, err = replay(path, '--soc', 'Ascend950PR_9599')
    check(rc == 0 and r and r['peak_requested'] == 70 * GiB and r['first_failure'] is None,
          'oom on 950PR: exit %d %s' % (rc, err))
    # --hbm past the profile's own: a 910B1 with 96 GiB would hold it
    rc, r, err = replay(path, '--soc', 'Ascend910B1', '--hbm', str(96 * GiB))
    check(rc == 0 and r and r['hbm_total'] > 95 * GiB, '--hbm 96 GiB: exit %d %s' % (rc, err))


def test_blocks_without_addresses():
    # PyTorch 2.0 snapshots give blocks no "address": memory_viz lays them
    # out from the segment's address in order (MemoryViz.js annotate_snapshot)
    # and takes a block's requested size from history[0].real_size
    # (torch_npu/npu/_memory_viz.py L64-71). Live at the start: 1 GiB and
    # 3 GiB (its history says 3 GiB - 100); the 3 GiB one, at A + 1 GiB, is
    # freed and 2 GiB taken: peak 4 GiB - 100 at the start.
    A = 0x100000000
    seg = {'device': 0, 'address': A, 'total_size': 6 * GiB, 'stream': 0,
           'blocks': [{'size': GiB, 'state': 'active_allocated', 'history': []},
                      {'size': 3 * GiB, 'state': 'active_allocated',
                       'history': [{'real_size': 3 * GiB - 100, 'addr': A + GiB}]},
                      {'size': 2 * GiB, 'state': 'inactive', 'history': []}]}
    trace = [ev('free_completed', A + GiB, 3 * GiB - 100), ev('alloc', A + 4 * GiB, 2 * GiB)]
    rc, r, err = replay(snapshot('noaddr.pickle', [trace], [seg]))
    check(rc == 0 and r and r['peak_requested'] == 4 * GiB - 100 and
          r['devices'][0]['initial_live'] == 2, 'no addresses: exit %d %s %s'
          % (rc, r and r['peak_requested'], err))


def test_frames_as_memory_viz_shows_them():
    # 28 frames of the allocator's own unwinding and the interpreter, then
    # the user's: memory_viz hides unwind::unwind, CapturedTraceback::gather,
    # PyEval_* and ceval.c frames (torch_npu/npu/_memory_viz.py L26-56); the
    # report names the user's frame first.
    own = [{'filename': 'unwind.cpp', 'line': 1, 'name': 'unwind::unwind()'},
           {'filename': 'CapturedTraceback.cpp', 'line': 2, 'name': 'CapturedTraceback::gather'}]
    own += [{'filename': 'torch_npu/csrc/core/npu/NPUCachingAllocator.cpp', 'line': 100 + i,
             'name': 'malloc'} for i in range(6)]
    own += [{'filename': 'Python/ceval.c', 'line': i, 'name': '_PyEval_EvalFrameDefault'}
            for i in range(20)]
    user = {'filename': '/home/me/train.py', 'line': 77, 'name': 'step'}
    frames = own + [user, {'filename': '/usr/lib/python3/site-packages/torch/nn/modules/module.py',
                           'line': 5, 'name': '_call_impl'}]
    path = snapshot('frames.pickle', [[ev('alloc', 0x1000, 40 * GiB, frames=frames)]])
    rc, r, _ = replay(path, '--soc', 'Ascend910B4')
    f = r and r['first_failure']
    check(rc == 3 and f and f['user_frame'] == user and
          not any('unwind' in x['name'] or 'ceval' in x['filename'] for x in f['frames']) and
          len(f['frames']) == 8, 'frames: %s' % (f and f['frames']))
    out = subprocess.run([REPLAY, '--soc', 'Ascend910B4', path], capture_output=True, text=True)
    lines = out.stdout.splitlines()
    at = [i for i, l in enumerate(lines) if 'refused' in l]
    check(at and 'train.py:77 step' in lines[at[0] + 2], 'the user frame first:\n' + out.stdout)


def test_json_schema():
    # One way to count events (trace entries), pools as the trace names them
    # (null for the default pool, everywhere), CANN's message in one line.
    trace = [ev('alloc', 0x1000, 8 * GiB, pool=(0, 0)), ev('alloc', 0x9000, 40 * GiB, pool=(0, 0)),
             ev('segment_alloc', 0x1000, 8 * GiB)]
    rc, r, _ = replay(snapshot('schema.pickle', [trace]), '--soc', 'Ascend910B4')
    check(rc == 3 and r, 'schema: exit %d' % rc)
    if not r:
        return
    d, f = r['devices'][0], r['first_failure']
    check(r['events'] == d['events'] == 3 == sum(x['events'] for x in r['runs'][0]['devices']),
          'events: %s / %s' % (r['events'], d['events']))
    check(f['pool'] is None and d['first_failure']['pool'] is None, 'pool: %s' % f)
    check('\n' not in f['message'] and 'TraceBack' not in f['message'] and
          'Solution' not in f['message'] and 'EL0004' in f['message'], 'message %r' % f['message'])
    for k in ('soc', 'allocator', 'hbm_total', 'hbm_free', 'peak_requested', 'peak_reserved',
              'fragmentation', 'gap_sq_ratio', 'rounding_loss', 'cached_at_peak', 'peak_index',
              'first_failure', 'devices', 'runs', 'format', 'trace', 'device_count', 'streams'):
        check(k in r, 'schema: no %s' % k)


def test_empty_snapshot():
    # Nothing to replay still names the device's memory: the same as a
    # replay with something in it says (910B1: 60.97 GiB usable).
    path = snapshot('empty.pickle', [])
    rc, r, _ = replay(path)
    _, one, _ = replay(snapshot('one.pickle', [[ev('alloc', 0x1000, 4096)]]))
    check(rc == 0 and r and one and r['hbm_free'] == one['hbm_free'] > 60 * GiB and
          r['fragmentation'] is None and r['peak_index'] is None, 'empty: %s' % r)
    out = subprocess.run([REPLAY, path], capture_output=True, text=True).stdout
    check('60.97 GiB' in out and ' 0 B    ' not in out.splitlines()[2][:25], 'empty:\n' + out)


def test_frag_at_peak_of_use():
    # The peak of use is A's 40 MiB (reserved: its segment of 42 MiB, 40 MiB
    # + 512 rounded up to 2 MiB); B, on another stream, later takes a segment
    # of its own (32 MiB) while only 30 MiB are used. Fragmentation is read
    # at A: (42 - 40) / 42, not at the most reserved moment.
    A, B = 0x100000000, 0x200000000
    trace = [ev('alloc', A, 40 * MiB)] + alloc_free(A, 40 * MiB) + [ev('alloc', B, 30 * MiB, stream=1)]
    rc, r, _ = replay(snapshot('fragpeak.pickle', [trace]), '--allocator', 'caching')
    want = (segment_of(40 * MiB) - 40 * MiB) / segment_of(40 * MiB)
    check(rc == 0 and r and r['peak_index'] == 0 and abs(r['fragmentation'] - want) < 1e-12 and
          r['peak_reserved'] == segment_of(40 * MiB) + segment_of(30 * MiB),
          'frag@peak: %s' % ((r and (r['peak_index'], r['fragmentation'], r['peak_reserved'])),))


def test_gap_sq_digits():
    # One plain block of 2 MiB - 6630 bytes takes 2 MiB of huge pages: gap^2
    # = (6630 / 2 MiB)^2 = 1.0e-5, which the table must not print as 0.000.
    n = 2 * MiB - 6630
    rc, r, _ = replay(snapshot('gap.pickle', [[ev('alloc', 0x1000, n)]]))
    want = ((huge(n) - n) / huge(n)) ** 2
    check(rc == 0 and abs(r['gap_sq_ratio'] - want) < 1e-15 and 9e-6 < want < 1.1e-5,
          'gap^2 %r, want %r' % (r and r['gap_sq_ratio'], want))
    out = subprocess.run([REPLAY, os.path.join(tmp, 'gap.pickle')], capture_output=True,
                         text=True).stdout
    check(('%.3g' % want) in out, 'gap^2 printed as:\n' + out)


def test_snapshot():
    # --snapshot: the caching allocator's own state as a torch snapshot
    # (segments, blocks, trace): after 8 GiB taken and freed and 1 GiB taken,
    # one segment of 8 GiB + 2 MiB whose first block, 1 GiB + 512, is live.
    A = 0x100000000
    trace = [ev('alloc', A, 8 * GiB)] + alloc_free(A, 8 * GiB) + [ev('alloc', A, GiB)]
    path, out = snapshot('state.pickle', [trace]), os.path.join(tmp, 'sim.pickle')
    rc, r, err = replay(path, '--allocator', 'caching', '--snapshot', out)
    check(rc == 0 and os.path.isfile(out), 'snapshot: exit %d %s' % (rc, err))
    if rc != 0:
        return
    s = pickle.load(open(out, 'rb'))
    segs, tr = s['segments'], s['device_traces'][0]
    check(len(segs) == 1 and segs[0]['total_size'] == segment_of(8 * GiB) and
          [(b['size'], b['state']) for b in segs[0]['blocks']] ==
          [(rounded(GiB), 'active_allocated'), (segment_of(8 * GiB) - rounded(GiB), 'inactive')] and
          segs[0]['blocks'][0]['requested_size'] == GiB, 'snapshot segments: %s' % segs)
    check([e['action'] for e in tr] == ['segment_alloc', 'alloc', 'free_requested',
                                        'free_completed', 'alloc'] and
          tr[1]['frames'] == trace[0]['frames'], 'snapshot trace: %s' % tr)
    # --memview was retired: it says where the picture is now, and fails
    rc, r, err = replay(path, '--memview', os.path.join(tmp, 'sim.html'))
    check(rc == 1 and '--snapshot' in err and 'memory_viz' in err and
          not os.path.exists(os.path.join(tmp, 'sim.html')), '--memview: exit %d %s' % (rc, err))
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
    # 200 MiB held, a quarter of it rounding. Expandable (torch_npu's
    # expandable segments, CA:355-520): blocks of 1.5 MiB + 512 carved end to
    # end in one segment mapped in 20 MiB pages (the large pool's, CA:2461):
    # 8 pages. Caching: 20 MiB segments split while more than 1 MiB is left
    # (CA:2718), so each holds 13 blocks, the last taking the rest: 8 of them.
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
    pages = -(-n * rounded(size) // (20 * MiB))
    check(pages == 8 and e['peak_reserved'] == pages * 20 * MiB,
          'expandable reserved %d' % e['peak_reserved'])
    check(abs(e['fragmentation'] - (160 - 150) / 160) < 1e-12 and
          e['rounding_loss'] == n * (rounded(size) - size) and
          e['cached_at_peak'] == pages * 20 * MiB - n * rounded(size), 'expandable: %s' % e)
    per, left = 0, 20 * MiB
    while left >= rounded(size):
        per += 1
        left = left - rounded(size) if left - rounded(size) > MiB else 0
    rc, c, _ = replay(path, '--allocator', 'caching')
    check(rc == 0 and per == 13 and c['peak_reserved'] == -(-n // per) * 20 * MiB,
          'caching reserved %s' % (c and c['peak_reserved']))


def test_cache_given_back_when_full():
    # On 910B4 (29.49 GiB) a cached 16 GiB segment cannot serve 20 GiB, and
    # a new segment does not fit beside it: the caching allocator gives its
    # unsplit cached blocks back (release_cached_blocks CA:3122, the retry
    # of malloc CA:1272-1289) and asks again, so the trace fits, holding at
    # most the 20 GiB segment. The pool allocator never gives back: refused.
    A, B = 0x100000000, 0x600000000
    trace = [ev('alloc', A, 16 * GiB)] + alloc_free(A, 16 * GiB) + [ev('alloc', B, 20 * GiB)]
    path, out = snapshot('full.pickle', [trace]), os.path.join(tmp, 'full-out.pickle')
    rc, r, err = replay(path, '--soc', 'Ascend910B4', '--allocator', 'caching', '--snapshot', out)
    check(rc == 0 and r and r['peak_reserved'] == segment_of(20 * GiB),
          'given back when full: exit %d %s %s' % (rc, r and r['peak_reserved'], err))
    if rc == 0:
        acts = [e['action'] for e in pickle.load(open(out, 'rb'))['device_traces'][0]]
        check(acts.count('segment_free') == 1 and acts.index('segment_free') < acts.index('alloc', 2),
              'given back when full: trace %s' % acts)
    rc, r, _ = replay(path, '--soc', 'Ascend910B4', '--allocator', 'pool')
    check(rc == 3 and r['first_failure']['index'] == 3, 'pool when full: exit %d' % rc)


def test_garbage_collection():
    # per_process_memory_fraction:0.5 caps the allocator at half the device
    # (setMemoryFraction CA:1712); garbage_collection_threshold:0.5 then
    # frees, before a new segment, the unsplit cached blocks of the large
    # pool older than the average (CA:2859-2929) once more than half the cap
    # is held. A (200 MiB) is freed, B (100 MiB, stream 1) taken and freed,
    # C (100 MiB, stream 2) asked: 304 MiB are held, over the 254 MiB
    # threshold, and A, the older, goes: C's segment makes 204 MiB. Without
    # the collector C's segment joins the other two.
    A, B, C = 0x100000000, 0x200000000, 0x300000000
    trace = [ev('alloc', A, 200 * MiB)] + alloc_free(A, 200 * MiB) + \
        [ev('alloc', B, 100 * MiB, stream=1)] + alloc_free(B, 100 * MiB, stream=1) + \
        [ev('alloc', C, 100 * MiB, stream=2)]
    path = snapshot('gc.pickle', [trace])
    a, b = segment_of(200 * MiB), segment_of(100 * MiB)
    runs = {}
    for conf in ('per_process_memory_fraction:0.5',
                 'per_process_memory_fraction:0.5,garbage_collection_threshold:0.5'):
        rc, r, err = replay(path, '--allocator', 'caching', '--hbm', str(GiB), '--alloc-conf', conf,
                            '--snapshot', os.path.join(tmp, 'gc-out.pickle'))
        check(rc == 0 and r, 'gc %s: exit %d %s' % (conf, rc, err))
        if not r:
            return
        runs[conf] = (r, pickle.load(open(os.path.join(tmp, 'gc-out.pickle'), 'rb')))
    total = runs[conf][0]['hbm_total']
    check(a + b > 0.5 * 0.5 * total > a and a + 2 * b < 0.5 * total,
          'gc: the thresholds do not fall between the steps (total %d)' % total)
    nogc, gc = runs['per_process_memory_fraction:0.5'], runs[conf]
    check(sorted(x['total_size'] for x in nogc[1]['segments']) == sorted([a, b, b]),
          'no gc: segments %s' % [x['total_size'] for x in nogc[1]['segments']])
    check(sorted(x['total_size'] for x in gc[1]['segments']) == [b, b] and
          [e['action'] for e in gc[1]['device_traces'][0]].count('segment_free') == 1,
          'gc: segments %s' % [x['total_size'] for x in gc[1]['segments']])


def test_expandable_alignment():
    # Expandable segments: a block of 2 MiB or more starts on a 16 KiB
    # boundary (base_addr_aligned_kb, CA:1397-1421), the bytes skipped kept
    # as a free block; --alloc-conf expandable_segments:True with caching is
    # the expandable allocator.
    A, B = 0x100000000, 0x200000000
    trace = [ev('alloc', A, 3 * MiB // 2), ev('alloc', B, 3 * MiB)]
    path, out = snapshot('align.pickle', [trace]), os.path.join(tmp, 'align-out.pickle')
    for opts in (['--allocator', 'expandable'],
                 ['--allocator', 'caching', '--alloc-conf', 'expandable_segments:True']):
        rc, r, err = replay(path, '--snapshot', out, *opts)
        check(rc == 0, 'alignment %s: exit %d %s' % (opts, rc, err))
        if rc:
            continue
        segs = pickle.load(open(out, 'rb'))['segments']
        blocks = [(b['size'], b['state']) for x in segs for b in x['blocks']]
        skip = 16384 - rounded(3 * MiB // 2) % 16384
        want = [(rounded(3 * MiB // 2), 'active_allocated'), (skip, 'inactive'),
                (rounded(3 * MiB), 'active_allocated'),
                (20 * MiB - rounded(3 * MiB // 2) - skip - rounded(3 * MiB), 'inactive')]
        check(len(segs) == 1 and segs[0]['is_expandable'] and blocks == want and
              segs[0]['blocks'][2]['address'] % 16384 == 0,
              'alignment %s: %s, want %s' % (opts, blocks, want))


def test_hostile_input():
    # Exit 2 and one line naming what is wrong, never a traceback or a
    # hang: reads are bounded in bytes and, for what is not a file, in time.
    def entry(**kw):
        e = ev('alloc', 0x1000, 4096)
        e.update(kw)
        return pickle.dumps({'segments': [], 'device_traces': [[e]]})
    deep = b'\x80\x02}q\x00X\r\x00\x00\x00device_traces' + b']' * 200000 + \
        b'a' * 199999 + b's.'
    cases = {
        'huge.pickle': (entry(size=10 ** 30), 'beyond any address space'),
        'negative.pickle': (entry(size=-4096), 'non-negative'),
        'pool.pickle': (entry(pool_id=[[1], {'a': 2}]), 'pool_id'),
        'frames.pickle': (entry(frames='train.py:1'), 'frames'),
        'deep.pickle': (deep, 'deep.pickle'),
        'deep.json': (b'[' * 100000 + b']' * 100000, 'nested too deeply'),
        'device.json': (json.dumps({'traceEvents': [{'ph': 'M', 'name': 'process_name', 'pid': 1,
                                                     'args': {'name': 'device one'}}]}).encode(),
                        'device one'),
        'segdev.pickle': (pickle.dumps({'segments': [{'device': 'npu:0', 'address': 0,
                                                      'blocks': []}], 'device_traces': []}),
                          '"device"'),
    }
    runs = [([os.path.join(tmp, n)], w) for n, (d, w) in cases.items()]
    for name, (data, _) in cases.items():
        with open(os.path.join(tmp, name), 'wb') as f:
            f.write(data)
    fifo = os.path.join(tmp, 'fifo')
    os.mkfifo(fifo)
    runs += [(['/dev/zero'], 'first byte'), (['--timeout', '1', fifo], 'no end of input'),
             (['--soc', ',,,', os.path.join(tmp, 'ok.pickle')], 'names no SoC'),
             (['--max-bytes', '100', os.path.join(tmp, 'huge.pickle')], '--max-bytes')]
    snapshot('ok.pickle', [[ev('alloc', 0x1000, 4096)]])
    for argv, want in runs:
        try:
            r = subprocess.run([REPLAY] + argv, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            check(False, '%s: hangs' % argv)
            continue
        check(r.returncode == 2 and want in r.stderr and r.stderr.count('\n') == 1 and
              'Traceback' not in r.stderr, '%s: exit %d, stderr %r (want 2, one line with %r)'
              % (argv, r.returncode, r.stderr, want))


def test_misspelt_soc():
    # The nearest profile named once, in one line, without blaming ACLSIM_SOC
    # (the tool sets it, not the user).
    r = subprocess.run([REPLAY, '--soc', '910B4', snapshot('soc.pickle', [[]])],
                       capture_output=True, text=True)
    check(r.returncode == 2 and r.stderr.count('did you mean Ascend910B4?') == 1 and
          r.stderr.count('\n') == 1 and 'ACLSIM_SOC' not in r.stderr and not r.stdout,
          '--soc 910B4: exit %d %r' % (r.returncode, r.stderr))
    r = subprocess.run([REPLAY, '--soc', 'ascend910b4', os.path.join(tmp, 'soc.pickle')],
                       capture_output=True, text=True)
    check(r.returncode == 0 and 'Ascend910B4' in r.stdout, '--soc in lower case: %r' % r.stderr)


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


tests = (test_truncated_history, test_graph_pool, test_split_cached_block, test_small_pool,
         test_rmm_csv, test_recorded_oom, test_blocks_without_addresses,
         test_frames_as_memory_viz_shows_them, test_json_schema, test_empty_snapshot,
         test_frag_at_peak_of_use, test_gap_sq_digits, test_snapshot,
         test_cache_given_back_when_full, test_garbage_collection, test_expandable_alignment, test_hostile_input,
         test_misspelt_soc, test_fits_64_not_32,
         test_expandable_vs_plain, test_bad_input, test_aclsim_run, test_own_allocator)
for t in tests[:1] if MISTAKE else tests:
    t()
subprocess.run(['rm', '-rf', tmp])
print('%d passed, %d failed' % (checks - failed, failed))
sys.exit(1 if failed else 0)
