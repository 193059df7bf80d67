#!/usr/bin/env python3
"""test_npusmi.py - bin/npu-smi answers for the simulated NPUs in npu-smi's
layout, as the scripts that parse it by line and field read it.

ggml's CANN CMake (ggml/src/ggml-cann/CMakeLists.txt, detect_ascend_soc_type)
runs `npu-smi info|awk -F' ' 'NF > 0 && NR==7 {print $3}'` and prepends
"Ascend": that pipeline must give the SoC of ACLSIM_SOC. The table is
npu-smi 23.0's Atlas A2 layout (98 columns); -l and -t board are lists of
"Name : value" lines. Options npu-smi has and aclsim does not model exit 2
saying so; an NPU ID that is not simulated exits 1.
Environment: NPUSMI (bin/npu-smi of the tree).
"""
import os
import re
import subprocess
import sys

NPUSMI = os.environ['NPUSMI']
checks = failed = 0


def check(ok, what):
    global checks, failed
    checks += 1
    if not ok:
        failed += 1
        print('FAIL: ' + what)


def run(args, **env):
    e = {k: v for k, v in os.environ.items() if not k.startswith('ACLSIM_')}
    e.update(env)
    p = subprocess.run([NPUSMI] + args, capture_output=True, text=True, env=e, timeout=60)
    return p.returncode, p.stdout, p.stderr


def fields(text):
    """The "Name : value" lines of -l and -t board, in order."""
    return [tuple(s.strip() for s in l.split(':', 1)) for l in text.splitlines() if ':' in l]


# ggml's own pipeline picks the chip name of ACLSIM_SOC, for each profile
for soc in ('Ascend910B1', 'Ascend910B4', 'Ascend910B2'):
    e = {k: v for k, v in os.environ.items() if not k.startswith('ACLSIM_')}
    e['ACLSIM_SOC'] = soc
    p = subprocess.run(['bash', '-c', NPUSMI + " info|awk -F' ' 'NF > 0 && NR==7 {print $3}'"],
                       capture_output=True, text=True, env=e, timeout=60)
    check(p.returncode == 0 and 'Ascend' + p.stdout.strip() == soc,
          "ggml's detect_ascend_soc_type reads %r for %s" % (p.stdout.strip(), soc))

# the table: 98 columns, one NPU and one chip row per device, HBM of the profile
rc, out, err = run(['info'], ACLSIM_DEVICE_COUNT='3', ACLSIM_HBM_BYTES=str(512 << 20))
lines = out.splitlines()
check(rc == 0, 'npu-smi info exits 0 (%d: %s)' % (rc, err))
check(all(len(l) == 98 for l in lines), 'every line of the table is 98 columns wide')
npu_rows = [l for l in lines if re.match(r'\| \d+ +910B1 +\| OK', l)]
check([int(l.split()[1]) for l in npu_rows] == [0, 1, 2], 'NPU rows 0, 1 and 2: %r' % npu_rows)
hbm = [re.search(r'(\d+) +/ +(\d+) +\|$', l) for l in lines if re.match(r'\| 0 +\| [0-9A-F:.]+ ', l)]
check(len(hbm) == 3 and all(h and int(h.group(1)) == 0 and 0 < int(h.group(2)) <= 512 for h in hbm),
      'each chip row reads HBM 0 used of at most the 512 MiB given: %r' % [h and h.group(0) for h in hbm])
check(sum('No running processes found in NPU' in l for l in lines) == 3,
      'the process table names each NPU')

# -l: the count and each NPU with its one chip
rc, out, err = run(['info', '-l'], ACLSIM_DEVICE_COUNT='2')
f = fields(out)
check(rc == 0 and f[0] == ('Total Count', '2') and
      [v for k, v in f if k == 'NPU ID'] == ['0', '1'] and
      [v for k, v in f if k == 'Chip Count'] == ['1', '1'], 'npu-smi info -l: %r' % f)
check(all(re.match(r'^\t\S.{30}: ', l) for l in out.splitlines() if ':' in l),
      'names are padded to 31 columns after a tab')

# -t board -i N: that NPU's facts; -c 0 its chip
rc, out, err = run(['info', '-t', 'board', '-i', '1'], ACLSIM_DEVICE_COUNT='2')
f = dict(fields(out))
check(rc == 0 and f.get('NPU ID') == '1' and f.get('Chip Count') == '1' and
      re.match(r'^[0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d$', f.get('PCIe Bus Info', '')),
      'npu-smi info -t board -i 1: %r' % f)
rc, out, err = run(['info', '-t', 'board', '-i', '0', '-c', '0'], ACLSIM_SOC='Ascend910_9391')
f = dict(fields(out))
check(rc == 0 and f.get('Chip Name') == '910' and f.get('NPU Name') == '9391',
      'a chip of Ascend910_9391 is Chip Name 910, NPU Name 9391: %r' % f)

# refusals: an NPU that is not simulated; what is not modelled
rc, out, err = run(['info', '-t', 'board', '-i', '4'], ACLSIM_DEVICE_COUNT='2')
check(rc == 1 and 'NPU ID 4 is not a simulated NPU' in err, 'a bad NPU ID exits 1 (%d: %s)' % (rc, err))
for args in (['info', '-t', 'memory', '-i', '0'], ['set', '-t', 'reset', '-i', '0'], ['info', '-m']):
    rc, out, err = run(args)
    check(rc == 2 and 'not modelled' in err and out == '',
          'npu-smi %s says it is not modelled and exits 2 (%d: %s)' % (' '.join(args), rc, err))

print('npusmi: %d checks, %d failed' % (checks, failed))
sys.exit(1 if failed else 0)
