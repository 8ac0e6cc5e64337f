#!/usr/bin/env bash
# t838-variance-threads-timeline: which thread is slow, and a timeline per thread.  By
# construction (a sonde-cc --sonde-calls-only build: the hooks time it here, where the debug
# registers do not trap): threads 1 and 2 call f at once, thread 1 with 1 unit of work a
# call, thread 2 with 3 (same CPU time in all: ~0.6 s each on this VM), then main calls
# rare() 8 times, 30 ms of CPU each (~14% of the samples), then once() once, 300 ms (~17%).
#  - f's verdict: threads differ, slowest thread 2, fastest thread 1 (model.c,
#    thread_extremes; the usability review of 2026-11-29, M4: no report said which), and
#    every verdict the rule's (var_verdicts, which checks the two named threads against
#    threads.csv's means);
#  - the timeline: a line per thread on one scale, thread 1's bars under thread 2's largest
#    (a third of it: no full bar), and the SVG's points in order of their start (until
#    2026-11-29 the threads were joined end to end, a step read as a slowdown: M1);
#  - rare has under 10 instances (at most 7: one per call after a pick) at over 10% of
#    the time: the note says so and what gives more (the trial of 2026-11-29, F6);
#  - JSON carries the header's counters and its "not measured" list: once, 300 ms in one
#    call, never timed (M5);
#  - a program whose work is a loop in main: its samples said to be main's own code, not
#    libraries without frame pointers (M3);
#  - the header's pick: line, how an instance is chosen and where that misleads (H1).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"
command -v clang >/dev/null || { skip t838 "clang is not installed (sonde-cc needs it)"; exit 0; }
cat >tt.c <<'C'
#include <pthread.h>
#include <stdio.h>
#include <time.h>
static volatile unsigned sink;
static inline __attribute__((always_inline)) void work(long n)
{
	unsigned x = sink;
	for (long i = 0; i < n; i++)
		x = x * 1664525u + 1013904223u;
	sink = x;
}
__attribute__((noinline)) void f(long units) { work(units * 20000); }
/* ms of this thread's CPU time in work */
static inline __attribute__((always_inline)) void spend(long ms)
{
	struct timespec a, b;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		work(20000);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec < ms * 1000000L);
}
__attribute__((noinline)) void rare(void) { spend(30); }
__attribute__((noinline)) void once(void) { spend(300); }
static void *worker(void *a)
{
	long u = (long)a;
	for (long i = 0; i < 6000 / u; i++)
		f(u);
	return NULL;
}
int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, worker, (void *)1L);
	pthread_create(&b, NULL, worker, (void *)3L);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	for (int i = 0; i < 8; i++)
		rare();
	once();
	printf("tt done\n");
	return 0;
}
C
"$SONDE_BUILD/sonde-cc" --sonde-calls-only -O1 -pthread tt.c -o tt 2>cc.err ||
	{ fail t838-build "$(head -3 cc.err)"; exit 0; }
SONDE_VARIANCE_PATIENCE=20 "$SONDE" variance -o rec -- ./tt >out 2>err
check t838-exit-status [ $? -eq 0 ]
check t838-stdout [ "$(cat out)" = "tt done" ]
F=rec/variance/functions.csv
[ -f $F ] || { fail t838-functions "no $F: $(tail -3 err)"; exit 0; }
v=$(var_col $F f "worker > f" cpu-time verdict)
echo "    f: $v"
check t838-threads-differ grep -q "threads differ (CV of thread means" <<<"$v"
check t838-slowest-fastest grep -qE "; slowest thread 2 [0-9.]+ [um]s, fastest thread 1 [0-9.]+ [um]s" <<<"$v"
var_verdicts t838-verdicts $F

"$SONDE" variance --timeline f rec >tl.txt 2>tl.err
check t838-timeline-status [ $? -eq 0 ]
cat tl.txt | sed 's/^/    /' | head -8
check t838-timeline-per-thread grep -q "^worker > f  (.* instances in order, a line per thread," tl.txt
l1=$(grep "^thread 1 (" tl.txt) l2=$(grep "^thread 2 (" tl.txt)
check t838-timeline-two-lines [ -n "$l1" -a -n "$l2" ]
# one scale: thread 1's bars lower on average (by the mean level, which one preempted
# instance does not carry: a bar is its group's largest)
check t838-timeline-one-scale python3 -c '
import sys
lv = lambda s: [("▁▂▃▄▅▆▇█").index(c) for c in s if c in "▁▂▃▄▅▆▇█"]
a, b = lv(sys.argv[1]), lv(sys.argv[2])
assert a and b and sum(a) / len(a) < sum(b) / len(b), (a, b)' "$l1" "$l2"
# the figure: a line per thread (2 polylines), each instance at its start: the points'
# x the seconds of timeline.csv's starts from the first (the SVG's x in pixels: their
# spans compared, as shares of the plot's; before, x was the instance's number), each line
# in order of time
svg=rec/variance/timeline.svg
check t838-svg-threads-in-time python3 -c '
import csv, sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
lines = [[tuple(map(float, t.split(","))) for t in p.get("points").split()]
	 for p in r.iter("{http://www.w3.org/2000/svg}polyline")]
