/* SPDX-License-Identifier: MIT */
/*
 * vregion.c - OpenMP parallel regions with known per-instance work, for sonde variance's
 * regions timed at the OpenMP runtime's call (rt-variance.c, variance_region).
 *
 *   vregion ROUNDS [UNIT]   ROUNDS times, three parallel regions of 2 threads: in `saw`
 *                           each thread loops 1 + round % 4 units (a sawtooth: CV of
 *                           the instances sqrt(5/4) / 2.5 = 0.447 with equal counts), in
 *                           `flat` 2 units (CV about 0); UNIT iterations a unit (20000);
 *                           then `dyn`, a `parallel for` of 4 units with a dynamic
 *                           schedule (gcc 12: GOMP_parallel_loop_nonmonotonic_dynamic),
 *                           `gui` with a guided one (..._nonmonotonic_guided), `rtm` with
 *                           schedule(runtime) (..._maybe_nonmonotonic_runtime) and `sec`, two
 *                           `sections` (GOMP_parallel_sections): no truth printed for
 *                           those but their count (each thread calls each one's function
 *                           once a round)
 *
 * Each thread times its own share of each region by its CPU clock, around the work, and
 * at exit the program prints, per region, the truth of that same run over every
 * instance of both threads:
 *
 *   vregion saw instances 800 mean_ns 123456 cv 0.4471
 *
 * Each region's body is its outlined function (gcc: main._omp_fn.0 to .5, in that order),
 * called by the entry named above (GOMP_parallel for `saw` and `flat`) in the master and
 * by libgomp's thread loop in the worker.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink[2][8] __attribute__((aligned(64)));

struct acc {
	long n;
	double s, q;
} __attribute__((aligned(64)));

static struct acc acc[2][2];	/* [region][thread] */

static double cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void work(int reg, long units, long unit)
{
	int t = omp_get_thread_num() & 1;
	double c0 = cpu_ns();
	for (long i = 0; i < units * unit; i++)
		sink[t][0]++;
	double d = cpu_ns() - c0;
	acc[reg][t].n++;
	acc[reg][t].s += d;
	acc[reg][t].q += d * d;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 400;
	long unit = argc > 2 ? atol(argv[2]) : 20000;
	static const char *const name[2] = { "saw", "flat" };

	for (int r = 0; r < rounds; r++) {
#pragma omp parallel num_threads(2)
		work(0, 1 + r % 4, unit);
#pragma omp parallel num_threads(2)
		work(1, 2, unit);
#pragma omp parallel for schedule(dynamic, 1) num_threads(2)
		for (int i = 0; i < 4; i++)
			for (long j = 0; j < unit; j++)
				sink[omp_get_thread_num() & 1][0]++;
#pragma omp parallel for schedule(guided) num_threads(2)
		for (int i = 0; i < 4; i++)
			for (long j = 0; j < unit; j++)
				sink[omp_get_thread_num() & 1][0]++;
#pragma omp parallel for schedule(runtime) num_threads(2)
		for (int i = 0; i < 4; i++)
			for (long j = 0; j < unit; j++)
				sink[omp_get_thread_num() & 1][0]++;
#pragma omp parallel sections num_threads(2)
		{
#pragma omp section
			for (long j = 0; j < unit; j++)
				sink[omp_get_thread_num() & 1][0]++;
#pragma omp section
			for (long j = 0; j < unit; j++)
				sink[omp_get_thread_num() & 1][0]++;
		}
	}
	for (int g = 0; g < 2; g++) {
		double n = acc[g][0].n + acc[g][1].n, s = acc[g][0].s + acc[g][1].s,
		       q = acc[g][0].q + acc[g][1].q, m = n ? s / n : 0;
		double sd = n > 1 ? sqrt((q - n * m * m) / (n - 1)) : 0;
		printf("vregion %s instances %.0f mean_ns %.0f cv %.4f\n", name[g], n, m,
		       m > 0 ? sd / m : 0);
	}
	printf("vregion dyn instances %d\n", 2 * rounds);
	printf("vregion gui instances %d\n", 2 * rounds);
	printf("vregion rtm instances %d\n", 2 * rounds);
	printf("vregion sec instances %d\n", 2 * rounds);
	return 0;
}
