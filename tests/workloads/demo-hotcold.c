/* SPDX-License-Identifier: MIT */
/*
 * demo-hotcold - which data objects and which threads do the memory accesses, known by
 * construction.  (It also plays "uneven": the threads split the work unevenly on purpose.)
 *
 * usage: demo-hotcold [THREADS [ROUNDS]]     defaults 2 and DEFAULT_ROUNDS
 *
 * Three arrays of N = 1M uint64_t (8 MiB each, so that every pass streams from the last-level
 * cache or memory and an access costs the same in each of them):
 *   hot           heap, allocated by alloc_hot()     (calloc, this file)
 *   cold          heap, allocated by alloc_cold()    (calloc, this file)
 *   static_table  global array in .bss
 * Each round makes 16 passes of `a[i] += 1` over the thread's slice, interleaved: 10 over hot
 * (in work_hot), 5 over static_table (in work_static), 1 over cold (in work_cold).  The three
 * functions expand one loop macro, so the access widths and per-access time are equal.
 *
 * Known answer (accesses, and CPU time, since every access costs the same):
 *   objects:    hot 10/16 = 62.5 %, static_table 5/16 = 31.25 %, cold 1/16 = 6.25 %;
 *               loads = stores in each (read-modify-write).
 *   functions:  work_hot 62.5 %, work_static 31.25 %, work_cold 6.25 %.
 *   threads:    thread i (0 = the main thread, then creation order) owns the slice
 *               [N*i*i/T^2, N*(i+1)^2/T^2), so it does (2i+1)/T^2 of the work:
 *               T = 2: 25 % and 75 %;  T = 4: 6.25, 18.75, 31.25, 43.75 %.
 *               (Exact when T^2 divides N, i.e. T a power of two up to 1024.)
 * Nothing else touches the arrays: calloc's pages come zeroed from mmap, and the final check
 * reads 3 elements.  Prints one line; exits 1 if an element does not hold its known count.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1u << 20)
#define DEFAULT_ROUNDS 200
#define MAX_THREADS 64

uint64_t static_table[N];
static uint64_t *hot, *cold;
static unsigned nthreads, rounds;

/*
 * Two distinct allocation sites: not inlined, not merged by gcc's identical-code folding
 * (noipa), and the empty asm keeps calloc from becoming a tail call out of the frame.
 */
#if defined(__GNUC__) && !defined(__clang__)
#define SITE __attribute__((noinline, noipa))
#else
#define SITE __attribute__((noinline))
#endif

static SITE uint64_t *alloc_hot(void)
{
	uint64_t *p = calloc(N, sizeof(uint64_t));

	asm volatile("" : "+r"(p));
	return p;
}

static SITE uint64_t *alloc_cold(void)
{
	uint64_t *p = calloc(N, sizeof(uint64_t));

	asm volatile("" : "+r"(p));
	return p;
}

/* One loop shape for the three arrays; a macro, not an inlined function, so that each
 * work_* function keeps its own name and line in the debug information. */
#define SWEEP(a, lo, hi)                             \
	do {                                         \
		for (size_t i_ = (lo); i_ < (hi); i_++) \
			(a)[i_] += 1;                \
	} while (0)

static __attribute__((noinline)) void work_hot(size_t lo, size_t hi)
{
	SWEEP(hot, lo, hi);
}

static __attribute__((noinline)) void work_static(size_t lo, size_t hi)
{
	SWEEP(static_table, lo, hi);
}

static __attribute__((noinline)) void work_cold(size_t lo, size_t hi)
{
	SWEEP(cold, lo, hi);
}

static void *worker(void *arg)
{
	size_t i = (size_t)(uintptr_t)arg, t2 = (size_t)nthreads * nthreads;
	size_t lo = N * i * i / t2, hi = N * (i + 1) * (i + 1) / t2;

	for (unsigned r = 0; r < rounds; r++) {
		for (int k = 0; k < 16; k++) {
			if (k % 3 == 1)
				work_static(lo, hi);	/* k = 1, 4, 7, 10, 13 */
			else if (k == 8)
				work_cold(lo, hi);
			else
				work_hot(lo, hi);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t tids[MAX_THREADS];

	nthreads = argc > 1 ? (unsigned)atoi(argv[1]) : 2;
	rounds = argc > 2 ? (unsigned)atoi(argv[2]) : DEFAULT_ROUNDS;
	if (nthreads < 1 || nthreads > MAX_THREADS || rounds < 1) {
		fprintf(stderr, "usage: demo-hotcold [THREADS (1-%d) [ROUNDS]]\n", MAX_THREADS);
		return 2;
	}
	hot = alloc_hot();
	cold = alloc_cold();
	if (!hot || !cold)
		return 1;
	for (unsigned i = 1; i < nthreads; i++)
		pthread_create(&tids[i], NULL, worker, (void *)(uintptr_t)i);
	worker((void *)0);
	for (unsigned i = 1; i < nthreads; i++)
		pthread_join(tids[i], NULL);

	int ok = hot[0] == 10ull * rounds && static_table[N - 1] == 5ull * rounds &&
		 cold[N / 2] == rounds;
	printf("demo-hotcold: threads=%u rounds=%u %s\n", nthreads, rounds, ok ? "ok" : "WRONG");
	return ok ? 0 : 1;
}
