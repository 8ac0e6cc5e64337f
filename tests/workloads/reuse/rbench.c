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
 *   rbench turns N W [-e]    two threads take turns updating W words (`b[i] += 1`: a load,
 *                            then its store), N turns each: every load is reused by its
 *                            own store (distance 0), every store but the last turn's ends
 *                            with the other thread's store, its load coming between (no
 *                            invalidation: W-only watches elsewhere); -e prints the
 *                            outcomes' counts ("reuse0,N" and "invalidation,N") instead
 *   rbench readshare N R T   T threads read the same N words R times after main wrote them:
 *                            no invalidation (churn, random, ..., phases: below)
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

/* ---- phases ---- */

/* rbench phases S RS L RL [-e]: one thread sweeps S words RS times, then L other words RL
 * times: reuses at distance S - 1 in the first phase, L - 1 in the second, none between
 * them (-e prints these).  With S small and L long the short phase leaves GlobalWP's slots
 * free and the long one fills them: a sample is armed with certainty in the first and
 * often not in the second (the usability review's badpair, doc/sonde-reuse.md "How it
 * works") */
static int phases(int argc, char **argv)
{
	uint64_t sn = argc > 2 ? strtoull(argv[2], NULL, 10) : 512;
	uint64_t sr = argc > 3 ? strtoull(argv[3], NULL, 10) : 16000;
	uint64_t ln = argc > 4 ? strtoull(argv[4], NULL, 10) : 2000000;
	uint64_t lr = argc > 5 ? strtoull(argv[5], NULL, 10) : 5;
	if (!sn || !sr || !ln || !lr)
		return 2;
	if (argc > 6 && !strcmp(argv[6], "-e")) {
		add(sn - 1, sn * (sr - 1));
		add(ln - 1, ln * (lr - 1));
		print_hist();
		return 0;
	}
	volatile uint64_t *const sa = calloc(sn, sizeof(uint64_t));
	volatile uint64_t *const la = calloc(ln, sizeof(uint64_t));
	if (!sa || !la)
		return 1;
	uint64_t s = 0;
	const uint64_t nsn = sn, nsr = sr, nln = ln, nlr = lr;
	for (uint64_t k = 0; k < nsr; k++)
		for (uint64_t i = 0; i < nsn; i++)
			s += sa[i];
	for (uint64_t k = 0; k < nlr; k++)
		for (uint64_t i = 0; i < nln; i++)
			s += la[i];
	printf("phases: %llu\n", (unsigned long long)s);
	return 0;
}

/* ---- wide ---- */

/* rbench wide N R: one thread sweeps N words R times downwards with 16-byte loads at every
 * word (words i and i+1), so each load overlaps the previous one's first word.  A wide
 * access is a use of its first word (doc/sonde-reuse.md): every reuse at time distance
 * N - 2, none at 0 (the next load, which only overlaps it) */
static int wide(int argc, char **argv)
{
	uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 4096;
	uint64_t r = argc > 3 ? strtoull(argv[3], NULL, 10) : 100;
	if (n < 2)
		return 2;
	uint64_t *const a = calloc(n, sizeof(uint64_t)), s = 0;
	for (uint64_t k = 0; k < r; k++)
		for (uint64_t i = n - 1; i-- > 0;) {
			unsigned __int128 v;
			memcpy(&v, &a[i], sizeof(v));	/* (one 16-byte load: load16) */
			s += (uint64_t)v + (uint64_t)(v >> 64);
		}
	printf("wide: %llu\n", (unsigned long long)s);
	return 0;
}

/* ---- gather ---- */

/* rbench gather N R H [-e]: one thread sweeps N words R times, with 0, 1 or 2 loads of
 * hot words after each (drawn by a generator in registers, 1 on average; the hot words in
 * turn, h[j % H] for the j-th): an array word is reused at time distance ~2N and reuse
 * distance N - 1 + H (H <= N; -e prints these), a hot word at distances ~2H.  A long
 * window holds about as many hot loads, reused inside it, as array loads, reused beyond,
 * in an order the sampling period does not align with: one window's share beyond is 1/2
 * with a sampling error, where a sweep's is 1 with none (NPB CG's windows,
 * doc/sonde-reuse.md "Accuracy") */
