/* SPDX-License-Identifier: MIT */
/*
 * watch-calib.c - what one debug-register trap costs the thread it hits, outside any
 * handler (watch.h: watch_trap_cost): the debug exception, the signal's delivery and the
 * sigreturn.  A tool that times something between two traps (variance: an instance from
 * its entry to its return; reuse: a use to its reuse) holds that much kernel time in its
 * figure and subtracts it.  Two shapes: a store's trap (watch_trap_cost, reuse), and a
 * call's two traps as variance takes them (watch_call_cost: an execute trap at the entry
 * of a one-`ret` leaf whose callback re-arms the slot on the return address, then that
 * watch's trap; from the first callback's end to the second's start).  With each round a
 * probe of the kernel's speed (watch_probe_ns, the fastest of 3 getppid calls), whose
 * median over the rounds the cost was picked from is kept: the cost moves with that speed
 * during the run (watch.h), and a tool scales it by a probe taken at each trap.
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
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "rt/rt.h"
#include "rt/sigsafe.h"
#include "rt/thread.h"
#include "rt/watch.h"

#define ROUNDS 17
#define BATCHES 5		/* always measured */
#define MAX_BATCHES 10		/* while no dense low window is found */
#define BATCH_GAP_NS 2000000	/* before the second batch, doubling up to 8x after */
#define LOW_RANK 2		/* the third lowest of the window's rounds */
#define PROBE_TRIES 3		/* watch_probe_ns: the fastest of that many system calls */

/* what is measured: a store's trap (watch_trap_cost), a call's two traps (watch_call_cost) */
enum { CALIB_STORE, CALIB_CALL, CALIB_KINDS };
static int measured[CALIB_KINDS];
static int64_t cost_ns[CALIB_KINDS], cost_cpu_ns[CALIB_KINDS], cost_probe_ns[CALIB_KINDS];

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

SIGSAFE int64_t watch_probe_ns(void)
{
	int64_t best = 0;

	for (int i = 0; i < PROBE_TRIES; i++) {
		int64_t a = (int64_t)rt_now();
		(void)getppid();
		int64_t d = (int64_t)rt_now() - a;

		if (d > 0 && (!best || d < best))
			best = d;
	}
	return best;
}

/* A callback's start: where the handler started, when the engine stamps its traps
 * (watch_stamp_traps: its own work then counts as the handler's, as a tool takes it),
 * else now; time then CPU time, as now2. */
static SIGSAFE void handler_in(struct rt_thread *t, int64_t *v)
{
	const struct watch_trap *w = watch_current_trap(t);

	if (w && w->stamped) {
		v[0] = w->in_before_ns;
		v[1] = w->in_cpu_ns;
		return;
	}
	now2(v);
}

static SIGSAFE void on_trap(struct rt_thread *t, int slot, void *cookie, const ucontext_t *uc,
			    const siginfo_t *si)
{
	struct stamp *c = cookie;

	(void)slot, (void)uc, (void)si;
	handler_in(t, c->in);
	now2(c->out);
	c->hit = 1;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* The leaf a call round calls: its first instruction traps (X) and its return reads the
 * return address (RW), as in a function variance measures.  One `ret` on a page of its
 * own: the runtime's code is never watched (watch_arm: -EPERM). */
static void (*leaf)(void);

static int leaf_map(void)
{
#if defined(__x86_64__)
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	*(volatile unsigned char *)p = 0xc3;	/* ret */
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC)) {
		munmap(p, 4096);
		return -1;
	}
	leaf = (void (*)(void))p;
	return 0;
#else
	return -1;
#endif
}

/* Arm r in *slot (watch_rearm), which becomes the slot armed: the slot, or -errno. */
static int rearm(struct rt_thread *t, int *slot, const struct watch_req *r)
{
	int err = watch_rearm(t, *slot, r);

	if (err >= 0)
		*slot = err;
	return err;
}

struct call_stamp {
	int64_t x_out[2], r_in[2];
	int phase;		/* 1 after the entry's callback, 2 after the return's */
};

static SIGSAFE void on_return(struct rt_thread *t, int slot, void *cookie, const ucontext_t *uc,
			      const siginfo_t *si)
{
	struct call_stamp *c = cookie;

	(void)slot, (void)uc, (void)si;
	handler_in(t, c->r_in);
	if (c->phase == 1)
		c->phase = 2;
}

/* The entry: its slot re-armed on the return address, as variance's entry breakpoint
 * becomes its return watch (one MODIFY, inside the callback, before the time is read),
 * then the time the callback leaves at. */
static SIGSAFE void on_entry(struct rt_thread *t, int slot, void *cookie, const ucontext_t *uc,
			     const siginfo_t *si)
{
	struct call_stamp *c = cookie;

	(void)si;
#if defined(__x86_64__)
	uint64_t ra = uc ? (uint64_t)uc->uc_mcontext.gregs[REG_RSP] : 0;
#else
	uint64_t ra = 0;
#endif
	struct watch_req r = { .addr = ra, .len = 8, .type = WATCH_RW, .policy = WATCH_REFUSE,
			       .on_trap = on_return, .cookie = c };

	if (!ra || watch_modify(t, slot, &r) < 0)
		return;
	c->phase = 1;
	now2(c->x_out);
}

/* One batch of call rounds: what a call keeps of its entry trap (after its callback) and
 * of its return trap (before its callback); the leaf is one instruction. */
