/* SPDX-License-Identifier: MIT */
/*
 * u-watch-soft.c - the watchpoint engine's soft backend (watch.h, watch-sig.c, the inst
 * callbacks of source-inst.c), driven directly: the test calls __sanitizer_cov_loadN /
 * __sanitizer_cov_storeN(addr) as a program built by sonde-cc would before each access,
 * with hand-made struct rt_thread (the runtime's init is not linked here).  Needs no
 * debug registers: it runs the same on any machine.  Expected trap counts come from the
 * loops' construction.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "rt/rt.h"
#include "rt/thread.h"
#include "rt/watch.h"
#include "test-thread.h"

void __sanitizer_cov_load1(void *);
void __sanitizer_cov_load4(void *);
void __sanitizer_cov_load8(void *);
void __sanitizer_cov_load16(void *);
void __sanitizer_cov_store1(void *);
void __sanitizer_cov_store4(void *);
void __sanitizer_cov_store8(void *);
void __sanitizer_cov_store16(void *);

#define N 1000

static struct {
	uint64_t a;
	uint64_t b;
	uint64_t c[6];
} g __attribute__((aligned(64)));

struct hits {
	volatile int n;
	volatile int tid;		/* thread the callback ran in */
	volatile int self_ok;		/* t is rt_self() and the running thread */
	volatile int claimed;		/* the callback could claim t (rt_enter), as a tool
					 * that records does */
	volatile int ctx_null;		/* uc and si were NULL */
	volatile int bad;		/* the trap's access did not overlap its watched block */
	struct watch_trap last;
};

static int overlap(const struct watch_trap *w)
{
	return w->access_addr < w->addr + w->len && w->addr < w->access_addr + w->access_len;
}

static void on_trap(struct rt_thread *t, int slot, void *cookie, const ucontext_t *uc,
		    const siginfo_t *si)
{
	struct hits *h = cookie;
	const struct watch_trap *w = watch_current_trap(t);

	h->n++;
	h->tid = t->tid;
	h->self_ok = t == rt_self() && t->tid == (int)syscall(SYS_gettid);
	h->claimed = rt_enter(t) == 0;
	if (h->claimed)
		rt_leave(t);
	h->ctx_null = uc == NULL && si == NULL;
	if (w) {
		h->last = *w;
		if (w->slot != slot || w->cookie != cookie || !overlap(w))
			h->bad++;
	} else {
		h->bad++;
	}
}

/* The tool's trap hook, for watchpoints armed without a callback. */
static struct hits tool_hits;
static const ucontext_t *tool_uc = (const ucontext_t *)1;

static void tool_trap(struct rt_thread *t, const struct watch_trap *w, const ucontext_t *uc)
{
	tool_hits.n++;
	tool_hits.last = *w;
	tool_hits.claimed = rt_enter(t) == 0;
	if (tool_hits.claimed)
		rt_leave(t);
	tool_uc = uc;
}

static const struct rt_tool test_tool = { .name = "test", .trap = tool_trap };

static void thread_teardown(struct rt_thread *t)
{
	watch_thread_release(t);
	arena_release(&t->arena);
	rt_set_self(NULL);
}

static struct watch_req req(void *addr, uint32_t len, int type, int flags, struct hits *h)
{
	struct watch_req r = { .addr = (uint64_t)(uintptr_t)addr, .len = len, .type = type,
			       .flags = flags, .on_trap = h ? on_trap : NULL, .cookie = h };
	return r;
}

static int live(void)
{
	return __atomic_load_n(&watch_soft_live, __ATOMIC_RELAXED);
}

static struct rt_thread main_t;

