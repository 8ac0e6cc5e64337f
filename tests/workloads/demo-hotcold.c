/* SPDX-License-Identifier: MIT */
/*
 * demo-hotcold - which data objects and which threads do the memory accesses, known by
 * construction.  (It also plays "uneven": the threads split the work unevenly on purpose.)
 *
 * usage: demo-hotcold [THREADS [ROUNDS]]     defaults 2 and DEFAULT_ROUNDS
 *
 * Three arrays of N uint64_t, N sized from the core's L2 (l2_bytes) so that all three fit in it
 * (each 1/8 of it): an access then costs the same in each, whatever other programs do:
 *   hot           heap, allocated by alloc_hot()     (calloc, this file)
 *   cold          heap, allocated by alloc_cold()    (calloc, this file)
 *   static_table  global array in .bss
 * A round, 16 passes of `a[i] += 1` over the thread's slice, interleaved 10 over hot (work_hot),
 * 5 over static_table (work_static), 1 over cold (work_cold), is repeated N_MAX / N times.  The
 * three functions expand one loop macro: access widths and per-access time are equal.
 *
 * Known answer (accesses, and CPU time, since every access costs the same):
 *   objects:    hot 10/16 = 62.5 %, static_table 5/16 = 31.25 %, cold 1/16 = 6.25 %;
 *               loads = stores in each (read-modify-write).
 *   functions:  work_hot 62.5 %, work_static 31.25 %, work_cold 6.25 %.
 *   threads:    thread i (0 = the main thread, then creation order) owns the slice
 *               [N*i*i/T^2, N*(i+1)^2/T^2), so it does (2i+1)/T^2 of the work:
 *               T = 2: 25 % and 75 %;  T = 4: 6.25, 18.75, 31.25, 43.75 %.
 *               (Exact when T^2 divides N, i.e. T a power of two up to 64.)
 * Nothing else touches the arrays (calloc'd zeroed, 3 elements read at the end).  Prints one
 * line; exits 1 if an element does not hold its known count.
 *
 * "Every access costs the same" holds on a quiet machine of one's own; on the cloud VMs of
 * 2026-11-29 a pass over one array took up to 2x as long as over another in some runs and
 * not others (thread 0's hot passes 2.7 us against 1.4 us for the same bytes of static_table;
 * static_table's share of the time 0.44 in one run, 0.31 in the next), so the CPU time a
 * clock samples left the construction by up to 12 points.  With DEMO_HOTCOLD_TIMES set, each
 * pass is timed (CLOCK_MONOTONIC) and a second line on stderr gives where the time went:
 *   demo-hotcold: time hot=S static=S cold=S threads=S0,S1,...
 * each S the function's (or thread's) time, as shares, from the medians of its passes in blocks
 * (print_times), so that a pass a profiler's signal handler took (one in hundreds, and 100
 * times as long) does not move it.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define N_MAX (1u << 20)
#define DEFAULT_ROUNDS 200
#define MAX_THREADS 64

uint64_t static_table[N_MAX];
static uint64_t *hot, *cold;
static unsigned nthreads, rounds;
static size_t N = N_MAX, reps = 1;	/* set by size_arrays() */

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

