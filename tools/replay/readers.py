"""readers.py - the allocation traces aclsim-replay reads, made one stream.

Three inputs, told apart by their first bytes, read with Python's standard
library alone (no torch):
  - a torch / torch_npu memory snapshot (pickle, as _dump_snapshot and
    OOM_SNAPSHOT_ENABLE write it): {"segments": [...], "device_traces":
    [[entry, ...] per device]}; each entry a dict with "action" (alloc,
    free_requested, free_completed, segment_alloc, segment_free,
    segment_map, segment_unmap, snapshot, oom, workspace_snapshot, ...),
    "addr" ("device_free" for oom), "size", "stream", "pool_id", "frames"
    (torch_npu/csrc/npu/Module.cpp, the trace entries and segments it emits);
    also what aclsim writes with ACLSIM_SNAPSHOT;
  - an RMM logging_resource_adaptor CSV (Thread,Time,Action,Pointer,Size,
    Stream; actions allocate, allocate failure, free);
  - an aclsim Chrome trace (ACLSIM_TRACE): its "malloc" and "free" instants.

A snapshot's history is a ring buffer, so its first entries may free blocks
allocated before it begins. As PyTorch's memory_viz does, the blocks live at
the start are found by walking the trace backwards from the final segments
(blocks not "inactive"): each free makes its block live before it, each
alloc dead before it. Those blocks are allocated first, marked as before
the trace (index -1).

The stream written for the driver (tools/replay/driver.c has the layout):
per device, in trace order, records (op, device, stream, index, pool,
block id, size): allocs, free_requested and frees, block ids dense (an
address reused after a free is a new block), streams and pools numbered
densely. Bad input raises TraceError naming the file and the entry.
"""
import csv
import json
import pickle
import struct

OP_ALLOC, OP_FREE, OP_FREE_REQUESTED = 1, 2, 3
INITIAL = 0xFFFFFFFF
HEADER = struct.Struct('<8sQQII')
RECORD = struct.Struct('<BBHIIIQQ')
# torch_npu Module.cpp's block states: blocks in these still hold memory.
LIVE_STATES = ('active_allocated', 'active_pending_free', 'active_awaiting_free')
FREES = ('free_completed', 'free')


class TraceError(Exception):
    """A trace that cannot be read: the message names the file and entry."""


