#!/usr/bin/env python3
"""memview.py - a picture of device memory over time, from an aclsim trace.

    python3 tools/memview.py TRACE.json [-o OUT.html]
    scons memview TRACE=TRACE.json [OUT=OUT.html]

Reads the Chrome trace that ACLSIM_TRACE=TRACE.json wrote and writes one
self-contained HTML page (inline SVG, no script, no network) with, per
device:
  - a timeline of every allocation, as a bar from when it was made to when it
    was released (or the end of the trace): aclrtMalloc blocks, reservations
    (aclrtReserveMemAddress), mappings (aclrtMapMem), physical memory handles
    (aclrtMallocPhysical) and memory-pool blocks and pools; each bar's tooltip
    gives its address, size and times;
  - the figures over time: device memory in use, and, when the program used
    them, bytes reserved, mapped and physical, and each pool's reserved and
    used bytes.
Every bar and series carries data-* attributes (kind, addr, size, t0, t1;
series name, peak and last value), so a test or a script can read the
picture back. Default output: TRACE.json with .html in place of .json.
"""
import html
import json
import sys

# instant name -> (kind, opens?) ; an opening and its closing share kind and address
EVENTS = {
    'malloc': ('block', True), 'free': ('block', False),
    'reserve': ('reservation', True), 'release': ('reservation', False),
    'map': ('mapping', True), 'unmap': ('mapping', False),
    'physical': ('physical', True), 'physical free': ('physical', False),
    'pool malloc': ('pool block', True), 'pool free': ('pool block', False),
    'pool create': ('pool', True), 'pool destroy': ('pool', False),
}
COLOURS = {'block': '#4e79a7', 'reservation': '#bab0ac', 'mapping': '#59a14f',
           'physical': '#f28e2b', 'pool block': '#b07aa1', 'pool': '#76b7b2'}
ORDER = ['reservation', 'mapping', 'physical', 'pool', 'pool block', 'block']
SERIES_COLOURS = ['#4e79a7', '#e15759', '#59a14f', '#f28e2b', '#b07aa1', '#76b7b2',
                  '#edc948', '#9c755f']


def load(path):
    with open(path) as f:
        doc = json.load(f)
    return doc['traceEvents'] if isinstance(doc, dict) else doc


def device_names(events):
    names = {}
    for e in events:
        if e.get('ph') == 'M' and e.get('name') == 'process_name':
            names[e['pid']] = e.get('args', {}).get('name', str(e['pid']))
    return names


def collect(events):
    """Per pid: bars [(kind, addr, size, t0, t1)], series {name: [(t, v)]}, end time."""
    devs = {}
    end = 0.0
    for e in events:
        if 'ts' in e:
            end = max(end, float(e['ts']) + float(e.get('dur', 0)))
    for e in sorted((e for e in events if e.get('ph') in ('i', 'C')),
                    key=lambda e: float(e['ts'])):
        d = devs.setdefault(e['pid'], {'open': {}, 'bars': [], 'series': {}})
        t = float(e['ts'])
        if e['ph'] == 'C':
            d['series'].setdefault(e['name'], []).append((t, int(e['args']['value'])))
            continue
        what = EVENTS.get(e['name'])
        arg = e.get('args', {}).get('arg', '')
        if not what or not arg:
            continue
        parts = arg.split()
        addr, size = parts[0], int(parts[1])
        kind, opens = what
        key = (kind, addr)
        if opens:
            d['open'][key] = (size, t)
        elif key in d['open']:
            size0, t0 = d['open'].pop(key)
            d['bars'].append((kind, addr, size0, t0, t))
    for d in devs.values():
        for (kind, addr), (size, t0) in d['open'].items():
            d['bars'].append((kind, addr, size, t0, None))  # never released
    return devs, end


def human(n):
    for unit in ('B', 'KiB', 'MiB', 'GiB', 'TiB'):
        if abs(n) < 1024 or unit == 'TiB':
            return ('%d %s' % (n, unit)) if unit == 'B' else ('%.1f %s' % (n, unit))
        n /= 1024.0


