/* SPDX-License-Identifier: MIT */
/*
 * commbench.c - ground-truth workloads for `sonde comm` (ComDetective's microbenchmarks and
 * a few patterns), built by the tests with sonde-cc (inst source) or gcc (clock source).
 *
 *   commbench MODE ITERS [ARG]
 *
 * Threads are numbered like sonde numbers them: main = 0, workers 1..N in creation order.
 * Every shared or private word sits on its own 64-byte line unless the mode says otherwise.
 * Writes are plain volatile stores (clang 14 does not instrument atomic read-modify-writes).
 * Waits spin with sched_yield(): the test machines have 2 cores, so threads time-share
 * and a waiting thread must give its CPU to the one it waits for.  The lock-step modes
 * (pingpong, pairs, ring, master) move the same lines whatever the scheduling: their exact
 * transfer counts depend on ITERS only.
 *
 *   pingpong  workers 1 and 2 hand a token back and forth ITERS times (strict alternation)
 *   pairs     two ping-pongs at once: workers 1-2 on line A, 3-4 on line B
 *   mix       workers 1-2 and 3-4 write their pair's word with probability ARG %, else a
 *             private line (free running: what moves depends on the scheduler)
 *   fs        4 workers; ARG = % of iterations that write the worker's own 8-byte slot of
 *             one common line (false sharing); the rest write word 0 of another line that
 *             all of them write (true sharing)
 *   wv        write volume: 4 workers write a common word with probability ARG %, else a
 *             private word
 *   rw        worker 1 writes a common word; workers 2-4 read it with probability ARG %,
 *             else read a private word
 *   ring      4 workers in a ring, rounds in lock step: worker i waits for i-1's signal,
 *             reads i-1's data line, writes its own, signals i+1 (1 follows 4)
 *   master    main writes each worker's task line and waits for its result line
 *   private   4 workers write and read only their own padded lines
 *   readonly  4 workers read a table main filled before starting them
 *   bcast     producer then consumers, ITERS rounds: worker 1 writes the first ARG words
 *             (1 to 8, default 1) of each of 64 lines, then workers 2-4 read all 8 words
 *             of every line (barriers between the phases): each round moves 64 lines to
 *             each of the 3 readers, 192 true-sharing transfers, written by ARG stores a
 *             line
 *   rewrite   4 workers, ITERS rounds, free running: in round i worker w writes every word
 *             of block (w + i) % 4 of an array of 4 x 64 lines, a value computed by a call
 *             a word (so the loop is not unrolled: one store instruction sweeps every
 *             offset, as taskflow's Black-Scholes writes its prices), so each line is
 *             written whole by one worker and later rewritten whole by another: true
 *             sharing only.  (bcast 300 8 is the unrolled counterpart: 8 stores a line,
 *             each at its own offset.)
 *   interleave 4 workers, ITERS sweeps, free running: worker w writes the words of an
 *             array of 64 lines in runs of ARG words (1 to 7, else 3) dealt round robin
 *             (a static schedule of ARG words), so a line holds runs of several workers:
 *             false sharing only, by one instruction that sweeps every offset of the
 *             lines (doc/sonde-comm.md, "Which bytes did the writer write")
 *   slots     4 workers each write their own ARG-byte slot (1, 2, 4 or 8; else 4) of one
 *             line, every iteration: false sharing only, inside 8-byte chunks for slots
 *             under 8 bytes (`int cnt[NTHREADS]`)
 *   early     a constructor starts a thread before main that shares a word with main
 *             (set COMMBENCH_EARLY=ITERS: the thread's own iterations)
 *   many      ARG short-lived threads, at most 50 alive at a time, each doing ITERS
 *             stores to a common word (and reading it)
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE 64
#define NW 4

struct line {
	volatile uint64_t w[LINE / 8];
} __attribute__((aligned(LINE)));

static struct line shared[4], priv[NW + 1][2], table[64];
static long iters, arg;
static volatile int go;
/* The free-running modes start their workers together: otherwise the first ones may be
 * done before the last ones exist, and nothing would be shared. */
static pthread_barrier_t start;

static inline uint64_t next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* true with probability pct % */
static inline int chance(uint64_t *s, long pct)
{
	return (long)(next(s) % 100) < pct;
}

/* The free-running modes yield every 64 iterations: on 2 cores under load a thread would
 * otherwise run its whole loop within one time slice, and nothing would interleave. */
