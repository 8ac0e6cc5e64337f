#!/usr/bin/env bash
# bench/variance-holder.sh - does a thread of variance keep measuring after the program
# held its debug registers for a moment?  (The review of watch_release: a refused open
# after a close stopped the thread's arms for good.)  bp: two threads call work() in a
# loop; at iteration FROM (default 15000 of 40000) each opens 4 breakpoint events of its
# own and closes them HOLD iterations later (default 2000, ~10 samples).  RUNS (default 6)
# runs of `sonde variance` with SONDE_VARIANCE_CLOSE=${CLOSE:-16}; per run and thread:
# the registers the program got, and the instances that started before and after it let
# them go.  BEFORE=DIR: another build's sonde in the same runs, in turn.  Never fails on
# numbers.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
SONDE_BUILD=${SONDE_BUILD:-$top/build}
. "$top/bench/lib.sh"
bench_scratch variance-holder
command -v python3 >/dev/null || { echo "bench: variance-holder skipped: no python3"; exit 0; }
"$SONDE_BUILD/sonde" info 2>/dev/null | grep -q "their traps fire" ||
	{ echo "bench: variance-holder skipped: the debug registers do not trap here"; exit 0; }
cat >bp.c <<'EOF_C'
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "vbp.h"	/* work(), vbp_open() */

static int from = 15000, hold = 2000, got_total;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* the program's own breakpoints (as a debugger's or a watchpoint library's would be),
 * held for a while on the calling thread */
static int open_bps(int *fds)
{
	int n = 0;
	for (int i = 0; i < 4; i++) {
		int fd = vbp_open(i);
		if (fd >= 0)
			fds[n++] = fd;
	}
	return n;
}

static void *thr(void *a)
{
	struct timespec ts = { 0, 20000 };
	int fds[4], n = 0;
	for (int k = 0; k < 40000; k++) {
		work(2000);
		nanosleep(&ts, NULL);
		if (k == from) {
			n = open_bps(fds);
			pthread_mutex_lock(&mu);
			got_total += n;
			pthread_mutex_unlock(&mu);
		}
		if (k == from + hold) {
			struct timespec now;
			clock_gettime(CLOCK_MONOTONIC, &now);
			fprintf(stderr, "bp: tid %ld: %d of its own breakpoints held, closed at %lld\n",
				(long)syscall(SYS_gettid), n, (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
			while (n)
				close(fds[--n]);
		}
	}
	return a;
}

int main(void)
{
	if (getenv("BP_HOLD"))
		hold = atoi(getenv("BP_HOLD"));
	if (getenv("BP_FROM"))
		from = atoi(getenv("BP_FROM"));
	pthread_t t;
	pthread_create(&t, NULL, thr, NULL);
	thr(NULL);
	pthread_join(t, NULL);
	fprintf(stderr, "bp: the program's own breakpoints: %d of 8 opened\n", got_total);
	return 0;
}
EOF_C
gcc -O1 -g -fno-omit-frame-pointer -pthread -I"$top/tests/workloads/variance" bp.c -o bp || exit 1
date -u "+bench: variance-holder %F %H:%M UTC, load $(cut -d' ' -f1 /proc/loadavg)"
builds="$SONDE_BUILD/sonde"
[ -n "${BEFORE:-}" ] && builds="$BEFORE/sonde $builds"
for i in $(seq "${RUNS:-6}"); do
	for s in $builds; do
		rm -rf r
		SONDE_VARIANCE_CLOSE=${CLOSE:-16} BP_FROM=${FROM:-15000} BP_HOLD=${HOLD:-2000} \
			"$s" variance -q -o r ./bp 2>bp.err >/dev/null
		printf 'run %d %s:' "$i" "$s"
		python3 - <<'EOF_PY'
import csv, re
th = {r['thread']: r['tid'] for r in csv.DictReader(open('r/variance/threads.csv'))}
inst = list(csv.DictReader(open('r/variance/instances.csv')))
for line in open('bp.err'):
    m = re.match(r'bp: tid (\d+): (\d+) of its own breakpoints held, closed at (\d+)', line)
    if not m:
        continue
    tid, held, at = m.group(1), m.group(2), int(m.group(3))
    mine = [int(r['start']) for r in inst if th.get(r['thread']) == tid]
    print(f" [held {held}: before {sum(s < at for s in mine)}, after {sum(s >= at for s in mine)}]", end='')
print()
EOF_PY
	done
done
