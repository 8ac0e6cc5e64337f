/* SPDX-License-Identifier: MIT */
/*
 * watch-sig.c - the handler-reachable part of the debug-register manager: per-thread watch
 * sets, arming (own thread or another), re-arming, replacement policies, trap dispatch,
 * for both backends (hw: breakpoint events; soft: the inst callbacks, see watch.h).
 * Everything here runs in signal handlers: system calls and atomics only.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rt/rt.h"
#include "rt/watch.h"
#include "rt/sigsafe.h"

#define WATCH_DEAD ((void *)1)			/* t->watch after watch_thread_release */
_Static_assert(WATCH_DEAD == (void *)WATCH_SET_DEAD, "the callbacks' check knows it");
#define USER_TOP 0x00007ffffffff000ull		/* x86-64 TASK_SIZE_MAX (4-level paging) */
#define SPIN_ARM 64		/* tries before an arm gives up with -EAGAIN */
#define SPIN_TRAP 100000	/* the trap handler waits longer: losing a trap costs more */

enum { SLOT_IDLE, SLOT_ARMED };

struct watch_slot {
	int fd;			/* -1: no event open */
	int state;		/* SLOT_IDLE (disabled or never opened) or SLOT_ARMED */
	uint64_t addr;
	uint32_t len;		/* bytes watched (1 for an execute breakpoint) */
	int type;
	int flags;
	watch_fn fn;
	void *cookie;
	uint64_t offer_at;	/* set's offers when armed from empty: the reservoir's age */
	uint64_t seq;		/* set's arming sequence when armed: OLDEST/NEWEST */
	uint64_t traps;
	uint64_t self_traps;	/* traps the callback caused itself: ignore that many signals */
	uint64_t count0;	/* hw: the event's count just before this arming: a signal
				 * while the count has not moved past it is an earlier
				 * arming's, queued before the re-arm (same fd) */
	int used;		/* soft: armed since the set was made (stands for "has an event") */
	int sigtrap;		/* hw: the event delivers by attr.sigtrap (watch_sigtrap) */
	int live;		/* hw: idle here, but the event is still enabled: a one-shot
				 * slot that fired, left enabled while its callback runs so that
				 * a re-arm from the callback replaces the disable (dispatch) */
};

struct watch_set {
	struct watch_soft_head h;	/* first: the callbacks read it inline (watch.h) */
	int lock;		/* tid of the holder, 0 when free */
	int trap_waiting;	/* the owner's handler wants the lock: armers back off */
	int limit;		/* slots the tool lets us use */
	int cap;		/* events the kernel let us open (refusal lowers it) */
	int cap_wait;		/* offers a lowered cap waits before the kernel is asked again */
	uint64_t cap_retry;	/* st.offers at which it is asked again */
	int nopen;		/* events open now */
	int no_modify;		/* the ioctl failed once here: re-arm by close + open */
	uint64_t seq;
	uint64_t rng;		/* used when the arming thread has no rt_thread */
	int tid;		/* the owner's */
	int soft;		/* made under the soft backend: no events, traps from watch_soft_trap */
	const struct watch_trap *cur;	/* the trap being dispatched (owner thread only) */
	struct watch_slot slot[WATCH_MAX_SLOTS];
	struct watch_stats st;
};

#define SET_SIZE ((sizeof(struct watch_set) + 4095) & ~(size_t)4095)
/* one page a thread, as with 4 slots: memset at creation touches all of it */
_Static_assert(sizeof(struct watch_set) <= 4096, "a watch set in one page");
#define STAT_ADD(s, f) __atomic_fetch_add(&(s)->st.f, 1, __ATOMIC_RELAXED)

static int force_reopen;

/* Delivery by attr.sigtrap (watch.h, watch_sigtrap): the sample source routes SIGTRAP to
 * us, and the tool asked for it.  An event's sig_data says it is ours and which slot. */
#define WATCH_SIG_DATA 0x50de5a7c00000000ull
static int sigtrap_routed, sigtrap_wanted;
int watch_sigtrap_used;
uint64_t watch_sigtrap_merged;

void watch_sigtrap_route(int on)
{
	__atomic_store_n(&sigtrap_routed, on ? 1 : 0, __ATOMIC_RELEASE);
}

void watch_sigtrap_want(int on)
{
	__atomic_store_n(&sigtrap_wanted, on ? 1 : 0, __ATOMIC_RELEASE);
}

static int sigtrap_on(void)
{
	return __atomic_load_n(&sigtrap_routed, __ATOMIC_ACQUIRE) &&
	       __atomic_load_n(&sigtrap_wanted, __ATOMIC_ACQUIRE);
}

/* The fields a sigtrap event has at open, and must have again at each modify (the
 * kernel refuses a MODIFY_ATTRIBUTES that changes more than the breakpoint's own). */
static void sigtrap_attr(struct perf_event_attr *a, int slot)
{
	a->sigtrap = 1;
	a->remove_on_exec = 1;	/* the kernel requires it with sigtrap */
	a->sig_data = WATCH_SIG_DATA | (uint64_t)slot;
}

/* The backend (watch_backend_init in watch-backend.c, or tests); hw until chosen. */
static int backend = WATCH_BACKEND_HW;
static char backend_why[256];
int watch_soft_live;
int watch_soft_calls_live;
int watch_soft_hooks = 1;	/* watch.h: the 1 until the first entry hook ran */
struct watch_soft_gen_line watch_soft_gen_line;
_Static_assert(sizeof(struct watch_soft_gen_line) == 64, "a line of its own");

static void soft_gen_bump(void)
{
	__atomic_fetch_add(&watch_soft_gen, 1, __ATOMIC_RELEASE);
}

/* Soft slots only the call hooks look at (watch.h): execute breakpoints, WATCH_CALLS. */
static int calls_only(const struct watch_slot *sl)
{
	return sl->type == WATCH_X || (sl->flags & WATCH_CALLS);
}

void watch_backend_set(int id, const char *why)
{
	size_t n = 0;

	if (why)
		for (; why[n] && n < sizeof(backend_why) - 1; n++)
			backend_why[n] = why[n];
	backend_why[n] = 0;
	__atomic_store_n(&backend, id, __ATOMIC_RELEASE);
}

int watch_backend(void)
{
	return __atomic_load_n(&backend, __ATOMIC_ACQUIRE);
}

