/* SPDX-License-Identifier: MIT */
/*
 * core.c - the runtime's shared, handler-safe core: the thread pointer, random numbers,
 * time, and the dispatch of samples to the active tool.  No constructor here: init.c
 * owns start-up, so unit tests can link this file alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
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

SIGSAFE uint64_t rt_rand_next(uint64_t *state)
{
	uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ull;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

SIGSAFE uint64_t rt_rand(struct rt_thread *t)
{
	return rt_rand_next(&t->rng);
}

SIGSAFE uint64_t rt_rand_split(const struct rt_thread *t, uint64_t salt)
{
	/* a multiply spreads the salt's difference over the word; never 0 */
	return ((t->rng ^ salt) * 0xd1b54a32d192ed03ull) | 1;
}

int (*rt_vdso_clock_gettime)(clockid_t clk, struct timespec *ts);

SIGSAFE int rt_clock_gettime(clockid_t clk, struct timespec *ts)
{
	int (*f)(clockid_t, struct timespec *) = rt_vdso_clock_gettime;

	return f ? f(clk, ts) : clock_gettime(clk, ts);
}

SIGSAFE uint64_t rt_now(void)
{
	struct timespec ts;
	rt_clock_gettime(CLOCK_MONOTONIC, &ts);
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
	rt_omp_note(t);
	rt_tool->access(t, a, uc, skip);
	if (interpose_flush_seen)
		interpose_flush_seen(t);
	/* the thread's records on disk at least once a second: a process killed by SIGKILL
	 * (the OOM killer, a batch time limit) keeps them.  They waited for a full buffer:
	 * comm's few events a second never filled one, and such a run read 0 of everything
	 * (the usability review of 2026-11-29; t422) */
	if (t->out.used && rt_now() - t->out.flushed_at > RT_OUT_FLUSH_NS)
		out_flush(&t->out);
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

SIGSAFE int rt_owns_code(uint64_t pc)
{
	return rt_ranges_has(&owned, pc);
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
 * The registry of the runtime's descriptors: a bit per descriptor number, set when the
 * runtime makes one (rt_hide_fd), cleared when the runtime closes it (rt_close_fd) or
 * when the program takes the number over (dup2/dup3 onto it, interpose.c).  The close,
 * close_range and closefrom interposers leave descriptors with their bit set open: a
 * program that closes "everything above 2" no longer ends its own sampling.  Atomic bit
 * operations, no lock: handler-safe.  Numbers past RT_FD_MAX are never the runtime's
 * (rt_hide_fd refuses them).
 */
#define RT_FD_WORDS (RT_FD_MAX / 64)
static uint64_t rt_fd_bits[RT_FD_WORDS] RT_LARGE;
/* Numbers the program took over (rt_fd_lose) whose old holder in the runtime (a thread's
 * source, a watch slot) has not let go yet (rt_close_fd): never handed out again until
 * then, or the old holder's bit test would pass on another descriptor of the runtime's
 * given that number, and close or re-aim it. */
static uint64_t rt_fd_lost_bits[RT_FD_WORDS] RT_LARGE;
uint64_t rt_fds_lost;
uint64_t rt_alloc_table_full;	/* rt.h */

/* One bit of a registry bitmap: read, set, or cleared (1 if it was set).  Numbers
 * outside the registry read as clear and are never set. */
static SIGSAFE int bit_test(const uint64_t *map, int fd)
{
	return fd >= 0 && fd < RT_FD_MAX &&
	       ((__atomic_load_n(&map[fd / 64], __ATOMIC_RELAXED) >> (fd % 64)) & 1);
}

static SIGSAFE void bit_set(uint64_t *map, int fd)
{
	if (fd >= 0 && fd < RT_FD_MAX)
		__atomic_fetch_or(&map[fd / 64], 1ull << (fd % 64), __ATOMIC_RELAXED);
}

static SIGSAFE int bit_clear(uint64_t *map, int fd)
{
	if (fd < 0 || fd >= RT_FD_MAX)
		return 0;
	uint64_t m = 1ull << (fd % 64);
	return (__atomic_fetch_and(&map[fd / 64], ~m, __ATOMIC_RELAXED) & m) != 0;
}

/* The program takes fd's number over (dup2/dup3 onto it): 1 if it was the runtime's,
 * which then loses it (counted in rt_fds_lost), else 0. */
SIGSAFE int rt_fd_lose(int fd)
{
	if (!bit_clear(rt_fd_bits, fd))
		return 0;
	bit_set(rt_fd_lost_bits, fd);
	__atomic_fetch_add(&rt_fds_lost, 1, __ATOMIC_RELAXED);
	return 1;
}

/* The take-over did not happen (the program's dup2 failed): the runtime's again. */
SIGSAFE void rt_fd_unlose(int fd)
{
	if (!bit_clear(rt_fd_lost_bits, fd))
		return;
	bit_set(rt_fd_bits, fd);
	__atomic_fetch_sub(&rt_fds_lost, 1, __ATOMIC_RELAXED);
}

SIGSAFE int rt_fd_mine(int fd)
{
	return bit_test(rt_fd_bits, fd);
}

/*
 * An ioctl, read or write on a descriptor of the runtime's: -EBADF, without the call,
 * when the number is not the runtime's (any more): the program dup2'd onto it, and the
 * file there is its own, not ours to re-aim, drain or fill.  Else what the call returns,
 * or -errno.  The bit is tested just before the call: a dup2 of the program's in between
 * is not caught (a narrow window, as before these wrappers).  Handler-safe.
 */
SIGSAFE int rt_fd_ioctl(int fd, unsigned long req, unsigned long arg)
{
	if (!rt_fd_mine(fd))
		return -EBADF;
	int r = ioctl(fd, req, arg);
	return r < 0 ? -errno : r;
}

SIGSAFE ssize_t rt_fd_read(int fd, void *buf, size_t n)
{
	if (!rt_fd_mine(fd))
		return -EBADF;
	ssize_t r = read(fd, buf, n);
	return r < 0 ? -errno : r;
}

SIGSAFE ssize_t rt_fd_write(int fd, const void *buf, size_t n)
{
	if (!rt_fd_mine(fd))
		return -EBADF;
	ssize_t r = write(fd, buf, n);
	return r < 0 ? -errno : r;
}

/* The first number from lo up (below hi) that is the runtime's, or hi. */
SIGSAFE int rt_fd_next_mine(int lo, int hi)
{
	if (lo < 0)
		lo = 0;
	if (hi > RT_FD_MAX)
		hi = RT_FD_MAX;
	for (int fd = lo; fd < hi;) {
		uint64_t w = __atomic_load_n(&rt_fd_bits[fd / 64], __ATOMIC_RELAXED) >> (fd % 64);
		if (w)
			fd += __builtin_ctzll(w);
		else
			fd = (fd | 63) + 1;
		if (fd < hi && w)
			return fd;
	}
	return hi;
}

/*
 * Close a descriptor of the runtime's.  Only if its bit was still set: a program that
 * dup2'd onto the number has its own file there now, which the runtime must not close.
 * The system call itself, not close(): the interposer would refuse it.
 */
SIGSAFE int rt_close_fd(int fd)
{
	if (!bit_clear(rt_fd_bits, fd)) {
		/* a number the program took over: its old holder lets go, and the number may
		 * be handed out again */
		bit_clear(rt_fd_lost_bits, fd);
		return -EBADF;
	}
	return syscall(SYS_close, fd) < 0 ? -errno : 0;
}

/*
 * The runtime's descriptors live in the top quarter of the descriptor space (from 700 at
 * the usual limit of 1024), where programs seldom reach.  When none is free there the
 * descriptor is refused (-EMFILE: the thread goes unsampled) rather than left among the
 * program's own: 30 threads' events must not make a program with RLIMIT_NOFILE 64 run
 * out of descriptors it had.  The new descriptor is registered (rt_fd_mine).
 * Handler-safe (getrlimit, fcntl and close are system calls).
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
	while (nfd >= 0 && bit_test(rt_fd_lost_bits, nfd)) {	/* still held by its old holder: the next one */
		int next = fcntl(fd, F_DUPFD_CLOEXEC, nfd + 1);
		syscall(SYS_close, nfd);
		nfd = next;
	}
	syscall(SYS_close, fd);
	if (nfd >= RT_FD_MAX) {		/* out of the registry: the program could close it */
		syscall(SYS_close, nfd);
		nfd = -1;
	}
	if (nfd < 0)
		return -EMFILE;
	bit_set(rt_fd_bits, nfd);
	return nfd;
}

SIGSAFE void rt_log(const char *msg)
{
	size_t n = strlen(msg);
	ssize_t r = write(2, msg, n);
	(void)r;
}
