/* SPDX-License-Identifier: MIT */
/*
 * clock-ldst - nine loads from one array for each store to another.
 *
 * Per iteration: 9 loads from `src` (src[i..i+8]) and 1 store to `dst[i]`.  Known answer, by
 * access count: src 90 % (all loads), dst 10 % (all stores).  With SONDE_EXTRA_STEPS=10 (a
 * random skip over a whole 10-access period) the clock source must recover these shares
 * wherever the timer lands.
 *
 * usage: clock-ldst [SECONDS]   (CPU seconds, default 1)
 * Prints "clock-ldst: ok".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 4096
/* initialised in .data, not by a loop: that loop's stores were src's, and a pair of test
 * suites once sampled one (t101: src's loads-only check read a store) */
static volatile uint64_t src[N + 16] = { [0 ... N + 15] = 1 };
static volatile uint64_t dst[N];

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void pass(void)
{
	for (int i = 0; i < N; i++) {
		uint64_t s = src[i] + src[i + 1] + src[i + 2] + src[i + 3] + src[i + 4] +
			     src[i + 5] + src[i + 6] + src[i + 7] + src[i + 8];
		dst[i] = s;
	}
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	double t0 = cpu_seconds();
	while (cpu_seconds() - t0 < secs)
		for (int k = 0; k < 100; k++)
			pass();
	if (dst[0] != 9)
		return 1;
	printf("clock-ldst: ok\n");
	return 0;
}