const char *watch_backend_name(void)
{
	switch (watch_backend()) {
	case WATCH_BACKEND_HW:
		return "hw";
	case WATCH_BACKEND_SOFT:
		return "soft";
	}
	return "none";
}

const char *watch_backend_why(void)
{
	return backend_why;
}

void watch_force_reopen(int on)
{
	__atomic_store_n(&force_reopen, on ? 1 : 0, __ATOMIC_RELAXED);
}

static struct watch_set *set_of(struct rt_thread *t)
{
	void *p = __atomic_load_n(&t->watch, __ATOMIC_ACQUIRE);
	return p == WATCH_DEAD ? NULL : p;
}

static int my_tid(void)
{
	struct rt_thread *me = rt_self();
	return me && me->tid ? me->tid : (int)syscall(SYS_gettid);
}

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("pause");
#endif
}

static int set_trylock(struct watch_set *s, int me, int *holder)
{
	*holder = 0;
	return __atomic_compare_exchange_n(&s->lock, holder, me, 0, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

static void set_wait(int i)
{
	if (i < 16)
		cpu_relax();
	else
		sched_yield();
}

/* Owner-tagged try-lock for arming: a handler that interrupted its own thread's arm must
 * not wait, and a trap waiting for the set goes first. */
static int set_lock(struct watch_set *s, int me, int tries)
{
	for (int i = 0;; i++) {
		int holder = 0;
		if (__atomic_load_n(&s->trap_waiting, __ATOMIC_RELAXED) == 0 &&
		    set_trylock(s, me, &holder))
			return 0;
		if (holder == me)
			return -EDEADLK;
		if (i >= tries)
			return -EAGAIN;
		set_wait(i);
	}
}

/*
 * The owner's side (trap handler, release): announces itself so that armers back off and
 * threads arming the same target back to back cannot starve its trap handler.
 */
static int set_lock_owner(struct watch_set *s, int me)
{
	int holder, err = -EAGAIN;

	__atomic_fetch_add(&s->trap_waiting, 1, __ATOMIC_ACQ_REL);
	for (int i = 0; i < SPIN_TRAP; i++) {
		if (set_trylock(s, me, &holder)) {
			err = 0;
			break;
		}
		if (holder == me) {
			err = -EDEADLK;
			break;
		}
		set_wait(i);
	}
	__atomic_fetch_sub(&s->trap_waiting, 1, __ATOMIC_ACQ_REL);
	return err;
}

static void set_unlock(struct watch_set *s)
{
	__atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE);
}

static uint64_t set_rand(struct watch_set *s)
{
	struct rt_thread *me = rt_self();

	if (me)
		return rt_rand(me);
	uint64_t x = s->rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	s->rng = x;
	return x;
}

static void set_reset(struct watch_set *s, int tid)
{
	memset(s, 0, sizeof(*s));
	s->soft = watch_backend() == WATCH_BACKEND_SOFT;
	s->limit = WATCH_HW_SLOTS;	/* (watch_limit raises it, soft only) */
	s->cap = WATCH_HW_SLOTS;
	s->rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)tid;
	s->tid = tid;
	for (int i = 0; i < WATCH_MAX_SLOTS; i++)
		s->slot[i].fd = -1;
}

/* The slots s can have: a soft set's all, a hardware one's as many as the registers (the
 * loops of the arm and trap paths go no further: 4 in a hardware set, as before the soft
 * sets had 32). */
static int set_slots(const struct watch_set *s)
{
	return s->soft ? WATCH_MAX_SLOTS : WATCH_HW_SLOTS;
}

