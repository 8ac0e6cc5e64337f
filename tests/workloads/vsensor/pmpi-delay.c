/* pmpi-delay.c - LD_PRELOAD library for the vsensor tests: a slow network, made by
 * sleeping before the MPI calls the workloads use.
 *   VS_DELAY=START:END:US   every rank sleeps US microseconds before each call made
 *                           in [START, END) seconds after its first intercepted call
 * Built by the tests with: mpicc -shared -fPIC pmpi-delay.c -o libpmpi-delay.so */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double t0 = -1, start, end;
static long us = -1;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void delay(void)
{
	if (us < 0) {
		const char *e = getenv("VS_DELAY");
		us = 0;
		if (!e || sscanf(e, "%lf:%lf:%ld", &start, &end, &us) != 3)
			us = 0;
	}
	if (t0 < 0)
		t0 = now();
	double t = now() - t0;
	if (us > 0 && t >= start && t < end) {
		struct timespec d = { us / 1000000, (us % 1000000) * 1000 };
		nanosleep(&d, NULL);
	}
}

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
	delay();
	return PMPI_Allreduce(s, r, n, t, op, c);
}

int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c)
{
	delay();
	return PMPI_Alltoall(s, sn, st, r, rn, rt, c);
}

int MPI_Sendrecv(const void *s, int sn, MPI_Datatype st, int d, int stag, void *r, int rn,
		 MPI_Datatype rt, int src, int rtag, MPI_Comm c, MPI_Status *status)
{
	delay();
	return PMPI_Sendrecv(s, sn, st, d, stag, r, rn, rt, src, rtag, c, status);
}

int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
	delay();
	return PMPI_Bcast(b, n, t, root, c);
}
