/* SPDX-License-Identifier: MIT */
/*
 * omp-stencil.c - a small real OpenMP program for `sonde comm` (bench/comm.sh): a 1-D
 * Jacobi stencil over N doubles, STEPS sweeps, the grid split into one block per thread
 * (schedule static), so neighbouring threads share the lines at their blocks' edges (true
 * sharing); every thread also counts its updates in its slot of an unpadded array of
 * counters (false sharing: the slots of up to 8 threads sit on one line), as real codes
 * often do.  Built with sonde-cc -fopenmp (inst source) or gcc -fopenmp (clock source).
 *
 *   omp-stencil [N [STEPS]]      default 2,000,000 and 40; prints the checksum
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000, steps = argc > 2 ? atol(argv[2]) : 40;
	double *a = malloc((size_t)n * sizeof(*a)), *b = malloc((size_t)n * sizeof(*b));
	static long updates[64];
	if (!a || !b || n < 3)
		return 1;
	for (long i = 0; i < n; i++)
		a[i] = b[i] = (double)(i % 17);
	for (long s = 0; s < steps; s++) {
#pragma omp parallel for schedule(static)
		for (long i = 1; i < n - 1; i++) {
			b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
			if ((i & 1023) == 0)
				updates[omp_get_thread_num() & 63]++;
		}
		double *t = a;
		a = b;
		b = t;
	}
	double sum = 0;
	long u = 0;
	for (long i = 0; i < n; i++)
		sum += a[i];
	for (int k = 0; k < 64; k++)
		u += updates[k];
	printf("omp-stencil: n=%ld steps=%ld sum=%.6f updates=%ld\n", n, steps, sum, u);
	free(a);
	free(b);
	return 0;
}
