"""readers.py - the allocation traces aclsim-replay reads, made one stream.

Three inputs, told apart by their first bytes, read with Python's standard
library alone (no torch):
  - a torch / torch_npu memory snapshot (pickle, as _dump_snapshot and
    OOM_SNAPSHOT_ENABLE write it): {"segments": [...], "device_traces":
    [[entry, ...] per device]}; each entry a dict with "action" (alloc,
    free_requested, free_completed, segment_alloc, segment_free,
    segment_map, segment_unmap, snapshot, oom, workspace_snapshot, ...),
    "addr" ("device_free" for oom), "size", "stream", "pool_id", "frames"
    (Ascend/pytorch torch_npu/csrc/npu/Module.cpp @9e73e708 L1290-1440, the
    segments and the trace entries it emits); also what aclsim writes with
    ACLSIM_SNAPSHOT. PyTorch 2.0's snapshots give blocks no "address":
    they lie in their segment one after another from the segment's address,
    as memory_viz lays them out (pytorch/pytorch torch/utils/viz/
    MemoryViz.js, annotate_snapshot), and their requested size is
    history[0].real_size (torch_npu/npu/_memory_viz.py L64-71);
  - an RMM logging_resource_adaptor CSV (Thread,Time,Action,Pointer,Size,
    Stream; actions allocate, allocate failure, free; a failed allocation's
    pointer is glibc's %p of NULL, "(nil)");
  - an aclsim Chrome trace (ACLSIM_TRACE): its "malloc" and "free" instants.

A snapshot's history is a ring buffer, so its first entries may free blocks
allocated before it begins. As PyTorch's memory_viz does, the blocks live at
the start are found by walking the trace backwards from the final segments
(blocks not "inactive"): each free makes its block live before it, each
alloc dead before it. Those blocks are allocated first, marked as before
the trace (index -1).

An "oom" entry (and an RMM "allocate failure") is a request the workload
made and did not get: it is replayed as a request of its size, given back
at once (the workload never held it).

The stream written for the driver (tools/replay/driver.c has the layout):
per device, in trace order, records (op, device, stream, index, pool,
block id, size): a device record first, then allocs, free_requested and
frees, block ids dense (an address reused after a free is a new block),
streams and pools numbered densely. Bad input raises TraceError naming the
file and the entry, in one line. Reads are bounded: at most max_bytes, and
input that is not a regular file (a pipe, a device) within `timeout`
seconds.
"""
import csv
import io
import json
import os
import pickle
import select
import stat
import struct
import time

OP_DEVICE, OP_ALLOC, OP_FREE, OP_FREE_REQUESTED = 0, 1, 2, 3
INITIAL = 0xFFFFFFFF
HEADER = struct.Struct('<8sQQII')
RECORD = struct.Struct('<BBHIIIQQ')
# torch_npu Module.cpp's block states: blocks in these still hold memory.
LIVE_STATES = ('active_allocated', 'active_pending_free', 'active_awaiting_free')
FREES = ('free_completed', 'free')
SIZE_LIMIT = 1 << 62          # no address space holds a block this large
MAX_BYTES = 4 << 30           # default cap on what is read
TIMEOUT = 60.0                # default wait for input that is not a file
# memory_viz's frame filter (torch_npu/npu/_memory_viz.py L26-56, the same
# in torch's MemoryViz.js frameFilter): frames of the unwinder and of the
# interpreter are not shown.
OMIT_FUNCTIONS = ('unwind::unwind', 'CapturedTraceback::gather', 'gather_with_cpp', '_start',
                  '__libc_start_main', 'PyEval_', 'PyObject_', 'PyFunction_')
OMIT_FILES = ('core/boxing', '/Register', '/Redispatch', 'pythonrun.c', 'Modules/main.c',
              'Objects/call.c', 'Objects/methodobject.c', 'pycore_ceval.h', 'ceval.c',
              'cpython/abstract.h')
# Frames of torch and torch_npu themselves: the first frame past them is the user's.
LIBRARY_PATHS = ('/torch/', '/torch_npu/', 'site-packages/torch', 'c10/', 'aten/src')


class TraceError(Exception):
    """A trace that cannot be read: the message names the file and entry."""


def shown(frame):
    """memory_viz shows this frame."""
    name, filename = str(frame.get('name', '')), str(frame.get('filename', ''))
    return not any(o in name for o in OMIT_FUNCTIONS) and not any(o in filename for o in OMIT_FILES)


def user_frame(frames):
    """The first frame of the user's own Python code, or None."""
    for f in frames:
        fn = str(f.get('filename', ''))
        if fn.endswith('.py') and not any(p in fn for p in LIBRARY_PATHS):
            return f
    return None


