/* SPDX-License-Identifier: MIT */
/*
 * watch-calib.c - what one debug-register trap costs the thread it hits, outside any
 * handler (watch.h: watch_trap_cost): the debug exception, the signal's delivery and the
 * sigreturn.  A tool that times something between two traps (variance: an instance from
 * its entry to its return; reuse: a use to its reuse) holds that much kernel time in its
 * figure and subtracts it.
 *
 * Measured once per process, in the first thread that asks, before it samples: a W watch
 * on a word of its stack, rounds of (time around the store) - (time inside the callback),
 * in BATCHES batches of ROUNDS, 2, 4 and 8 ms apart; the third lowest of all the rounds.
 * Noise only adds to a round, and subtracting too much zeroes short intervals (medians at
 * start-up ran from 27 to 41 us on one program on the Linux 6.18 VM).  On the loaded VM
 * the rounds come in spells: a batch of half a millisecond, even 4 batches over 14 ms,
 * can read 19-21 us a round where others read 14.5-15 (the rounds of a few runs printed
 * by a debug build beside 2 CPU-bound loops at load 17, not kept), with a few normal
 * rounds among them; the run's traps after that cost the usual: a lower quartile per batch (the least of the 4, or of one
 * batch before) calibrated 17.4 and 19.1 us in two runs of t812, and took 2.4 and 3.4 us
 * off the medians of 20 and 5 us functions.  The third lowest of 68 rounds is 0.2-0.3 us
 * under a quiet batch's quartile (what an instance then keeps of the traps).  14 ms more
 * at a process's start.  Wall time and the thread's CPU time (the kernel's work counts as
 * the thread's).  Not handler code.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt/rt.h"
#include "rt/sigsafe.h"
#include "rt/thread.h"
#include "rt/watch.h"

#define ROUNDS 17
#define BATCHES 4
#define BATCH_GAP_NS 2000000	/* before the second batch, doubling after */
#define LOW_RANK 2		/* the third lowest of all rounds */

static int measured;
static int64_t cost_ns, cost_cpu_ns;

struct stamp {
	int64_t in[2], out[2];
	int hit;
};

static SIGSAFE void now2(int64_t *v)
{
	struct timespec ts;

	v[0] = (int64_t)rt_now();
	v[1] = rt_clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) ? 0 :
	       (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static SIGSAFE void on_trap(struct rt_thread *t, int slot, void *cookie, const ucontext_t *uc,
			    const siginfo_t *si)
{
	struct stamp *c = cookie;

	(void)t, (void)slot, (void)uc, (void)si;
	now2(c->in);
	now2(c->out);
	c->hit = 1;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* One batch: ROUNDS rounds (after one that pays for cold code and pages) into d; the
 * number measured, less than ROUNDS where a trap did not come. */
static int batch(struct rt_thread *t, int64_t d[2][ROUNDS], int *slot)
{
	volatile uint64_t word = 0;
	int n = 0;

	for (int i = 0; i < ROUNDS + 1; i++) {
		struct stamp c = { .hit = 0 };
		struct watch_req r = { .addr = (uint64_t)(uintptr_t)&word, .len = 8,
				       .type = WATCH_W, .policy = WATCH_REFUSE,
				       .on_trap = on_trap, .cookie = &c };
		int err = *slot >= 0 ? watch_modify(t, *slot, &r) : watch_arm(t, &r);
		if (err == -ENOENT)
			err = watch_arm(t, &r);
		if (err < 0)
			break;
		*slot = err;
		int64_t a[2], b[2];
		now2(a);
		word = (uint64_t)i;
		now2(b);
		if (!c.hit)
			break;
		if (i == 0)
			continue;
		for (int m = 0; m < 2; m++)
			d[m][n] = (b[m] - a[m]) - (c.out[m] - c.in[m]);
		n++;
	}
	/* disarmed, so that the pause before the next batch takes no trap */
	if (*slot >= 0)
		watch_disarm(t, *slot);
	return n;
}

static void measure(struct rt_thread *t)
{
	int64_t d[2][ROUNDS], all[2][BATCHES * ROUNDS];
	int slot = -1, n = 0;
	const char *e = getenv("SONDE_TRAP_CALIBRATE");

	if (watch_backend() != WATCH_BACKEND_HW || (e && *e == '0'))
		return;
	/* A starting thread is held busy (its traps would count as the runtime's own
	 * accesses and be ignored); it does not sample yet. */
	int busy = t->busy;
	t->busy = 0;
	for (int k = 0; k < BATCHES; k++) {
		if (k) {
			struct timespec gap = { 0, (long)BATCH_GAP_NS << (k - 1) };
			nanosleep(&gap, NULL);
		}
		int got = batch(t, d, &slot);
		if (got < ROUNDS) {
			n = 0;
			break;		/* no trap here: nothing to subtract */
		}
		for (int m = 0; m < 2; m++)
			memcpy(&all[m][n], d[m], sizeof(d[m]));
		n += got;
	}
	t->busy = busy;
	if (!n)
		return;
	for (int m = 0; m < 2; m++)
		qsort(all[m], (size_t)n, sizeof(int64_t), cmp_i64);
	cost_ns = all[0][LOW_RANK] > 0 ? all[0][LOW_RANK] : 0;
	cost_cpu_ns = all[1][LOW_RANK] > 0 ? all[1][LOW_RANK] : 0;
}

void watch_trap_cost(struct rt_thread *t, int64_t *time_ns, int64_t *cpu_ns)
{
	if (!measured) {
		measured = 1;
		if (t)
			measure(t);
	}
	if (time_ns)
		*time_ns = cost_ns;
	if (cpu_ns)
		*cpu_ns = cost_cpu_ns;
}