TEST(backend_choice)
{
	CHECK(watch_backend_init("soft", 0, 1) == WATCH_BACKEND_NONE);
	CHECK_STR(watch_backend_name(), "none");
	CHECK(strstr(watch_backend_why(), "sonde-cc") != NULL);
	struct watch_req r = req(&g.a, 8, WATCH_W, 0, NULL);
	CHECK(watch_arm(&main_t, &r) == -EOPNOTSUPP);

	CHECK(watch_backend_init("soft", 1, 1) == WATCH_BACKEND_SOFT);
	CHECK_STR(watch_backend_name(), "soft");

	/* auto, data watches in a sonde-cc program: soft, whatever the hardware */
	CHECK(watch_backend_init(NULL, 1, 1) == WATCH_BACKEND_SOFT);
	CHECK(strstr(watch_backend_why(), "built by sonde-cc") != NULL);
	/* auto for execute breakpoints: hardware when it traps here, else soft for a
	 * sonde-cc program, else none; a reason whenever it is not the hardware. */
	int id = watch_backend_init(NULL, 1, 0);
	CHECK(id == WATCH_BACKEND_HW || id == WATCH_BACKEND_SOFT);
	if (id == WATCH_BACKEND_HW)
		CHECK_STR(watch_backend_why(), "");
	else
		CHECK(strstr(watch_backend_why(), "debug registers do not trap") ||
		      strstr(watch_backend_why(), "cannot be opened"));
	printf("  auto here: %s (%s)\n", watch_backend_name(), watch_backend_why());
	id = watch_backend_init("auto", 0, 1);
	CHECK(id == WATCH_BACKEND_HW || id == WATCH_BACKEND_NONE);
	if (id == WATCH_BACKEND_NONE)
		CHECK(strstr(watch_backend_why(), "rebuild with sonde-cc") != NULL);
	watch_backend_set(WATCH_BACKEND_SOFT, "test");
}

TEST(nothing_armed_no_cost)
{
	CHECK(live() == 0);
	for (int i = 0; i < N; i++)
		__sanitizer_cov_store8(&g.a);
	struct watch_stats st;
	watch_stats_get(&main_t, &st);
	CHECK_EQ_U64(st.traps, 0);
}

/* Soft execute breakpoints fire only in the call hooks of `sonde-cc --sonde-calls`
 * (watch_soft_exec): arming one leaves the load/store callbacks' fast path alone, and a
 * WATCH_CALLS return watch too. */
TEST(execute_soft_calls_only)
{
	struct hits h = { 0 };
	uint64_t fn = (uint64_t)(uintptr_t)&thread_setup, slot = (uint64_t)(uintptr_t)&g.a;
	struct watch_req r = req((void *)(uintptr_t)fn, 8, WATCH_X, 0, &h);
	int i = watch_arm(&main_t, &r);
	CHECK(i >= 0);
	CHECK(live() == 0);
	CHECK(__atomic_load_n(&watch_soft_calls_live, __ATOMIC_RELAXED) == 1);
	watch_soft_exec(&main_t, fn + 1, slot);	/* another function: nothing */
	CHECK(h.n == 0);
	watch_soft_exec(&main_t, fn, slot);
	CHECK(h.n == 1);
	CHECK(h.last.ip == fn && h.last.access_addr == slot && h.last.type == WATCH_X);
	CHECK(__atomic_load_n(&watch_soft_calls_live, __ATOMIC_RELAXED) == 0);	/* one-shot */
	struct watch_req w = req(&g.a, 8, WATCH_RW, WATCH_CALLS, &h);
	i = watch_arm(&main_t, &w);
	CHECK(i >= 0);
	CHECK(live() == 0);
	__sanitizer_cov_store8(&g.a);	/* the program's own store: not checked */
	CHECK(h.n == 1);
	CHECK(watch_soft_match(&main_t, slot, 8, 0) == 1u << i);	/* what the hooks check */
	watch_disarm(&main_t, i);
	CHECK(__atomic_load_n(&watch_soft_calls_live, __ATOMIC_RELAXED) == 0);
}

