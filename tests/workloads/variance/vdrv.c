/*
 * vdrv.c - a driver loop for t816: main calls drive() once, which calls, each round, a long
 * function (once_long, L ms), a short one 4 times (mid, 5 ms) and a recursion 5 deep (rec,
 * 1 ms a level).  Most samples fall in once_long's instances; while one is measured, only
 * the frames inside it (spin) can be called before it returns: a pick of drive, main or
 * once_long itself there waits for nothing (issue 9, doc/sonde-variance.md, Selection).
 *
 *   vdrv [ROUNDS [L]]   20 rounds, L = 60 ms
 *
 * spin() calibrates itself on the thread's CPU clock (a loaded machine slows it alike
 * everywhere).  Build: gcc -O2 -g -fno-omit-frame-pointer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;
static long per_ms;

__attribute__((noinline)) void spin(double ms)
{
	long n = (long)(ms * per_ms);

	for (long i = 0; i < n; i++)
		sink += (uint64_t)i;
}

__attribute__((noinline, aligned(64))) void once_long(double ms)
{
	spin(ms);
	sink++;
}

__attribute__((noinline, aligned(64))) void mid(double ms)
{
	spin(ms);
	sink++;
}

__attribute__((noinline, aligned(64))) void rec(int d, double ms)
{
	spin(ms);
	if (d > 0)
		rec(d - 1, ms);
	sink++;
}

__attribute__((noinline, aligned(64))) void drive(int rounds, double l)
{
	for (int r = 0; r < rounds; r++) {
		once_long(l);
		for (int k = 0; k < 4; k++)
			mid(5);
		rec(4, 1);
	}
	sink++;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	double l = argc > 2 ? atof(argv[2]) : 60;
	struct timespec a, b;

	per_ms = 100000;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	spin(10);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	per_ms = (long)(per_ms * 10 / ((b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6));
	drive(rounds, l);
	sink++;
	return 0;
}
