/* SPDX-License-Identifier: MIT */
/*
 * mpi-memwork - which ranks and which data objects do the memory accesses, known by
 * construction.  Built with mpicc by the tests that use it (tests/e2e/t20*-mpi-*.sh), not by
 * the Makefile's generic workload rule.
 *
 * usage: mpi-memwork [PASSES [exit|abort RANK]]        default PASSES = DEFAULT_PASSES
 *
 * Two arrays of N = 16Ki uint64_t (128 KiB each: both stay in the per-core caches, so an access
 * costs the same whatever the other ranks sharing the machine do):
 *   work          heap, allocated by alloc_work() (malloc, this file, the line marked
 *                 ALLOC_SITE)
 *   static_table  global array in .bss
 * A unit of work is PASSES x REPEAT rounds of 3 passes of `a[i] += 1` over work (in
 * work_heap) and 1 over static_table (in work_static); the two functions share one inlined
 * loop.
 *
 * Known answer (accesses; CPU time too where every access costs the same, which a shared
 * host does not promise over time, see MPI_MEMWORK_CPU):
 *   ranks:    rank r does r + 1 units, so its share is (r + 1) / (n (n + 1) / 2):
 *             n = 2: 1/3 and 2/3;  n = 4: 10, 20, 30, 40 %.
 *   objects:  work 3/4 = 75 %, static_table 1/4 = 25 % in every rank;
 *             loads = stores (read-modify-write).
 * Ranks that finish early wait in MPI_Ibarrier + MPI_Test + a 1 ms sleep rather than a
 * spinning MPI_Barrier, so the wait costs (almost) no CPU time and does not blur the split.
 * MPI_Init and MPI_Finalize cost every rank the same small amount.
 *
 * Output: every rank prints "mpi-memwork: rank R units U ok" (or WRONG if an element does not
 * hold its known count), then rank 0 prints "mpi-memwork: ranks=N passes=P ok" after an
 * MPI_Allreduce of the ranks' verdicts.  Exit status 0, or 1 if a verdict is WRONG.
 * "exit R": rank R exits with status 3 after MPI_Finalize (the others exit 0).
 * "abort R" (R > 0): rank R waits until rank 0 has worked ABORT_AFTER_NS of CPU time (one
 * unit at least: more than MPI_Init's ~0.1 s of CPU on a slow VM, so the work ranks first in
 * its profile), then calls MPI_Abort(MPI_COMM_WORLD, 4) while rank 0 goes on working (up to
 * ABORT_UNITS units, far more than it can do before the launcher kills it); the other ranks
 * work as usual.
 * Usage errors exit 2.
 * With MPI_MEMWORK_CPU=DIR in the environment, rank r also writes "r NS" to DIR/cpu.r<r>: the
 * CPU time (ns, CLOCK_THREAD_CPUTIME_ID) its units took.  That, not the count of accesses, is
 * what a CPU-time sampler sees: on a shared host an access does not cost the same all along.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N (1u << 14)
#define DEFAULT_PASSES 2000
/* Rounds per pass.  MPI_Init and MPI_Finalize take ~0.1-0.2 s of CPU a rank under sonde on
 * a slow VM (system calls cost 1.8 us there): 2,000 passes of one round each (0.05 s) left
 * the heap array below the start-up's stack accesses in a 2-rank profile. */
#define REPEAT 4
#define ABORT_UNITS 1000
#define ABORT_AFTER_NS 300000000ull
#define TAG_UNIT_DONE 7

uint64_t static_table[N];
static uint64_t *work;

static __attribute__((noinline)) uint64_t *alloc_work(void)
{
	uint64_t *a = malloc(N * sizeof(uint64_t)); /* ALLOC_SITE */

	/* Keep malloc + memset from becoming a tail call to calloc: the allocation site must be
	 * this function, not its caller. */
	__asm__ volatile("" : : "r"(a) : "memory");
	if (a)
		memset(a, 0, N * sizeof(uint64_t));
	return a;
}

static inline __attribute__((always_inline)) void sweep(uint64_t *a)
{
	for (size_t i = 0; i < N; i++)
		a[i] += 1;
}

static __attribute__((noinline)) void work_heap(void)
{
	sweep(work);
}

