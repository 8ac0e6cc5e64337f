/* vfirst.c - an OpenMP region whose first calls are slow (first touch, warm-up), for
 * sonde variance's weighting of regions timed past the rate cap.
 *   vfirst [FAST]  10 calls of a region in which each of 2 threads spins 2000 us of its
 *                  CPU time, then FAST (default 4000) calls of 200 us; prints the median
 *                  CPU time of the fast calls as each thread measured it.  Of the calls,
 *                  20 of 2 x (10 + FAST) are slow: their mean is (20 x 2000 + 2 x FAST
 *                  x 200) / (2 x (10 + FAST)) us, 205 us for 4000.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static volatile double sink;

static void work(double us)
{
	double end = cpu_us() + us, s = 0;
	while (cpu_us() < end)
		for (int i = 0; i < 100; i++)
			s += i * 0.5;
	sink = s;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

__attribute__((noinline)) static void step(double us, double *out)
{
#pragma omp parallel
	{
		double t0 = cpu_us();
		work(us);
		if (omp_get_thread_num() < 2)	/* (the truth is of 2 threads) */
			out[omp_get_thread_num()] = cpu_us() - t0;
	}
}

int main(int argc, char **argv)
{
	int slow = 10, fast = argc > 1 ? atoi(argv[1]) : 4000;
	double slow_us = 2000, fast_us = 200, t[2] = { 0, 0 };
	double *f = malloc(sizeof(double) * 2 * fast);
	int n = 0;

	for (int i = 0; i < slow; i++)
		step(slow_us, t);
	for (int i = 0; i < fast; i++) {
		step(fast_us, t);
		for (int k = 0; k < omp_get_max_threads() && k < 2; k++)
			f[n++] = t[k];
	}
	qsort(f, n, sizeof(*f), cmp);
	printf("vfirst: %d slow calls of %.0f us, %d fast; fast median cpu %.1f us\n", slow, slow_us,
	       fast, f[n / 2]);
	return 0;
}