TEST(one_shot)
{
	struct hits h = { 0 };
	struct watch_req r = req(&g.a, 8, WATCH_W, 0, &h);
	struct watch_stats st0, st;
	struct watch_slot_info si;

	watch_stats_get(&main_t, &st0);
	int slot = watch_arm(&main_t, &r);
	CHECK(slot >= 0);
	CHECK(live() == 1);
	for (int i = 0; i < 10; i++) {
		__sanitizer_cov_store8(&g.a);
		g.a = (uint64_t)i;
	}
	CHECK(h.n == 1);
	CHECK(h.self_ok);
	CHECK(h.claimed);
	CHECK(h.ctx_null);
	CHECK(!h.bad);
	CHECK(main_t.busy == 0);
	CHECK(h.last.soft == 1);
	CHECK(h.last.stored == WATCH_TRAP_STORE);
	CHECK_EQ_U64(h.last.access_addr, (uintptr_t)&g.a);
	CHECK(h.last.access_len == 8);
	CHECK(h.last.ip != 0);
	CHECK(h.last.si == NULL);
	CHECK(watch_current_trap(&main_t) == NULL);	/* outside a callback */
	CHECK(watch_slot_get(&main_t, slot, &si) == 0);
	CHECK(!si.armed);
	CHECK(si.fd == -1);
	CHECK_EQ_U64(si.traps, 1);
	watch_stats_get(&main_t, &st);
	CHECK_EQ_U64(st.traps - st0.traps, 1);
	CHECK_EQ_U64(st.opens, 0);
	CHECK(live() == 0);
	/* A fired one-shot slot is empty again: re-armed in place. */
	CHECK(watch_arm(&main_t, &r) == slot);
	__sanitizer_cov_store8(&g.a);
	CHECK(h.n == 2);
	CHECK(live() == 0);
}

TEST(persistent_w_ignores_loads)
{
	struct hits h = { 0 };
	struct watch_req r = req(&g.b, 8, WATCH_W, WATCH_PERSIST, &h);
	int slot = watch_arm(&main_t, &r);

	CHECK(slot >= 0);
	for (int i = 0; i < N; i++) {
		__sanitizer_cov_load8(&g.b);
		__sanitizer_cov_store8(&g.b);
		__sanitizer_cov_store8(&g.a);	/* the word before: not watched */
		__sanitizer_cov_load4((char *)&g.b + 4);
	}
	CHECK(h.n == N);
	/* Partial overlaps trap: a byte inside, a 16-byte store that covers it, a 4-byte
	 * store on its upper half.  A store ending just before it does not. */
	__sanitizer_cov_store1((char *)&g.b + 7);
	__sanitizer_cov_store16(&g.a);
	__sanitizer_cov_store4((char *)&g.b + 4);
	__sanitizer_cov_store8((char *)&g.a);
	CHECK(h.n == N + 3);
	CHECK(!h.bad);
	CHECK(watch_disarm(&main_t, slot) == 0);
	CHECK(live() == 0);
	for (int i = 0; i < N; i++)
		__sanitizer_cov_store8(&g.b);
	CHECK(h.n == N + 3);
}

TEST(persistent_rw_both)
{
	struct hits h = { 0 };
	struct watch_req r = req(&g.c[0], 4, WATCH_RW, WATCH_PERSIST, &h);
	int slot = watch_arm(&main_t, &r);

	CHECK(slot >= 0);
	for (int i = 0; i < N; i++) {
		__sanitizer_cov_load4(&g.c[0]);
		__sanitizer_cov_store4(&g.c[0]);
		__sanitizer_cov_load4((char *)&g.c[0] + 4);	/* the other half: not watched */
	}
	CHECK(h.n == 2 * N);
	CHECK(h.last.stored == WATCH_TRAP_STORE);
	__sanitizer_cov_load1((char *)&g.c[0] + 3);
	CHECK(h.n == 2 * N + 1);
	CHECK(h.last.stored == WATCH_TRAP_LOAD);
	CHECK(h.last.access_len == 1);
	CHECK(h.last.type == WATCH_RW);
	CHECK(!h.bad);
	watch_disarm(&main_t, slot);
}

