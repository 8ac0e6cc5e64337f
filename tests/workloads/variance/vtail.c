/* SPDX-License-Identifier: MIT */
/*
 * vtail.c - two OpenMP regions whose bodies tail-call their work (t833): gcc -O2 makes
 * `#pragma omp parallel { work(n); }` a jump to work, whose frame then returns into
 * libgomp, and the region's outlined function is on no sample's stack.  `one` runs 1 unit
 * a thread, `three` 3 units: by construction 25% and 75% of the run's CPU time (the serial
 * part is a loop of calls).  ROUNDS rounds (argv[1], default 150).
 */
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

__attribute__((noinline)) void work(int units)
{
	double s = 0;
	for (long i = 0; i < 2000000L * units; i++)
		s += (double)i * 0.5;
	sink = s;
}

__attribute__((noinline)) void one(void)
{
#pragma omp parallel num_threads(2)
	work(1);
}

__attribute__((noinline)) void three(void)
{
#pragma omp parallel num_threads(2)
	work(3);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 150;
	for (int r = 0; r < rounds; r++) {
		one();
		three();
	}
	printf("vtail: %d rounds\n", rounds);
	return 0;
}