static int batch_call(struct rt_thread *t, int64_t d[3][ROUNDS], int *slot)
{
	struct call_stamp c;
	int n = 0;

	for (int i = 0; i < ROUNDS + 1; i++) {
		struct watch_req x = { .addr = (uint64_t)(uintptr_t)leaf, .len = 8,
				       .type = WATCH_X, .policy = WATCH_REFUSE,
				       .on_trap = on_entry, .cookie = &c };
		if (rearm(t, slot, &x) < 0)
			break;
		c.phase = 0;
		leaf();
		if (c.phase != 2)
			break;
		if (i == 0)
			continue;
		for (int m = 0; m < 2; m++)
			d[m][n] = c.r_in[m] - c.x_out[m];
		d[2][n] = watch_probe_ns();
		n++;
	}
	if (*slot >= 0)
		watch_disarm(t, *slot);
	return n;
}

/* One batch: ROUNDS rounds (after one that pays for cold code and pages) into d; the
 * number measured, less than ROUNDS where a trap did not come. */
static int batch(struct rt_thread *t, int64_t d[3][ROUNDS], int *slot)
{
	volatile uint64_t word = 0;
	int n = 0;

	for (int i = 0; i < ROUNDS + 1; i++) {
		struct stamp c = { .hit = 0 };
		struct watch_req r = { .addr = (uint64_t)(uintptr_t)&word, .len = 8,
				       .type = WATCH_W, .policy = WATCH_REFUSE,
				       .on_trap = on_trap, .cookie = &c };
		if (rearm(t, slot, &r) < 0)
			break;
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
		d[2][n] = watch_probe_ns();
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

int64_t watch_calib_probe(const int64_t *wall, const int64_t *cpu, const int64_t *probe, int n,
			  int64_t cost_cpu)
{
	int64_t p[MAX_BATCHES * ROUNDS];
	int m = 0;

	for (int pass = 0; pass < 2 && !m; pass++)
		for (int i = 0; i < n && m < MAX_BATCHES * ROUNDS; i++) {
			int64_t d = wall[i] - cpu[i], e = cpu[i] - cost_cpu;

			if (probe[i] > 0 && (pass || (d <= CALIB_CLEAN_NS && d >= -CALIB_CLEAN_NS &&
					 e <= CALIB_WINDOW_NS && e >= -CALIB_WINDOW_NS)))
				p[m++] = probe[i];
		}
	if (!m)
		return 0;
	qsort(p, (size_t)m, sizeof(int64_t), cmp_i64);
	return p[(m - 1) / 2];
}

static void measure(struct rt_thread *t, int kind)
{
	int64_t d[3][ROUNDS], all[3][MAX_BATCHES * ROUNDS];
	int slot = -1, n = 0;
	const char *e = getenv("SONDE_TRAP_CALIBRATE");

	if (watch_backend() != WATCH_BACKEND_HW || (e && *e == '0'))
		return;
	/* A starting thread is held busy (its traps would count as the runtime's own
	 * accesses and be ignored); it does not sample yet. */
	if (kind == CALIB_CALL && leaf_map())
		return;
	int busy = t->busy;
	t->busy = 0;
	for (int k = 0; k < MAX_BATCHES; k++) {
		if (k) {
			struct timespec gap = { 0, (long)BATCH_GAP_NS << (k < 4 ? k - 1 : 3) };
			nanosleep(&gap, NULL);
		}
		int got = kind == CALIB_CALL ? batch_call(t, d, &slot) : batch(t, d, &slot);
		if (got < ROUNDS) {
			n = 0;
			break;		/* no trap here: nothing to subtract */
		}
		for (int m = 0; m < 3; m++)
			memcpy(&all[m][n], d[m], sizeof(d[m]));
		n += got;
		if (k + 1 >= BATCHES) {
			/* a copy: the pick sorts */
			int64_t w[MAX_BATCHES * ROUNDS], c[MAX_BATCHES * ROUNDS];

			memcpy(w, all[0], sizeof(int64_t) * (size_t)n);
			memcpy(c, all[1], sizeof(int64_t) * (size_t)n);
			if (!watch_calib_pick(w, c, n, &cost_ns[kind], &cost_cpu_ns[kind]))
				break;
		}
	}
	t->busy = busy;
	if (n)
		cost_probe_ns[kind] = watch_calib_probe(all[0], all[1], all[2], n, cost_cpu_ns[kind]);
	if (leaf) {
		munmap((void *)leaf, 4096);
		leaf = NULL;
	}
	if (!n)
		cost_ns[kind] = cost_cpu_ns[kind] = cost_probe_ns[kind] = 0;
}

static void cost(struct rt_thread *t, int kind, int64_t *time_ns, int64_t *cpu_ns,
		 int64_t *probe_ns)
{
	if (!measured[kind]) {
		measured[kind] = 1;
		if (t)
			measure(t, kind);
	}
	if (time_ns)
		*time_ns = cost_ns[kind];
	if (cpu_ns)
		*cpu_ns = cost_cpu_ns[kind];
	if (probe_ns)
		*probe_ns = cost_probe_ns[kind];
}

void watch_trap_cost(struct rt_thread *t, int64_t *time_ns, int64_t *cpu_ns)
{
	cost(t, CALIB_STORE, time_ns, cpu_ns, NULL);
}

void watch_call_cost(struct rt_thread *t, int64_t *time_ns, int64_t *cpu_ns, int64_t *probe_ns)
{
	const char *e = getenv("SONDE_TRAP_CALIBRATE");

	/* SONDE_TRAP_CALIBRATE=store: the store's trap asked for (the fallback's path) */
	if (!e || strcmp(e, "store"))
		cost(t, CALIB_CALL, time_ns, cpu_ns, probe_ns);
	/* no leaf page (a policy that refuses executable anonymous memory) or no trap from
	 * it: the store's trap, the nearest measure there is (0.2-0.3 us more here) */
	if (!cost_ns[CALIB_CALL] && !cost_cpu_ns[CALIB_CALL])
		cost(t, CALIB_STORE, time_ns, cpu_ns, probe_ns);
}
