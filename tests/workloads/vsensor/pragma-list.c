/* pragma-list.c - loops `sonde vsensor list` must not make sensors (t609; not run): the
 * body of an OpenMP parallel region (every thread runs it), a team's loop whose clause
 * names a variable "parallel_sum" (the directive is `omp for`, not `parallel for`), and a
 * loop after a macro line that may expand to a _Pragma. */
#include <mpi.h>

#define PFOR _Pragma("omp parallel for")
static double a[1000];

int main(int argc, char **argv)
{
	int it, i;
	double parallel_sum = 0;
	MPI_Init(&argc, &argv);
	for (it = 0; it < 100; it++) {
#pragma omp parallel private(i)
		for (i = 0; i < 1000; i++)	/* region body */
			a[i] = a[i] * 0.5 + 1.0;
#pragma omp parallel
		{
#pragma omp for reduction(+ : parallel_sum)
			for (i = 0; i < 1000; i++)	/* team reduction */
				parallel_sum += a[i];
		}
		PFOR
		for (i = 0; i < 1000; i++)	/* macro */
			a[i] += parallel_sum * 1e-9;
	}
	MPI_Finalize();
	return 0;
}