static int gather(int argc, char **argv)
{
	uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 31000;
	uint64_t r = argc > 3 ? strtoull(argv[3], NULL, 10) : 20;
	uint64_t h = argc > 4 ? strtoull(argv[4], NULL, 10) : 16;
	if (!n || !r || !h || h > n)
		return 2;
	if (argc > 5 && !strcmp(argv[5], "-e")) {
		add(n - 1 + h, n * (r - 1));
		print_hist();
		return 0;
	}
	volatile uint64_t *const arr = calloc(n, sizeof(uint64_t));
	volatile uint64_t *const hot = calloc(h, sizeof(uint64_t));
	uint64_t s = 0, j = 0, x = 88172645463325252ull;
	const uint64_t nn = n, nr = r, nh = h;
	for (uint64_t k = 0; k < nr; k++)
		for (uint64_t i = 0; i < nn; i++) {
			s += arr[i];
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			for (uint64_t c = (x >> 32) % 3; c; c--) {
				s += hot[j];
				j = j + 1 < nh ? j + 1 : 0;
			}
		}
	printf("gather: %llu\n", (unsigned long long)s);
	return 0;
}

/* ---- pairs ---- */

/* rbench pairs N R: R passes over N words a[i]; each step loads a[i], increments b[i % 8]
 * (a load and a store of one word) and stores a[i].  Of every 4 accesses' reuses, one is
 * the store of a[i] at time distance 2 and reuse distance 1 (the 2 accesses between are
 * one word: NPB IS's `key_buff[k]++`, where Shen's mean says 1.75 here), one the
 * increment's store at 0, one b's next load at 30 and 16, one a[i]'s next pass at
 * ~4N and N + 7 */
static int pairs(int argc, char **argv)
{
	uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 4096;
	uint64_t r = argc > 3 ? strtoull(argv[3], NULL, 10) : 50;
	if (n < 8 || !r)
		return 2;
	volatile uint64_t *const w = calloc(n, sizeof(uint64_t));
	volatile uint64_t *const b = calloc(8, sizeof(uint64_t));
	uint64_t s = 0;
	const uint64_t nn = n, nr = r;
	for (uint64_t k = 0; k < nr; k++)
		for (uint64_t i = 0; i < nn; i++) {
			uint64_t x = w[i];
			b[i & 7] += 1;
			w[i] = x + k;
			s += x;
		}
	printf("pairs: %llu\n", (unsigned long long)s);
	return 0;
}

/* rbench shift N R [P]: R passes of an in-place shift a[i] = a[i + 1] + k over N words,
 * with a counter e[i % 16] incremented (a load and a store) every 8th step between the load
 * and the store, or with P > 0 on P% of the steps at random (drawn in registers).  The load of a[i + 1] is reused by the next step's store at time distance 2
 * (the store of a[i], the load of a[i + 2]) and distance 2, and the counter's 2 sites lie
 * between the two in the code: a count of sites alone would take the window for a pass
 * through them, 1 element (a review's counterexample to the code order) */
static int shift(int argc, char **argv)
{
	uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 30000;
	uint64_t r = argc > 3 ? strtoull(argv[3], NULL, 10) : 40;
	uint64_t pc = argc > 4 ? strtoull(argv[4], NULL, 10) : 0;
	if (n < 2 || !r || pc > 100)
		return 2;
	volatile uint64_t *const v = calloc(n + 1, sizeof(uint64_t));
	volatile uint64_t *const e = calloc(16, sizeof(uint64_t));
	const uint64_t nn = n, nr = r, np = pc;
	uint64_t x = 88172645463325252ull;
	for (uint64_t k = 0; k < nr; k++)
		for (uint64_t i = 0; i < nn; i++) {
			uint64_t t = v[i + 1];
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			if (np ? (x >> 32) % 100 < np : (i & 7) == 0)
				e[i & 15] += 1;
			v[i] = t + k;
		}
	printf("shift: %llu\n", (unsigned long long)v[0]);
	return 0;
}

