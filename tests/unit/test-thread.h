/* SPDX-License-Identifier: MIT */
/*
 * test-thread.h - a hand-made struct rt_thread for the unit tests that drive the runtime
 * without its init (u-watch-soft.c, u-watch-every.c): thread_setup makes T the calling
 * thread's, with a 1 MiB arena and SEED as its random state.
 */
#ifndef SONDE_TEST_THREAD_H
#define SONDE_TEST_THREAD_H

#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt/rt.h"
#include "rt/thread.h"

static inline void thread_setup(struct rt_thread *t, uint64_t seed)
{
	memset(t, 0, sizeof(*t));
	t->tid = (int)syscall(SYS_gettid);
	t->rng = seed;
	arena_init(&t->arena, 1 << 20);
	rt_set_self(t);
}

#endif
