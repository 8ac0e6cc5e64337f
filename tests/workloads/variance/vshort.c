/* SPDX-License-Identifier: MIT */
/*
 * vshort.c - ground truth for short instances under `sonde variance`: five leaf functions
 * of about 2, 5, 10, 20 and 50 us of CPU work each (w2 ... w50), where the debug
 * registers' two traps per instance (~15-30 us of kernel time, subtracted) are as long as
 * the function or longer.
 *
 *   vshort SECONDS [SCALE]    rounds of 50 x w2, 20 x w5, 10 x w10, 5 x w20, 2 x w50
 *                             (100 us of each a round: equal time shares)
 *
 * The loop speed is measured at start (the best of 5 trials of 20 ms of thread CPU time),
 * so the sizes hold on any machine, or given by VSHORT_PER_US (iterations per us, as a
 * run prints it: the same work in runs compared side by side); SCALE multiplies them.
 *
 * The caller times each call by the thread's CPU clock (clock_gettime around it, less a
 * clock read's own cost: the median of back-to-back pairs), into an array allocated at
 * start; at exit the program prints, per function, the truth of that same run:
 *
 *   vshort w10 calls 41230 cpu_ns_per_call 10123 timed 41230 kept 40870 median_ns 9764 mean_ns 9830
 *
 * cpu_ns_per_call is the mean of all timed calls: under a profiler it holds the
 * profiler's cost in them (traps, sample handlers).  median_ns and mean_ns are over the
 * kept calls only: those that took at most 25% + 1 us more than that moment's speed (the
 * median, over the 9 rounds around the call's, of each round's median call; a vCPU's
 * speed holds for milliseconds, and this machine's moved 44.6-53.7 us for w50 from run to
 * run).  Under `sonde variance` a measured call holds two traps and their handlers
 * (+30-50 us), a sampled one the sample's handler (+5-60 us), and while an execute
 * breakpoint waits on the next function's entry, in the same 64-byte line as this one's
 * loop (the leaves are 68 bytes long), each call of the round runs ~2.4 times as long;
 * the cut leaves those calls out.  It also leaves out the function's own upper tail
 * (steal time, interrupts), which sonde's instances hold: natively 1-2% of the calls on
 * a quiet machine, 3-28% beside 2 busy loops (19:52 UTC, load 6.3-6.7).
 *
 * Each function is its own loop (no call inside: none is a tail call, each is a leaf
 * whose instances are its loop alone).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vclock.h"

#define NOINLINE __attribute__((noinline))
#define WIN 9			/* rounds around a call: its moment's speed */
#define KEEP_PCT 25		/* a call kept: at most that much over that speed, */
#define KEEP_NS 1000		/* and this */

static volatile uint64_t sink;
static long per_us;		/* loop iterations per microsecond of CPU time */
static long n2, n5, n10, n20, n50;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

#define WORK(name, n)                          \
	NOINLINE void name(void)               \
	{                                      \
		sink = chain(sink, (n));       \
	}
WORK(w2, n2)
WORK(w5, n5)
WORK(w10, n10)
WORK(w20, n20)
WORK(w50, n50)

struct fn {
	const char *name;
	void (*f)(void);
	int per_round;
	long calls, cap, timed;
	int64_t *ns;		/* each timed call's CPU time, clock's cost taken off */
};

/* The lower median of n values (sorted in place). */
static int64_t median(int64_t *v, long n)
{
	qsort(v, (size_t)n, sizeof(v[0]), cmp_i64);
	return v[(n - 1) / 2];
}

/* Per function: all timed calls' mean, then the kept calls' median and mean.  A call is
 * kept when it took at most KEEP_PCT % + KEEP_NS over its moment's speed: the median,
 * over the WIN rounds around the call's, of each round's median call. */
