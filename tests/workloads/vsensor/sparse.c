/* sparse.c - an MPI program that senses rarely, the way CoMD does (two Allreduces per
 * print step): each iteration computes for SECONDS/2 (a loop until a time, not a
 * sensor) and then makes one fixed-size Allreduce, the only sensor.  Used by
 * tests/e2e/t606-vsensor-sparse.sh: the CPU share must still be sampled per slice.
 * usage: sparse [SECONDS]   (default 4; rank 0 prints the sum) */
#include "inject.h"	/* first: it needs _GNU_SOURCE before any system header */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank;
	double secs = argc > 1 ? atof(argv[1]) : 4, x = 0, sum = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	inject_start(rank);
	for (int it = 0; it < 2; it++) {
		double t = MPI_Wtime();
		while (MPI_Wtime() - t < secs / 2)
			x += 1e-9 * t;
		MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	}
	if (rank == 0)
		printf("%.3f\n", sum > 0);
	MPI_Finalize();
	return 0;
}
