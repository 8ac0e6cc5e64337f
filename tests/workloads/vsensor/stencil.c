/* stencil.c - a 2-D Jacobi stencil for sonde vsensor: rows split across ranks, halo
 * rows exchanged with MPI_Sendrecv, residual reduced with MPI_Allreduce.
 * usage: stencil [SECONDS [ITERATIONS]] (as cg.c) */
#include "inject.h"	/* first: it needs _GNU_SOURCE before any system header */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NXC 512
#define NYL 128

static double u[NYL + 2][NXC], v[NYL + 2][NXC];

int main(int argc, char **argv)
{
	int rank, size, stop = 0, i, j;
	double secs = argc > 1 ? atof(argv[1]) : 8;
	int iters = argc > 2 ? atoi(argv[2]) : 0, done = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Barrier(MPI_COMM_WORLD);
	inject_start(rank);
	int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
	int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
	for (i = 0; i < NYL + 2; i++)
		for (j = 0; j < NXC; j++)
			u[i][j] = (i * j) % 7;
	double t0 = MPI_Wtime(), res, lres;
	while (!stop) {
		MPI_Sendrecv(u[1], NXC, MPI_DOUBLE, up, 0, u[NYL + 1], NXC, MPI_DOUBLE, down, 0,
			     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Sendrecv(u[NYL], NXC, MPI_DOUBLE, down, 1, u[0], NXC, MPI_DOUBLE, up, 1,
			     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		for (i = 1; i <= NYL; i++)
			for (j = 1; j < NXC - 1; j++)
				v[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
		lres = 0;
		for (i = 1; i <= NYL; i++)
			for (j = 1; j < NXC - 1; j++) {
				lres += (v[i][j] - u[i][j]) * (v[i][j] - u[i][j]);
				u[i][j] = v[i][j];
			}
		MPI_Allreduce(&lres, &res, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		if (rank == 0)
			stop = iters ? ++done >= iters : MPI_Wtime() - t0 >= secs;
		MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
	}
	if (rank == 0)
		printf("%.3f s\n", MPI_Wtime() - t0);
	MPI_Finalize();
	return 0;
}
