#!/usr/bin/env python3
# vself-match.py REC CALLS CLOCK_NS [FUNCTION] (t826, bench/variance-self.sh): sonde
# variance's instances of vself's leaf() (or FUNCTION, logged the same way: REC's
# instances.csv) matched to vself's own record of the same calls (CALLS), by thread and
# start (the body starts within 5 us of the instance's start).  The truth of a call is its
# body's CPU time plus CLOCK_NS (the clock read the body's clocks leave out: vself's
# `clock` line).  Prints one line: instances, matched, sonde's median and mean CPU time,
# the same calls' truth, and the error (sonde - truth) at p10, median, p90 and mean, in ns.
import bisect, csv, sys

rec, callf, clk = sys.argv[1], sys.argv[2], int(sys.argv[3])
fn = sys.argv[4] if len(sys.argv) > 4 else 'leaf'
calls = {}
for line in open(callf):
    t, m, ci, mi = map(int, line.split()[:4])
    calls.setdefault(t, []).append((m, ci + clk))
for t in calls:
    calls[t].sort()
keys = {t: [c[0] for c in calls[t]] for t in calls}
rows = [r for r in csv.DictReader(open(rec + '/variance/instances.csv')) if r['function'] == fn]


def match(r, t):
    if t not in keys:
        return None
    s = int(r['start'])
    i = bisect.bisect_left(keys[t], s)
    return calls[t][i] if i < len(keys[t]) and keys[t][i] - s < 5000 else None


# sonde's thread numbers are in order of start, not vself's: take the mapping that matches most
idx = sorted({r['thread'] for r in rows})
best = {}
for th in idx:
    best[th] = max(calls, key=lambda t: sum(1 for r in rows if r['thread'] == th and match(r, t)))
M = [(int(r['cpu_time']), c[1]) for r in rows for c in [match(r, best[r['thread']])] if c]
if not M:
    print('instances %d matched 0' % len(rows))
    sys.exit(0)


def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))]


def mean(v):
    return sum(v) / len(v)


s = [a for a, b in M]
t = [b for a, b in M]
e = [a - b for a, b in M]
print('instances %d matched %d sonde_median %d sonde_mean %d truth_median %d truth_mean %d '
      'err_p10 %d err_median %d err_p90 %d err_mean %d' %
      (len(rows), len(M), q(s, .5), mean(s), q(t, .5), mean(t), q(e, .1), q(e, .5), q(e, .9), mean(e)))
