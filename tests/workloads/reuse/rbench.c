/* SPDX-License-Identifier: MIT */
/*
 * rbench.c - workloads with known reuse for `sonde reuse`, built with sonde-cc by the tests
 * (t500-t549) and bench/reuse.sh.  Elements are 8-byte words (the tool's temporal unit).
 *
 *   rbench ribench [-t THREADS] [-o OUTER] [-x X1a,..,X1e] [-r REPa,..,REPe] [-i INV] [-e]
 *       RIBench as the ReuseTracker thesis describes it: each thread runs OUTER times the
 *       phases a..e; phase p repeats REP[p] times: INV stores to a shared array, then one
 *       pass over its own private array of X1[p] words (load [k], store [k+1], k += 2).
 *       -e prints the analytic reuse-distance histogram of one thread instead of running
 *       ("lo,hi,count" per log-2 bin, the tool's bins): within a phase every private word
 *       is reused at distance X1[p] - 1 + INV (the rest of the array and the shared words);
 *       across outer iterations at X1[p] - 1 + INV + the other phases' words.  Shared-word
 *       reuses are left out (other threads' stores make them invalidations).
 *   rbench sweep N R [-e]    one thread sweeps N words R times: every reuse at distance N-1
 *   rbench pingpong N [-f]   two threads take turns storing one word, N times each: every
 *                            use ends with the other thread's store (invalidations only);
 *                            -f: each its own word of one cache line (false sharing): by
 *                            words every use is reused by the thread's next store, by
 *                            lines (--spatial) every one is invalidated
 *   rbench readshare N R T   T threads read the same N words R times after main wrote them:
 *                            no invalidation
 * Waiting for a turn is not instrumented (no_sanitize("coverage")), so the only accesses
 * the tool sees are the ones described.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINST __attribute__((no_sanitize("coverage"), noinline))

static int bin(uint64_t d)
{
	int b = d ? 64 - __builtin_clzll(d) : 0;
	return b < 48 ? b : 47;
}

static uint64_t hist[48];

static void add(uint64_t d, uint64_t n)
{
	hist[bin(d)] += n;
}

static void print_hist(void)
{
	for (int b = 0; b < 48; b++)
		if (hist[b])
			printf("%llu,%llu,%llu\n", b ? 1ull << (b - 1) : 0ull, 1ull << b,
			       (unsigned long long)hist[b]);
}

/* ---- RIBench ---- */

#define PHASES 5
static uint64_t x1[PHASES] = { 1000, 2000, 4000, 8000, 16000 };
static uint64_t rep[PHASES] = { 20, 20, 20, 20, 20 };
static uint64_t outer = 10, inv, nthreads = 1;
static volatile uint64_t *shared;

static void *ri_thread(void *arg)
{
	volatile uint64_t *a[PHASES];
	uint64_t sum = (uintptr_t)arg;
	for (int p = 0; p < PHASES; p++) {
		a[p] = calloc(x1[p] + 2, sizeof(uint64_t));
		if (!a[p])
			abort();
	}
	/* locals: the loops' only memory accesses are the array elements (a volatile store
	 * could alias the globals, which would be reloaded on every iteration) */
	const uint64_t no = outer, ni = inv;
	volatile uint64_t *const sh = shared;
	for (uint64_t o = 0; o < no; o++)
		for (int p = 0; p < PHASES; p++) {
			const uint64_t n = x1[p], nr = rep[p];
			volatile uint64_t *const v = a[p];
			for (uint64_t r = 0; r < nr; r++) {
				for (uint64_t i = 0; i < ni; i++)
					sh[i] = sum + i;
				for (uint64_t k = 0; k + 1 < n; k += 2) {
					sum += v[k];
					v[k + 1] = sum;
				}
			}
		}
	for (int p = 0; p < PHASES; p++)
		free((void *)a[p]);
	return (void *)(uintptr_t)sum;
}

static void list(const char *s, uint64_t *v)
{
	for (int p = 0; p < PHASES && s && *s; p++) {
		v[p] = strtoull(s, (char **)&s, 10);
		if (*s == ',')
			s++;
	}
}

static void ri_expect(void)
{
	uint64_t all = 0;
	for (int p = 0; p < PHASES; p++)
		all += rep[p] ? x1[p] : 0;
	for (int p = 0; p < PHASES; p++) {
		if (!rep[p] || !x1[p])
			continue;
		add(x1[p] - 1 + inv, (rep[p] - 1) * x1[p] * outer);
		if (outer > 1)
			add(all - 1 + inv, x1[p] * (outer - 1));
	}
	print_hist();
}

