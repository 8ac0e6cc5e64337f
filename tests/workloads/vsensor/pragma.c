/* pragma.c - loops with pragmas on them, for sonde vsensor cc (t609): the tick must go
 * before a loop's pragmas, or the pragma is cut off its loop and the compiler refuses the
 * file (the trial of 2026-11-28: AMG's `#pragma omp parallel for` loops, in `#ifdef
 * _OPENMP` blocks); a loop under `omp single` keeps it (its block is the sensor).  One rank on
 * pmpi-solo.h's stubs.  Prints the sums and "line N" with N this file's line of the
 * printf (the instrumented copy keeps the file's numbering). */
#include <stdio.h>

#include "pmpi-solo.h"

#define N 200000
static double a[N], b[N];

int main(int argc, char **argv)
{
	int it, i, n = N;
	MPI_Init(&argc, &argv);
	for (it = 0; it < 200; it++) {
#pragma omp parallel for private(i)
		for (i = 0; i < n; i++)		/* parallel for */
			a[i] = a[i] * 0.5 + 1.0;
#pragma omp parallel
		{
#pragma omp for
			for (i = 0; i < n; i++)	/* team loop */
				b[i] = b[i] * 0.5 + a[i];
		}
#pragma GCC ivdep

		for (i = 0; i < n; i++)		/* ivdep */
			b[i] = b[i] * 0.25 + a[i];
#pragma omp simd \
	reduction(+ : n)
		for (i = 0; i < N; i++)		/* simd */
			a[i] += 1e-9 * b[i];
#ifdef _OPENMP
#pragma omp parallel for
#endif
		// the guarded form (hypre's), a comment line between
		for (i = 0; i < n; i++)		/* guarded */
			a[i] = a[i] * 0.5 + 0.25;
#pragma omp parallel private(i)
		{
#pragma omp single
			for (i = 0; i < n; i++)	/* single */
				b[i] += 1e-9;
		}
		_Pragma("omp parallel for")
		for (i = 0; i < n; i++)		/* _Pragma */
			a[i] = a[i] * 0.5 + 0.5;
	}
	printf("pragma: %.3f %.3f\n", a[7], b[3]);
	printf("line %d\n", __LINE__);
	MPI_Finalize();
	return 0;
}