TEST(tool_hook)
{
	rt_tool = &test_tool;
	memset(&tool_hits, 0, sizeof(tool_hits));
	struct watch_req r = req(&g.c[1], 8, WATCH_W, 0, NULL);
	r.cookie = &g;
	int slot = watch_arm(&main_t, &r);

	CHECK(slot >= 0);
	__sanitizer_cov_store4(&g.c[1]);
	CHECK(tool_hits.n == 1);
	CHECK(tool_hits.claimed);
	CHECK(tool_uc == NULL);
	CHECK(tool_hits.last.slot == slot);
	CHECK(tool_hits.last.cookie == &g);
	CHECK_EQ_U64(tool_hits.last.addr, (uintptr_t)&g.c[1]);
	CHECK(tool_hits.last.len == 8);
	CHECK(tool_hits.last.type == WATCH_W);
	CHECK(tool_hits.last.access_len == 4);
	CHECK(tool_hits.last.soft);
	rt_tool = NULL;
	/* Without a tool the trap is counted only. */
	struct watch_stats st0, st;
	watch_stats_get(&main_t, &st0);
	CHECK(watch_arm(&main_t, &r) == slot);
	__sanitizer_cov_store8(&g.c[1]);
	watch_stats_get(&main_t, &st);
	CHECK_EQ_U64(st.traps - st0.traps, 1);
	CHECK(tool_hits.n == 1);
}

TEST(busy_drops)
{
	struct hits h = { 0 };
	struct watch_req r = req(&g.a, 8, WATCH_W, WATCH_PERSIST, &h);
	struct watch_stats st0, st;
	int slot = watch_arm(&main_t, &r);

	watch_stats_get(&main_t, &st0);
	main_t.busy = 1;	/* the runtime runs: e.g. a program handler interrupted it */
	__sanitizer_cov_store8(&g.a);
	main_t.busy = 0;
	CHECK(h.n == 0);
	watch_stats_get(&main_t, &st);
	CHECK_EQ_U64(st.dropped - st0.dropped, 1);
	CHECK_EQ_U64(st.traps - st0.traps, 0);
	/* A stopped thread counts the trap but calls nothing (its stream is closed). */
	main_t.stopped = 1;
	__sanitizer_cov_store8(&g.a);
	main_t.stopped = 0;
	CHECK(h.n == 0);
	__sanitizer_cov_store8(&g.a);
	CHECK(h.n == 1);
	watch_disarm(&main_t, slot);
}

TEST(slots_policies_modify)
{
	struct hits h[5] = { 0 };
	int s[5];

	watch_disarm_all(&main_t);
	void *where[4] = { &g.c[2], &g.c[3], &g.c[4], &g.b };
	for (int i = 0; i < 4; i++) {
		struct watch_req r = req(where[i], 8, WATCH_W, WATCH_PERSIST, &h[i]);
		s[i] = watch_arm(&main_t, &r);
		CHECK(s[i] >= 0);
	}
	CHECK(live() == 4);
	struct watch_req r = req(&g.a, 8, WATCH_W, WATCH_PERSIST, &h[4]);
	CHECK(watch_arm(&main_t, &r) == -ENOSPC);
	struct watch_req dup = req((char *)&g.b + 4, 4, WATCH_RW, 0, &h[4]);
	CHECK(watch_arm(&main_t, &dup) == -EEXIST);
	r.policy = WATCH_OLDEST;
	s[4] = watch_arm(&main_t, &r);
	CHECK(s[4] == s[0]);
	CHECK(live() == 4);
	__sanitizer_cov_store8(&g.c[2]);	/* the replaced slot's old address */
	__sanitizer_cov_store8(&g.a);
	CHECK(h[0].n == 0);
	CHECK(h[4].n == 1);
	/* One 16-byte store over two watched words: two traps, one per slot. */
	__sanitizer_cov_store16(&g.c[3]);
	CHECK(h[1].n == 1 && h[2].n == 1);
	/* Modify moves a slot: the old address no longer traps, the new one does. */
	struct watch_req m = req(&g.c[5], 8, WATCH_W, WATCH_PERSIST, &h[1]);
	CHECK(watch_modify(&main_t, s[1], &m) == s[1]);
	__sanitizer_cov_store8(&g.c[3]);
	__sanitizer_cov_store8(&g.c[5]);
	CHECK(h[1].n == 2);
	/* watch_limit closes the slots beyond it: -ENOENT to modify them afterwards. */
	CHECK(watch_limit(&main_t, 2) == 0);
	CHECK(live() == 2);	/* all four were armed; two are left */
	CHECK(watch_modify(&main_t, 3, &m) == -ENOENT);
	CHECK(watch_limit(&main_t, WATCH_HW_SLOTS) == 0);
	watch_disarm_all(&main_t);
	CHECK(live() == 0);
	for (int i = 0; i < 5; i++)
		CHECK(!h[i].bad);
}

