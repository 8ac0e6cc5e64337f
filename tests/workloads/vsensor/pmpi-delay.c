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
 * A VS_DELAY that cannot be read, or whose CALL is not one of these (its clock would never
 * start), is said once on stderr ("pmpi-delay: ..."), by each process, and the program
 * runs without delay: a bench round then shows no delay instead of silently scoring a
 * clean run as a delayed one.
 * Built by the tests with: mpicc -shared -fPIC pmpi-delay.c -o libpmpi-delay.so */
#define _GNU_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double start, end;
static long t0_ns = -1;		/* the clock's start (CLOCK_MONOTONIC ns); -1: not started */
static long us;
static char from[64];		/* the call that starts the clock; "" for any */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static const char *const calls[] = {
	"MPI_Allreduce", "MPI_Alltoall", "MPI_Sendrecv", "MPI_Bcast", "MPI_Alltoallv",
	"MPI_Reduce", "MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Wait",
	"MPI_Waitall",
};

static long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000L + t.tv_nsec;
}

/* Read VS_DELAY, once for the process (two threads making their first calls at once would
 * both have read it, one seeing us set before start and end) */
static void setup(void)
{
	const char *e = getenv("VS_DELAY");
	us = 0;
	if (!e)
		return;
	if (sscanf(e, "%lf:%lf:%ld:%63s", &start, &end, &us, from) < 3 || us < 0) {
		fprintf(stderr, "pmpi-delay: VS_DELAY='%s' is not START:END:US[:CALL]: no delay\n", e);
		us = 0;
		return;
	}
	if (!from[0])
		return;
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (!strcmp(from, calls[i]))
			return;
	fprintf(stderr, "pmpi-delay: VS_DELAY names %s, which is not intercepted "
		"(MPI_Allreduce, MPI_Alltoall, MPI_Sendrecv, MPI_Bcast, ...): no delay\n", from);
	us = 0;
}

static void delay(const char *call)
{
	pthread_once(&once, setup);
	if (us <= 0)
		return;
	long t0 = __atomic_load_n(&t0_ns, __ATOMIC_ACQUIRE);
	if (t0 < 0) {
		if (from[0] && strcmp(call, from))
			return;
		/* the first thread to get here starts the clock; the others take its start */
		long mine = now_ns(), none = -1;
		if (__atomic_compare_exchange_n(&t0_ns, &none, mine, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			t0 = mine;
		else
			t0 = none;
	}
	double t = (now_ns() - t0) / 1e9;
	if (t >= start && t < end) {
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