#define YIELD_EVERY(i) \
	do { \
		if (((i) & 63) == 63) \
			sched_yield(); \
	} while (0)

/* Hand the token of line l between a and b, ITERS times each. */
static void volley(struct line *l, long me, long other)
{
	for (long i = 0; i < iters; i++) {
		while ((long)l->w[0] != me)
			sched_yield();
		l->w[1] = (uint64_t)i;
		l->w[0] = (uint64_t)other;
	}
}

static void *pingpong(void *p)
{
	long me = (long)p;
	volley(&shared[0], me, me == 1 ? 2 : 1);
	return NULL;
}

static void *pairs(void *p)
{
	long me = (long)p;
	if (me <= 2)
		volley(&shared[0], me, me == 1 ? 2 : 1);
	else
		volley(&shared[1], me, me == 3 ? 4 : 3);
	return NULL;
}

static void *mix(void *p)
{
	long me = (long)p;
	uint64_t s = 0x9e3779b9u * (uint64_t)me + 1;
	struct line *l = &shared[me <= 2 ? 0 : 1];
	pthread_barrier_wait(&start);
	for (long i = 0; i < iters; i++) {
		YIELD_EVERY(i);
		if (chance(&s, arg))
			l->w[0] += 1;
		else
			priv[me][0].w[0] += 1;
	}
	return NULL;
}

static void *fs(void *p)
{
	long me = (long)p;
	uint64_t s = 0x85ebca6bu * (uint64_t)me + 7;
	pthread_barrier_wait(&start);
	for (long i = 0; i < iters; i++) {
		YIELD_EVERY(i);
		if (chance(&s, arg))
			shared[0].w[me] = (uint64_t)i;	/* own slot of line 0 */
		else
			shared[1].w[0] = (uint64_t)i;	/* common word of line 1 */
	}
	return NULL;
}

static void *wv(void *p)
{
	long me = (long)p;
	uint64_t s = 0xc2b2ae35u * (uint64_t)me + 3;
	pthread_barrier_wait(&start);
	for (long i = 0; i < iters; i++) {
		YIELD_EVERY(i);
		if (chance(&s, arg))
			shared[0].w[0] = (uint64_t)i;
		else
			priv[me][0].w[0] = (uint64_t)i;
	}
	return NULL;
}

static void *rw(void *p)
{
	long me = (long)p;
	uint64_t s = 0x27d4eb2fu * (uint64_t)me + 5, sum = 0;
	pthread_barrier_wait(&start);
	for (long i = 0; i < iters; i++) {
		YIELD_EVERY(i);
		if (me == 1)
			shared[0].w[0] = (uint64_t)i;
		else if (chance(&s, arg))
			sum += shared[0].w[0];
		else
			sum += priv[me][0].w[0];
	}
	priv[me][1].w[0] = sum;
	return NULL;
}

/* ring: signal[i] (written by i-1 only) says which round i may run; data[i] is i's line. */
static struct line signal_[NW + 1], data[NW + 1];

/* A load sonde-cc does not see (it instruments the compiler's loads, not an asm's). */
static inline long peek(const volatile uint64_t *w)
{
	uint64_t v;
	__asm__ volatile("movq %1, %0" : "=r"(v) : "m"(*w));
	return (long)v;
}

/*
 * Main's set-up, stored where sonde-cc does not see it (peek's counterpart; `lv` is an
 * 8-byte lvalue): the iteration count and the tokens' first holders are no transfer of
 * the pattern under test.  Seen, they were one: the workers read `iters` at every round
 * (and a ping-pong's first holder reads the token main set), so when main's first
 * sampling window (a random phase in [1, period], source-inst.c) ended on one of these
 * stores, the sampled detector counted each worker's next read of that line as a transfer
 * of a whole period from main.  With period 1009 that is 3 or 4 phases of 1009 for each
 * lock-step mode, and then 2-4 events of main's against pairs 5000's 10-14: the
 * constructed pairs' share of the volume read 0.71-0.85 in every such run (t402 wants
 * 0.9; once 0.69 in a CI suite).  The exact detector counted them too, once each.
 */
#define POKE(lv, v) __asm__ volatile("movq %1, %0" : "=m"(lv) : "r"((uint64_t)(v)))