static void report(struct fn *f)
{
	long p = f->per_round, nr = f->timed / p, k = 0;
	int64_t *rmed = malloc(sizeof(int64_t) * (size_t)(nr + 1));
	int64_t *kept = malloc(sizeof(int64_t) * (size_t)(f->timed + 1)), w[WIN], v[50];
	double all = 0, sum = 0;

	if (!rmed || !kept) {
		printf("vshort %s calls %ld: out of memory for the report\n", f->name, f->calls);
		free(rmed);
		free(kept);
		return;
	}
	for (long r = 0; r < nr; r++) {
		memcpy(v, &f->ns[r * p], sizeof(v[0]) * (size_t)p);
		rmed[r] = median(v, p);
	}
	for (long r = 0; r < nr; r++) {
		long lo = r - WIN / 2 < 0 ? 0 : r - WIN / 2, hi = lo + WIN > nr ? nr : lo + WIN;

		lo = hi - WIN < 0 ? 0 : hi - WIN;
		memcpy(w, &rmed[lo], sizeof(w[0]) * (size_t)(hi - lo));
		int64_t ref = median(w, hi - lo), top = ref + ref * KEEP_PCT / 100 + KEEP_NS;

		for (long i = r * p; i < (r + 1) * p; i++) {
			all += (double)f->ns[i];
			if (f->ns[i] <= top) {
				kept[k++] = f->ns[i];
				sum += (double)f->ns[i];
			}
		}
	}
	printf("vshort %s calls %ld cpu_ns_per_call %.0f timed %ld kept %ld median_ns %lld "
	       "mean_ns %.0f\n",
	       f->name, f->calls, nr ? all / (double)(nr * p) : 0.0, nr * p, k,
	       k ? (long long)median(kept, k) : 0LL, k ? sum / (double)k : 0.0);
	free(kept);
	free(rmed);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: vshort SECONDS [SCALE]\n");
		return 2;
	}
	double secs = atof(argv[1]), scale = argc > 2 ? atof(argv[2]) : 1.0;
	per_us = getenv("VSHORT_PER_US") ? atol(getenv("VSHORT_PER_US")) : 0;
	if (per_us <= 0)
		per_us = loop_speed();
	n2 = (long)(2 * scale * (double)per_us);
	n5 = (long)(5 * scale * (double)per_us);
	n10 = (long)(10 * scale * (double)per_us);
	n20 = (long)(20 * scale * (double)per_us);
	n50 = (long)(50 * scale * (double)per_us);
	struct fn fns[] = { { "w2", w2, 50, 0, 0, 0, NULL }, { "w5", w5, 20, 0, 0, 0, NULL },
			    { "w10", w10, 10, 0, 0, 0, NULL }, { "w20", w20, 5, 0, 0, 0, NULL },
			    { "w50", w50, 2, 0, 0, 0, NULL } };
	int nf = (int)(sizeof(fns) / sizeof(fns[0]));
	/* room for every call of a run at up to 4000 rounds/s (a round is 500 us of work),
	 * and 50000 rounds at most (20 MB for w2): calls past that run untimed */
	double rounds = secs * 4000 / (scale > 0 && scale < 1 ? scale : 1) + 2;

	for (int k = 0; k < nf; k++) {
		fns[k].cap = (long)(rounds < 50000 ? rounds : 50000) * fns[k].per_round;
		fns[k].ns = malloc(sizeof(int64_t) * (size_t)fns[k].cap);
		if (!fns[k].ns) {
			fprintf(stderr, "vshort: out of memory\n");
			return 1;
		}
	}
	int64_t cc = clock_cost();
	double end = now() + secs;

	while (now() < end) {
		for (int k = 0; k < nf; k++) {
			struct fn *f = &fns[k];

			for (int c = 0; c < f->per_round; c++) {
				if (f->timed == f->cap) {
					f->f();
					continue;
				}
				int64_t t0 = cpu_ns();
				f->f();
				f->ns[f->timed++] = cpu_ns() - t0 - cc;
			}
			f->calls += f->per_round;
		}
	}
	printf("vshort loop %ld iterations/us, clock read %lld ns\n", per_us, (long long)cc);
	for (int k = 0; k < nf; k++)
		report(&fns[k]);
	return 0;
}