assert len(lines) == 2, len(lines)
rows = [r for r in csv.DictReader(open(sys.argv[2]))]
st = {}
for w in rows:
	st.setdefault(w["thread"], []).append(int(w["start"]))
t0 = min(min(v) for v in st.values())
span = max(max(v) for v in st.values()) - t0
xs = sorted(p[0] for l in lines for p in l)
px = xs[-1] - xs[0]
for l, th in zip(lines, sorted(st, key=int)):
	assert [p[0] for p in l] == sorted(p[0] for p in l)
	# the thread'"'"'s first and last starts, as shares of the whole span, where its
	# line begins and ends
	a, b = (min(st[th]) - t0) / span, (max(st[th]) - t0) / span
	la, lb = (l[0][0] - xs[0]) / px, (l[-1][0] - xs[0]) / px
	assert abs(a - la) < 0.02 and abs(b - lb) < 0.02, (th, a, la, b, lb)' "$svg" rec/variance/timeline.csv

# rare: over 10% of the time, under 10 instances
n=$(var_col $F rare "main > rare" cpu-time instances) s=$(var_col $F rare "main > rare" cpu-time share)
echo "    rare: $n instances, share $s"
if [ -n "$n" ] && [ "$n" -lt 10 ] && float_between "${s:-0}" 0.10 1; then
	check t838-few-note grep -q "had under 10 instances timed, too few for a CV" <(flat err)
	check t838-few-note-names grep -q "(rare, [0-9]*% of the time" <(flat err)
	check t838-few-note-period grep -q "a shorter --period (this run's: [0-9]* ns; --period [0-9]* takes four" <(flat err)
else
	skip t838-few-note "rare had $n instances at a share of $s (the note wants under 10 at 10% or more)"
fi

# JSON: the header's counters and its "not measured" list (the usability review of
# 2026-11-29, M5): once, called once, is never timed (a pick waits for its next call);
# the counters are the meta values
"$SONDE" report rec --format json >j.json 2>&1
check t838-json python3 -c '
import json, sqlite3
d = json.load(open("j.json"))
db = sqlite3.connect("rec/profile.db")
meta = lambda k: int((db.execute("SELECT value FROM meta WHERE key = ?", (k,)).fetchone() or ["0"])[0])
for k in ("samples", "picks", "entries", "returns", "missed", "arm_failures", "no_frame"):
	assert d["selection"][k] == meta(k), (k, d["selection"][k], meta(k))
assert d["selection"]["samples"] > 0
nm = {e["function"]: e["share"] for e in d["not_measured"]}
assert "once" in nm and 0.05 < nm["once"] < 0.6, d["not_measured"]'

# main's own code: a program whose work is a loop in main is said to be that, not libraries
# without frame pointers (the usability review of 2026-11-29, M3)
cat >ml.c <<'C'
#include <stdio.h>
int main(void)
{
	volatile unsigned x = 1;
	for (long i = 0; i < 300000000L; i++)
		x = x * 1664525u + 1013904223u;
	printf("ml %u\n", x != 0);
	return 0;
}
C
"$SONDE_BUILD/sonde-cc" --sonde-calls-only -O1 ml.c -o ml 2>cc.err || { fail t838-ml-build "$(head -3 cc.err)"; exit 0; }
"$SONDE" variance -o mrec -- ./ml >mout 2>merr
check t838-ml-status [ $? -eq 0 ]
mn=$(sqlite3 mrec/profile.db "SELECT value FROM meta WHERE key = 'no_frame_main'")
s=$(sqlite3 mrec/profile.db "SELECT value FROM meta WHERE key = 'samples'")
echo "    ml: $mn of $s samples in main"
check "t838-ml-main-counted ($mn of $s)" awk -v m="$mn" -v s="$s" 'BEGIN { exit !(s >= 20 && m >= 0.9 * s) }'
check t838-ml-said grep -q "unpicked: [0-9]* of the [0-9]* samples ([0-9]*%) were in main's own code, which is called once and never timed" <(flat merr)
check t838-ml-not-libraries eval '! grep -q "frames keep no frame pointer" <(flat merr)'
# a recording of a runtime before that counter (its STATS records cut by its 8 bytes)
# reads without it, and says the unpicked samples the old way
cp -r mrec mold && rm mold/profile.db
check t838-ml-old-cut cut_stats mold 8
"$SONDE" report mold >mold.txt 2>&1
check t838-ml-old-status [ $? -eq 0 ]
check t838-ml-old-no-meta [ -z "$(sqlite3 mold/profile.db "SELECT value FROM meta WHERE key = 'no_frame_main'")" ]
check t838-ml-old-said grep -q "frames keep no frame pointer" <(flat mold.txt)
# how an instance is chosen, and where that misleads, on every report (the usability
# review of 2026-11-29, H1)
check t838-pick-line grep -q " pick: a function where a sample lands (by its time on the stack), then its next call is timed: unbiased where a call's length does not follow the one before's" <(flat err)