static void *ring(void *p)
{
	long me = (long)p, prev = me == 1 ? NW : me - 1, nxt = me == NW ? 1 : me + 1;
	uint64_t sum = 0;
	for (long i = 1; i <= iters; i++) {
		/* worker 1 starts round i when worker 4 finished round i - 1 */
		long want = me == 1 ? i - 1 : i;
		/* The wait spins unseen, then reads the signal once where the detectors see
		 * it: every round makes the same 4 accesses in each thread, however long it
		 * waited.  A loaded machine stretches the waits, unevenly between threads, and
		 * the sampled detector (every Nth access) would weight the edges by them. */
		while (peek(&signal_[me].w[0]) < want)
			sched_yield();
		if ((long)signal_[me].w[0] < want)
			abort();
		sum += data[prev].w[0];
		data[me].w[0] = sum + (uint64_t)i;
		signal_[nxt].w[0] = (uint64_t)i;
	}
	priv[me][1].w[0] = sum;
	return NULL;
}

/* master: main posts round i in task[w], the worker answers in result[w]. */
static void *worker_task(void *p)
{
	long me = (long)p;
	for (long i = 1; i <= iters; i++) {
		while ((long)priv[me][0].w[0] < i)
			sched_yield();
		priv[me][1].w[0] = (uint64_t)i;
	}
	return NULL;
}

static void *private_only(void *p)
{
	long me = (long)p;
	pthread_barrier_wait(&start);
	for (long i = 0; i < iters; i++) {
		priv[me][0].w[i & 7] = (uint64_t)i;
		priv[me][1].w[0] += priv[me][0].w[(i + 3) & 7];
	}
	return NULL;
}

static void *readonly(void *p)
{
	long me = (long)p;
	uint64_t sum = 0;
	pthread_barrier_wait(&start);
	for (long i = 0; i < iters; i++)
		sum += table[i & 63].w[i & 7];
	priv[me][1].w[0] = sum;	/* one write of its own at the end */
	return NULL;
}

static pthread_barrier_t phase;

static void *bcast(void *p)
{
	long me = (long)p, words = arg < 1 ? 1 : arg > 8 ? 8 : arg;
	uint64_t sum = 0;
	for (long i = 1; i <= iters; i++) {
		if (me == 1)
			for (int l = 0; l < 64; l++)
				for (long k = 0; k < words; k++)
					table[l].w[k] = (uint64_t)i;
		pthread_barrier_wait(&phase);
		if (me != 1)
			for (int l = 0; l < 64; l++)
				for (int k = 0; k < 8; k++)
					sum += table[l].w[k];
		pthread_barrier_wait(&phase);
	}
	priv[me][1].w[0] = sum;
	return NULL;
}

static struct line arr[NW * 64];

/* A word's value, out of line: the loop that calls it keeps one store instruction. */
__attribute__((noinline)) static uint64_t value(long i, long k)
{
	return (uint64_t)(i * 8 + k);
}

static void *rewrite(void *p)
{
	long me = (long)p;
	pthread_barrier_wait(&start);
	for (long i = 0; i < iters; i++) {
		struct line *b = &arr[((me - 1 + i) % NW) * 64];
		/* arg words a line (main's POKE: the compiler cannot unroll to it) */
		for (int l = 0; l < 64; l++) {
			YIELD_EVERY(l + 64 * i);
			for (long k = 0; k < arg; k++)
				b[l].w[k] = value(i, k);
		}
	}
	return NULL;
}

static void *interleave(void *p)
{
	long me = (long)p, run = arg >= 1 && arg <= 7 ? arg : 3;
	pthread_barrier_wait(&start);
	for (long i = 0; i < iters; i++)
		for (long w = 0; w < 64 * 8; w++) {
			YIELD_EVERY(w + 512 * i);
			if ((w / run) % NW == me - 1)
				arr[w / 8].w[w % 8] = (uint64_t)i;
		}
	return NULL;
}

static void *slots(void *p)
{
	long me = (long)p, w = arg == 1 || arg == 2 || arg == 8 ? arg : 4;
	volatile uint8_t *b = (volatile uint8_t *)shared[2].w + (me - 1) * w;
	pthread_barrier_wait(&start);
	for (long i = 0; i < iters; i++) {
		YIELD_EVERY(i);
		if (w == 1)
			*b = (uint8_t)i;
		else if (w == 2)
			*(volatile uint16_t *)b = (uint16_t)i;
		else if (w == 4)
			*(volatile uint32_t *)b = (uint32_t)i;
		else
			*(volatile uint64_t *)b = (uint64_t)i;
	}
	return NULL;
}

