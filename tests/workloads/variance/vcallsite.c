/* SPDX-License-Identifier: MIT */
/*
 * vcallsite.c - one function called from two places (t828): from `a`, long calls (2M
 * iterations, ~1.7 ms here), one a round; from `b`, short ones (20K, ~17 us), nine a
 * round.  Nine calls in ten are b's, ~94% of the time a's: the samples fall in a's calls,
 * and an instance measured at f's next call from anywhere is mostly b's.
 * Usage: vcallsite [ROUNDS]   (200)
 */
#include <stdio.h>
#include <stdlib.h>

volatile double sink;

__attribute__((noinline)) void f(long n)
{
	double s = 0;
	for (long i = 0; i < n; i++)
		s += (double)i * 0.5;
	sink = s;
}

__attribute__((noinline)) void a(void)
{
	f(2000000);
	__asm__ volatile("" ::: "memory");	/* not a tail call: a's own frame stays */
}

__attribute__((noinline)) void b(void)
{
	f(20000);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	for (int r = 0; r < rounds; r++) {
		a();
		for (int k = 0; k < 9; k++)
			b();
	}
	printf("vcallsite %d rounds\n", rounds);
	return 0;
}
