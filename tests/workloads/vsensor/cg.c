/* cg.c - an NPB-CG-like MPI kernel for sonde vsensor: conjugate-gradient iterations on
 * a banded sparse matrix (7 nonzeros per row), dot products reduced with MPI_Allreduce.
 * usage: cg [SECONDS [ITERATIONS]]   (whole iterations until rank 0 has used SECONDS,
 * or exactly ITERATIONS when given; rank 0 prints the time) */
#include "inject.h"	/* first: it needs _GNU_SOURCE before any system header */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NLOC 20000
#define NZ 7

static double val[NLOC * NZ], x[NLOC], p[NLOC], q[NLOC], r[NLOC];
static int col[NLOC * NZ];

int main(int argc, char **argv)
{
	int rank, stop = 0, i, k;
	double secs = argc > 1 ? atof(argv[1]) : 8;
	int iters = argc > 2 ? atoi(argv[2]) : 0, done = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	inject_start(rank);
	for (i = 0; i < NLOC; i++) {
		for (k = 0; k < NZ; k++) {
			col[i * NZ + k] = (i + (k - NZ / 2) * 37 + NLOC) % NLOC;
			val[i * NZ + k] = k == NZ / 2 ? 8.0 : -1.0;
		}
		x[i] = 0;
		r[i] = p[i] = 1.0;
	}
	double t0 = MPI_Wtime(), rho = 0, lrho, pq, lpq, alpha, beta;
	while (!stop) {
		for (i = 0; i < NLOC; i++) {
			double s = 0;
			for (k = 0; k < NZ; k++)
				s += val[i * NZ + k] * p[col[i * NZ + k]];
			q[i] = s;
		}
		lpq = 0;
		for (i = 0; i < NLOC; i++)
			lpq += p[i] * q[i];
		MPI_Allreduce(&lpq, &pq, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		lrho = 0;
		for (i = 0; i < NLOC; i++)
			lrho += r[i] * r[i];
		MPI_Allreduce(&lrho, &rho, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		alpha = pq != 0 ? rho / pq : 0;
		for (i = 0; i < NLOC; i++) {
			x[i] += alpha * p[i];
			r[i] -= alpha * q[i];
		}
		lrho = 0;
		for (i = 0; i < NLOC; i++)
			lrho += r[i] * r[i];
		beta = rho != 0 ? lrho / rho : 0;
		if (beta > 1 || beta != beta)
			beta = 0.5;	/* keep the numbers bounded: this is a timing kernel */
		for (i = 0; i < NLOC; i++)
			p[i] = r[i] + beta * p[i] + 1e-3;
		if (rank == 0)
			stop = iters ? ++done >= iters : MPI_Wtime() - t0 >= secs;
		MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
	}
	if (rank == 0)
		printf("%.3f s\n", MPI_Wtime() - t0);
	MPI_Finalize();
	return 0;
}