static void *short_lived(void *p)
{
	uint64_t sum = 0;
	for (long i = 0; i < iters; i++) {
		shared[3].w[0] = (uint64_t)i + (uint64_t)(uintptr_t)p;
		sum += shared[3].w[1];
	}
	return (void *)(uintptr_t)sum;
}

static int many(long n)
{
	pthread_t t[50];
	for (long done = 0; done < n;) {
		int k = 0;
		for (; k < 50 && done + k < n; k++)
			if (pthread_create(&t[k], NULL, short_lived, (void *)(done + k))) {
				fprintf(stderr, "commbench: pthread_create failed\n");
				return 1;
			}
		for (int i = 0; i < k; i++)
			pthread_join(t[i], NULL);
		done += k;
	}
	return 0;
}

static pthread_t early_thread;
static volatile int early_started;

static void *early(void *p)
{
	(void)p;
	early_started = 1;
	while (!go)
		sched_yield();
	for (long i = 0; i < iters; i++) {
		YIELD_EVERY(i);
		shared[2].w[0] = (uint64_t)i;
	}
	return NULL;
}

__attribute__((constructor)) static void before_main(void)
{
	const char *m = getenv("COMMBENCH_EARLY");
	POKE(iters, m ? atol(m) : 0);
	if (iters > 0)
		pthread_create(&early_thread, NULL, early, NULL);
}

static void run(void *(*fn)(void *), int n)
{
	pthread_t t[NW];
	for (long i = 0; i < n; i++)
		pthread_create(&t[i], NULL, fn, (void *)(i + 1));
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: commbench MODE ITERS [ARG]\n");
		return 2;
	}
	const char *mode = argv[1];
	pthread_barrier_init(&start, NULL, NW);
	pthread_barrier_init(&phase, NULL, NW);
	POKE(iters, atol(argv[2]));
	POKE(arg, argc > 3 ? atol(argv[3]) : 50);
	if (!strcmp(mode, "pingpong")) {
		POKE(shared[0].w[0], 1);
		run(pingpong, 2);
	} else if (!strcmp(mode, "pairs")) {
		POKE(shared[0].w[0], 1);
		POKE(shared[1].w[0], 3);
		run(pairs, 4);
	} else if (!strcmp(mode, "mix")) {
		run(mix, 4);
	} else if (!strcmp(mode, "fs")) {
		run(fs, NW);
	} else if (!strcmp(mode, "wv")) {
		run(wv, NW);
	} else if (!strcmp(mode, "rw")) {
		run(rw, NW);
	} else if (!strcmp(mode, "ring")) {
		run(ring, NW);
	} else if (!strcmp(mode, "master")) {
		pthread_t t[NW];
		for (long i = 0; i < NW; i++)
			pthread_create(&t[i], NULL, worker_task, (void *)(i + 1));
		for (long i = 1; i <= iters; i++) {
			for (int w = 1; w <= NW; w++)
				priv[w][0].w[0] = (uint64_t)i;
			for (int w = 1; w <= NW; w++)
				while ((long)priv[w][1].w[0] < i)
					sched_yield();
		}
		for (int i = 0; i < NW; i++)
			pthread_join(t[i], NULL);
	} else if (!strcmp(mode, "many")) {
		return many(arg);
	} else if (!strcmp(mode, "private")) {
		run(private_only, NW);
	} else if (!strcmp(mode, "readonly")) {
		for (int i = 0; i < 64; i++)
			for (int k = 0; k < 8; k++)
				table[i].w[k] = (uint64_t)(i * 8 + k);
		run(readonly, NW);
	} else if (!strcmp(mode, "bcast")) {
		run(bcast, NW);
	} else if (!strcmp(mode, "rewrite")) {
		POKE(arg, 8);
		run(rewrite, NW);
	} else if (!strcmp(mode, "interleave")) {
		run(interleave, NW);
	} else if (!strcmp(mode, "slots")) {
		run(slots, NW);
	} else if (!strcmp(mode, "early")) {
		if (!early_started && !early_thread) {
			fprintf(stderr, "commbench: set COMMBENCH_EARLY=ITERS for this mode\n");
			return 2;
		}
		go = 1;
		for (long i = 0; i < iters; i++) {
			YIELD_EVERY(i);
			shared[2].w[1] = shared[2].w[0];
		}
		pthread_join(early_thread, NULL);
	} else {
		fprintf(stderr, "commbench: unknown mode '%s'\n", mode);
		return 2;
	}
	return 0;
}
