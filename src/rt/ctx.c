/* SPDX-License-Identifier: MIT */
/*
 * ctx.c - calling contexts: unwinding at a sample (libunwind, local only) and the
 * per-thread calling-context tree.  Handler-reachable.
 *
 * Unwinding takes the loader's lock in dl_iterate_phdr when libunwind meets a module it
 * has not cached; a sample that interrupted the loader itself would deadlock.  So when
 * the thread is inside dlopen/dlclose (rt_loader_busy) or the PC is in the dynamic loader,
 * only the leaf frame is kept and the sample is counted in unwind_fail.
 */
#define UNW_LOCAL_ONLY
#include <unwind.h>
#include <errno.h>
#include <sched.h>
#include <libunwind.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt/rt.h"
#include "rt/ctx.h"
#include "rt/sigsafe.h"

struct cct_node {
	uint64_t ip;
	uint32_t id;
	uint32_t pad;
	struct cct_node *child;
	struct cct_node *sibling;
};

volatile int rt_loader_busy;
static uint64_t loader_lo, loader_hi;
static uint64_t unwinder_lo, unwinder_hi;

void ctx_set_loader_range(uint64_t lo, uint64_t hi)
{
	loader_lo = lo;
	loader_hi = hi;
}

void ctx_set_unwinder_range(uint64_t lo, uint64_t hi)
{
	unwinder_lo = lo;
	unwinder_hi = hi;
}

/*
 * libunwind checks that an address is readable by write(2)-ing a byte of it into a pipe
 * of its own, made with pipe2 at its first use (and again, from a handler, when the pipe
 * reads as broken).  Made on the lowest free descriptors it takes the numbers the
 * program expects for its own files, and once the program closes them (close_range at
 * start) and reopens, libunwind reads from and writes into the PROGRAM's descriptors.
 * So its pipe goes where the runtime's descriptors go, or is refused (libunwind then
 * treats the memory as unreadable and the call path ends there).  Everyone else's
 * pipe2 is the plain system call.  Handler-safe.
 */
RT_EXPORT int pipe2(int fds[2], int flags)
{
	uint64_t caller = (uint64_t)(uintptr_t)__builtin_return_address(0);
	int p[2];
	if (syscall(SYS_pipe2, p, flags) < 0)
		return -1;
	if (caller >= unwinder_lo && caller < unwinder_hi) {
		p[0] = rt_hide_fd(p[0]);
		p[1] = rt_hide_fd(p[1]);
		if (p[0] < 0 || p[1] < 0) {
			if (p[0] >= 0)
				close(p[0]);
			if (p[1] >= 0)
				close(p[1]);
			errno = EMFILE;
			return -1;
		}
	}
	fds[0] = p[0];
	fds[1] = p[1];
	return 0;
}

/*
 * libunwind keeps its cache of unwinding rules behind a mutex of its own (the Debian build
 * has no per-thread cache: UNW_CACHE_PER_THREAD falls back to the global one).  A fork
 * while another thread holds that mutex leaves it locked for ever in the child, whose next
 * unwind hangs (seen: t015's fork-mt, 2 runs in 60).  So every use of libunwind passes
 * this gate, and a fork closes it and waits until no thread is inside.  Handler-safe.
 */
static volatile int unw_inside;
static volatile int unw_closed;

static int unw_enter(void)
{
	__atomic_fetch_add(&unw_inside, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&unw_closed, __ATOMIC_SEQ_CST)) {
		__atomic_fetch_sub(&unw_inside, 1, __ATOMIC_SEQ_CST);
		return -1;
	}
	return 0;
}

static void unw_leave(void)
{
	__atomic_fetch_sub(&unw_inside, 1, __ATOMIC_RELEASE);
}

void ctx_fork_prepare(void)
{
	__atomic_store_n(&unw_closed, 1, __ATOMIC_SEQ_CST);
	/* Bounded: a program's handler may have longjmp'd out of an unwind (the count then
	 * never falls); after 1 s the fork goes ahead as it would have without the gate. */
	uint64_t deadline = rt_now() + 1000000000ull;
	while (__atomic_load_n(&unw_inside, __ATOMIC_SEQ_CST) && rt_now() < deadline)
		sched_yield();
}

void ctx_fork_parent(void)
{
	__atomic_store_n(&unw_closed, 0, __ATOMIC_SEQ_CST);
}

void ctx_fork_child(void)
{
	/* only the forking thread exists here, and it is not unwinding */
	__atomic_store_n(&unw_inside, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&unw_closed, 0, __ATOMIC_SEQ_CST);
}

static int in_runtime_code(uint64_t ip)
{
	return rt_owns_address(ip);
}

/* ---- libgcc's unwinder, for paths taken in ordinary code ---- */

static _Unwind_Reason_Code (*gcc_backtrace)(_Unwind_Trace_Fn, void *);
static _Unwind_Ptr (*gcc_get_ip)(struct _Unwind_Context *);

struct gcc_walk {
	uint64_t *ips;
	int n, max, skip, skipping;
};

static _Unwind_Reason_Code gcc_frame(struct _Unwind_Context *uc, void *arg)
{
	struct gcc_walk *w = arg;
	uint64_t ip = (uint64_t)gcc_get_ip(uc);
	if (!ip)
		return _URC_END_OF_STACK;
	if (w->skipping && in_runtime_code(ip))
		return _URC_NO_REASON;
	if (w->skipping && w->skip > 0) {
		w->skip--;
		return _URC_NO_REASON;
	}
	w->skipping = 0;
	w->ips[w->n++] = ip;
	return w->n < w->max ? _URC_NO_REASON : _URC_END_OF_STACK;
}

