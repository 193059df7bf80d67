"""bench_replay.py - two figures of aclsim-replay's driver.

replay_events_per_s: allocation-trace events replayed per second through
aclrtMalloc/aclrtFree (aclsim-replay's plain allocator).

A torch-format trace of 1M events (500k allocs, 500k frees; about a thousand
blocks live at a time, sizes from 512 bytes to 1 MiB drawn from a fixed
seed) is normalised by tools/replay/readers.py, as aclsim-replay does, and
the driver (bin/aclsim-replay-driver) replays it; the figure is the events
over the driver's wall time, best of three. Reading a pickle is Python's
part and not counted.

replay_expandable_vs_plain: the driver's wall time replaying one 1M-event
trace with --allocator expandable (torch_npu's expandable segments over
VMM) over its time with --allocator plain, best of three each. The trace
is shaped like a training step's: about 300 blocks live, sizes from 512
bytes to 32 MiB (a third of them past 2 MiB, so that blocks come and go
across the segments' pages), from a fixed seed.

    python3 bench_replay.py CANN_TREE
"""
import os
import random
import subprocess
import sys
import tempfile
import time

tree = sys.argv[1]
sys.path.insert(0, os.path.join(tree, 'share', 'aclsim', 'replay'))
import readers  # noqa: E402

N = 1000000


def trace(live_blocks, sizes, seed):
    rng = random.Random(seed)
    ev, live, addr = [], [], 0x100000000
    while len(ev) < N:
        if len(live) < live_blocks or (rng.random() < 0.5 and len(ev) < N - len(live)):
            size = rng.choice(sizes) - rng.randrange(0, 256)
            ev.append({'action': 'alloc', 'addr': addr, 'size': size, 'stream': 0})
            live.append((addr, size))
            addr += 1 << 26
        else:
            a, s = live.pop(rng.randrange(len(live)))
            ev.append({'action': 'free_completed', 'addr': a, 'size': s, 'stream': 0})
    t = readers.Trace('bench', 'torch snapshot')
    t.devices[0] = ev[:N]
    readers._build(t)
    return t


def best_of_three(path, allocator):
    best = None
    for _ in range(3):
        t0 = time.perf_counter()
        out = subprocess.run([os.path.join(tree, 'bin', 'aclsim-replay-driver'), '--allocator',
                              allocator, path], check=True, stdout=subprocess.PIPE).stdout
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    if b'"first_failure": null' not in out:  # a replay cut short would time nothing
        sys.exit('bench_replay: the %s replay refused a request' % allocator)
    return best


with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, 'events.bin')
    t = trace(1000, (512, 4096, 65536, 1 << 20), 24)
    readers.write(t, path)
    print('replay_events_per_s %.0f' % (t.records / best_of_three(path, 'plain')))
    readers.write(trace(300, (512, 4096, 65536, 1 << 20, 3 << 20, 8 << 20, 32 << 20), 34), path)
    print('replay_expandable_vs_plain %.3f'
          % (best_of_three(path, 'expandable') / best_of_three(path, 'plain')))