/* A soft set has WATCH_MAX_SLOTS slots, of which WATCH_HW_SLOTS are used until the tool
 * asks for more (sampled `sonde reuse`); each of them traps its own word, and a slot
 * beyond the limit is refused. */
static uint64_t many[WATCH_MAX_SLOTS + 1] __attribute__((aligned(64)));

TEST(soft_slots_beyond_registers)
{
	static struct hits h[WATCH_MAX_SLOTS + 1];
	int s[WATCH_MAX_SLOTS];

	memset(h, 0, sizeof(h));
	watch_disarm_all(&main_t);
	CHECK_EQ_U64((uint64_t)(watch_slots_max()), (uint64_t)(WATCH_MAX_SLOTS));
	/* the default: the registers' number, as before */
	for (int i = 0; i <= WATCH_HW_SLOTS; i++) {
		struct watch_req r = req(&many[i], 8, WATCH_W, WATCH_PERSIST, &h[i]);
		int got = watch_arm(&main_t, &r);
		CHECK(i < WATCH_HW_SLOTS ? got >= 0 : got == -ENOSPC);
	}
	watch_disarm_all(&main_t);
	CHECK(watch_limit(&main_t, WATCH_MAX_SLOTS + 1) == -EINVAL);
	CHECK(watch_limit(&main_t, WATCH_MAX_SLOTS) == 0);
	for (int i = 0; i < WATCH_MAX_SLOTS; i++) {
		struct watch_req r = req(&many[i], 8, WATCH_W, WATCH_PERSIST, &h[i]);
		s[i] = watch_arm(&main_t, &r);
		CHECK(s[i] >= 0);
	}
	CHECK_EQ_U64((uint64_t)(live()), (uint64_t)(WATCH_MAX_SLOTS));
	struct watch_req r = req(&many[WATCH_MAX_SLOTS], 8, WATCH_W, WATCH_PERSIST,
				 &h[WATCH_MAX_SLOTS]);
	CHECK(watch_arm(&main_t, &r) == -ENOSPC);
	/* every word traps in its own slot once, the one beyond in none */
	for (int i = 0; i <= WATCH_MAX_SLOTS; i++)
		__sanitizer_cov_store8(&many[i]);
	for (int i = 0; i < WATCH_MAX_SLOTS; i++)
		CHECK_EQ_U64((uint64_t)(h[i].n), (uint64_t)(1));
	CHECK_EQ_U64((uint64_t)(h[WATCH_MAX_SLOTS].n), (uint64_t)(0));
	/* disarm_all reaches the slots past the registers' number */
	watch_disarm_all(&main_t);
	CHECK_EQ_U64((uint64_t)(live()), (uint64_t)(0));
	CHECK(watch_limit(&main_t, WATCH_HW_SLOTS) == 0);
	for (int i = 0; i <= WATCH_MAX_SLOTS; i++)
		CHECK(!h[i].bad);
}