/* ---- random ---- */

/* Run fn on nt threads (at most 64), the i-th given i; the sum of their return values. */
static uint64_t run_threads(uint64_t nt, void *(*fn)(void *))
{
	pthread_t t[64];
	uint64_t s = 0;
	for (uint64_t i = 0; i < nt && i < 64; i++)
		if (pthread_create(&t[i], NULL, fn, (void *)(uintptr_t)i))
			abort();
	for (uint64_t i = 0; i < nt && i < 64; i++) {
		void *r;
		pthread_join(t[i], &r);
		s += (uintptr_t)r;
	}
	return s;
}

static uint64_t rnd_k, rnd_n;

static void *rnd_thread(void *arg)
{
	const uint64_t k = rnd_k, n = rnd_n;
	volatile uint64_t *const w = calloc(k, sizeof(uint64_t));
	uint64_t x = 0x9E3779B97F4A7C15ull * ((uintptr_t)arg + 1), s = 0;
	if (!w)
		abort();
	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		s += w[(x >> 33) % k];
	}
	free((void *)w);
	return (void *)(uintptr_t)s;
}

/* rbench random K N [T]: T threads (default 2), each N loads of its own K words at uniform
 * random (independent draws): reuse distances spread from 0 to K - 1, each reuse short
 * against a sampling period of thousands (the case of a sampled window holding no other
 * sampled use; the truth is --exact's, not printed here) */
