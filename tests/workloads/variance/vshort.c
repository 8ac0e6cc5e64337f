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
 * run prints it: the same work in runs compared side by side); SCALE multiplies them.  Each function's calls run in
 * batches timed by the thread's CPU clock, and at exit the program prints, per function,
 * its own CPU time per call: the truth that a profiler's mean is compared with, taken in
 * the same run (it includes the profiler's own cost spread over all calls: a few percent
 * at sonde's default period; run natively for the pure figure):
 *
 *   vshort w10 calls 41230 cpu_ns_per_call 10123
 *
 * Each function is its own loop (no call inside: none is a tail call, each is a leaf
 * whose instances are its loop alone).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static volatile uint64_t sink;
static long per_us;		/* loop iterations per microsecond of CPU time */
static long n2, n5, n10, n20, n50;

static int64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A chain of multiplies in a register: its speed does not depend on the loop's alignment
 * or on store forwarding, as a loop on a volatile did (w20 of the same loop took 2x w10's
 * time per iteration in one build). */
static inline uint64_t chain(uint64_t x, long n)
{
	for (long i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
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

/* Iterations per us: the fastest of 5 trials (other work only slows a trial down). */
static long loop_speed(void)
{
	double best = 0;
	for (int k = 0; k < 5; k++) {
		long n = 0;
		int64_t t0 = cpu_ns(), t1;
		do {
			sink = chain(sink, 100000);
			n += 100000;
			t1 = cpu_ns();
		} while (t1 - t0 < 20000000);
		double r = (double)n / ((double)(t1 - t0) / 1e3);
		if (r > best)
			best = r;
	}
	return best > 1 ? (long)best : 1;
}

struct fn {
	const char *name;
	void (*f)(void);
	int per_round;
	long calls;
	int64_t ns;
};

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
	struct fn fns[] = { { "w2", w2, 50, 0, 0 }, { "w5", w5, 20, 0, 0 },
			    { "w10", w10, 10, 0, 0 }, { "w20", w20, 5, 0, 0 },
			    { "w50", w50, 2, 0, 0 } };
	int nf = (int)(sizeof(fns) / sizeof(fns[0]));
	double end = now() + secs;

	while (now() < end) {
		for (int k = 0; k < nf; k++) {
			int64_t t0 = cpu_ns();
			for (int c = 0; c < fns[k].per_round; c++)
				fns[k].f();
			fns[k].ns += cpu_ns() - t0;
			fns[k].calls += fns[k].per_round;
		}
	}
	printf("vshort loop %ld iterations/us\n", per_us);
	for (int k = 0; k < nf; k++)
		printf("vshort %s calls %ld cpu_ns_per_call %.0f\n", fns[k].name, fns[k].calls,
		       fns[k].calls ? (double)fns[k].ns / (double)fns[k].calls : 0.0);
	return 0;
}
