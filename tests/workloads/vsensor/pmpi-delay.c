/* pmpi-delay.c - LD_PRELOAD library for the vsensor tests: a slow network, made by
 * sleeping before the MPI calls the workloads use.
 *   VS_DELAY=START:END:US[:CALL]   every rank sleeps US microseconds before each call
 *                           made in [START, END) seconds after its first intercepted call,
 *                           or with CALL (e.g. MPI_Allreduce) after its first call of CALL
 *                           (NPB IS calls MPI_Bcast before seconds of key generation: a
 *                           window from its first call ended before its first iteration)
 * Intercepted: the collectives and point-to-point calls of the bundled workloads, CoMD
 * (MPI_Sendrecv halo exchange) and NPB IS (MPI_Alltoallv; MPI_Irecv/Send/Wait, MPI_Reduce
 * after its iterations); not MPI_Barrier, which the bundled workloads call first.
 * Built by the tests with: mpicc -shared -fPIC pmpi-delay.c -o libpmpi-delay.so */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double t0 = -1, start, end;
static long us = -1;
static char from[64];		/* the call that starts the clock; "" for any */

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void delay(const char *call)
{
	if (us < 0) {
		const char *e = getenv("VS_DELAY");
		us = 0;
		if (!e || sscanf(e, "%lf:%lf:%ld:%63s", &start, &end, &us, from) < 3)
			us = 0;
	}
	if (t0 < 0 && (!from[0] || !strcmp(call, from)))
		t0 = now();
	if (t0 < 0)
		return;
	double t = now() - t0;
	if (us > 0 && t >= start && t < end) {
		struct timespec d = { us / 1000000, (us % 1000000) * 1000 };
		nanosleep(&d, NULL);
	}
}

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
	delay("MPI_Allreduce");
	return PMPI_Allreduce(s, r, n, t, op, c);
}

int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c)
{
	delay("MPI_Alltoall");
	return PMPI_Alltoall(s, sn, st, r, rn, rt, c);
}

int MPI_Sendrecv(const void *s, int sn, MPI_Datatype st, int d, int stag, void *r, int rn,
		 MPI_Datatype rt, int src, int rtag, MPI_Comm c, MPI_Status *status)
{
	delay("MPI_Sendrecv");
	return PMPI_Sendrecv(s, sn, st, d, stag, r, rn, rt, src, rtag, c, status);
}

int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
	delay("MPI_Bcast");
	return PMPI_Bcast(b, n, t, root, c);
}

int MPI_Alltoallv(const void *s, const int *sc, const int *sd, MPI_Datatype st, void *r,
		  const int *rc, const int *rd, MPI_Datatype rt, MPI_Comm c)
{
	delay("MPI_Alltoallv");
	return PMPI_Alltoallv(s, sc, sd, st, r, rc, rd, rt, c);
}

int MPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c)
{
	delay("MPI_Reduce");
	return PMPI_Reduce(s, r, n, t, op, root, c);
}

int MPI_Send(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c)
{
	delay("MPI_Send");
	return PMPI_Send(b, n, t, d, tag, c);
}

int MPI_Recv(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Status *st)
{
	delay("MPI_Recv");
	return PMPI_Recv(b, n, t, src, tag, c, st);
}

int MPI_Isend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request *q)
{
	delay("MPI_Isend");
	return PMPI_Isend(b, n, t, d, tag, c, q);
}

int MPI_Irecv(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Request *q)
{
	delay("MPI_Irecv");
	return PMPI_Irecv(b, n, t, src, tag, c, q);
}

int MPI_Wait(MPI_Request *q, MPI_Status *st)
{
	delay("MPI_Wait");
	return PMPI_Wait(q, st);
}

int MPI_Waitall(int n, MPI_Request *q, MPI_Status *st)
{
	delay("MPI_Waitall");
	return PMPI_Waitall(n, q, st);
}