TEST(runtime_memory_refused)
{
	struct watch_req r = req(main_t.arena.base, 8, WATCH_W, 0, NULL);
	CHECK(watch_arm(&main_t, &r) == -EPERM);
	r = req(&g.a, 3, WATCH_W, 0, NULL);
	CHECK(watch_arm(&main_t, &r) == -EINVAL);
	r.flags = WATCH_ALIGN;
	int slot = watch_arm(&main_t, &r);
	CHECK(slot >= 0);
	struct watch_slot_info si;
	watch_slot_get(&main_t, slot, &si);
	CHECK(si.len == 4);
	watch_disarm(&main_t, slot);
	CHECK(live() == 0);
}

/* The callbacks' filters (source-inst.c: the pages filter, then the words filter) must
 * let through every access that overlaps an armed slot: accesses of 1 to 16 bytes at
 * every start from 20 bytes before a slot to past its end, the slot at a page's start
 * (an access starting in the page before overlaps it), at a page's end, at the first page
 * of a pages-filter word, and with a second slot 3 pages on (another bit).  A trap is expected
 * where the access overlaps a slot, computed from the offsets. */
static void load_any(uint64_t a, int len)
{
	void *p = (void *)(uintptr_t)a;

	switch (len) {
	case 1: __sanitizer_cov_load1(p); break;
	case 4: __sanitizer_cov_load4(p); break;
	case 8: __sanitizer_cov_load8(p); break;
	default: __sanitizer_cov_load16(p); break;
	}
}

TEST(filters_page_edges)
{
	const size_t size = 80 * 4096;
	char *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	static const int lens[] = { 1, 4, 8, 16 };
	size_t at[] = { 4096, 2 * 4096 - 8, 3 * 4096 + 1024, 0 };

	CHECK(m != MAP_FAILED);
	/* and the start of a page whose bit is the first of a pages filter's word (the filter
	 * is WATCH_SOFT_PAGE_WORDS words): an access starting up to 15 bytes below it starts in
	 * the page of the previous word's last bit */
	for (size_t p = 1; p <= 64 && !at[3]; p++)
		if ((((uint64_t)(uintptr_t)m >> 12) + p) % 64 == 0)
			at[3] = p * 4096;
	CHECK(at[3] != 0);
	for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
		struct hits h = { 0 };
		/* s1 three pages on: another bit of the pages filter (256 pages on would share
		 * s0's, and set_bounds could drop the other armed slots' pages unseen) */
		uint64_t s0 = (uint64_t)(uintptr_t)(m + at[k]), s1 = s0 + 3 * 4096;
		struct watch_req r0 = req((void *)(uintptr_t)s0, 8, WATCH_RW, WATCH_PERSIST, &h);
		struct watch_req r1 = req((void *)(uintptr_t)s1, 8, WATCH_RW, WATCH_PERSIST, &h);
		int w0 = watch_arm(&main_t, &r0), w1 = watch_arm(&main_t, &r1);
		int want = 0;

		CHECK(w0 >= 0 && w1 >= 0);
		for (uint64_t base = s0; base <= s1; base += s1 - s0)
			for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
				for (uint64_t a = base - 20; a < base + 12; a++) {
					load_any(a, lens[l]);
					want += a < base + 8 && base < a + (uint64_t)lens[l];
				}
		CHECK(want > 0);
		CHECK(h.n == want);
		CHECK(!h.bad);
		/* the disarm recomputes the filter from the slots still armed: s1's page stays */
		watch_disarm(&main_t, w0);
		int before = h.n;
		load_any(s1, 8);
		load_any(s1 + 4, 4);
		CHECK(h.n == before + 2);
		watch_disarm(&main_t, w1);
	}
	munmap(m, size);
}

/* The callbacks keep a per-thread copy of the thread's filter (source-inst.c): changes to
 * the caller's own slots refresh only its own copy, and leave watch_soft_gen (which every
 * thread's fast path compares) alone; the copy still follows each arm and disarm at once. */