/* DEMO_HOTCOLD_TIMES: every pass's time (ns), per thread and function, in order. */
struct times {
	uint32_t *ns[3];
	size_t passes[3];
};
static struct times *times;	/* one per thread, NULL when not asked */

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *worker(void *arg)
{
	size_t i = (size_t)(uintptr_t)arg, t2 = (size_t)nthreads * nthreads;
	size_t lo = N * i * i / t2, hi = N * (i + 1) * (i + 1) / t2;
	struct times *tm = times ? &times[i] : NULL;

	for (size_t r = 0; r < rounds * reps; r++) {
		for (int k = 0; k < 16; k++) {
			int f = k % 3 == 1 ? 1 : k == 8 ? 2 : 0;
			uint64_t t0 = tm ? now_ns() : 0;
			if (f == 1)
				work_static(lo, hi);	/* k = 1, 4, 7, 10, 13 */
			else if (f == 2)
				work_cold(lo, hi);
			else
				work_hot(lo, hi);
			if (tm) {
				uint64_t d = now_ns() - t0;
				tm->ns[f][tm->passes[f]++] = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
			}
		}
	}
	return NULL;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The "time" line (see the top of this file).  Each function's passes in blocks of 64 in a
 * row, each block counted as 64 x its median: a pass a signal handler took (one in hundreds)
 * does not move it, and a cost that changes during the run (a huge page made of a range by
 * khugepaged, another tenant's load) is followed. */
#define BLOCK 64
static void print_times(void)
{
	double f[3] = { 0, 0, 0 }, all = 0, th[MAX_THREADS] = { 0 };
	uint32_t b[BLOCK];
	for (unsigned i = 0; i < nthreads; i++) {
		for (int k = 0; k < 3; k++) {
			const struct times *tm = &times[i];
			for (size_t at = 0; at < tm->passes[k]; at += BLOCK) {
				size_t n = tm->passes[k] - at < BLOCK ? tm->passes[k] - at : BLOCK;
				memcpy(b, tm->ns[k] + at, n * sizeof(uint32_t));
				qsort(b, n, sizeof(uint32_t), cmp_u32);
				f[k] += (double)n * b[n / 2];
				th[i] += (double)n * b[n / 2];
			}
		}
	}
	all = f[0] + f[1] + f[2];
	if (all <= 0)
		return;
	fprintf(stderr, "demo-hotcold: time hot=%.4f static=%.4f cold=%.4f threads=", f[0] / all,
		f[1] / all, f[2] / all);
	for (unsigned i = 0; i < nthreads; i++)
		fprintf(stderr, "%s%.4f", i ? "," : "", th[i] / all);
	fputc('\n', stderr);
}

/*
 * The L2 size of this core, in bytes: sysconf (glibc asks CPUID), else CPUID 0x80000006
 * (ECX[31:16], KiB; AMD and Intel alike), else 256 KiB, the smallest L2 of current x86 cores.
 * Not the L3: it is shared with other programs, and VMs misreport it (a Firecracker guest on
 * an EPYC reports the whole socket's 508 MiB for a 32 MiB slice; /sys/.../cache is absent).
 */
static long l2_bytes(void)
{
	long v = sysconf(_SC_LEVEL2_CACHE_SIZE);
	if (v > 0)
		return v;
#if defined(__x86_64__)
	unsigned a, b, c, d;
	__asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000000u), "c"(0));
	if (a >= 0x80000006u) {
		__asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000006u), "c"(0));
		if (c >> 16)
			return (long)(c >> 16) * 1024;
	}
#endif
	return 256 * 1024;
}

/* Each array 1/8 of the L2 (a power of two of elements, 4 Ki to N_MAX: T^2 divides it for
 * T up to 64); a round is repeated so that the work stays that of N_MAX elements.  Setting
 * DEMO_HOTCOLD_KIB overrides the array size (KiB). */
static void size_arrays(void)
{
	const char *e = getenv("DEMO_HOTCOLD_KIB");
	size_t want = e && atol(e) > 0 ? (size_t)atol(e) * 1024 / 8 : (size_t)l2_bytes() / 64;
	N = 1u << 12;
	while (N * 2 <= want && N < N_MAX)
		N *= 2;
	reps = N_MAX / N;
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
	size_arrays();
	if (getenv("DEMO_HOTCOLD_TIMES")) {
		/* 10, 5 and 1 passes a round (worker) */
		static const size_t per[3] = { 10, 5, 1 };
		if (!(times = calloc(nthreads, sizeof(*times))))
			return 1;
		for (unsigned i = 0; i < nthreads; i++)
			for (int k = 0; k < 3; k++)
				if (!(times[i].ns[k] = malloc(per[k] * rounds * reps * sizeof(uint32_t))))
					return 1;
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

	uint64_t n = (uint64_t)rounds * reps;
	int ok = hot[0] == 10 * n && static_table[N - 1] == 5 * n && cold[N / 2] == n;
	printf("demo-hotcold: threads=%u rounds=%u %s\n", nthreads, rounds, ok ? "ok" : "WRONG");
	if (times)
		print_times();
	return ok ? 0 : 1;
}
