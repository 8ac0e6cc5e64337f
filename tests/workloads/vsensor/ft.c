/* ft.c - an NPB-FT-like MPI kernel for sonde vsensor: radix-2 FFTs along the local rows
 * of a distributed 2-D array, then a global transpose with MPI_Alltoall, then FFTs
 * again.  usage: ft [SECONDS [ITERATIONS]] (as cg.c) */
#include "inject.h"	/* first: it needs _GNU_SOURCE before any system header */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NX 256
#define MAXP 16

static double re[NX * NX / 2], im[NX * NX / 2], tre[NX * NX / 2], tim[NX * NX / 2];

/* In-place radix-2 FFT of n = NX points starting at re[o], im[o]. */
static void fft_row(int o)
{
	int i, j, k, len;
	for (i = 1, j = 0; i < NX; i++) {
		int bit = NX >> 1;
		for (; j & bit; bit >>= 1)
			j ^= bit;
		j ^= bit;
		if (i < j) {
			double t = re[o + i]; re[o + i] = re[o + j]; re[o + j] = t;
			t = im[o + i]; im[o + i] = im[o + j]; im[o + j] = t;
		}
	}
	for (len = 2; len <= NX; len <<= 1) {
		double ang = -2 * M_PI / len;
		for (i = 0; i < NX; i += len)
			for (k = 0; k < len / 2; k++) {
				double wr = cos(ang * k), wi = sin(ang * k);
				int a = o + i + k, b = a + len / 2;
				double xr = re[b] * wr - im[b] * wi, xi = re[b] * wi + im[b] * wr;
				re[b] = re[a] - xr; im[b] = im[a] - xi;
				re[a] += xr; im[a] += xi;
			}
	}
}

int main(int argc, char **argv)
{
	int rank, size, stop = 0, r;
	double secs = argc > 1 ? atof(argv[1]) : 8;
	int iters = argc > 2 ? atoi(argv[2]) : 0, done = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Barrier(MPI_COMM_WORLD);
	inject_start(rank);
	int rows = 32;			/* rows per rank: fixed, whatever the rank count */
	int chunk = rows * NX / size;
	for (int i = 0; i < rows * NX; i++) {
		re[i] = sin(i * 0.001 + rank);
		im[i] = 0;
	}
	double t0 = MPI_Wtime();
	while (!stop) {
		for (r = 0; r < 32; r++)
			fft_row(r * NX);
		MPI_Alltoall(re, chunk, MPI_DOUBLE, tre, chunk, MPI_DOUBLE, MPI_COMM_WORLD);
		MPI_Alltoall(im, chunk, MPI_DOUBLE, tim, chunk, MPI_DOUBLE, MPI_COMM_WORLD);
		for (int i = 0; i < 32 * NX; i++) {
			re[i] = tre[i] * 1e-3;
			im[i] = tim[i] * 1e-3;
		}
		for (r = 0; r < 32; r++)
			fft_row(r * NX);
		if (rank == 0)
			stop = iters ? ++done >= iters : MPI_Wtime() - t0 >= secs;
		MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
	}
	if (rank == 0)
		printf("%.3f s\n", MPI_Wtime() - t0);
	MPI_Finalize();
	return 0;
}
