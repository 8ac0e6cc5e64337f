/* SPDX-License-Identifier: MIT */
/*
 * vspike.c - a function whose instances are alike but a few, for sonde variance's tail note
 * (t836).
 *
 *   vspike CALLS [EVERY [TIMES]]
 *                    CALLS calls of work (~20 us each); every EVERY-th (200) is TIMES (30)
 *                    times as long: by default 0.5% of the calls, a CV of ~2 from them
 *                    alone, none without them; `vspike N 2 3`: half the calls 3 times as
 *                    long, a CV of 0.5 that is no tail's
 */
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

__attribute__((noinline)) static void work(long n)
{
	double s = 0;
	for (long i = 0; i < n; i++)
		s += (double)i * 0.5;
	sink = s;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 20000;
	long every = argc > 2 ? atol(argv[2]) : 200, times = argc > 3 ? atol(argv[3]) : 30;
	if (every < 1)
		every = 1;
	for (long c = 0; c < calls; c++)
		work(c % every == every - 1 ? times * 25000L : 25000L);
	puts("vspike done");
	return 0;
}
