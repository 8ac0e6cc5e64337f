/* SPDX-License-Identifier: MIT */
/*
 * vclock.h - the timing helpers vshort.c and vself.c share: the thread's CPU clock, a
 * chain of multiplies whose speed does not depend on the loop's alignment or on store
 * forwarding (a loop on a volatile took twice the time per iteration in one build), the
 * chain's speed in iterations per microsecond, and a CPU clock read's own cost.
 */
#ifndef VCLOCK_H
#define VCLOCK_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static int64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline uint64_t chain(uint64_t x, long n)
{
	for (long i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static volatile uint64_t vclock_sink;	/* keeps loop_speed's chain */

/* Iterations of chain per us of CPU time: the fastest of 5 trials of 20 ms (other work
 * only slows a trial down); at least 1. */
static long loop_speed(void)
{
	double best = 0;
	uint64_t s = 1;

	for (int k = 0; k < 5; k++) {
		long n = 0;
		int64_t t0 = cpu_ns(), t1;
		do {
			s = chain(s, 100000);
			n += 100000;
			t1 = cpu_ns();
		} while (t1 - t0 < 20000000);
		double r = (double)n / ((double)(t1 - t0) / 1e3);
		if (r > best)
			best = r;
	}
	vclock_sink = s;
	return best > 1 ? (long)best : 1;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* CPU time of a clock read's own tail and head: the median of back-to-back pairs, what
 * every interval timed with cpu_ns holds besides its work. */
static int64_t clock_cost(void)
{
	int64_t d[101];

	for (int i = 0; i < 101; i++) {
		int64_t t0 = cpu_ns();
		d[i] = cpu_ns() - t0;
	}
	qsort(d, 101, sizeof(d[0]), cmp_i64);
	return d[50];
}

#endif
