#!/usr/bin/env python3
"""test_vmm_trace.py - the Chrome trace and the leak report tell what the
expandable-segments example did.

Runs examples/expandable_segments with ACLSIM_TRACE, reads the trace's
reservation, mapping and physical-handle instants and its "reserved" and
"mapped" counters, and checks them against the figures the example
printed; then runs it with --leak under ACLSIM_LEAK_CHECK=warn and checks
the report. Environment: EXAMPLE (the binary).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

EXAMPLE = os.environ['EXAMPLE']
checks = failed = 0


def check(ok, what):
    global checks, failed
    checks += 1
    if not ok:
        failed += 1
        print('FAIL: ' + what)


def env_with(**kv):
    e = {k: v for k, v in os.environ.items() if not k.startswith('ACLSIM_')}
    e.update(kv)
    return e


def spans(events, begin, end):
    """[(address, size, begun, ended)] of the instants `begin`/`end` ("0x.. N")."""
    open_, out = {}, []
    for e in events:
        if e.get('ph') == 'i' and e['name'] in (begin, end):
            addr, size = e['args']['arg'].split()[:2]
            if e['name'] == begin:
                open_[addr] = (int(size), float(e['ts']))
            elif addr in open_:
                n, t0 = open_.pop(addr)
                out.append((addr, n, t0, float(e['ts'])))
    return out + [(a, n, t0, None) for a, (n, t0) in open_.items()]


def series(events, name):
    """(peak, last) of counter `name`."""
    v = [int(e['args']['value']) for e in events if e.get('ph') == 'C' and e['name'] == name]
    return (max(v), v[-1]) if v else None


with tempfile.TemporaryDirectory() as tmp:
    trace = os.path.join(tmp, 'run.json')
    run = subprocess.run([EXAMPLE], env=env_with(ACLSIM_TRACE=trace), capture_output=True,
                         text=True)
    check(run.returncode == 0, 'the example failed: ' + run.stderr)
    m = re.search(r'reserved (\d+), peak mapped (\d+), peak used (\d+), now mapped (\d+) in '
                  r'(\d+) pieces, (\d+) maps in all', run.stdout)
    check(m is not None, 'the example printed no figures: ' + run.stdout)
    reserved, peak_mapped, peak_used, _, _, maps = map(int, m.groups())
    with open(trace) as f:
        ev = json.load(f)['traceEvents']
    res = spans(ev, 'reserve', 'release')
    check(len(res) == 1 and res[0][1] == reserved,
          'reservations %s, the example reserved %d' % (res, reserved))
    check(res and res[0][3] is not None, 'the reservation is never released in the trace')
    mp = spans(ev, 'map', 'unmap')
    check(len(mp) == maps, '%d mappings, the example mapped %d pieces' % (len(mp), maps))
    check(all(x[3] is not None for x in mp), 'a mapping is never unmapped in the trace')
    ph = spans(ev, 'physical', 'physical free')
    check(len(ph) == maps and all(x[1] == 2 << 20 for x in ph),
          'physical handles do not match the 2 MB pieces')
    check(series(ev, 'mapped') == (peak_mapped, 0),
          'mapped counter %s, the example peaked at %d' % (series(ev, 'mapped'), peak_mapped))
    check(series(ev, 'reserved') == (reserved, 0), 'reserved counter %s' % (series(ev, 'reserved'),))
    check(peak_used <= peak_mapped < peak_used + (2 << 20), 'peak used and mapped disagree')

    # the leak report names what --leak left behind, with the same figures
    run = subprocess.run([EXAMPLE, '--leak'], env=env_with(ACLSIM_LEAK_CHECK='warn'),
                         capture_output=True, text=True)
    m = re.search(r'now mapped (\d+) in (\d+) pieces', run.stdout)
    now_mapped, pieces = int(m.group(1)), int(m.group(2))
    r = re.findall(r'reserved range: (\d+) bytes at \S+ never released, (\d+) bytes of it mapped',
                   run.stderr)
    check(r == [(str(reserved), str(now_mapped))], 'leak report %r, wanted %d/%d'
          % (r, reserved, now_mapped))
    handles = re.findall(r'physical memory: 2097152 bytes, handle \S+ never freed, mapped 1 time',
                         run.stderr)
    check(len(handles) == pieces, '%d handles reported, %d pieces left' % (len(handles), pieces))

print('%d passed, %d failed' % (checks - failed, failed))
sys.exit(1 if failed else 0)