class _NoGlobals(pickle.Unpickler):
    """Snapshots hold dicts, lists, tuples, strings and numbers only: a pickle
    naming a class or function is refused, never imported."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError('it names %s.%s (a snapshot holds plain data only)'
                                     % (module, name))


class Trace:
    """One trace, normalised: per device its entries (torch's format), the
    final segments, and what the stream was made from."""

    def __init__(self, path, fmt):
        self.path, self.format = path, fmt
        self.devices = {}      # device -> [entry dicts]
        self.segments = []     # final segments (torch format)
        self.streams = []      # dense stream number -> the trace's stream value
        self.pools = [None]    # dense pool number -> the trace's pool id
        self.records = 0
        self.blocks = 0
        self.entries = 0       # trace entries read, every device

    def frames(self, device, index):
        """The frames of entry `index` of the device's trace ([] if none)."""
        ev = self.devices.get(device, [])
        if 0 <= index < len(ev):
            fr = ev[index].get('frames') or []
            return [f for f in fr if isinstance(f, dict)]
        return []


def read(path):
    """The trace at path, whatever its kind. Raises TraceError."""
    try:
        with open(path, 'rb') as f:
            head = f.read(1)
    except OSError as e:
        raise TraceError('%s: cannot be read: %s' % (path, e.strerror or e))
    if head == b'\x80':
        return _torch(path)
    if head in (b'{', b'['):
        return _aclsim(path)
    return _rmm(path)


def _torch(path):
    try:
        with open(path, 'rb') as f:
            snap = _NoGlobals(f).load()
    except EOFError:
        raise TraceError('%s: the snapshot ends early (a truncated pickle)' % path)
    except (pickle.UnpicklingError, ValueError, TypeError, IndexError, KeyError,
            AttributeError, MemoryError, UnicodeDecodeError, OverflowError) as e:
        raise TraceError('%s: not a readable snapshot pickle: %s' % (path, e))
    if not isinstance(snap, dict) or not isinstance(snap.get('device_traces', []), list):
        raise TraceError('%s: not a memory snapshot (no dict with "device_traces")' % path)
    t = Trace(path, 'torch snapshot')
    segs = snap.get('segments', [])
    if not isinstance(segs, list):
        raise TraceError('%s: "segments" is not a list' % path)
    for i, s in enumerate(segs):
        if not isinstance(s, dict) or not isinstance(s.get('blocks', []), list):
            raise TraceError('%s: segments[%d]: not a segment with a list of blocks' % (path, i))
    t.segments = segs
    for d, ev in enumerate(snap.get('device_traces', [])):
        if not isinstance(ev, list):
            raise TraceError('%s: device_traces[%d]: not a list of entries' % (path, d))
        for i, e in enumerate(ev):
            _check(path, 'device_traces[%d][%d]' % (d, i), e)
        t.devices[d] = ev
    _build(t)
    return t


def _check(path, where, e):
    if not isinstance(e, dict) or not isinstance(e.get('action'), str):
        raise TraceError('%s: %s: not a trace entry (a dict with an "action")' % (path, where))
    a = e['action']
    if a in ('alloc', 'free_requested') + FREES:
        for k in ('addr', 'size'):
            v = e.get(k)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise TraceError('%s: %s: %s entry without a whole, non-negative "%s"'
                                 % (path, where, a, k))
        s = e.get('stream', 0)
        if not isinstance(s, int) or isinstance(s, bool):
            raise TraceError('%s: %s: "stream" is not a number' % (path, where))


def _rmm(path):
    t = Trace(path, 'RMM log')
    ev = []
    try:
        with open(path, newline='') as f:
            rows = csv.reader(f)
            head = next(rows, None)
            need = ('Action', 'Pointer', 'Size')
            if not head or any(k not in [h.strip() for h in head] for k in need):
                raise TraceError('%s: line 1: not a trace aclsim-replay knows: neither a snapshot '
                                 'pickle, an aclsim trace nor an RMM log (header with Action, '
                                 'Pointer, Size)' % path)
            col = {h.strip(): i for i, h in enumerate(head)}
            for n, row in enumerate(rows, 2):
                if not row:
                    continue
                try:
                    act = row[col['Action']].strip()
                    addr = int(row[col['Pointer']], 16)
                    size = int(row[col['Size']])
                    st = int(row[col['Stream']], 16) if 'Stream' in col else 0
                except (IndexError, ValueError):
                    raise TraceError('%s: line %d: not an RMM log row (%s)' % (path, n, ','.join(row)))
                if act not in ('allocate', 'allocate failure', 'free'):
                    raise TraceError('%s: line %d: unknown action "%s"' % (path, n, act))
                action = {'allocate': 'alloc', 'free': 'free_completed'}.get(act, 'oom')
                ev.append({'action': action, 'addr': addr, 'size': size, 'stream': st})
    except UnicodeDecodeError as e:
        raise TraceError('%s: not a text file (%s)' % (path, e))
    except OSError as e:
        raise TraceError('%s: cannot be read: %s' % (path, e))
    t.devices[0] = ev
    _build(t)
    return t


def _aclsim(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (ValueError, UnicodeDecodeError) as e:
        raise TraceError('%s: not a readable aclsim trace (JSON): %s' % (path, e))
    events = doc.get('traceEvents') if isinstance(doc, dict) else doc
    if not isinstance(events, list):
        raise TraceError('%s: not an aclsim trace (no "traceEvents" list)' % path)
    pids = {}
    for e in events:
        if isinstance(e, dict) and e.get('ph') == 'M' and e.get('name') == 'process_name':
            name = str(e.get('args', {}).get('name', ''))
            if name.startswith('device '):
                pids[e.get('pid')] = int(name.split()[1])
    t = Trace(path, 'aclsim trace')
    inst = []
    for i, e in enumerate(events):
        if isinstance(e, dict) and e.get('ph') == 'i' and e.get('name') in ('malloc', 'free'):
            try:
                addr, size = str(e['args']['arg']).split()[:2]
                inst.append((float(e['ts']), i, pids.get(e.get('pid'), int(e['pid']) - 1),
                             e['name'], int(addr, 16), int(size)))
            except (KeyError, ValueError, TypeError):
                raise TraceError('%s: traceEvents[%d]: a %s event without "<address> <bytes>"'
                                 % (path, i, e.get('name')))
    inst.sort()
    for ts, _, dev, name, addr, size in inst:
        t.devices.setdefault(dev, []).append(
            {'action': 'alloc' if name == 'malloc' else 'free_completed', 'addr': addr,
             'size': size, 'stream': 0})
    _build(t)
    return t


def _initial(t, d, ev):
    """The blocks live before the first entry: {addr: (size, stream, pool)}."""
    live = {}
    for s in t.segments:
        if s.get('device', 0) != d:
            continue
        pool = _pool_key(s.get('segment_pool_id'))
        for b in s.get('blocks', []):
            if isinstance(b, dict) and b.get('state') in LIVE_STATES:
                size = b.get('requested_size', b.get('size', 0))
                live[b.get('address', 0)] = (size, s.get('stream', 0), pool)
    for e in reversed(ev):
        a = e['action']
        if a == 'alloc':
            live.pop(e['addr'], None)
        elif a in FREES or (a == 'free_requested' and e['addr'] not in live):
            live[e['addr']] = (e['size'], e.get('stream', 0), _pool_key(e.get('pool_id')))
    return live


def _pool_key(p):
    if isinstance(p, (list, tuple)):
        p = tuple(p)
        return None if all(x == 0 for x in p) else p
    return p or None


def _build(t):
    """Number blocks, streams and pools; count the records (written by write)."""
    t.entries = sum(len(ev) for ev in t.devices.values())
    snum, pnum = {}, {None: 0}
    t._plan = []
    nblocks = nrec = 0
    for d in sorted(t.devices):
        ev = t.devices[d]
        if not 0 <= d < 64:
            raise TraceError('%s: device %d: aclsim simulates devices 0 to 63' % (t.path, d))
        recs = []
        cur = {}

        def add(op, index, addr, size, stream, pool):
            nonlocal nblocks
            s = snum.setdefault(stream, len(snum))
            p = pnum.setdefault(pool, len(pnum))
            if op == OP_ALLOC:
                if addr in cur:  # allocated twice with no free between: the first is gone
                    recs.append((OP_FREE, s, index, 0, cur[addr][0], cur[addr][1]))
                cur[addr] = (nblocks, size)
                nblocks += 1
            bid, bsize = cur[addr]
            recs.append((op, s, index, p, bid, bsize))
            if op == OP_FREE:
                del cur[addr]

        for addr, (size, stream, pool) in sorted(_initial(t, d, ev).items()):
            add(OP_ALLOC, INITIAL, addr, size, stream, pool)
        for i, e in enumerate(ev):
            a = e['action']
            if a == 'alloc':
                add(OP_ALLOC, i, e['addr'], e['size'], e.get('stream', 0),
                    _pool_key(e.get('pool_id')))
            elif a in FREES and e['addr'] in cur:
                add(OP_FREE, i, e['addr'], 0, e.get('stream', 0), None)
            elif a == 'free_requested' and e['addr'] in cur:
                add(OP_FREE_REQUESTED, i, e['addr'], 0, e.get('stream', 0), None)
        t._plan.append((d, recs))
        nrec += len(recs)
    t.records, t.blocks = nrec, nblocks
    t.streams = [k for k, _ in sorted(snum.items(), key=lambda kv: kv[1])] or [0]
    t.pools = [k for k, _ in sorted(pnum.items(), key=lambda kv: kv[1])]


def write(t, out):
    """Write the driver's stream of trace t to the binary file `out`."""
    buf = bytearray(HEADER.size + RECORD.size * t.records)
    HEADER.pack_into(buf, 0, b'ACLRPLY1', t.records, t.blocks,
                     1 + max(t.devices) if t.devices else 1, len(t.streams))
    off, pack = HEADER.size, RECORD.pack_into
    for d, recs in t._plan:
        for op, s, index, p, bid, size in recs:
            pack(buf, off, op, 0, d, s, index, p, bid, size)
            off += RECORD.size
    with open(out, 'wb') as f:
        f.write(buf)
