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
 * in batches of ROUNDS, 2, 4, 8 and 16 ms apart (BATCHES of them, 30 ms), then more
 * batches 16 ms apart, up to MAX_BATCHES, until watch_calib_pick finds the cost:
 *   - only the clean rounds count, those whose wall time is their CPU time within 0.5 us.
 *     A round in which the thread lost its CPU (another task ran, the host took the
 *     vCPU: 20-130 us of wall time a round beside 3 busy loops) read 11.5-13.4 us of CPU
 *     time where the undisturbed ones read 14.6-15: the thread's CPU clock then loses
 *     some of the trap's own time too.  The third lowest of all rounds read 10.45 and
 *     12.4 us in 2 of 25 runs of t812 beside 3 busy loops (16:13 UTC, load 2-9), and both
 *     runs failed: every instance kept 2-5 us of its traps;
 *   - clean rounds still come in spells that read 17-21 us for 5-15 ms (a batch's third
 *     lowest, batches 5 ms apart for 200 ms, 12 runs at load 18, 16:31 UTC), while the
 *     run's traps after that cost the usual; a calibration inside one took 3-4 us too
 *     much off every instance (t812 failed).  So the cost is the third lowest round of
 *     the lowest dense window, CALIB_DENSE clean rounds within 0.5 us, over 30 ms: a few
 *     rounds under the window do not set it, and a spell must span all the batches to.
 *     With no such window after MAX_BATCHES (~110 ms), the third lowest clean round (of
 *     all rounds, never a window among them, when fewer than 3 are clean).
 * On a quiet machine the window starts at the lowest round: the cost is the third lowest
 * of the 85 rounds, 0.2-0.3 us under a quiet batch's quartile (what an instance then
 * keeps of the traps); 30 ms more at a process's start.  Wall time and the thread's CPU
 * time (the kernel's work counts as the thread's).  Not handler code.
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
#define BATCHES 5		/* always measured */
#define MAX_BATCHES 10		/* while no dense low window is found */
#define BATCH_GAP_NS 2000000	/* before the second batch, doubling up to 8x after */
#define LOW_RANK 2		/* the third lowest of the window's rounds */

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

/*
 * Pick the cost (wall, cpu) from n rounds (wall and CPU time of each), sorting them in
 * place.  A round is clean when its wall time is within CALIB_CLEAN_NS of its CPU time:
 * nothing else ran on the thread's CPU or took it from the thread (another task, an
 * interrupt, the host).  Of the clean rounds, sorted by CPU time, the lowest window of
 * CALIB_DENSE of them within CALIB_WINDOW_NS; the cost is the LOW_RANK-th of that
 * window, for CPU time, and for wall time of the same clean rounds.  0 when such a window
 * was found; -EAGAIN when not (the third lowest clean round is picked), and when fewer
 * than 3 rounds are clean (the third lowest of all rounds is picked: a window among rounds
 * that lost the CPU is no cost); -EINVAL when n is under 3.
 */
int watch_calib_pick(int64_t *wall, int64_t *cpu, int n, int64_t *cost_wall, int64_t *cost_cpu)
{
	int m = 0, lo = -1;

	if (n < LOW_RANK + 1)
		return -EINVAL;
	/* the clean rounds first */
	for (int i = 0; i < n; i++) {
		int64_t d = wall[i] - cpu[i];

		if (d <= CALIB_CLEAN_NS && d >= -CALIB_CLEAN_NS) {
			int64_t w = wall[i], c = cpu[i];

			wall[i] = wall[m], cpu[i] = cpu[m];
			wall[m] = w, cpu[m] = c;
			m++;
		}
	}
	/* too few clean: the third lowest of all, as a last resort, and never a window:
	 * rounds that lost the CPU read low however densely they gather */
	int dirty = m < LOW_RANK + 1;

	if (dirty)
		m = n;
	qsort(wall, (size_t)m, sizeof(int64_t), cmp_i64);
	qsort(cpu, (size_t)m, sizeof(int64_t), cmp_i64);
	for (int i = 0; !dirty && i + CALIB_DENSE <= m && lo < 0; i++)
		if (cpu[i + CALIB_DENSE - 1] - cpu[i] <= CALIB_WINDOW_NS)
			lo = i;
	int k = (lo < 0 ? 0 : lo) + LOW_RANK;
	*cost_cpu = cpu[k] > 0 ? cpu[k] : 0;
	/* the wall times sorted on their own: a clean round's wall time is its CPU time
	 * within CALIB_CLEAN_NS, so rank k of one is rank k of the other within that */
	*cost_wall = wall[k] > 0 ? wall[k] : 0;
	return lo < 0 ? -EAGAIN : 0;
}

static void measure(struct rt_thread *t)
{
	int64_t d[2][ROUNDS], all[2][MAX_BATCHES * ROUNDS];
	int slot = -1, n = 0;
	const char *e = getenv("SONDE_TRAP_CALIBRATE");

	if (watch_backend() != WATCH_BACKEND_HW || (e && *e == '0'))
		return;
	/* A starting thread is held busy (its traps would count as the runtime's own
	 * accesses and be ignored); it does not sample yet. */
	int busy = t->busy;
	t->busy = 0;
	for (int k = 0; k < MAX_BATCHES; k++) {
		if (k) {
			struct timespec gap = { 0, (long)BATCH_GAP_NS << (k < 4 ? k - 1 : 3) };
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
		if (k + 1 >= BATCHES) {
			/* a copy: the pick sorts */
			int64_t w[MAX_BATCHES * ROUNDS], c[MAX_BATCHES * ROUNDS];

			memcpy(w, all[0], sizeof(int64_t) * (size_t)n);
			memcpy(c, all[1], sizeof(int64_t) * (size_t)n);
			if (!watch_calib_pick(w, c, n, &cost_ns, &cost_cpu_ns))
				break;
		}
	}
	t->busy = busy;
	if (!n)
		cost_ns = cost_cpu_ns = 0;
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
