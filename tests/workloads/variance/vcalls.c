/* SPDX-License-Identifier: MIT */
/*
 * vcalls.c - functions called seldom or unevenly, for sonde variance's report lines.
 *
 *   vcalls rare ROUNDS
 *             ROUNDS times: 20000 calls of often (20000 iterations each, ~15 us), then one
 *             call of rare (600M iterations, ~0.5 s): rare holds most of the time in
 *             ROUNDS calls, further apart than a pick waits ("not measured", t834)
 *   vcalls spike CALLS [EVERY [TIMES]]
 *             CALLS calls of work (~20 us each); every EVERY-th (200) is TIMES (30) times
 *             as long: by default 0.5% of the calls, a CV of ~2 from them alone, none
 *             without them; `spike N 2 3`: half the calls 3 times as long, a CV of 0.5
 *             that is no tail's (the tail note, t836)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile double sink;

/* each caller's own loop (inlined: the functions are leaves the report names) */
static inline __attribute__((always_inline)) void spin(long n, double k)
{
	double s = 0;
	for (long i = 0; i < n; i++)
		s += (double)i * k;
	sink = s;
}

__attribute__((noinline)) static void often(long n) { spin(n, 0.5); }
__attribute__((noinline)) static void rare(long n) { spin(n, 0.25); }
__attribute__((noinline)) static void work(long n) { spin(n, 0.5); }

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "rare")) {
		for (int r = 0; r < atoi(argv[2]); r++) {
			for (int i = 0; i < 20000; i++)
				often(20000);
			rare(600000000L);
		}
	} else if (argc > 2 && !strcmp(argv[1], "spike")) {
		long calls = atol(argv[2]);
		long every = argc > 3 ? atol(argv[3]) : 200, times = argc > 4 ? atol(argv[4]) : 30;
		if (every < 1)
			every = 1;
		for (long c = 0; c < calls; c++)
			work(c % every == every - 1 ? times * 25000L : 25000L);
	} else {
		fprintf(stderr, "usage: vcalls rare ROUNDS | vcalls spike CALLS [EVERY [TIMES]]\n");
		return 2;
	}
	puts("vcalls done");
	return 0;
}
