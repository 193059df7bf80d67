"""bench_replay.py - replay_events_per_s: allocation-trace events replayed per
second through aclrtMalloc/aclrtFree (aclsim-replay's plain allocator).

A torch-format trace of 1M events (500k allocs, 500k frees; about a thousand
blocks live at a time, sizes from 512 bytes to 1 MiB drawn from a fixed
seed) is normalised by tools/replay/readers.py, as aclsim-replay does, and
the driver (bin/aclsim-replay-driver) replays it; the figure is the events
over the driver's wall time, best of three. Reading a pickle is Python's
part and not counted.

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

N, LIVE = 1000000, 1000
rng = random.Random(24)
ev, live, addr = [], [], 0x100000000
while len(ev) < N:
    if len(live) < LIVE or (rng.random() < 0.5 and len(ev) < N - len(live)):
        size = rng.choice((512, 4096, 65536, 1 << 20)) - rng.randrange(0, 256)
        ev.append({'action': 'alloc', 'addr': addr, 'size': size, 'stream': 0})
        live.append((addr, size))
        addr += 1 << 21
    else:
        a, s = live.pop(rng.randrange(len(live)))
        ev.append({'action': 'free_completed', 'addr': a, 'size': s, 'stream': 0})
t = readers.Trace('bench', 'torch snapshot')
t.devices[0] = ev[:N]
readers._build(t)
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, 'events.bin')
    readers.write(t, path)
    best = None
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run([os.path.join(tree, 'bin', 'aclsim-replay-driver'), path], check=True,
                       stdout=subprocess.DEVNULL)
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
print('replay_events_per_s %.0f' % (t.records / best))