static int ribench(int argc, char **argv)
{
	int expect = 0;
	for (int i = 2; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(argv[i], "-t") && v)
			nthreads = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "-o") && v)
			outer = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "-x") && v)
			list(argv[++i], x1);
		else if (!strcmp(argv[i], "-r") && v)
			list(argv[++i], rep);
		else if (!strcmp(argv[i], "-i") && v)
			inv = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "-e"))
			expect = 1;
		else {
			fprintf(stderr, "rbench ribench: bad argument '%s'\n", argv[i]);
			return 2;
		}
	}
	if (expect) {
		ri_expect();
		return 0;
	}
	shared = calloc(inv + 1, sizeof(uint64_t));
	pthread_t t[64];
	uint64_t n = nthreads < 1 ? 1 : nthreads > 64 ? 64 : nthreads;
	for (uint64_t i = 1; i < n; i++)
		pthread_create(&t[i], NULL, ri_thread, (void *)(uintptr_t)i);
	uint64_t sum = (uintptr_t)ri_thread(NULL);
	for (uint64_t i = 1; i < n; i++) {
		void *r;
		pthread_join(t[i], &r);
		sum += (uintptr_t)r;
	}
	printf("ribench: %llu\n", (unsigned long long)(sum & 0xff));
	return 0;
}

/* ---- sweep ---- */

static int sweep(int argc, char **argv)
{
	uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000;
	uint64_t r = argc > 3 ? strtoull(argv[3], NULL, 10) : 10;
	if (argc > 4 && !strcmp(argv[4], "-e")) {
		add(n - 1, n * (r - 1));
		print_hist();
		return 0;
	}
	volatile uint64_t *const a = calloc(n, sizeof(uint64_t));
	uint64_t s = 0;
	const uint64_t nn = n, nr = r;
	for (uint64_t k = 0; k < nr; k++)
		for (uint64_t i = 0; i < nn; i++)
			s += a[i];
	printf("sweep: %llu\n", (unsigned long long)s);
	return 0;
}

/* ---- ping-pong ---- */

static uint64_t pp_n;
static volatile uint64_t word;
static volatile uint64_t pair[2] __attribute__((aligned(64)));
static int turn;	/* touched only by the uninstrumented functions */

NOINST static void wait_turn(int me)
{
	while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != me)
		sched_yield();
}

NOINST static void give_turn(int other)
{
	__atomic_store_n(&turn, other, __ATOMIC_RELEASE);
}

static void *pp_thread(void *arg)
{
	int me = (int)(uintptr_t)arg & 1, f = (int)(uintptr_t)arg >> 1;	/* f: -f */
	const uint64_t n = pp_n;
	for (uint64_t i = 0; i < n; i++) {
		wait_turn(me);
		if (f)
			pair[me] = i;
		else
			word = i;
		give_turn(1 - me);
	}
	return NULL;
}

static int pingpong(int argc, char **argv)
{
	pthread_t a, b;
	pp_n = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000;
	uintptr_t f = argc > 3 && !strcmp(argv[3], "-f") ? 2 : 0;
	pthread_create(&a, NULL, pp_thread, (void *)(f | 0));
	pthread_create(&b, NULL, pp_thread, (void *)(f | 1));
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("pingpong: %llu\n", (unsigned long long)(f ? pair[0] + pair[1] : word));
	return 0;
}

/* ---- read-only sharing ---- */

static volatile uint64_t *ro;
static uint64_t ro_n, ro_r;

static void *ro_thread(void *arg)
{
	uint64_t s = (uintptr_t)arg;
	volatile uint64_t *const a = ro;
	const uint64_t n = ro_n, r = ro_r;
	for (uint64_t k = 0; k < r; k++)
		for (uint64_t i = 0; i < n; i++)
			s += a[i];
	return (void *)(uintptr_t)s;
}

static int readshare(int argc, char **argv)
{
	ro_n = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000;
	ro_r = argc > 3 ? strtoull(argv[3], NULL, 10) : 10;
	uint64_t nt = argc > 4 ? strtoull(argv[4], NULL, 10) : 2;
	pthread_t t[16];
	nt = nt < 1 ? 1 : nt > 16 ? 16 : nt;
	ro = calloc(ro_n, sizeof(uint64_t));
	for (uint64_t i = 0; i < ro_n; i++)
		ro[i] = i;
	for (uint64_t i = 0; i < nt; i++)
		pthread_create(&t[i], NULL, ro_thread, NULL);
	uint64_t s = 0;
	for (uint64_t i = 0; i < nt; i++) {
		void *r;
		pthread_join(t[i], &r);
		s += (uintptr_t)r;
	}
	printf("readshare: %llu\n", (unsigned long long)(s & 0xff));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		goto usage;
	if (!strcmp(argv[1], "ribench"))
		return ribench(argc, argv);
	if (!strcmp(argv[1], "sweep"))
		return sweep(argc, argv);
	if (!strcmp(argv[1], "pingpong"))
		return pingpong(argc, argv);
	if (!strcmp(argv[1], "readshare"))
		return readshare(argc, argv);
usage:
	fprintf(stderr, "usage: rbench ribench|sweep|pingpong|readshare ...\n");
	return 2;
}
