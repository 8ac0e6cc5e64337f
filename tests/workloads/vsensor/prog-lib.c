/* prog-lib.c - the second file of prog-main.c's program. */
#include <mpi.h>

static double v[100000];

void lib_sum(double *in, double *out, int count)
{
	MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);	/* LIB-SUM count 4 in the loop, 2 after it */
}

double lib_kernel(int n)
{
	double t = 0;
	for (int i = 0; i < n; i++)		/* LIB-KERNEL inside main's call of it */
		t += v[i % 100000] * 0.5 + i;
	return t;
}

void lib_scale(int n)
{
	for (int i = 0; i < n; i++)		/* LIB-SCALE called with 1000 and with 2000 */
		v[i] *= 0.999;
}
