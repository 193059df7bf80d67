#!/usr/bin/env python3
"""test_memview.py - the memory picture and the leak report tell what the
expandable-segments example did.

Runs examples/expandable_segments with a trace, draws the picture with
tools/memview.py, reads the page back (an HTML parser over its SVG) and
checks its bars and series against the figures the example printed; then
runs it with --leak under ACLSIM_LEAK_CHECK=warn and checks the report.
Environment: EXAMPLE (the binary), MEMVIEW (tools/memview.py).
"""
import html.parser
import os
import re
import subprocess
import sys
import tempfile

EXAMPLE = os.environ['EXAMPLE']
MEMVIEW = os.environ['MEMVIEW']
checks = failed = 0


def check(ok, what):
    global checks, failed
    checks += 1
    if not ok:
        failed += 1
        print('FAIL: ' + what)


class Picture(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.bars, self.series = [], {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'rect' and a.get('class') == 'bar':
            self.bars.append(a)
        if tag == 'polyline' and 'data-series' in a:
            self.series[a['data-series']] = (int(a['data-peak']), int(a['data-last']))


def env_with(**kv):
    e = {k: v for k, v in os.environ.items() if not k.startswith('ACLSIM_')}
    e.update(kv)
    return e


with tempfile.TemporaryDirectory() as tmp:
    trace = os.path.join(tmp, 'run.json')
    page = os.path.join(tmp, 'run.html')
    run = subprocess.run([EXAMPLE], env=env_with(ACLSIM_TRACE=trace), capture_output=True,
                         text=True)
    check(run.returncode == 0, 'the example failed: ' + run.stderr)
    m = re.search(r'reserved (\d+), peak mapped (\d+), peak used (\d+), now mapped (\d+) in '
                  r'(\d+) pieces, (\d+) maps in all', run.stdout)
    check(m is not None, 'the example printed no figures: ' + run.stdout)
    reserved, peak_mapped, peak_used, _, _, maps = map(int, m.groups())
    subprocess.run([sys.executable, MEMVIEW, trace, '-o', page], check=True,
                   capture_output=True)
    p = Picture()
    with open(page) as f:
        text = f.read()
    p.feed(text)
    check('<script' not in text and 'http' not in text.replace('http://www.w3.org/2000/svg', ''),
          'the page is not self-contained')
    res = [b for b in p.bars if b['data-kind'] == 'reservation']
    check(len(res) == 1 and int(res[0]['data-size']) == reserved,
          'reservation bars %s, the example reserved %d' % (res, reserved))
    check(res and res[0]['data-t1'] != '', 'the reservation is drawn as never released')
    mp = [b for b in p.bars if b['data-kind'] == 'mapping']
    check(len(mp) == maps, '%d mapping bars, the example mapped %d pieces' % (len(mp), maps))
    check(all(b['data-t1'] != '' for b in mp), 'a mapping is drawn as never unmapped')
    ph = [b for b in p.bars if b['data-kind'] == 'physical']
    check(len(ph) == maps and all(int(b['data-size']) == 2 << 20 for b in ph),
          'physical bars do not match the 2 MB pieces')
    check(p.series.get('mapped') == (peak_mapped, 0),
          'mapped series %s, the example peaked at %d' % (p.series.get('mapped'), peak_mapped))
    check(p.series.get('reserved') == (reserved, 0), 'reserved series %s' % (p.series.get('reserved'),))
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
