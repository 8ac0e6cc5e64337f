/* SPDX-License-Identifier: MIT */
/*
 * u-watch-every.c - the load/store callbacks' every-only path (watch.h, INST_ON_EVERY) and
 * its end: while a tool takes every access (rt_inst_every) and no soft data slot was ever
 * armed, the callbacks go straight to the tool's hook, past the soft-watch filters; the
 * first soft data slot armed must take them back to the full path, or its traps are lost.
 * Driven as u-watch-soft.c is: the test calls __sanitizer_cov_* as a sonde-cc program
 * would, with hand-made struct rt_thread.  After reviewer RR2's standalone check.  Expected
 * counts come from the loops' construction (N accesses a loop, each to the watched word
 * or not).
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "rt/rt.h"
#include "rt/thread.h"
#include "rt/watch.h"
#include "test-thread.h"

void __sanitizer_cov_load8(void *);
void __sanitizer_cov_store8(void *);

#define N 1000

static struct {
	uint64_t a;
	uint64_t b;
	uint64_t pad[6];
	uint64_t c;
} g __attribute__((aligned(64)));

static struct rt_thread main_t, peer_t;
static volatile long hook_n[2];		/* the tool's hook calls: main's, the peer's */
static volatile int traps;

static struct rt_thread *hook(struct rt_thread *t, uint64_t addr, uint32_t len,
			      uint32_t flags, uint64_t ip)
{
	(void)addr;
	(void)len;
	(void)flags;
	(void)ip;
	hook_n[t == &peer_t]++;
	return t;
}

static void on_trap(struct rt_thread *t, int slot, void *cookie, const ucontext_t *uc,
		    const siginfo_t *si)
{
	(void)t;
	(void)slot;
	(void)cookie;
	(void)uc;
	(void)si;
	traps++;
}

/* thread_setup, and the inst source's start of the thread */
static void thread_start(struct rt_thread *t, uint64_t seed)
{
	thread_setup(t, seed);
	CHECK(rt_source_inst.thread_start(t) == 0);
}

static int mode(void)
{
	return __atomic_load_n(&inst_callbacks_line.on, __ATOMIC_RELAXED);
}

/* The peer: started before the arm (its countdown at 1, on the every-only path), it
 * stores to the word that will be watched, waits for the arm, and does it again. */
static volatile int phase, done;

static void wait_for(volatile int *v, int x)
{
	while (*v != x)
		sched_yield();
}

static void *peer(void *arg)
{
	(void)arg;
	thread_start(&peer_t, 2);
	done = 1;
	wait_for(&phase, 1);
	for (int i = 0; i < N; i++)
		__sanitizer_cov_store8(&g.b);	/* not watched yet */
	done = 2;
	wait_for(&phase, 2);
	for (int i = 0; i < N; i++)
		__sanitizer_cov_store8(&g.b);	/* watched: N traps */
	for (int i = 0; i < N; i++)
		__sanitizer_cov_load8(&g.c);	/* the same page, not watched */
	done = 3;
	wait_for(&phase, 3);
	return NULL;
}

TEST(arm_ends_every_only)
{
	rt_source = &rt_source_inst;
	CHECK(rt_source_inst.start() == 0);
	CHECK(mode() == INST_ON);
	CHECK(rt_inst_every(hook) == 0);
	CHECK(mode() == INST_ON_EVERY);	/* else this test tests nothing */
	thread_start(&main_t, 1);
	for (int i = 0; i < N; i++)
		__sanitizer_cov_store8(&g.a);
	CHECK(hook_n[0] == N);

	pthread_t th;

	CHECK(pthread_create(&th, NULL, peer, NULL) == 0);
	wait_for(&done, 1);
	phase = 1;
	wait_for(&done, 2);
	CHECK(hook_n[1] == N);
	CHECK(traps == 0);

	/* a persistent write watch in the peer's set, armed from this thread */
	struct watch_req r = { .addr = (uint64_t)(uintptr_t)&g.b, .len = 8, .type = WATCH_W,
			       .flags = WATCH_PERSIST, .on_trap = on_trap };
	int s = watch_arm(&peer_t, &r);

	CHECK(s >= 0);
	CHECK(mode() != INST_ON_EVERY && mode() != 0);
	/* a tool asking for every access again, with the slot armed: still the full path */
	CHECK(rt_inst_every(hook) == 0);
	CHECK(mode() != INST_ON_EVERY);
	phase = 2;
	wait_for(&done, 3);
	printf("  peer after the arm: hook calls %ld (want %d), traps %d (want %d)\n",
	       hook_n[1] - N, 2 * N, traps, N);
	CHECK(hook_n[1] == 3 * N);	/* still every access, through the full path */
	CHECK(traps == N);
	for (int i = 0; i < N; i++)
		__sanitizer_cov_store8(&g.a);
	CHECK(hook_n[0] == 2 * N);
	phase = 3;
	pthread_join(th, NULL);

	/* for good: with the slot gone, rt_inst_every does not turn the every-only path on
	 * (watch.h, INST_ON_WATCHED) */
	CHECK(watch_disarm(&peer_t, s) == 0);
	CHECK(rt_inst_every(hook) == 0);
	CHECK(mode() != INST_ON_EVERY);
	watch_thread_release(&peer_t);
}

int main(void)
{
	watch_backend_set(WATCH_BACKEND_SOFT, "test");
	RUN(arm_ends_every_only);
	watch_thread_release(&main_t);
	return CHECK_DONE();
}