TEST(own_changes_keep_generation)
{
	struct hits h = { 0 };
	unsigned gen = __atomic_load_n(&watch_soft_gen, __ATOMIC_RELAXED);

	for (int round = 0; round < 3; round++) {
		struct watch_req r = req(&g.c[round], 8, WATCH_W, WATCH_PERSIST, &h);
		int slot = watch_arm(&main_t, &r);
		CHECK(slot >= 0);
		for (int i = 0; i < N; i++)
			__sanitizer_cov_store8(&g.c[round]);
		CHECK(h.n == (round + 1) * N);
		CHECK(watch_disarm(&main_t, slot) == 0);
		for (int i = 0; i < N; i++)
			__sanitizer_cov_store8(&g.c[round]);
		CHECK(h.n == (round + 1) * N);
	}
	CHECK(__atomic_load_n(&watch_soft_gen, __ATOMIC_RELAXED) == gen);
	CHECK(!h.bad);
	CHECK(live() == 0);
}

/* ---- another thread's set ---- */

struct peer {
	struct rt_thread t;
	volatile int ready;		/* peer -> main: set up */
	volatile int phase;		/* main -> peer: what to do (0: nothing yet) */
	volatile int done;		/* peer -> main: phase finished */
	volatile int stop;
	uint64_t var;
	uint64_t stores;
};

static void *peer_main(void *arg)
{
	struct peer *p = arg;

	thread_setup(&p->t, 99);
	__atomic_store_n(&p->ready, 1, __ATOMIC_RELEASE);
	for (int seen = 0; !p->stop;) {
		int ph = __atomic_load_n(&p->phase, __ATOMIC_ACQUIRE);
		if (ph == 0 || ph == seen) {
			sched_yield();
			continue;
		}
		if (ph < 0) {	/* race: store until told to stop */
			while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
				__sanitizer_cov_store8(&p->var);
				__sanitizer_cov_load4((char *)&p->var + 4);
				__sanitizer_cov_store4(&g.c[4]);
				__atomic_store_n(&p->stores, p->stores + 1, __ATOMIC_RELAXED);
			}
			break;
		}
		for (int i = 0; i < N; i++)
			__sanitizer_cov_store8(&p->var);
		seen = ph;
		__atomic_store_n(&p->done, ph, __ATOMIC_RELEASE);
	}
	/* The peer's set goes at its end, as thread.c does. */
	while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE))
		sched_yield();
	thread_teardown(&p->t);
	return NULL;
}

static void peer_phase(struct peer *p, int ph)
{
	__atomic_store_n(&p->phase, ph, __ATOMIC_RELEASE);
	while (__atomic_load_n(&p->done, __ATOMIC_ACQUIRE) != ph)
		sched_yield();
}

TEST(arm_another_thread)
{
	static struct peer p;
	pthread_t th;
	struct hits h = { 0 };

	memset(&p, 0, sizeof(p));
	pthread_create(&th, NULL, peer_main, &p);
	while (!__atomic_load_n(&p.ready, __ATOMIC_ACQUIRE))
		sched_yield();
	struct watch_req r = req(&p.var, 8, WATCH_W, WATCH_PERSIST, &h);
	unsigned gen = __atomic_load_n(&watch_soft_gen, __ATOMIC_RELAXED);
	int slot = watch_arm(&p.t, &r);
	CHECK(slot >= 0);
	/* Armed from another thread: the generation moves, so the peer refreshes its copy. */
	CHECK(__atomic_load_n(&watch_soft_gen, __ATOMIC_RELAXED) != gen);
	/* Our own accesses to it do not trap: the slot is the peer's. */
	__sanitizer_cov_store8(&p.var);
	CHECK(h.n == 0);
	peer_phase(&p, 2);
	CHECK(h.n == N);
	CHECK(h.tid == p.t.tid);
	CHECK(h.self_ok);
	CHECK(h.claimed);
	/* One-shot, armed from here: one trap in the peer. */
	CHECK(watch_disarm(&p.t, slot) == 0);
	r.flags = 0;
	CHECK(watch_arm(&p.t, &r) >= 0);
	peer_phase(&p, 3);
	CHECK(h.n == N + 1);
	/* Disarmed from here: no more. */
	r.flags = WATCH_PERSIST;
	slot = watch_arm(&p.t, &r);
	CHECK(watch_disarm(&p.t, slot) == 0);
	peer_phase(&p, 4);
	CHECK(h.n == N + 1);
	CHECK(!h.bad);
	CHECK(live() == 0);
	p.stop = 1;
	pthread_join(th, NULL);
}

