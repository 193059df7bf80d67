#!/usr/bin/env python3
"""test_campaign.py - fault/campaign.py's shards and merge, without Valgrind.

The programs under campaign are small shell scripts that speak the fault
protocol (ACLSIM_FAULT=point@n[+] in, ACLSIM_FAULT_COUNT=file out), so the
campaign's own logic is what is tested: the shard slices partition the case
list, shards merged equal one run, and the merge refuses shard reports that
do not add up to one campaign (a slice twice, slices of different N, a
missing slice, a case twice, different campaigns).
"""
import contextlib
import copy
import io
import json
import os
import sys
import tempfile
import textwrap
import unittest

# scons test runs a copy from the build tree and names the script under test.
sys.path.insert(0, os.path.dirname(os.environ.get('CAMPAIGN_PY') or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..', '..', 'fault', 'campaign.py')))
import campaign  # noqa: E402

# Hits per point in a clean run; a failing hit of x/crash from its 2nd on
# kills the program, everything else is handled (exit 3) or unreached.
FAKE = textwrap.dedent('''\
    spec=$ACLSIM_FAULT
    status=0
    if [ -n "$spec" ]; then
        point=${spec%%%%@*}; n=${spec#*@}; n=${n%%+}
        case $point in x/a) h=2;; x/b) h=3;; x/crash) h=2;; y/c) h=%d;; *) h=0;; esac
        if [ "$point" = x/crash ] && [ "$n" = 2 ]; then kill -SEGV $$; fi
        if [ "$h" -ge "$n" ]; then status=3; fi
    fi
    printf 'x/a 2\nx/b 3\nx/crash 2\ny/c %d\n' >"$ACLSIM_FAULT_COUNT"
    exit $status
''')


class Campaign(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.progs = []
        for name, yc in (('one', 1), ('two', 2)):
            path = os.path.join(cls.tmp.name, name + '.sh')
            with open(path, 'w') as f:
                f.write(FAKE % (yc, yc))
            cls.progs.append('sh ' + path)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_campaign(self, out, *args):
        with contextlib.redirect_stdout(io.StringIO()):
            status = campaign.main(['--no-valgrind', '--jobs', '2', '--out', out] +
                                   list(args) + self.progs)
        with open(os.path.join(out, 'report.json')) as f:
            return status, json.load(f)

    def merge(self, out, *paths):
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            status = campaign.main(['--merge'] + list(paths) + ['--out', out])
        return status, err.getvalue()

    def test_shard_option(self):
        self.assertEqual(campaign.parse_shard('1/1'), (1, 1))
        self.assertEqual(campaign.parse_shard('3/7'), (3, 7))
        for bad in ('0/2', '3/2', 'abc', '1/0', '', '1/2/3', '-1/2', ' 1/2'):
            with self.assertRaisesRegex(ValueError, 'shard=.*K/N'):
                campaign.parse_shard(bad)

    def test_slices_partition_the_plan(self):
        keys = campaign.plan([{'b': 2, 'a': 1, 'z': 0}, {'a': 3}])
        self.assertEqual(keys[:3], [(0, 'a', 1, 'once'), (0, 'a', 1, 'persistent'),
                                    (0, 'b', 1, 'once')])
        self.assertEqual(len(keys), 2 * (1 + 2 + 3))
        for n in (1, 2, 3, 5, 20):
            slices = [campaign.select(keys, k, n) for k in range(1, n + 1)]
            self.assertEqual(sorted(sum(slices, [])), sorted(keys))
            self.assertLessEqual(max(map(len, slices)) - min(map(len, slices)), 1)
            for sl in slices:
                self.assertEqual(sl, sorted(sl, key=campaign.order_key))
        # Not dealt in plain order: each half has cases of both modes.
        for k in (1, 2):
            self.assertEqual({m for *_, m in campaign.select(keys, k, 2)}, set(campaign.MODES))
        # The digest names programs by position, so paths do not change it.
        self.assertEqual(campaign.digest(keys), campaign.digest(list(keys)))
        self.assertNotEqual(campaign.digest(keys), campaign.digest(keys[1:]))

    def test_shards_merge_into_one_run(self):
        d = self.tmp.name
        status, whole = self.run_campaign(os.path.join(d, 'whole'))
        self.assertEqual(status, 1)                       # x/crash@2 crashes
        self.assertEqual(whole['summary']['cases'], 2 * (2 + 3 + 2 + 1 + 2 + 3 + 2 + 2))
        self.assertEqual(whole['summary']['crash'], 4)
        self.assertFalse(whole['summary']['valgrind'])
        self.assertNotIn('shard', whole)
        shards, statuses = [], []
        for k in (1, 2, 3):
            status, r = self.run_campaign(os.path.join(d, 's%d' % k), '--shard', '%d/3' % k)
            statuses.append(status)
            self.assertEqual(r['shard']['total'], whole['summary']['cases'])
            self.assertLess(len(r['cases']), whole['summary']['cases'])
            self.assertTrue(os.path.exists(os.path.join(d, 's%d' % k, 'shard-%d-of-3.json' % k)))
            shards.append(os.path.join(d, 's%d' % k, 'report.json'))
        self.assertIn(1, statuses)                        # the crashes are in some shard
        status, err = self.merge(os.path.join(d, 'merged'), shards[2], shards[0], shards[1])
        self.assertEqual((status, err), (1, ''))          # a bad case fails the merge
        with open(os.path.join(d, 'merged', 'report.json')) as f:
            merged = json.load(f)
        self.assertEqual(merged['summary'], whole['summary'])
        self.assertEqual(merged['cases'], whole['cases'])
        self.assertEqual(merged['merged']['shards'], 3)

        # Refusals: each leaves no merged report behind and exits 2.
        def refuse(pattern, *paths):
            out = os.path.join(d, 'refused')
            status, err = self.merge(out, *paths)
            self.assertEqual(status, 2, err)
            self.assertRegex(err, pattern)
            self.assertFalse(os.path.exists(os.path.join(out, 'report.json')))

        refuse(r'shard 2/3 is missing', shards[0], shards[2])
        refuse(r'shard 1/3 is given twice', shards[0], shards[0], shards[1], shards[2])
        refuse(r'not a shard report', os.path.join(d, 'whole', 'report.json'))
        refuse(r'cannot read', shards[0], os.path.join(d, 'nope.json'))
        _, half = self.run_campaign(os.path.join(d, 'h1'), '--shard', '1/2')
        refuse(r'different splits', shards[0], shards[1], shards[2],
               os.path.join(d, 'h1', 'report.json'))

        def doctored(name, change):
            with open(shards[1]) as f:
                r = json.load(f)
            change(r)
            path = os.path.join(d, name + '.json')
            with open(path, 'w') as f:
                json.dump(r, f)
            return path
        with open(shards[0]) as f:
            first = json.load(f)['cases'][0]
        dup = doctored('dup', lambda r: r['cases'].append(copy.deepcopy(first)))
        refuse(r'case .* is in .* and in', shards[0], dup, shards[2])
        lost = doctored('lost', lambda r: r['cases'].pop())
        refuse(r'hold \d+ cases, not the campaign', shards[0], lost, shards[2])
        other = doctored('other', lambda r: r['shard'].update(digest='0' * 64))
        refuse(r'different campaigns', shards[0], other, shards[2])
        bare = doctored('bare', lambda r: r['summary'].update(valgrind=True))
        refuse(r'differ in valgrind', shards[0], bare, shards[2])
        moved = doctored('moved', lambda r: r['summary'].update(programs=['a', 'b']))
        refuse(r'different programs', shards[0], moved, shards[2])


if __name__ == '__main__':
    unittest.main()