static int random_loads(int argc, char **argv)
{
	rnd_k = argc > 2 ? strtoull(argv[2], NULL, 10) : 64;
	rnd_n = argc > 3 ? strtoull(argv[3], NULL, 10) : 1000000;
	uint64_t nt = argc > 4 ? strtoull(argv[4], NULL, 10) : 2;
	if (!rnd_k || nt < 1 || nt > 64)
		return 2;
	run_threads(nt, rnd_thread);
	printf("random: %llu loads\n", (unsigned long long)(rnd_n * nt));
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

/* ---- turns: two threads updating one buffer by turns ---- */

static uint64_t tu_n, tu_w;
static volatile uint64_t *tu_buf;

static void *tu_thread(void *arg)
{
	int me = (int)(uintptr_t)arg;
	volatile uint64_t *const b = tu_buf;
	const uint64_t n = tu_n, w = tu_w;
	for (uint64_t k = 0; k < n; k++) {
		wait_turn(me);
		for (uint64_t i = 0; i < w; i++)
			b[i] += 1;
		give_turn(1 - me);
	}
	return NULL;
}

static int turns(int argc, char **argv)
{
	pthread_t a, b;
	tu_n = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000;
	tu_w = argc > 3 ? strtoull(argv[3], NULL, 10) : 64;
	if (!tu_n || !tu_w)
		return 2;
	if (argc > 4 && !strcmp(argv[4], "-e")) {
		/* 2N turns of W loads and W stores; the last turn's stores end the run */
		printf("reuse0,%llu\ninvalidation,%llu\n", (unsigned long long)(2 * tu_n * tu_w),
		       (unsigned long long)((2 * tu_n - 1) * tu_w));
		return 0;
	}
	tu_buf = calloc(tu_w, sizeof(*tu_buf));
	if (!tu_buf)
		return 1;
	pthread_create(&a, NULL, tu_thread, (void *)0);
	pthread_create(&b, NULL, tu_thread, (void *)1);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("turns: %llu\n", (unsigned long long)tu_buf[0]);
	return 0;
}

/* ---- read-only sharing ---- */

static volatile uint64_t *ro;
static uint64_t ro_n, ro_r;

static void *ro_thread(void *arg)
{
	uint64_t s = 0;
	(void)arg;
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
	nt = nt < 1 ? 1 : nt > 16 ? 16 : nt;
	ro = calloc(ro_n, sizeof(uint64_t));
	for (uint64_t i = 0; i < ro_n; i++)
		ro[i] = i;
	uint64_t s = run_threads(nt, ro_thread);
	printf("readshare: %llu\n", (unsigned long long)(s & 0xff));
	return 0;
}

/*
 * ---- churn: threads that start and exit while others run ----
 * T short threads, at most C (default 4) at once, a new one started as soon as one is
 * joined: each reads its own N words twice, then once more in the destructor of a
 * pthread key it set (run at its exit): N cold accesses and 2N reuses at distance N-1 a
 * thread (the arrays are never freed, so no address is reused by another thread).  -x:
 * then C more threads read their own N words over and over, and main returns once each
 * has made two passes (the process ends under them).
 */

static uint64_t ch_n;
static pthread_key_t ch_key;

NOINST static uint64_t ch_words(void)
{
	return ch_n;
}

static uint64_t ch_read(volatile uint64_t *a, uint64_t n)
{
	uint64_t s = 0;
	for (uint64_t i = 0; i < n; i++)
		s += a[i];
	return s;
}

/* At the thread's exit, after its function returned: its accesses are the program's too. */
static void ch_destructor(void *p)
{
	ch_read(p, ch_words());
}

static uint64_t ch_passes;

NOINST static void ch_pass(void)
{
	__atomic_add_fetch(&ch_passes, 1, __ATOMIC_RELEASE);
}

static void *ch_forever(void *arg)
{
	volatile uint64_t *const a = arg;
	const uint64_t n = ch_words();
	uint64_t s = 0;
	for (;;) {
		s += ch_read(a, n);
		ch_pass();
	}
	return (void *)(uintptr_t)s;
}

static void *ch_thread(void *arg)
{
	volatile uint64_t *const a = arg;
	const uint64_t n = ch_words();
	uint64_t s = ch_read(a, n) + ch_read(a, n);
	pthread_setspecific(ch_key, arg);
	return (void *)(uintptr_t)s;
}

NOINST static int churn(int argc, char **argv)
{
	uint64_t nt = argc > 3 ? strtoull(argv[3], NULL, 10) : 100;
	uint64_t c = argc > 4 ? strtoull(argv[4], NULL, 10) : 4;
	pthread_t t[64];
	ch_n = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000;
	c = c < 1 ? 1 : c > 64 ? 64 : c;
	int forever = argc > 5 && !strcmp(argv[5], "-x");
	uint64_t *mem = calloc((nt + c) * ch_n + 1, sizeof(uint64_t));
	if (!mem || pthread_key_create(&ch_key, ch_destructor))
		return 1;
	for (uint64_t i = 0; i < nt + c; i++) {
		if (i >= c)
			pthread_join(t[(i - c) % c], NULL);
		if (i < nt && pthread_create(&t[i % c], NULL, ch_thread, mem + i * ch_n))
			return 1;
	}
	for (uint64_t i = 0; forever && i < c; i++)
		if (pthread_create(&t[i], NULL, ch_forever, mem + (nt + i) * ch_n))
			return 1;
	while (forever && __atomic_load_n(&ch_passes, __ATOMIC_ACQUIRE) < 2 * c)
		sched_yield();
	printf("churn: %llu threads\n", (unsigned long long)nt);
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
	if (!strcmp(argv[1], "turns"))
		return turns(argc, argv);
	if (!strcmp(argv[1], "readshare"))
		return readshare(argc, argv);
	if (!strcmp(argv[1], "churn"))
		return churn(argc, argv);
	if (!strcmp(argv[1], "random"))
		return random_loads(argc, argv);
	if (!strcmp(argv[1], "wide"))
		return wide(argc, argv);
	if (!strcmp(argv[1], "gather"))
		return gather(argc, argv);
	if (!strcmp(argv[1], "pairs"))
		return pairs(argc, argv);
	if (!strcmp(argv[1], "shift"))
		return shift(argc, argv);
	if (!strcmp(argv[1], "phases"))
		return phases(argc, argv);
usage:
	fprintf(stderr, "usage: rbench ribench|sweep|pingpong|turns|readshare|churn|random|wide|"
			"gather|"
			"pairs|shift|phases ...\n");
	return 2;
}