class _NoGlobals(pickle.Unpickler):
    """Snapshots hold dicts, lists, tuples, strings and numbers only: a pickle
    naming a class or function is refused, never imported."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError('it names %s.%s (a snapshot holds plain data only)'
                                     % (module, name))


class _Bounded(io.RawIOBase):
    """A file read with a cap on its bytes and, when it is not a regular
    file, a deadline: what the readers read through."""

    def __init__(self, path, max_bytes, timeout):
        self.path, self.cap, self.total = path, max_bytes, 0
        try:
            st = os.stat(path)
            if stat.S_ISDIR(st.st_mode):
                raise TraceError('%s: is a directory, not a trace' % path)
            self.regular = stat.S_ISREG(st.st_mode)
            if self.regular and st.st_size > max_bytes:
                raise TraceError('%s: %d bytes, more than the %d aclsim-replay reads (--max-bytes)'
                                 % (path, st.st_size, max_bytes))
            self.fd = os.open(path, os.O_RDONLY | (0 if self.regular else os.O_NONBLOCK))
        except OSError as e:
            raise TraceError('%s: cannot be read: %s' % (path, e.strerror or e))
        self.deadline = None if self.regular else time.monotonic() + timeout
        self.timeout = timeout

    def readable(self):
        return True

    def readinto(self, b):
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                raise TraceError('%s: no end of input within %g s (a pipe or a device?)'
                                 % (self.path, self.timeout))
        try:
            n = os.readv(self.fd, [b])
        except BlockingIOError:
            return 0 if self.deadline is None else self.readinto(b)
        except OSError as e:
            raise TraceError('%s: cannot be read: %s' % (self.path, e.strerror or e))
        self.total += n
        if self.total > self.cap:
            raise TraceError('%s: more than the %d bytes aclsim-replay reads (--max-bytes)'
                             % (self.path, self.cap))
        return n

    def close(self):
        if getattr(self, 'fd', None) is not None:
            os.close(self.fd)
            self.fd = None
        super().close()


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
            return [f for f in ev[index].get('frames') or [] if isinstance(f, dict)]
        return []


def read(path, max_bytes=MAX_BYTES, timeout=TIMEOUT):
    """The trace at path, whatever its kind. Raises TraceError."""
    f = io.BufferedReader(_Bounded(path, max_bytes, timeout), 1 << 16)
    try:
        head = f.peek(1)[:1]
        if head == b'\x80':
            return _torch(path, f)
        if head in (b'{', b'['):
            return _aclsim(path, f)
        if not head or not (head.isalnum() or head in b' \t\r\n"'):
            raise TraceError('%s: not a trace aclsim-replay knows: neither a snapshot pickle, an '
                             'aclsim trace nor an RMM log (%s)'
                             % (path, 'empty' if not head else 'its first byte is %r' % head))
        return _rmm(path, f)
    except RecursionError:
        raise TraceError('%s: nested too deeply to be a trace' % path)
    except MemoryError:
        raise TraceError('%s: too large for this machine\'s memory' % path)
    finally:
        f.close()


def _int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _size(path, where, v, what='size'):
    if not _int(v) or v < 0:
        raise TraceError('%s: %s: "%s" is not a whole, non-negative number' % (path, where, what))
    if v >= SIZE_LIMIT:
        raise TraceError('%s: %s: "%s" %d is beyond any address space (at most 2^62)'
                         % (path, where, what, v))
    return v


def _pool(path, where, p):
    """A pool id as the trace gives it (None, a number, a pair): hashable,
    None for the default pool."""
    if p is None or _int(p):
        return p or None
    if isinstance(p, (list, tuple)) and all(_int(x) for x in p):
        return None if all(x == 0 for x in p) else tuple(p)
    raise TraceError('%s: %s: "pool_id" is not a pool id (a pair of numbers)' % (path, where))


def _frames(path, where, fr):
    if fr is not None and not isinstance(fr, list):
        raise TraceError('%s: %s: "frames" is not a list of frames' % (path, where))


def _torch(path, f):
    try:
        snap = _NoGlobals(f).load()
    except EOFError:
        raise TraceError('%s: the snapshot ends early (a truncated pickle)' % path)
    except TraceError:
        raise
    except (pickle.UnpicklingError, ValueError, TypeError, IndexError, KeyError,
            AttributeError, UnicodeDecodeError, OverflowError, struct.error) as e:
        raise TraceError('%s: not a readable snapshot pickle: %s' % (path, str(e).splitlines()[0]
                                                                      if str(e) else type(e).__name__))
    if not isinstance(snap, dict) or not isinstance(snap.get('device_traces', []), list):
        raise TraceError('%s: not a memory snapshot (no dict with "device_traces")' % path)
    t = Trace(path, 'torch snapshot')
    segs = snap.get('segments', [])
    if not isinstance(segs, list):
        raise TraceError('%s: "segments" is not a list' % path)
    t.segments = [_segment(path, i, s) for i, s in enumerate(segs)]
    for d, ev in enumerate(snap.get('device_traces', [])):
        if not isinstance(ev, list):
            raise TraceError('%s: device_traces[%d]: not a list of entries' % (path, d))
        for i, e in enumerate(ev):
            if not _plain(e):
                _entry(path, 'device_traces[%d][%d]' % (d, i), e)
        t.devices[d] = ev
    _build(t)
    return t


def _segment(path, i, s):
    """A final segment, checked, its blocks given addresses when they have none."""
    where = 'segments[%d]' % i
    if not isinstance(s, dict) or not isinstance(s.get('blocks', []), list):
        raise TraceError('%s: %s: not a segment with a list of blocks' % (path, where))
    dev = s.get('device', 0)
    if not _int(dev) or not 0 <= dev < 64:
        raise TraceError('%s: %s: "device" is not a device number (0 to 63)' % (path, where))
    seg = dict(s, device=dev, segment_pool_id=_pool(path, where, s.get('segment_pool_id')))
    stream = s.get('stream', 0)
    if not _int(stream):
        raise TraceError('%s: %s: "stream" is not a number' % (path, where))
    addr = s.get('address')
    blocks = []
    for j, b in enumerate(s.get('blocks', [])):
        bw = '%s.blocks[%d]' % (where, j)
        if not isinstance(b, dict) or not isinstance(b.get('state'), str):
            raise TraceError('%s: %s: not a block with a "state"' % (path, bw))
        size = _size(path, bw, b.get('size'))
        at = b.get('address', addr)
        if not _int(at) or at < 0:
            raise TraceError('%s: %s: no "address", nor one for its segment' % (path, bw))
        hist = b.get('history')
        if isinstance(hist, list) and hist and isinstance(hist[0], dict) and 'real_size' in hist[0]:
            req = hist[0]['real_size']
        else:
            req = b.get('requested_size') or size
        blocks.append(dict(b, address=at, size=size, requested_size=_size(path, bw, req,
                                                                          'requested_size')))
        addr = at + size
    seg['blocks'] = blocks
    return seg


CHECKED = frozenset(('alloc', 'free_requested', 'oom') + FREES)


def _plain(e):
    """The common entry, checked quickly: a dict whose fields are what they
    should be and whose pool is the default one (made None)."""
    if e.__class__ is not dict:
        return False
    a = e.get('action')
    if a not in CHECKED:
        return a.__class__ is str
    size, addr, stream, fr = e.get('size'), e.get('addr'), e.get('stream', 0), e.get('frames')
    if (size.__class__ is not int or not 0 <= size < SIZE_LIMIT or stream.__class__ is not int or
            (fr is not None and fr.__class__ is not list) or
            (a != 'oom' and (addr.__class__ is not int or addr < 0))):
        return False
    p = e.get('pool_id')
    if p is None:
        return True
    if p == (0, 0) or p == [0, 0]:
        e['pool_id'] = None
        return True
    return False


def _entry(path, where, e):
    """Entry e checked, its pool id made hashable (in place: a trace may
    hold millions)."""
    if not isinstance(e, dict) or not isinstance(e.get('action'), str):
        raise TraceError('%s: %s: not a trace entry (a dict with an "action")' % (path, where))
    a = e['action']
    if a not in ('alloc', 'free_requested', 'oom') + FREES:
        return e
    _size(path, where, e.get('size'))
    p = e.get('pool_id')
    if p is not None:
        e['pool_id'] = _pool(path, where, p)
    _frames(path, where, e.get('frames'))
    if a != 'oom':
        v = e.get('addr')
        if not _int(v) or v < 0:
            raise TraceError('%s: %s: %s entry without a whole, non-negative "addr"'
                             % (path, where, a))
    s = e.get('stream', 0)
    if not _int(s):
        raise TraceError('%s: %s: "stream" is not a number' % (path, where))
    return e


def _rmm(path, f):
    t = Trace(path, 'RMM log')
    ev = []
    text = io.TextIOWrapper(f, encoding='utf-8', newline='')
    try:
        rows = csv.reader(text)
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
                ptr = row[col['Pointer']].strip()
                addr = 0 if ptr == '(nil)' else int(ptr, 16)
                size = int(row[col['Size']])
                st = int(row[col['Stream']], 16) if 'Stream' in col else 0
            except (IndexError, ValueError):
                raise TraceError('%s: line %d: not an RMM log row (%s)'
                                 % (path, n, ','.join(row)[:200]))
            if act not in ('allocate', 'allocate failure', 'free'):
                raise TraceError('%s: line %d: unknown action "%s"' % (path, n, act[:80]))
            where = 'line %d' % n
            action = {'allocate': 'alloc', 'free': 'free_completed'}.get(act, 'oom')
            ev.append({'action': action, 'addr': addr, 'size': _size(path, where, size),
                       'stream': st})
    except UnicodeDecodeError as e:
        raise TraceError('%s: not a text file (%s)' % (path, e.reason))
    except csv.Error as e:
        raise TraceError('%s: not an RMM log: %s' % (path, e))
    finally:
        text.detach()
    t.devices[0] = ev
    _build(t)
    return t


def _aclsim(path, f):
    try:
        doc = json.loads(f.read())
    except (ValueError, UnicodeDecodeError) as e:
        raise TraceError('%s: not a readable aclsim trace (JSON): %s' % (path, e))
    events = doc.get('traceEvents') if isinstance(doc, dict) else doc
    if not isinstance(events, list):
        raise TraceError('%s: not an aclsim trace (no "traceEvents" list)' % path)
    pids = {}
    for i, e in enumerate(events):
        if isinstance(e, dict) and e.get('ph') == 'M' and e.get('name') == 'process_name':
            args = e.get('args')
            name = str(args.get('name', '')) if isinstance(args, dict) else ''
            if name.startswith('device '):
                try:
                    dev = int(name.split()[1])
                    hash(e.get('pid'))
                except (ValueError, IndexError, TypeError):
                    raise TraceError('%s: traceEvents[%d]: "%s" names no device number'
                                     % (path, i, name[:80]))
                if not 0 <= dev < 64:
                    raise TraceError('%s: traceEvents[%d]: device %d (aclsim simulates devices '
                                     '0 to 63)' % (path, i, dev))
                pids[e.get('pid')] = dev
    t = Trace(path, 'aclsim trace')
    inst = []
    for i, e in enumerate(events):
        if isinstance(e, dict) and e.get('ph') == 'i' and e.get('name') in ('malloc', 'free'):
            try:
                addr, size = str(e['args']['arg']).split()[:2]
                pid = e.get('pid')
                dev = pids[pid] if pid in pids else int(pid) - 1
                inst.append((float(e['ts']), i, dev, e['name'], int(addr, 16), int(size)))
            except (KeyError, ValueError, TypeError):
                raise TraceError('%s: traceEvents[%d]: a %s event without "<address> <bytes>"'
                                 % (path, i, e.get('name')))
            _size(path, 'traceEvents[%d]' % i, inst[-1][5])
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
        if s['device'] != d:
            continue
        for b in s['blocks']:
            if b['state'] in LIVE_STATES:
                live[b['address']] = (b['requested_size'], s.get('stream', 0),
                                      s['segment_pool_id'])
    for e in reversed(ev):
        a = e['action']
        if a == 'alloc':
            live.pop(e['addr'], None)
        elif a in FREES or (a == 'free_requested' and e['addr'] not in live):
            live[e['addr']] = (e['size'], e.get('stream', 0), e.get('pool_id'))
    return live


def _build(t):
    """Number blocks, streams and pools; count the records (written by write)."""
    t.entries = sum(len(ev) for ev in t.devices.values())
    snum, pnum = {}, {None: 0}
    t._plan = []
    nblocks = nrec = 0
    devices = set(t.devices) | {s['device'] for s in t.segments}
    for d in devices:
        t.devices.setdefault(d, [])
    for d in sorted(t.devices) or [0]:
        ev = t.devices.get(d, [])
        if not 0 <= d < 64:
            raise TraceError('%s: device %d: aclsim simulates devices 0 to 63' % (t.path, d))
        recs = [(OP_DEVICE, 0, INITIAL, 0, 0, 0)]
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
                add(OP_ALLOC, i, e['addr'], e['size'], e.get('stream', 0), e.get('pool_id'))
            elif a == 'oom':  # asked for and never held: a block of its own, given back
                key = ('oom', i)
                add(OP_ALLOC, i, key, e['size'], e.get('stream', 0), e.get('pool_id'))
                add(OP_FREE, i, key, 0, e.get('stream', 0), None)
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