static __attribute__((noinline)) void work_static(void)
{
	sweep(static_table);
}

static void do_units(unsigned units, unsigned passes)
{
	for (unsigned u = 0; u < units; u++)
		for (unsigned p = 0; p < passes * REPEAT; p++) {
			work_heap();
			work_static();
			work_heap();
			work_heap();
		}
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* MPI_MEMWORK_CPU=DIR: DIR/cpu.r<rank> gets "rank ns" (see the header). */
static void report_cpu(int rank, uint64_t ns)
{
	const char *dir = getenv("MPI_MEMWORK_CPU");
	char path[4096];

	if (!dir || snprintf(path, sizeof(path), "%s/cpu.r%d", dir, rank) >= (int)sizeof(path))
		return;
	FILE *f = fopen(path, "w");
	if (f) {
		fprintf(f, "%d %llu\n", rank, (unsigned long long)ns);
		fclose(f);
	}
}

/* Wait for a request sleeping, not spinning: waiting ranks must not burn CPU time. */
static void quiet_wait(MPI_Request *req)
{
	int done = 0;
	struct timespec ms = { 0, 1000000 };

	for (;;) {
		MPI_Test(req, &done, MPI_STATUS_IGNORE);
		if (done)
			break;
		nanosleep(&ms, NULL);
	}
}

static void quiet_barrier(void)
{
	MPI_Request req;

	MPI_Ibarrier(MPI_COMM_WORLD, &req);
	quiet_wait(&req);
}

/* "abort R": rank R aborts the job once rank 0 has worked one unit. */
static void abort_after_rank0(unsigned passes, int bad_rank, int rank)
{
	MPI_Request req;
	int token = 0;

	if (rank == bad_rank) {
		MPI_Irecv(&token, 1, MPI_INT, 0, TAG_UNIT_DONE, MPI_COMM_WORLD, &req);
		quiet_wait(&req);
		MPI_Abort(MPI_COMM_WORLD, 4);
	}
	if (rank == 0) {
		uint64_t t0 = thread_cpu_ns();
		do {
			do_units(1, passes);
		} while (thread_cpu_ns() - t0 < ABORT_AFTER_NS);
		MPI_Send(&token, 1, MPI_INT, bad_rank, TAG_UNIT_DONE, MPI_COMM_WORLD);
		do_units(ABORT_UNITS, passes);
	}
}

int main(int argc, char **argv)
{
	int rank, size, bad_rank = -1, fail_exit = 0, fail_abort = 0;
	unsigned passes = DEFAULT_PASSES;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1)
		passes = (unsigned)atoi(argv[1]);
	if (argc > 3) {
		fail_exit = !strcmp(argv[2], "exit");
		fail_abort = !strcmp(argv[2], "abort");
		bad_rank = atoi(argv[3]);
	}
	if (passes < 1 || argc == 3 || argc > 4 || (argc == 4 && !fail_exit && !fail_abort) ||
	    (fail_abort && (bad_rank <= 0 || bad_rank >= size))) {
		if (rank == 0)
			fprintf(stderr, "usage: mpi-memwork [PASSES [exit|abort RANK]]\n");
		MPI_Finalize();
		return 2;
	}
	work = alloc_work();
	if (!work)
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (fail_abort)
		abort_after_rank0(passes, bad_rank, rank);
	unsigned units = (unsigned)rank + 1;
	uint64_t t0 = thread_cpu_ns();
	do_units(units, passes);
	report_cpu(rank, thread_cpu_ns() - t0);

	uint64_t n = (uint64_t)units * passes * REPEAT;
	int ok = work[0] == 3 * n && work[N - 1] == 3 * n && static_table[N / 2] == n;
	printf("mpi-memwork: rank %d units %u %s\n", rank, units, ok ? "ok" : "WRONG");
	fflush(stdout);

	quiet_barrier();
	int all_ok = 0;
	MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (rank == 0) {
		printf("mpi-memwork: ranks=%d passes=%u %s\n", size, passes, all_ok ? "ok" : "WRONG");
		fflush(stdout);
	}
	free(work);
	MPI_Finalize();
	if (fail_exit && rank == bad_rank)
		return 3;
	return all_ok ? 0 : 1;
}
