/* SPDX-License-Identifier: MIT */
/*
 * vburst.c - a program whose picks give few instances, for t820 (variance's bursts): each
 * round a long stretch of work with no call in it (gap, G ms), then a leaf called 16 times
 * in a row (leaf, 0.1 ms each).  Most samples land in gap, whose next call is a round
 * away (its picks wait and are missed); the few in the leaf's calls pick it, and its next
 * call follows at once.
 *
 *   vburst [ROUNDS [G]]   10 rounds, G = 200 ms
 *
 * The loops calibrate themselves on the thread's CPU clock at start.  Build: gcc -O2 -g
 * -fno-omit-frame-pointer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;
static long per_ms;

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) void leaf(long n)
{
	for (long i = 0; i < n; i++)
		sink += (uint64_t)i;
}

__attribute__((noinline)) void gap(long n)
{
	for (long i = 0; i < n; i++)
		sink += (uint64_t)i;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10;
	double g = argc > 2 ? atof(argv[2]) : 200;

	double t0 = cpu_ms();
	long n = 0;
	while (cpu_ms() - t0 < 20)
		for (int i = 0; i < 10000; i++, n++)
			sink += (uint64_t)i;
	per_ms = (long)(n / (cpu_ms() - t0));
	for (int r = 0; r < rounds; r++) {
		gap((long)(g * per_ms));
		for (int k = 0; k < 16; k++)
			leaf(per_ms / 10);
	}
	return 0;
}
