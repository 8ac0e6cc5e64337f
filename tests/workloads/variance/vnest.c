/* SPDX-License-Identifier: MIT */
/*
 * vnest.c - OpenMP regions nested in a region, for sonde variance's regions timed
 * through OMPT (LLVM's libomp; t823).
 *
 *   vnest ROUNDS [UNIT [serial]]
 *                         ROUNDS times, a parallel region (as many threads as
 *                         OMP_NUM_THREADS says: no num_threads clause, so the program's
 *                         first call into libomp is the region's __kmpc_fork_call) in
 *                         which each thread loops 1 + round % 3 units, then runs a region
 *                         nested in it (serialized: one active level), itself holding
 *                         another, one unit each, then loops 1 unit more; UNIT iterations
 *                         a unit (20000); with `serial`, the outer region's if clause
 *                         is false: the compiler's own serialized path (clang:
 *                         __kmpc_serialized_parallel, then a direct call of the outlined
 *                         function), one thread
 *
 * Each thread times its share of the outer region by its CPU clock, around all of that
 * work, and at exit the program prints the truth over every instance of all threads:
 *
 *   vnest outer instances 800 mean_ns 123456 cv 0.3300
 *
 * A region inside a timed one must not end it: libomp 14 reports a serialized region
 * nested in a serialized one with the same task data (OMP_NUM_THREADS=1).
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink[64][8] __attribute__((aligned(64)));

static double cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void spin(long n)
{
	int t = omp_get_ancestor_thread_num(1) & 63;
	for (long i = 0; i < n; i++)
		sink[t][0]++;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 400;
	long unit = argc > 2 ? atol(argv[2]) : 20000;
	int par = !(argc > 3 && argv[3][0] == 's');	/* known at run time only */
	double n = 0, s = 0, q = 0;

	for (int r = 0; r < rounds; r++) {
#pragma omp parallel reduction(+ : n, s, q) if (par)
		{
			double c0 = cpu_ns();
			spin((1 + r % 3) * unit);
#pragma omp parallel
			{
				spin(unit);
#pragma omp parallel
				spin(unit);
			}
			spin(unit);
			double d = cpu_ns() - c0;
			n += 1;
			s += d;
			q += d * d;
		}
	}
	double m = n ? s / n : 0, sd = n > 1 ? sqrt((q - n * m * m) / (n - 1)) : 0;
	printf("vnest outer instances %.0f mean_ns %.0f cv %.4f\n", n, m, m > 0 ? sd / m : 0);
	return 0;
}
