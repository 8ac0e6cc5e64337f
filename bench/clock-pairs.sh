#!/usr/bin/env bash
# bench/clock-pairs.sh - can a thread's CPU time, read just after its time, run ahead of
# it (doc/sonde-variance.md, "Reading two clocks")?  One thread per CPU plus one, each
# CLOCK_PAIRS_SECS seconds (default 4) of steps of ~10 us of multiplies, each step ending
# with a read of CLOCK_MONOTONIC and of CLOCK_THREAD_CPUTIME_ID, in one order for the
# first half of the steps (time, then CPU time) and in the other for the second (CPU
# time, then time: `sonde variance` reads CPU time inside its time at both ends of a
# stretch, rt-variance.c read_metrics).  A stretch is the span between two reads, here
# one step or 128 steps (~1.3 ms, t815's instances): its excess is its CPU time less its
# time.  Printed per order: the stretches, how many had an excess over 2 us, the largest
# excess, and for the one-step stretches how often the next step's excess was the
# opposite within 1 us (the gap between the two reads was counted as the thread's CPU
# time: the host took the vCPU, or an interrupt ran, between them).  Never fails on
# numbers.
#   bench/clock-pairs.sh     (CLOCK_PAIRS_SECS=N)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
bench_scratch clock-pairs
cat >cp.c <<'EOF_C'
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double secs;

static int64_t ns(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* one read of both clocks, CPU time inside (cpu_in: read CPU time first at a stretch's
 * end, last at its start: a read is both, so: end-of-previous CPU, time, start CPU) */
struct st { long n1, over1, back, n128, over128; int64_t max1, max128; };

static void *run(void *arg)
{
	struct st s[2] = { { 0 } };
	int64_t t_end = ns(CLOCK_MONOTONIC) + (int64_t)(secs * 1e9);
	int64_t half = ns(CLOCK_MONOTONIC) + (int64_t)(secs * 5e8);

	for (int o = 0; o < 2; o++) {
		int64_t w0, c0, wl, cl, prev_ex = 0;
		long step = 0;
		/* o = 0: time then CPU at every read; o = 1: each read is the end of one
		 * stretch (CPU first) and the start of the next (CPU last): c_end, w, c_start */
		w0 = wl = ns(CLOCK_MONOTONIC);
		c0 = cl = ns(CLOCK_THREAD_CPUTIME_ID);
		for (;;) {
			volatile double x = 1;
			for (int i = 0; i < 3000; i++)
				x *= 1.0000001;
			int64_t ce, w, cs;
			if (o == 0) {
				w = ns(CLOCK_MONOTONIC);
				ce = cs = ns(CLOCK_THREAD_CPUTIME_ID);
			} else {
				ce = ns(CLOCK_THREAD_CPUTIME_ID);
				w = ns(CLOCK_MONOTONIC);
				cs = ns(CLOCK_THREAD_CPUTIME_ID);
			}
			int64_t ex = (ce - cl) - (w - wl);
			s[o].n1++;
			if (ex > 2000)
				s[o].over1++;
			if (prev_ex > 2000 && llabs(ex + prev_ex) < 1000)
				s[o].back++;
			if (ex > s[o].max1)
				s[o].max1 = ex;
			prev_ex = ex;
			wl = w, cl = cs;
			if (++step % 128 == 0) {
				int64_t e = (ce - c0) - (w - w0);
				s[o].n128++;
				if (e > 2000)
					s[o].over128++;
				if (e > s[o].max128)
					s[o].max128 = e;
				w0 = w, c0 = cs;
			}
			if (w > (o ? t_end : half))
				break;
		}
	}
	for (int o = 0; o < 2; o++)
		printf("%ld %d %ld %ld %ld %.1f %ld %ld %.1f\n", (long)(intptr_t)arg, o,
		       s[o].n1, s[o].over1, s[o].back, s[o].max1 / 1e3,
		       s[o].n128, s[o].over128, s[o].max128 / 1e3);
	return NULL;
}

int main(int argc, char **argv)
{
	secs = argc > 1 ? atof(argv[1]) : 4;
	long n = sysconf(_SC_NPROCESSORS_ONLN) + 1;
	if (n > 64)
		n = 64;
	pthread_t t[64];
	for (long i = 0; i < n; i++)
		pthread_create(&t[i], NULL, run, (void *)(intptr_t)i);
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
EOF_C
gcc -O2 -pthread cp.c -o cp || exit 0
./cp "${CLOCK_PAIRS_SECS:-4}" >rows.txt
echo "bench: clock-pairs: $(($(nproc) + 1)) threads on $(nproc) CPUs, ${CLOCK_PAIRS_SECS:-4} s, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), clock source $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
awk '{ o = $2; n1[o] += $3; ov1[o] += $4; bk[o] += $5; if ($6 > m1[o]) m1[o] = $6
       n128[o] += $7; ov128[o] += $8; if ($9 > m128[o]) m128[o] = $9 }
     END { split("time-then-cpu cpu-inside-time", name, " ")
	for (o = 0; o < 2; o++)
		printf "  %-15s  1 step (~10 us): %d stretches, %d over 2 us (%d undone by the next), largest %.1f us;  128 steps (~1.3 ms): %d, %d over 2 us, largest %.1f us\n",
			name[o + 1], n1[o], ov1[o], bk[o], m1[o], n128[o], ov128[o], m128[o] }' rows.txt
