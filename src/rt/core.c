/* SPDX-License-Identifier: MIT */
/*
 * core.c - the runtime's shared, handler-safe core: the thread pointer, random numbers,
 * time, and the dispatch of samples to the active tool.  No constructor here: init.c
 * owns start-up, so unit tests can link this file alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "rt/rt.h"
#include "rt/thread.h"
#include "rt/sigsafe.h"

struct rt_config rt_cfg = {
	.rank = -1,
	.max_depth = 64,
	.min_object = 1024,
	.max_extra_steps = 8,
};
const struct rt_source *rt_source;
const struct rt_tool *rt_tool;
volatile int rt_stopping;

RT_TLS struct rt_thread *rt_self_tls;

SIGSAFE struct rt_thread *rt_self(void)
{
	return rt_self_tls;
}

void rt_set_self(struct rt_thread *t)
{
	rt_self_tls = t;
}

SIGSAFE uint64_t rt_rand(struct rt_thread *t)
{
	uint64_t x = t->rng ? t->rng : 0x9e3779b97f4a7c15ull;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	t->rng = x;
	return x;
}

SIGSAFE uint64_t rt_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

SIGSAFE void rt_deliver_access(struct rt_thread *t, const struct rt_access *a,
			       const ucontext_t *uc, int skip)
{
	if (!t)
		return;
	/* rt_owns_address: the runtime's own memory (a sample inside a handler frame, an
	 * arena) */
	if (!rt_tool || !rt_tool->access || rt_owns_address(a->addr) || rt_enter(t)) {
		t->stats.dropped++;
		return;
	}
	rt_obs_note();
	rt_tool->access(t, a, uc, skip);
	rt_leave(t);
}

uint64_t rt_obs_epoch;

void rt_ranges_add(struct rt_ranges *s, uint64_t lo, uint64_t hi)
{
	if (s->n < RT_RANGES_MAX) {
		s->r[s->n].lo = lo;
		s->r[s->n].hi = hi;
		s->n++;
	}
}

SIGSAFE int rt_ranges_has(const struct rt_ranges *s, uint64_t addr)
{
	for (int i = 0; i < s->n; i++)
		if (addr >= s->r[i].lo && addr < s->r[i].hi)
			return 1;
	return 0;
}

/* Address ranges owned by the runtime: its code and data segments, registered by init.c,
 * plus every thread's arena and alternate signal stack (checked through the thread). */
static struct rt_ranges owned;

void rt_add_owned_range(uint64_t lo, uint64_t hi)
{
	rt_ranges_add(&owned, lo, hi);
}

SIGSAFE int rt_owns_address(uint64_t addr)
{
	if (rt_ranges_has(&owned, addr))
		return 1;
	struct rt_thread *t = rt_self_tls;
	if (t) {
		uint64_t a = (uint64_t)(uintptr_t)t->arena.base;
		if (addr >= a && addr < a + t->arena.size)
			return 1;
		uint64_t s = (uint64_t)(uintptr_t)t->altstack;
		if (addr >= s && addr < s + t->altstack_size)
			return 1;
	}
	return 0;
}

/*
 * The runtime's descriptors live in the top quarter of the descriptor space (from 700 at
 * the usual limit of 1024), where programs seldom reach.  When none is free there the
 * descriptor is refused (-EMFILE: the thread goes unsampled) rather than left among the
 * program's own: 30 threads' events must not make a program with RLIMIT_NOFILE 64 run
 * out of descriptors it had.  Handler-safe (getrlimit, fcntl and close are system calls).
 */
SIGSAFE int rt_hide_fd(int fd)
{
	struct rlimit rl;
	int base = 700;
	if (fd < 0)
		return fd;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur - rl.rlim_cur / 4 < (rlim_t)base)
		base = (int)(rl.rlim_cur - rl.rlim_cur / 4);
	int nfd = fcntl(fd, F_DUPFD_CLOEXEC, base);
	close(fd);
	return nfd < 0 ? -EMFILE : nfd;
}

SIGSAFE void rt_log(const char *msg)
{
	size_t n = strlen(msg);
	ssize_t r = write(2, msg, n);
	(void)r;
}