/*
 * libgcc's unwinder for call paths taken in ordinary code (allocations, the inst source):
 * it needs no signal masking, where libunwind's local unwinding makes a dozen sigprocmask
 * calls per path (measured: a malloc-heavy program ran 180x slower).  Given by init.c,
 * which loads libgcc_s itself: libunwind exports functions of the same names.
 */
void ctx_use_gcc_unwinder(void *backtrace, void *get_ip)
{
	*(void **)&gcc_get_ip = get_ip;
	*(void **)&gcc_backtrace = get_ip ? backtrace : NULL;
}

static int gcc_unwind(int skip, uint64_t *ips, int max)
{
	struct gcc_walk w = { ips, 0, max, skip, 1 };
	gcc_backtrace(gcc_frame, &w);
	return w.n;
}

static int unwind(struct rt_thread *t, const ucontext_t *uc, int skip, uint64_t *ips, int max);

SIGSAFE int ctx_unwind(struct rt_thread *t, const ucontext_t *uc, int skip, uint64_t *ips, int max)
{
	if (max <= 0)
		return 0;
	if (unw_enter()) {
		t->stats.unwind_fail++;
		if (!uc)
			return 0;
		ips[0] = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
		return 1;
	}
	int n = unwind(t, uc, skip, ips, max);
	unw_leave();
	return n;
}

static SIGSAFE int unwind(struct rt_thread *t, const ucontext_t *uc, int skip, uint64_t *ips,
			  int max)
{
	unw_context_t here;
	unw_cursor_t cur;
	int n = 0, from_signal = uc != NULL;

	if (from_signal) {
		uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
		ips[n++] = pc;
		if (rt_loader_busy || (pc >= loader_lo && pc < loader_hi)) {
			t->stats.unwind_fail++;
			return n;
		}
		if (unw_init_local2(&cur, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) < 0) {
			t->stats.unwind_fail++;
			return n;
		}
	} else {
		if (rt_loader_busy) {
			t->stats.unwind_fail++;
			return 0;
		}
		if (gcc_backtrace)
			return gcc_unwind(skip, ips, max);
		unw_getcontext(&here);
		if (unw_init_local(&cur, &here) < 0) {
			t->stats.unwind_fail++;
			return 0;
		}
	}
	/* From a signal, the leaf is already stored; otherwise skip the runtime's own frames
	 * (and `skip` more) so the path starts in the program. */
	int skipping = !from_signal;
	while (n < max) {
		int r = unw_step(&cur);
		if (r <= 0) {
			if (r < 0)
				t->stats.unwind_fail++;
			break;
		}
		unw_word_t ip;
		if (unw_get_reg(&cur, UNW_REG_IP, &ip) < 0 || ip == 0)
			break;
		if (skipping && in_runtime_code(ip))
			continue;
		if (skipping && skip > 0) {
			skip--;
			continue;
		}
		skipping = 0;
		ips[n++] = ip;
	}
	return n;
}

static struct cct_node *node_new(struct rt_thread *t, struct cct_node *parent, uint64_t ip)
{
	struct cct_node *c = arena_alloc(&t->arena, sizeof(*c));
	if (!c)
		return NULL;
	c->ip = ip;
	c->id = ++t->cct.next_id;
	struct sonde_rec_ctx r = {
		.h = { .type = SONDE_REC_CTX, .size = sizeof(r) },
		.id = c->id,
		.parent = parent ? parent->id : 0,
		.ip = ip,
	};
	if (out_append(&t->out, &r, sizeof(r)) < 0)
		return NULL;
	if (parent) {
		c->sibling = parent->child;
		parent->child = c;
	}
	return c;
}

SIGSAFE uint32_t ctx_intern(struct rt_thread *t, const uint64_t *ips, int n)
{
	struct cct_node *node = t->cct.root;
	if (!node) {
		node = t->cct.root = node_new(t, NULL, 0);
		if (!node)
			return 0;
	}
	for (int i = n - 1; i >= 0; i--) {
		struct cct_node *c, *prev = NULL;
		for (c = node->child; c; prev = c, c = c->sibling)
			if (c->ip == ips[i])
				break;
		if (c && prev) {
			/* move to front: hot paths are found first next time */
			prev->sibling = c->sibling;
			c->sibling = node->child;
			node->child = c;
		}
		if (!c && !(c = node_new(t, node, ips[i])))
			return 0;
		node = c;
	}
	return node->id;
}

SIGSAFE uint32_t ctx_here(struct rt_thread *t, const ucontext_t *uc, int skip)
{
	uint64_t ips[256];
	int max = rt_cfg.max_depth > 0 && rt_cfg.max_depth < 256 ? rt_cfg.max_depth : 256;
	int n = ctx_unwind(t, uc, skip, ips, max);
	return ctx_intern(t, ips, n);
}

void ctx_reset(struct rt_thread *t)
{
	t->cct.root = NULL;
	t->cct.next_id = 0;
}

void ctx_thread_warmup(void)
{
	/* libunwind initialises itself and its per-thread cache lazily, possibly allocating:
	 * do it here, outside any handler. */
	unw_context_t uc;
	unw_cursor_t cur;
	if (unw_enter())
		return;
	unw_getcontext(&uc);
	if (unw_init_local(&cur, &uc) == 0)
		while (unw_step(&cur) > 0)
			;
	unw_leave();
}

void ctx_process_init(void)
{
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_GLOBAL);

}
