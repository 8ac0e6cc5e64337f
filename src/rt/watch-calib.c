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
 * the lower quartile of a batch of ROUNDS (noise only adds to a round, and subtracting too
 * much zeroes short intervals: medians at start-up ran from 27 to 41 us on one program on
 * the Linux 6.18 VM, the quartiles of 17 rounds 27.5 to 28.0 over 6 runs).  BATCHES
 * batches, 2, 4 and 8 ms apart, the least of their quartiles: one batch lasts half a
 * millisecond, and on a loaded VM a whole batch could fall in a busy spell (17.4 us of CPU
 * time against 14.7-14.9 in other runs: subtracted from every instance, it took 2.4 us
 * off a 20 us function's median, t812).  VARIANCE_SHORT_ONLY=calib
 * bench/variance-short.sh, 20 runs each at load 11-12: 5 of 40 calibrations more than 1
 * us over the least with one batch, 1 of 40 with these 4 (14 ms more at start).  Wall time and the thread's CPU time (the kernel's work
 * counts as the thread's).  Not handler code.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "rt/rt.h"
#include "rt/sigsafe.h"
#include "rt/thread.h"
#include "rt/watch.h"

#define ROUNDS 17
#define BATCHES 4
#define BATCH_GAP_NS 2000000	/* before the second batch, doubling after */

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
	v[1] = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) ? 0 :
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
	int64_t d[2][ROUNDS], best[2] = { INT64_MAX, INT64_MAX };
	int slot = -1;
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
		int n = batch(t, d, &slot);
		if (n < ROUNDS) {
			best[0] = best[1] = INT64_MAX;
			break;		/* no trap here: nothing to subtract */
		}
		for (int m = 0; m < 2; m++) {
			qsort(d[m], (size_t)n, sizeof(int64_t), cmp_i64);
			if (d[m][n / 4] < best[m])
				best[m] = d[m][n / 4];
		}
	}
	t->busy = busy;
	if (best[0] == INT64_MAX)
		return;
	cost_ns = best[0] > 0 ? best[0] : 0;
	cost_cpu_ns = best[1] > 0 ? best[1] : 0;
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
