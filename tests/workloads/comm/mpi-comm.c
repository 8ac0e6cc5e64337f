/* SPDX-License-Identifier: MIT */
/*
 * mpi-comm.c - an MPI + pthreads workload for `sonde comm` under mpirun, known by
 * construction.  Built by tests/e2e/t410-comm-mpi.sh with mpicc running sonde-cc
 * (OMPI_CC), not by the Makefile.
 *
 *   mpi-comm ROUNDS
 *
 * Rank r starts two worker threads that hand a token back and forth (r + 1) x ROUNDS
 * rounds in strict alternation on one cache line holding only the token: each round moves
 * the line twice (worker a's store read by b, b's read by a), all true sharing, so the
 * exact detector counts 2 (r + 1) ROUNDS transfers between the two workers of rank r and
 * nothing between other threads.  Waits spin with sched_yield (2-core machines: several
 * ranks time-share them).
 *
 * The MPI library may start threads of its own (before or after the workers), so the
 * workers' thread numbers are not known in advance: every rank prints
 * "mpi-comm: rank R workers TID_A TID_B rounds N ok"; the tests find the numbers from the
 * tids (comm/threads.csv).  Rank 0 then prints "mpi-comm: ranks=N ok" after a barrier.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static struct {
	volatile uint64_t token;
} __attribute__((aligned(64))) line;
static long rounds;
static volatile pid_t tids[2];

static void *worker(void *p)
{
	long me = (long)p;		/* 0 or 1 */
	tids[me] = gettid();
	for (long i = 0; i < rounds; i++) {
		while (line.token != (uint64_t)me)
			sched_yield();
		line.token = (uint64_t)!me;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int rank, size;
	pthread_t t[2];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	rounds = (rank + 1) * (argc > 1 ? atol(argv[1]) : 1000);
	for (long k = 0; k < 2; k++)
		pthread_create(&t[k], NULL, worker, (void *)k);
	for (int k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	printf("mpi-comm: rank %d workers %d %d rounds %ld ok\n", rank, (int)tids[0],
	       (int)tids[1], rounds);
	fflush(stdout);
	MPI_Barrier(MPI_COMM_WORLD);
	if (!rank)
		printf("mpi-comm: ranks=%d ok\n", size);
	MPI_Finalize();
	return 0;
}