static int set_create(struct rt_thread *t, int revive)
{
	void *cur = __atomic_load_n(&t->watch, __ATOMIC_ACQUIRE);

	if (cur && cur != WATCH_DEAD)
		return 0;
	if (cur == WATCH_DEAD && !revive)
		return -ESRCH;
	struct watch_set *s = mmap(NULL, SET_SIZE, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		return -ENOMEM;
	set_reset(s, t->tid);
	/* Two threads may race to create it: one wins, the other unmaps its copy. */
	if (!__atomic_compare_exchange_n(&t->watch, &cur, s, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		munmap(s, SET_SIZE);
		return cur == WATCH_DEAD ? -ESRCH : 0;
	}
	return 0;
}

int watch_thread_init(struct rt_thread *t)
{
	return set_create(t, 1);
}

/* The filters of the armed slots, plus [a, a+len) when len > 0 (a slot about to be armed). */
static void set_bounds(struct watch_set *s, uint64_t a, uint32_t len)
{
	uint64_t words[WATCH_SOFT_FILTER_WORDS] = { 0 }, pages[WATCH_SOFT_PAGE_WORDS] = { 0 };

	if (len) {
		watch_soft_pages(pages, a, len);
		watch_soft_words(words, a, len);
	}
	for (int i = 0; i < set_slots(s); i++) {
		const struct watch_slot *sl = &s->slot[i];
		if (sl->state != SLOT_ARMED || calls_only(sl))
			continue;
		watch_soft_words(words, sl->addr, sl->len);
		watch_soft_pages(pages, sl->addr, sl->len);
	}
	for (int i = 0; i < WATCH_SOFT_PAGE_WORDS; i++)
		__atomic_store_n(&s->h.pages[i], pages[i], __ATOMIC_RELAXED);
	/* word by word: a copy read between two stores is stamped with a generation that
	 * the change then moves (source-inst.c, inst_watch_sync), as with one word */
	for (int i = 0; i < WATCH_SOFT_FILTER_WORDS; i++)
		__atomic_store_n(&s->h.words[i], words[i], __ATOMIC_RELAXED);
}

/*
 * Every change of a slot's state goes through here, under the set's lock.  For the soft
 * fast path, an armed slot is published after its fields (release; they are written
 * before the call) and after the bounds grew to cover it; the bounds shrink after a slot
 * left.  watch_soft_live counts the soft slots armed in the process.
 */
static void slot_state(struct watch_set *s, struct watch_slot *sl, int state)
{
	unsigned bit = 1u << (sl - s->slot);

	if (sl->state == state)
		return;
	/* the load/store callbacks check data slots: their full path for good, before the
	 * slot is published (a value rt_inst_every's compare-and-swap does not take back) */
	if (state == SLOT_ARMED && s->soft && !calls_only(sl) &&
	    __atomic_load_n(&inst_callbacks_line.on, __ATOMIC_RELAXED) != INST_ON_WATCHED)
		__atomic_store_n(&inst_callbacks_line.on, INST_ON_WATCHED, __ATOMIC_SEQ_CST);
	if (state == SLOT_ARMED)
		set_bounds(s, sl->addr, calls_only(sl) ? 0 : sl->len);
	__atomic_store_n(&sl->state, state, __ATOMIC_RELEASE);
	if (state == SLOT_ARMED) {
		__atomic_fetch_or(&s->h.armed, bit, __ATOMIC_RELEASE);
	} else {
		__atomic_fetch_and(&s->h.armed, ~bit, __ATOMIC_RELEASE);
		set_bounds(s, 0, 0);
	}
	if (s->soft) {
		__atomic_fetch_add(calls_only(sl) ? &watch_soft_calls_live : &watch_soft_live,
				   state == SLOT_ARMED ? 1 : -1, __ATOMIC_RELEASE);
		__atomic_fetch_add(&watch_soft_hooks, state == SLOT_ARMED ? 1 : -1,
				   __ATOMIC_RELEASE);
		/* After the bounds and the armed bit: the owner's callbacks refresh their copy. */
		if (!calls_only(sl) && s->tid == my_tid())
			watch_soft_changed_self();
		else if (!calls_only(sl))
			soft_gen_bump();
	}
}

/* Soft: the slot was armed before (as a hardware slot keeps its open event). */
static int slot_has_event(const struct watch_set *s, const struct watch_slot *sl)
{
	return s->soft ? sl->used : sl->fd >= 0;
}

static void slot_close(struct watch_set *s, struct watch_slot *sl)
{
	sl->live = 0;
	if (sl->fd >= 0) {
		rt_close_fd(sl->fd);	/* unless the program dup2'd onto it (then its file) */
		sl->fd = -1;
		s->nopen--;
	}
	sl->used = 0;
	slot_state(s, sl, SLOT_IDLE);
}

static void slot_disarm(struct watch_set *s, struct watch_slot *sl)
{
	if (sl->state == SLOT_ARMED || sl->live) {
		if (!s->soft)	/* not on a number the program dup2'd onto (rt_fd_ioctl) */
			rt_fd_ioctl(sl->fd, PERF_EVENT_IOC_DISABLE, 0);
		sl->live = 0;
		slot_state(s, sl, SLOT_IDLE);
	}
}

/* Forget the soft slots of s in watch_soft_live (the set is being reset, not unlocked). */
static void set_forget_live(struct watch_set *s)
{
	int n = 0, nc = 0;

	if (!s->soft)
		return;
	for (int i = 0; i < WATCH_MAX_SLOTS; i++)
		if (s->h.armed & (1u << i))
			*(calls_only(&s->slot[i]) ? &nc : &n) += 1;
	/* In a fork child another thread may have been half-way through an arm: never
	 * let the count wrap. */
	int cur = __atomic_load_n(&watch_soft_live, __ATOMIC_RELAXED);
	if (n)
		__atomic_store_n(&watch_soft_live, cur > n ? cur - n : 0, __ATOMIC_RELEASE);
	cur = __atomic_load_n(&watch_soft_calls_live, __ATOMIC_RELAXED);
	if (nc)
		__atomic_store_n(&watch_soft_calls_live, cur > nc ? cur - nc : 0,
				 __ATOMIC_RELEASE);
	/* the hooks' word: never below the counts it sums, nor below the first-entry 1 */
	int floor = __atomic_load_n(&watch_soft_live, __ATOMIC_RELAXED) +
		    __atomic_load_n(&watch_soft_calls_live, __ATOMIC_RELAXED) +
		    !__atomic_load_n(&watch_soft_calls, __ATOMIC_RELAXED);
	cur = __atomic_load_n(&watch_soft_hooks, __ATOMIC_RELAXED);
	if (n + nc)
		__atomic_store_n(&watch_soft_hooks, cur - (n + nc) > floor ? cur - (n + nc) : floor,
				 __ATOMIC_RELEASE);
}

void watch_thread_release(struct rt_thread *t)
{
	void *p = __atomic_exchange_n(&t->watch, WATCH_DEAD, __ATOMIC_ACQ_REL);

	if (!p || p == WATCH_DEAD)
		return;
	struct watch_set *s = p;
	int locked = !set_lock_owner(s, my_tid());
	for (int i = 0; i < WATCH_MAX_SLOTS; i++)
		slot_close(s, &s->slot[i]);
	if (locked)
		set_unlock(s);
	munmap(s, SET_SIZE);
}

void watch_after_fork_child(struct rt_thread *t)
{
	struct watch_set *s = set_of(t);

	if (!s)
		return;
	/* The lock may be held by a thread that does not exist in the child. */
	for (int i = 0; i < WATCH_MAX_SLOTS; i++)
		if (s->slot[i].fd >= 0)
			rt_close_fd(s->slot[i].fd);
	set_forget_live(s);
	int no_modify = s->no_modify;
	set_reset(s, t->tid);
	s->no_modify = no_modify;
	soft_gen_bump();	/* the callbacks' copies of the parent's bounds are stale */
}

int watch_slots_max(void)
{
	return watch_backend() == WATCH_BACKEND_SOFT ? WATCH_MAX_SLOTS : WATCH_HW_SLOTS;
}

int watch_limit(struct rt_thread *t, int n)
{
	if (n < 1 || n > WATCH_MAX_SLOTS)
		return -EINVAL;
	int err = set_create(t, 0);
	if (err)
		return err;
	struct watch_set *s = set_of(t);
	if (!s)
		return -ESRCH;
	if (n > set_slots(s))
		return -EINVAL;
	err = set_lock(s, my_tid(), SPIN_ARM);
	if (err)
		return err;
	s->limit = n;
	/* Closed, not just disabled: an open event holds a debug register. */
	for (int i = n; i < WATCH_MAX_SLOTS; i++)
		slot_close(s, &s->slot[i]);
	set_unlock(s);
	return 0;
}

/* ---- requests ---- */

/* The watched block for r: aligned, 1/2/4/8 bytes (1 for an execute breakpoint); the soft
 * backend also takes an aligned 16, 32 or 64 (a cache line). */
static int req_range(const struct watch_req *r, uint64_t *addr, uint32_t *len)
{
	uint64_t a = r->addr;
	uint32_t l = r->len;

	if (r->type == WATCH_X) {
		if (l != 8)
			return -EINVAL;
		l = 1;
	} else if ((r->type == WATCH_W || r->type == WATCH_RW) && l > 8) {
		if (backend != WATCH_BACKEND_SOFT || l > WATCH_SOFT_MAX_LEN || (l & (l - 1)) || (a & (l - 1)))
			return -EINVAL;
	} else if (r->type == WATCH_W || r->type == WATCH_RW) {
		if (l < 1 || l > 8)
			return -EINVAL;
		if ((l & (l - 1)) || (a & (l - 1))) {
			if (!(r->flags & WATCH_ALIGN))
				return -EINVAL;
			for (l = 1; l <= 8; l <<= 1)
				if ((a & ~(uint64_t)(l - 1)) + l >= r->addr + r->len)
					break;
			if (l > 8)
				return -EINVAL;	/* crosses an 8-byte boundary */
			a &= ~(uint64_t)(l - 1);
		}
	} else {
		return -EINVAL;
	}
	if (a < 4096 || a + l > USER_TOP)
		return -EFAULT;
	*addr = a;
	*len = l;
	return 0;
}

static int in_block(uint64_t a, uint32_t len, const void *base, size_t size)
{
	uint64_t b = (uint64_t)(uintptr_t)base;
	return base && a < b + size && a + len > b;
}

/* Memory the runtime's own code touches in t: a watch there traps in our handlers.  t's
 * errno is the program's, but every handler saves and restores it: RW-watched in its
 * thread (a reuse sample of an errno access), the clock handler's restore trapped before
 * the program's next instruction and was dispatched as that use's reuse, at the
 * interrupted PC (a register-only loop "reused" errno in all of ~100 such uses of a run,
 * 2026-11-28); delivered by attr.sigtrap, which our handlers block, the trap came back at
 * every handler's return and the thread never left them. */
static int runtime_memory(struct rt_thread *t, struct watch_set *s, uint64_t a, uint32_t len)
{
	return rt_owns_address(a) || rt_owns_address(a + len - 1) ||
	       in_block(a, len, t->arena.base, t->arena.size) ||
	       in_block(a, len, t->altstack, t->altstack_size) ||
	       in_block(a, len, s, SET_SIZE) || in_block(a, len, t, sizeof(*t)) ||
	       in_block(a, len, t->errno_addr, sizeof(*t->errno_addr));
}

static int overlaps(const struct watch_set *s, int skip, uint64_t a, uint32_t len, int type)
{
	for (int i = 0; i < set_slots(s); i++) {
		const struct watch_slot *sl = &s->slot[i];
		if (i == skip || sl->state != SLOT_ARMED)
			continue;
		/* An execute breakpoint and a data watchpoint on one byte do not conflict. */
		if ((sl->type == WATCH_X) != (type == WATCH_X))
			continue;
		uint32_t n = sl->type == WATCH_X ? 1 : sl->len;
		if (a < sl->addr + n && sl->addr < a + len)
			return 1;
	}
	return 0;
}

/* ---- slot choice ---- */

/* An idle slot with an open event (one ioctl to arm), else a fresh one if the kernel
 * has a register left. */
static int pick_empty(const struct watch_set *s)
{
	int fresh = -1;

	for (int i = 0; i < s->limit; i++) {
		const struct watch_slot *sl = &s->slot[i];
		if (sl->state == SLOT_ARMED)
			continue;
		if (sl->fd >= 0)
			return i;
		if (fresh < 0 && s->nopen < s->cap)
			fresh = i;
	}
	return fresh;
}

static int pick_reservoir(struct watch_set *s, int *idx, int k)
{
	for (int j = k - 1; j > 0; j--) {
		int r = (int)(set_rand(s) % (uint64_t)(j + 1));
		int x = idx[j];
		idx[j] = idx[r];
		idx[r] = x;
	}
	for (int j = 0; j < k; j++) {
		uint64_t since = s->st.offers - s->slot[idx[j]].offer_at;
		if (set_rand(s) % (since + 1) == 0)
			return idx[j];
	}
	return -1;
}

static int pick_victim(struct watch_set *s, int policy)
{
	int idx[WATCH_MAX_SLOTS], k = 0;

	for (int i = 0; i < s->limit; i++)
		if (s->slot[i].state == SLOT_ARMED)
			idx[k++] = i;
	if (!k)
		return -1;
	if (policy == WATCH_RESERVOIR)
		return pick_reservoir(s, idx, k);
	if (policy != WATCH_OLDEST && policy != WATCH_NEWEST)
		return -1;
	int best = idx[0];
	for (int j = 1; j < k; j++) {
		uint64_t q = s->slot[idx[j]].seq, b = s->slot[best].seq;
		if (policy == WATCH_OLDEST ? q < b : q > b)
			best = idx[j];
	}
	return best;
}

/* ---- events ---- */

/* The event's count of traps; UINT64_MAX if it cannot be read, or if the number is the
 * program's now (a dup2 onto it: its file's bytes are not ours to read). */
static uint64_t event_count(int fd)
{
	uint64_t c = 0;
	if (rt_fd_read(fd, &c, sizeof(c)) != (ssize_t)sizeof(c))
		return UINT64_MAX;
	return c;
}

/* Open a disabled breakpoint on t, route its signal to t, then enable it. */
static int slot_open(struct rt_thread *t, struct watch_set *s, struct watch_slot *sl, int type)
{
	struct perf_event_attr at;
	struct f_owner_ex own = { .type = F_OWNER_TID, .pid = t->tid };

	int st = sigtrap_on();

	watch_bp_attr(&at, sl->addr, sl->len, type, 1);
	if (st)
		sigtrap_attr(&at, (int)(sl - s->slot));
	int fd = (int)syscall(SYS_perf_event_open, &at, t->tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Move it first: O_ASYNC records the fd number that si_fd will carry. */
	fd = rt_hide_fd(fd);
	int fl = st ? 0 : fcntl(fd, F_GETFL);
	if (fl < 0 ||
	    (!st && (fcntl(fd, F_SETOWN_EX, &own) || fcntl(fd, F_SETSIG, rt_cfg.sig_watch) ||
		     fcntl(fd, F_SETFL, fl | O_ASYNC))) ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		int e = fd < 0 ? fd : -errno;
		rt_close_fd(fd);
		return e;
	}
	if (st)
		__atomic_store_n(&watch_sigtrap_used, 1, __ATOMIC_RELAXED);
	sl->sigtrap = st;
	sl->fd = fd;
	s->nopen++;
	s->st.opens++;
	return 0;
}

/* (Re)arm slot sl on r; the set is locked.  On failure the slot is left idle. */
static int slot_arm(struct rt_thread *t, struct watch_set *s, struct watch_slot *sl,
		    const struct watch_req *r, uint64_t a, uint32_t len)
{
	struct perf_event_attr at;
	int tried = 0, err = -ENOTTY;

	/* A reservoir round starts when an empty slot is armed; a replacement continues it
	 * (restarting the count would favour late offers: 29% instead of 10% for the last
	 * of 10 offers to one slot). */
	if (sl->state != SLOT_ARMED)
		sl->offer_at = s->st.offers;
	/* The hw handler reads these under the lock we hold; the soft fast path reads the
	 * range without it, so the slot is unpublished first (then a racing access sees
	 * either no slot or a range it confirms under the lock). */
	slot_state(s, sl, SLOT_IDLE);
	__atomic_store_n(&sl->addr, a, __ATOMIC_RELAXED);
	__atomic_store_n(&sl->len, len, __ATOMIC_RELAXED);
	__atomic_store_n(&sl->type, r->type, __ATOMIC_RELAXED);
	sl->flags = r->flags;
	sl->fn = r->on_trap;
	sl->cookie = r->cookie;
	sl->seq = ++s->seq;
	sl->traps = 0;
	sl->self_traps = 0;
	/* a fired one-shot event still enabled (live) is moved by the modify below, or
	 * closed by the reopen: no disable is owed for it any more */
	sl->live = 0;
	if (s->soft) {
		sl->used = 1;
		slot_state(s, sl, SLOT_ARMED);
		return 0;
	}
	sl->count0 = 0;
	if (sl->fd >= 0 && !s->no_modify && !__atomic_load_n(&force_reopen, __ATOMIC_RELAXED)) {
		/* Same attr as at open but address, length, type and disabled = 0.  The count
		 * first: traps of the old arming are in it, this one's come after. */
		sl->count0 = event_count(sl->fd);
		if (sl->count0 == UINT64_MAX)
			sl->count0 = 0;
		watch_bp_attr(&at, a, len, r->type, 0);
		if (sl->sigtrap)
			sigtrap_attr(&at, (int)(sl - s->slot));
		tried = 1;
		/* a number the program took over (dup2): reopened below, on a new one */
		err = rt_fd_ioctl(sl->fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, (unsigned long)&at);
		if (!err)
			s->st.modifies++;
	}
	if (err) {
		int reopen = sl->fd >= 0;
		sl->count0 = 0;
		slot_close(s, sl);
		err = slot_open(t, s, sl, r->type);
		if (!err && reopen)
			s->st.reopens++;
		if (!err && tried)
			s->no_modify = 1;	/* the ioctl, not the request, was the problem */
	}
	if (!err)
		slot_state(s, sl, SLOT_ARMED);
	return err;
}

/*
 * A refused open lowers the cap to the events t holds now, and only for a while: the
 * holder of the other registers (a debugger, the program's own breakpoints) may let them
 * go, and after watch_release t may hold none, so a cap kept for good stopped that
 * thread's measuring for the rest of the run (a program holding its 4 registers for a
 * moment, /tmp/rv3x/bp.c of the review: 5 runs of 10).  The kernel is asked again after
 * cap_wait offers, 2 doubling to 256 while it keeps refusing: a thread is back at most
 * about as many offers after the holder let go as the holder held them (bp.c's held for
 * ~10 samples and the run has ~40 after), and a holder that keeps them costs one failed
 * open (a few us) in 256 offers.
 */
#define CAP_WAIT_MIN 2
#define CAP_WAIT_MAX 256

static void cap_lower(struct watch_set *s)
{
	s->cap = s->nopen;
	s->cap_wait = s->cap_wait ? s->cap_wait * 2 : CAP_WAIT_MIN;
	if (s->cap_wait > CAP_WAIT_MAX)
		s->cap_wait = CAP_WAIT_MAX;
	s->cap_retry = s->st.offers + (uint64_t)s->cap_wait;
}

/* May r watch bytes another slot watches (WATCH_OVERLAP)?  Not where the hw events
 * deliver by attr.sigtrap: two traps of one access merge into one SIGTRAP, which names one
 * slot (watch_sigtrap), and watch_sigtrap_poll finds only one-shot slots' merged traps. */
static int overlap_ok(const struct watch_set *s, const struct watch_req *r)
{
	return (r->flags & WATCH_OVERLAP) && (s->soft || !sigtrap_on());
}

static int arm_locked(struct rt_thread *t, struct watch_set *s, const struct watch_req *r,
		      uint64_t a, uint32_t len)
{
	if (!overlap_ok(s, r) && overlaps(s, -1, a, len, r->type))
		return -EEXIST;
	if (s->cap < WATCH_HW_SLOTS && s->st.offers >= s->cap_retry)
		s->cap = WATCH_HW_SLOTS;
	for (;;) {
		int i = pick_empty(s), victim = 0;
		if (i < 0) {
			i = pick_victim(s, r->policy);
			victim = 1;
		}
		if (i < 0) {
			s->st.refused++;
			return -ENOSPC;
		}
		int fresh = s->slot[i].fd < 0;
		int err = slot_arm(t, s, &s->slot[i], r, a, len);
		if (!err) {
			s->st.arms++;
			s->st.replaced += victim;
			if (fresh)
				s->cap_wait = 0;	/* registers were there: next wait short */
			return i;
		}
		/* Someone else holds a debug register of t: we have fewer than we thought. */
		if (err == -ENOSPC && fresh && s->nopen < s->cap) {
			cap_lower(s);
			continue;
		}
		s->st.refused++;
		return err;
	}
}

/* Checks shared by arm and modify; on success *ps is t's set, locked. */
static int arm_begin(struct rt_thread *t, const struct watch_req *r, uint64_t *a, uint32_t *len,
		     struct watch_set **ps)
{
	int be = watch_backend();

	if (be == WATCH_BACKEND_NONE)
		return -EOPNOTSUPP;
	int err = req_range(r, a, len);
	if (err)
		return err;
	if ((be == WATCH_BACKEND_HW && rt_cfg.sig_watch <= 0) || t->tid <= 0)
		return -EINVAL;
	/* a trap whose signal has no handler would kill the program (watch_start not run) */
	if (be == WATCH_BACKEND_HW && !watch_is_started())
		return -ENOTCONN;
	err = set_create(t, 0);
	if (err)
		return err;
	struct watch_set *s = set_of(t);
	if (!s)
		return -ESRCH;
	/* Soft execute breakpoints fire in the call hooks of programs built with
	 * `sonde-cc --sonde-calls` (watch_soft_exec); others never reach them. */
	if (runtime_memory(t, s, *a, *len))
		return -EPERM;
	err = set_lock(s, my_tid(), SPIN_ARM);
	if (err)
		return err;
	*ps = s;
	return 0;
}

int watch_arm(struct rt_thread *t, const struct watch_req *r)
{
	struct watch_set *s;
	uint64_t a;
	uint32_t len;
	int err = arm_begin(t, r, &a, &len, &s);

	if (err)
		return err;
	s->st.offers++;
	err = arm_locked(t, s, r, a, len);
	set_unlock(s);
	return err;
}

int watch_modify(struct rt_thread *t, int slot, const struct watch_req *r)
{
	struct watch_set *s;
	uint64_t a;
	uint32_t len;

	if (slot < 0 || slot >= WATCH_MAX_SLOTS)
		return -EINVAL;
	int err = arm_begin(t, r, &a, &len, &s);
	if (err)
		return err;
	struct watch_slot *sl = &s->slot[slot];
	if (!slot_has_event(s, sl) || slot >= s->limit)
		err = -ENOENT;
	else if (!overlap_ok(s, r) && overlaps(s, slot, a, len, r->type))
		err = -EEXIST;
	else
		err = slot_arm(t, s, sl, r, a, len);
	if (!err) {
		s->st.arms++;
		err = slot;
	}
	set_unlock(s);
	return err;
}

/* watch_disarm (release 0: the slot's event disabled) and watch_release (release 1: closed;
 * soft: disabled too, nothing is scheduled at a switch; the slot stays usable by
 * watch_modify). */
static int slot_stop(struct rt_thread *t, int slot, int release)
{
	struct watch_set *s = set_of(t);

	if (!s || slot < 0 || slot >= set_slots(s))
		return -EINVAL;
	int err = set_lock(s, my_tid(), SPIN_ARM);
	if (err)
		return err;
	struct watch_slot *sl = &s->slot[slot];
	if (release && !s->soft)
		slot_close(s, sl);
	else
		slot_disarm(s, sl);
	set_unlock(s);
	return 0;
}

int watch_rearm(struct rt_thread *t, int slot, const struct watch_req *r)
{
	int err = slot >= 0 ? watch_modify(t, slot, r) : watch_arm(t, r);

	return err == -ENOENT ? watch_arm(t, r) : err;
}

int watch_disarm(struct rt_thread *t, int slot)
{
	return slot_stop(t, slot, 0);
}

int watch_release(struct rt_thread *t, int slot)
{
	return slot_stop(t, slot, 1);
}

void watch_disarm_all(struct rt_thread *t)
{
	const struct watch_set *s = set_of(t);
	/* the slots from the limit on are closed (watch_limit) */
	int n = s ? __atomic_load_n(&s->limit, __ATOMIC_RELAXED) : 0;

	for (int i = 0; i < n; i++)
		watch_disarm(t, i);
}

int watch_slot_get(struct rt_thread *t, int slot, struct watch_slot_info *out)
{
	struct watch_set *s = set_of(t);

	if (!s || slot < 0 || slot >= set_slots(s))
		return -EINVAL;
	const struct watch_slot *sl = &s->slot[slot];
	out->armed = sl->state == SLOT_ARMED;
	out->fd = sl->fd;
	out->addr = sl->addr;
	out->len = sl->type == WATCH_X ? 8 : sl->len;
	out->type = sl->type;
	out->flags = sl->flags;
	out->cookie = sl->cookie;
	out->traps = sl->traps;
	out->seq = sl->seq;
	return 0;
}

void watch_stats_get(struct rt_thread *t, struct watch_stats *out)
{
	struct watch_set *s = set_of(t);

	if (s)
		*out = s->st;
	else
		memset(out, 0, sizeof(*out));
}

/* ---- trap dispatch ---- */

static int slot_by_fd(const struct watch_set *s, int fd)
{
	for (int i = 0; i < set_slots(s); i++)	/* (a hardware set's 4: the signal's path) */
		if (__atomic_load_n(&s->slot[i].fd, __ATOMIC_RELAXED) == fd)
			return i;
	return -1;
}

/*
 * Traps the callback of a persistent slot causes (an unwinder reading a watched stack
 * slot) are queued while our signal is blocked and delivered after we return; count them
 * now so those signals are ignored.
 */
static void note_self_traps(struct rt_thread *t, struct watch_set *s, int i, int fd,
			    uint64_t seq, uint64_t before)
{
	struct watch_slot *sl = &s->slot[i];
	uint64_t after = event_count(fd);

	if (after == UINT64_MAX || before == UINT64_MAX || after <= before ||
	    set_lock_owner(s, t->tid))
		return;
	if (sl->seq == seq && sl->fd == fd && sl->state == SLOT_ARMED)
		sl->self_traps += after - before;
	set_unlock(s);
}

/*
 * After a one-shot slot's callback (dispatch): if nobody re-armed it, disable the event
 * that slot_fire left enabled.  A trap it took meanwhile (the handler ran the breakpointed
 * code) was queued behind our blocked signal and finds the slot idle, or re-armed with a
 * count read after it: stale either way.  Unlocked (we could not wait): the disable is
 * done by whoever next takes the slot (slot_arm moves the event, slot_disarm disables it).
 */
static void slot_settle(struct rt_thread *t, struct watch_set *s, int i, int fd)
{
	struct watch_slot *sl = &s->slot[i];

	if (set_lock_owner(s, t->tid))
		return;
	if (sl->live && sl->fd == fd && sl->state != SLOT_ARMED)
		slot_disarm(s, sl);
	set_unlock(s);
}

/*
 * Slot i of s trapped; the set is locked and the slot checked.  Fill in the trap's slot
 * fields, disable a one-shot slot, count.  Returns the slot's callback (NULL: the tool's).
 * `defer` (hw): a one-shot slot becomes idle but its event stays enabled (live) until the
 * callback has run: a callback that re-arms the slot (variance's entry breakpoint becoming
 * its return watch) then pays one MODIFY_ATTRIBUTES, not a DISABLE before it too;
 * dispatch disables it after the callback otherwise (slot_settle).  Execute slots only: a
 * data slot's callback may read the watched bytes (variance's return slot, which it reads
 * to re-arm the pending one below), and with the event still enabled that read traps once
 * more, inside the instance (a stale trap, but its delivery is time nobody subtracts).
 */
static watch_fn slot_fire(struct rt_thread *t, struct watch_set *s, int i, struct watch_trap *w,
			  int defer)
{
	struct watch_slot *sl = &s->slot[i];

	w->slot = i;
	w->cookie = sl->cookie;
	w->addr = sl->addr;
	w->len = sl->len;
	w->type = sl->type;
	if (!(sl->flags & WATCH_PERSIST) && defer && !s->soft && sl->type == WATCH_X) {
		slot_state(s, sl, SLOT_IDLE);
		sl->live = 1;
	} else if (!(sl->flags & WATCH_PERSIST)) {
		slot_disarm(s, sl);
	}
	sl->traps++;
	STAT_ADD(s, traps);
	t->stats.traps++;
	rt_obs_note();
	return sl->fn;
}

/*
 * Run the callback, or the tool's trap hook (the set is unlocked).  t is not claimed here:
 * the dispatch already dropped the trap if t was busy, and a hook that records claims t
 * itself (rt_enter), which also keeps the sample handlers out of it - needed for a soft
 * trap, which runs in ordinary code where no signal is blocked.  1 if one ran.
 */
static int trap_call(struct rt_thread *t, struct watch_set *s, watch_fn fn,
		     const struct watch_trap *w, const ucontext_t *uc)
{
	if (t->stopped || (!fn && !(rt_tool && rt_tool->trap)))
		return 0;
	const struct watch_trap *prev = s->cur;
	s->cur = w;
	if (fn)
		fn(t, w->slot, w->cookie, uc, w->si);
	else
		rt_tool->trap(t, w, uc);
	s->cur = prev;
	return 1;
}

const struct watch_trap *watch_current_trap(struct rt_thread *t)
{
	struct watch_set *s = set_of(t);
	return s ? s->cur : NULL;
}

static uint64_t uc_ip(const ucontext_t *uc)
{
#if defined(__x86_64__)
	return uc ? (uint64_t)uc->uc_mcontext.gregs[REG_RIP] : 0;
#else
	return 0;
#endif
}

/* watch_stamp_traps: the clocks read at a hw trap's handler's start */
static int stamp_traps;

void watch_stamp_traps(int on)
{
	__atomic_store_n(&stamp_traps, on, __ATOMIC_RELAXED);
}

/* The clocks as the handler starts (watch_trap.in_*), when asked for: time, CPU time, time
 * (two orders of the pair, for the two ways a pair is read: watch.h). */
static SIGSAFE void stamp_now(int64_t *in)
{
	struct timespec ts;

	in[0] = in[1] = in[2] = 0;
	if (!__atomic_load_n(&stamp_traps, __ATOMIC_RELAXED))
		return;
	in[2] = (int64_t)rt_now();
	if (!rt_clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		in[0] = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	in[1] = (int64_t)rt_now();
}

/* Slot i's event, whose number is `sigfd`, trapped (the signal says so); `in`: stamp_now's
 * clocks at the handler's start, or NULL. */
static void dispatch(struct rt_thread *t, struct watch_set *s, int i, int sigfd, siginfo_t *si,
		     const ucontext_t *uc, const int64_t *in)
{
	if (i < 0 || t->busy) {
		/* An old event, or an access made by the runtime itself. */
		STAT_ADD(s, stale);
		return;
	}
	if (set_lock_owner(s, t->tid)) {
		STAT_ADD(s, dropped);
		return;
	}
	struct watch_slot *sl = &s->slot[i];
	if (sl->fd != sigfd || sl->state != SLOT_ARMED || sl->self_traps) {
		if (sl->self_traps)
			sl->self_traps--;
		/* a fired slot whose settle could not lock: not trap on and on */
		if (sl->fd == sigfd && sl->live && sl->state != SLOT_ARMED)
			slot_disarm(s, sl);
		set_unlock(s);
		STAT_ADD(s, stale);
		return;
	}
	/* A signal queued for the slot's previous arming, delivered after a re-arm on the
	 * same fd: no trap since this arming (the count has not moved). */
	uint64_t count = event_count(sl->fd);
	if (count != UINT64_MAX && count <= sl->count0) {
		set_unlock(s);
		STAT_ADD(s, stale);
		return;
	}
	/* The hardware tells the slot, not the access: see struct watch_trap. */
	struct watch_trap w = { .si = si, .ip = uc_ip(uc), .access_addr = sl->addr,
				.stored = sl->type == WATCH_W ? WATCH_TRAP_STORE :
					  sl->type == WATCH_X ? WATCH_TRAP_LOAD :
								WATCH_TRAP_UNKNOWN,
				.stamped = in && in[0] && in[1] && in[2],
				.in_before_ns = in ? in[2] : 0, .in_cpu_ns = in ? in[0] : 0,
				.in_ns = in ? in[1] : 0 };
	int persist = sl->flags & WATCH_PERSIST;
	uint64_t seq = sl->seq;
	int fd = sl->fd;
	watch_fn fn = slot_fire(t, s, i, &w, 1);
	/* the count before the callback or the tool's hook, whichever runs: with no count
	 * taken, every trap so far looked like the hook's own and the slot went deaf (a
	 * persistent reuse watch trapped once, on the sampled access itself) */
	uint64_t before = count;
	set_unlock(s);
	if (trap_call(t, s, fn, &w, uc) && persist)
		note_self_traps(t, s, i, fd, seq, before);
	if (!persist)
		slot_settle(t, s, i, fd);
}

/* ---- the soft backend's traps (called by the inst callbacks, source-inst.c) ---- */

static int range_hit(uint64_t a, uint32_t len, int store, uint64_t wa, uint32_t wlen, int type)
{
	return type != WATCH_X && (store || type == WATCH_RW) && a < wa + wlen && wa < a + len;
}

SIGSAFE unsigned watch_soft_match(struct rt_thread *t, uint64_t addr, uint32_t len, int store)
{
	struct watch_set *s = set_of(t);

	if (!s)
		return 0;
	unsigned armed = __atomic_load_n(&s->h.armed, __ATOMIC_ACQUIRE), hit = 0;
	while (armed) {
		int i = __builtin_ctz(armed);
		const struct watch_slot *sl = &s->slot[i];

		armed &= armed - 1;
		if (__atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) != SLOT_ARMED)
			continue;
		if (range_hit(addr, len, store, __atomic_load_n(&sl->addr, __ATOMIC_RELAXED),
			      __atomic_load_n(&sl->len, __ATOMIC_RELAXED),
			      __atomic_load_n(&sl->type, __ATOMIC_RELAXED)))
			hit |= 1u << i;
	}
	return hit;
}

SIGSAFE void watch_soft_trap(struct rt_thread *t, unsigned mask, uint64_t addr, uint32_t len,
			     int store, uint64_t ip)
{
	struct watch_set *s = set_of(t);

	if (!s || !s->soft)
		return;
	for (; mask; mask &= mask - 1) {
		int i = __builtin_ctz(mask);
		struct watch_slot *sl = &s->slot[i];

		if (t->busy) {
			/* Instrumented code run while the runtime is (a program's signal
			 * handler interrupting it, or a callback's own call). */
			STAT_ADD(s, dropped);
			continue;
		}
		if (set_lock_owner(s, t->tid)) {
			STAT_ADD(s, dropped);
			continue;
		}
		/* Confirm: another thread may have re-armed or disarmed it since the match. */
		if (sl->state != SLOT_ARMED ||
		    !range_hit(addr, len, store, sl->addr, sl->len, sl->type)) {
			set_unlock(s);
			STAT_ADD(s, stale);
			continue;
		}
		struct watch_trap w = { .ip = ip, .access_addr = addr, .access_len = len,
					.stored = store ? WATCH_TRAP_STORE : WATCH_TRAP_LOAD,
					.soft = 1 };
		watch_fn fn = slot_fire(t, s, i, &w, 0);
		set_unlock(s);
		trap_call(t, s, fn, &w, NULL);
	}
}

SIGSAFE void watch_soft_exec(struct rt_thread *t, uint64_t fn, uint64_t slot)
{
	struct watch_set *s = set_of(t);

	if (!s || !s->soft)
		return;
	unsigned armed = __atomic_load_n(&s->h.armed, __ATOMIC_ACQUIRE);
	for (; armed; armed &= armed - 1) {
		int i = __builtin_ctz(armed);
		struct watch_slot *sl = &s->slot[i];

		if (__atomic_load_n(&sl->type, __ATOMIC_RELAXED) != WATCH_X ||
		    __atomic_load_n(&sl->addr, __ATOMIC_RELAXED) != fn)
			continue;
		if (t->busy || set_lock_owner(s, t->tid)) {
			STAT_ADD(s, dropped);
			continue;
		}
		if (sl->state != SLOT_ARMED || sl->type != WATCH_X || sl->addr != fn) {
			set_unlock(s);
			STAT_ADD(s, stale);
			continue;
		}
		struct watch_trap w = { .ip = fn, .access_addr = slot, .access_len = 8,
					.stored = WATCH_TRAP_LOAD, .soft = 1 };
		watch_fn f = slot_fire(t, s, i, &w, 0);
		set_unlock(s);
		trap_call(t, s, f, &w, NULL);
	}
}

SIGSAFE void watch_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	int64_t in[3];

	stamp_now(in);
	struct rt_thread *t = rt_self();
	struct watch_set *s = t ? set_of(t) : NULL;

	/* si_code > 0: sent by the kernel (POLL_IN from the event), not kill/sigqueue. */
	if (s && si && si->si_code > 0)
		dispatch(t, s, slot_by_fd(s, si->si_fd), si->si_fd, si, uc, in);
	errno = saved;
}

SIGSAFE int watch_sigtrap(uint64_t data, int late, siginfo_t *si, void *uc)
{
	if ((data & ~(uint64_t)(WATCH_HW_SLOTS - 1)) != WATCH_SIG_DATA)
		return 0;
	int saved = errno;
	int64_t in[3];

	stamp_now(in);
	struct rt_thread *t = rt_self();
	struct watch_set *s = t ? set_of(t) : NULL;

	if (s && late) {
		/* taken while the program had SIGTRAP blocked, delivered at the unblock: the
		 * context is the unblock's, not the access's (variance would take the
		 * unblock's stack pointer for a return slot and measure a call that never
		 * was).  Left armed: the event's count moved, so its next trap is not stale. */
		STAT_ADD(s, stale);
	} else if (s && !s->soft) {
		int i = (int)(data & (WATCH_HW_SLOTS - 1));
		int fd = __atomic_load_n(&s->slot[i].fd, __ATOMIC_RELAXED);
		/* an event of the slot's that delivers by sigtrap: the fd number is then the
		 * slot's own (dispatch checks it under the lock again) */
		dispatch(t, s, s->slot[i].sigtrap ? i : -1, fd, si, uc, in);
	}
	errno = saved;
	return 1;
}

SIGSAFE void watch_sigtrap_poll(siginfo_t *si, void *uc)
{
	int saved = errno;
	struct rt_thread *t = rt_self();
	struct watch_set *s = t ? set_of(t) : NULL;

	if (!s || s->soft || !__atomic_load_n(&watch_sigtrap_used, __ATOMIC_RELAXED))
		return;
	unsigned armed = __atomic_load_n(&s->h.armed, __ATOMIC_ACQUIRE);
	for (; armed; armed &= armed - 1) {
		int i = __builtin_ctz(armed);
		struct watch_slot *sl = &s->slot[i];
		if (!sl->sigtrap || (sl->flags & WATCH_PERSIST))
			continue;
		/* one-shot: a count past the arming's is a trap not dispatched yet (its
		 * signal merged into the step's); dispatch checks it under the lock */
		uint64_t c = event_count(sl->fd);
		if (c != UINT64_MAX && c > sl->count0) {
			__atomic_fetch_add(&watch_sigtrap_merged, 1, __ATOMIC_RELAXED);
			dispatch(t, s, i, sl->fd, si, uc, NULL);
		}
	}
	errno = saved;
}