/* Re-arm the peer's slots on moving targets while it stores: any trap it takes must be one
 * of an arming whose range its access overlaps (the callback checks), nothing crashes, and
 * the counts add up. */
TEST(race_arm_while_storing)
{
	static struct peer p;
	pthread_t th;
	struct hits h = { 0 };
	uint64_t arms = 0, errs[64] = { 0 };

	memset(&p, 0, sizeof(p));
	pthread_create(&th, NULL, peer_main, &p);
	while (!__atomic_load_n(&p.ready, __ATOMIC_ACQUIRE))
		sched_yield();
	__atomic_store_n(&p.phase, -1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&p.stores, __ATOMIC_RELAXED) == 0)
		sched_yield();
	/* Until the peer made 100,000 rounds while we armed (the two may share a core: yield
	 * now and then), for 10 s at most. */
	uint64_t from = __atomic_load_n(&p.stores, __ATOMIC_RELAXED), t0 = rt_now();
	for (int i = 0; i < 20000 || (__atomic_load_n(&p.stores, __ATOMIC_RELAXED) - from < 100000 &&
				      rt_now() - t0 < 10000000000ull); i++) {
		if (i % 64 == 63)
			sched_yield();
		void *targets[4] = { &p.var, (char *)&p.var + 4, &g.c[4], &g.c[3] };
		struct watch_req r = req(targets[i % 4], i % 4 == 1 ? 4 : 8,
					 i % 3 ? WATCH_RW : WATCH_W, i % 2 ? WATCH_PERSIST : 0, &h);
		r.policy = WATCH_NEWEST;
		int s = watch_arm(&p.t, &r);
		if (s >= 0)
			arms++;
		else
			errs[-s < 64 ? -s : 0]++;
		if (i % 7 == 0)
			watch_disarm(&p.t, (i / 7) % WATCH_HW_SLOTS);	/* the set's limit: its slots in use */
	}
	struct watch_stats pst;
	watch_stats_get(&p.t, &pst);
	printf("  peer's set: offers %llu arms %llu traps %llu stale %llu dropped %llu\n",
	       (unsigned long long)pst.offers, (unsigned long long)pst.arms,
	       (unsigned long long)pst.traps, (unsigned long long)pst.stale,
	       (unsigned long long)pst.dropped);
	watch_disarm_all(&p.t);
	__atomic_store_n(&p.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	printf("  %llu arms while the peer made %llu store rounds: %d traps\n",
	       (unsigned long long)arms, (unsigned long long)p.stores, h.n);
	for (int e = 0; e < 64; e++)
		if (errs[e])
			printf("  arm failed %llu times: %s\n", (unsigned long long)errs[e],
			       strerror(e));
	CHECK(arms > 1000);
	CHECK(h.n > 0);
	CHECK(!h.bad);
	CHECK(live() == 0);	/* the peer's end released its set */
}

int main(void)
{
	thread_setup(&main_t, 1);
	watch_backend_set(WATCH_BACKEND_SOFT, "test");
	RUN(backend_choice);
	RUN(nothing_armed_no_cost);
	RUN(execute_soft_calls_only);
	RUN(one_shot);
	RUN(persistent_w_ignores_loads);
	RUN(persistent_rw_both);
	RUN(tool_hook);
	RUN(busy_drops);
	RUN(slots_policies_modify);
	RUN(soft_slots_beyond_registers);
	RUN(runtime_memory_refused);
	RUN(filters_page_edges);
	RUN(own_changes_keep_generation);
	RUN(arm_another_thread);
	RUN(race_arm_while_storing);
	thread_teardown(&main_t);
	CHECK(live() == 0);
	return CHECK_DONE();
}