def render_device(name, d, end):
    W, LEFT, RIGHT = 1100, 150, 20
    plot_w = W - LEFT - RIGHT
    span = end if end > 0 else 1.0

    def x(t):
        return LEFT + plot_w * (t / span)

    out = ['<h2>%s</h2>' % html.escape(name)]
    bars = sorted(d['bars'], key=lambda b: (ORDER.index(b[0]), int(b[1], 16), b[3]))
    # one lane per address of a kind, reused when an earlier bar there ended
    lanes = []
    rows = []
    for b in bars:
        lane = None
        for i, (kind, addr, last_end) in enumerate(lanes):
            if kind == b[0] and addr == b[1] and last_end is not None and last_end <= b[3]:
                lane = i
                break
        if lane is None:
            lanes.append((b[0], b[1], b[4]))
            lane = len(lanes) - 1
        else:
            lanes[lane] = (b[0], b[1], b[4])
        rows.append((lane, b))
    LANE = 14
    h = 40 + LANE * max(1, len(lanes))
    out.append('<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
               'data-device="%s">' % (W, h, html.escape(name)))
    out.append('<text x="4" y="14" font-size="12">allocations (bars: made .. released)</text>')
    out.append('<line x1="%d" y1="24" x2="%d" y2="24" stroke="#999"/>' % (LEFT, W - RIGHT))
    out.append('<text x="%d" y="20" font-size="10">0 us</text>' % LEFT)
    out.append('<text x="%d" y="20" font-size="10" text-anchor="end">%.1f us</text>'
               % (W - RIGHT, span))
    labelled = set()
    for lane, (kind, addr, size, t0, t1) in rows:
        y = 30 + lane * LANE
        if lane not in labelled:
            labelled.add(lane)
            out.append('<text x="4" y="%d" font-size="10">%s %s</text>'
                       % (y + 10, html.escape(kind), html.escape(addr)))
        x0 = x(t0)
        x1 = x(t1 if t1 is not None else span)
        tip = '%s at %s: %s (%d bytes), made at %.3f us, %s' % (
            kind, addr, human(size), size, t0,
            'released at %.3f us' % t1 if t1 is not None else 'never released')
        out.append('<rect class="bar" x="%.2f" y="%d" width="%.2f" height="%d" fill="%s" '
                   'data-kind="%s" data-addr="%s" data-size="%d" data-t0="%s" data-t1="%s">'
                   '<title>%s</title></rect>'
                   % (x0, y, max(1.0, x1 - x0), LANE - 3, COLOURS[kind], html.escape(kind),
                      html.escape(addr), size, repr(t0), '' if t1 is None else repr(t1),
                      html.escape(tip)))
    out.append('</svg>')
    # figures over time
    series = d['series']
    if series:
        H = 220
        peak = max(v for s in series.values() for _, v in s) or 1
        out.append('<svg class="series" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d">'
                   % (W, H + 30 + 16 * len(series)))
        out.append('<text x="4" y="14" font-size="12">bytes over time (peak %s)</text>'
                   % html.escape(human(peak)))
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#999"/>'
                   % (LEFT, H + 20, W - RIGHT, H + 20))
        for i, (sname, pts) in enumerate(sorted(series.items())):
            col = SERIES_COLOURS[i % len(SERIES_COLOURS)]
            path, last = [], 0
            for t, v in pts:  # a step line: the value holds until the next sample
                yv = 20 + H - H * v / peak
                if path:
                    path.append('%.2f,%.2f' % (x(t), 20 + H - H * last / peak))
                path.append('%.2f,%.2f' % (x(t), yv))
                last = v
            path.append('%.2f,%.2f' % (x(span), 20 + H - H * last / peak))
            smax = max(v for _, v in pts)
            out.append('<polyline class="line" fill="none" stroke="%s" stroke-width="1.5" '
                       'points="%s" data-series="%s" data-peak="%d" data-last="%d">'
                       '<title>%s: peak %s, last %s</title></polyline>'
                       % (col, ' '.join(path), html.escape(sname), smax, last,
                          html.escape(sname), html.escape(human(smax)), html.escape(human(last))))
            out.append('<rect x="%d" y="%d" width="10" height="10" fill="%s"/>'
                       '<text x="%d" y="%d" font-size="11">%s: peak %s, last %s</text>'
                       % (LEFT, H + 30 + 16 * i, col, LEFT + 14, H + 39 + 16 * i,
                          html.escape(sname), html.escape(human(smax)), html.escape(human(last))))
        out.append('</svg>')
    return '\n'.join(out)


def render(events):
    devs, end = collect(events)
    names = device_names(events)
    body = [render_device(names.get(pid, 'pid %s' % pid), devs[pid], end) for pid in sorted(devs)]
    legend = ' '.join('<span style="background:%s;color:#fff;padding:1px 6px">%s</span>'
                      % (c, k) for k, c in COLOURS.items())
    return ('<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>aclsim memory over time'
            '</title><style>body{font-family:sans-serif;margin:16px}svg{display:block;'
            'margin:8px 0;border:1px solid #ddd}</style></head><body>\n'
            '<h1>Device memory over time</h1><p>Simulated time; hover a bar or line for its '
            'figures. %s</p>\n%s\n</body></html>\n'
            % (legend, '\n'.join(body) if body else '<p>The trace has no memory events.</p>'))


def main(argv):
    if not argv or argv[0] in ('-h', '--help'):
        print(__doc__)
        return 0 if argv else 2
    src = argv[0]
    out = src[:-5] + '.html' if src.endswith('.json') else src + '.html'
    if len(argv) >= 3 and argv[1] == '-o':
        out = argv[2]
    page = render(load(src))
    with open(out, 'w') as f:
        f.write(page)
    print('memview: wrote %s' % out)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
