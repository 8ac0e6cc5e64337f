/* SPDX-License-Identifier: MIT */
/*
 * watch-sig.c - the handler-reachable part of the debug-register manager: per-thread watch
 * sets, arming (own thread or another), re-arming, replacement policies, trap dispatch.
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
#include <unistd.h>

#include "rt/rt.h"
#include "rt/watch.h"
#include "rt/sigsafe.h"

#define WATCH_DEAD ((void *)1)			/* t->watch after watch_thread_release */
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
};

struct watch_set {
	int lock;		/* tid of the holder, 0 when free */
	int trap_waiting;	/* the owner's handler wants the lock: armers back off */
	int limit;		/* slots the tool lets us use */
	int cap;		/* events the kernel let us open (refusal lowers it) */
	int nopen;		/* events open now */
	int no_modify;		/* the ioctl failed once here: re-arm by close + open */
	uint64_t seq;
	uint64_t rng;		/* used when the arming thread has no rt_thread */
	struct watch_slot slot[WATCH_MAX_SLOTS];
	struct watch_stats st;
};

#define SET_SIZE ((sizeof(struct watch_set) + 4095) & ~(size_t)4095)
#define STAT_ADD(s, f) __atomic_fetch_add(&(s)->st.f, 1, __ATOMIC_RELAXED)

static int force_reopen;

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
	s->limit = WATCH_MAX_SLOTS;
	s->cap = WATCH_MAX_SLOTS;
	s->rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)tid;
	for (int i = 0; i < WATCH_MAX_SLOTS; i++)
		s->slot[i].fd = -1;
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

static void slot_close(struct watch_set *s, struct watch_slot *sl)
{
	if (sl->fd >= 0) {
		close(sl->fd);
		sl->fd = -1;
		s->nopen--;
	}
	sl->state = SLOT_IDLE;
}

static void slot_disarm(struct watch_slot *sl)
{
	if (sl->state == SLOT_ARMED) {
		ioctl(sl->fd, PERF_EVENT_IOC_DISABLE, 0);
		sl->state = SLOT_IDLE;
	}
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
			close(s->slot[i].fd);
	int no_modify = s->no_modify;
	set_reset(s, t->tid);
	s->no_modify = no_modify;
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

/* The watched block for r: aligned, 1/2/4/8 bytes (1 for an execute breakpoint). */
static int req_range(const struct watch_req *r, uint64_t *addr, uint32_t *len)
{
	uint64_t a = r->addr;
	uint32_t l = r->len;

	if (r->type == WATCH_X) {
		if (l != 8)
			return -EINVAL;
		l = 1;
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

static int runtime_memory(struct rt_thread *t, struct watch_set *s, uint64_t a, uint32_t len)
{
	return rt_owns_address(a) || rt_owns_address(a + len - 1) ||
	       in_block(a, len, t->arena.base, t->arena.size) ||
	       in_block(a, len, t->altstack, t->altstack_size) ||
	       in_block(a, len, s, SET_SIZE) || in_block(a, len, t, sizeof(*t));
}

static int overlaps(const struct watch_set *s, int skip, uint64_t a, uint32_t len, int type)
{
	for (int i = 0; i < WATCH_MAX_SLOTS; i++) {
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

/* Open a disabled breakpoint on t, route its signal to t, then enable it. */
static int slot_open(struct rt_thread *t, struct watch_set *s, struct watch_slot *sl, int type)
{
	struct perf_event_attr at;
	struct f_owner_ex own = { .type = F_OWNER_TID, .pid = t->tid };

	watch_bp_attr(&at, sl->addr, sl->len, type, 1);
	int fd = (int)syscall(SYS_perf_event_open, &at, t->tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Move it first: O_ASYNC records the fd number that si_fd will carry. */
	fd = rt_hide_fd(fd);
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETOWN_EX, &own) || fcntl(fd, F_SETSIG, rt_cfg.sig_watch) ||
	    fcntl(fd, F_SETFL, fl | O_ASYNC) || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		int e = -errno;
		close(fd);
		return e;
	}
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
	/* The handler reads these under the lock we hold, so order does not matter. */
	sl->state = SLOT_IDLE;
	sl->addr = a;
	sl->len = len;
	sl->type = r->type;
	sl->flags = r->flags;
	sl->fn = r->on_trap;
	sl->cookie = r->cookie;
	sl->seq = ++s->seq;
	sl->traps = 0;
	sl->self_traps = 0;
	if (sl->fd >= 0 && !s->no_modify && !__atomic_load_n(&force_reopen, __ATOMIC_RELAXED)) {
		/* Same attr as at open but address, length, type and disabled = 0. */
		watch_bp_attr(&at, a, len, r->type, 0);
		tried = 1;
		err = ioctl(sl->fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &at) ? -errno : 0;
		if (!err)
			s->st.modifies++;
	}
	if (err) {
		int reopen = sl->fd >= 0;
		slot_close(s, sl);
		err = slot_open(t, s, sl, r->type);
		if (!err && reopen)
			s->st.reopens++;
		if (!err && tried)
			s->no_modify = 1;	/* the ioctl, not the request, was the problem */
	}
	if (!err)
		sl->state = SLOT_ARMED;
	return err;
}

static int arm_locked(struct rt_thread *t, struct watch_set *s, const struct watch_req *r,
		      uint64_t a, uint32_t len)
{
	if (overlaps(s, -1, a, len, r->type))
		return -EEXIST;
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
			return i;
		}
		/* Someone else holds a debug register of t: we have fewer than we thought. */
		if (err == -ENOSPC && fresh && s->nopen < s->cap) {
			s->cap = s->nopen;
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
	int err = req_range(r, a, len);

	if (err)
		return err;
	if (rt_cfg.sig_watch <= 0 || t->tid <= 0)
		return -EINVAL;
	err = set_create(t, 0);
	if (err)
		return err;
	struct watch_set *s = set_of(t);
	if (!s)
		return -ESRCH;
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
	if (sl->fd < 0 || slot >= s->limit)
		err = -ENOENT;
	else if (overlaps(s, slot, a, len, r->type))
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

int watch_disarm(struct rt_thread *t, int slot)
{
	struct watch_set *s = set_of(t);

	if (!s || slot < 0 || slot >= WATCH_MAX_SLOTS)
		return -EINVAL;
	int err = set_lock(s, my_tid(), SPIN_ARM);
	if (err)
		return err;
	slot_disarm(&s->slot[slot]);
	set_unlock(s);
	return 0;
}

void watch_disarm_all(struct rt_thread *t)
{
	for (int i = 0; i < WATCH_MAX_SLOTS; i++)
		watch_disarm(t, i);
}

int watch_slot_get(struct rt_thread *t, int slot, struct watch_slot_info *out)
{
	struct watch_set *s = set_of(t);

	if (!s || slot < 0 || slot >= WATCH_MAX_SLOTS)
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
	for (int i = 0; i < WATCH_MAX_SLOTS; i++)
		if (__atomic_load_n(&s->slot[i].fd, __ATOMIC_RELAXED) == fd)
			return i;
	return -1;
}

static uint64_t event_count(int fd)
{
	uint64_t c = 0;
	if (read(fd, &c, sizeof(c)) != (ssize_t)sizeof(c))
		return 0;
	return c;
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

	if (after <= before || set_lock_owner(s, t->tid))
		return;
	if (sl->seq == seq && sl->fd == fd && sl->state == SLOT_ARMED)
		sl->self_traps += after - before;
	set_unlock(s);
}

static void dispatch(struct rt_thread *t, struct watch_set *s, siginfo_t *si,
		     const ucontext_t *uc)
{
	int i = slot_by_fd(s, si->si_fd);

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
	if (sl->fd != si->si_fd || sl->state != SLOT_ARMED || sl->self_traps) {
		if (sl->self_traps)
			sl->self_traps--;
		set_unlock(s);
		STAT_ADD(s, stale);
		return;
	}
	watch_fn fn = sl->fn;
	void *cookie = sl->cookie;
	struct watch_trap w = { .slot = i, .cookie = cookie, .addr = sl->addr, .len = sl->len,
				.type = sl->type, .si = si };
	int persist = sl->flags & WATCH_PERSIST;
	uint64_t seq = sl->seq;
	int fd = sl->fd;
	if (!persist) {
		ioctl(sl->fd, PERF_EVENT_IOC_DISABLE, 0);
		sl->state = SLOT_IDLE;
	}
	sl->traps++;
	STAT_ADD(s, traps);
	t->stats.traps++;
	uint64_t before = persist && fn ? event_count(fd) : 0;
	set_unlock(s);
	if (t->stopped)
		return;
	if (fn)
		fn(t, i, cookie, uc, si);
	else if (rt_tool && rt_tool->trap)
		rt_tool->trap(t, &w, uc);
	else
		return;
	if (persist)
		note_self_traps(t, s, i, fd, seq, before);
}

SIGSAFE void watch_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	struct rt_thread *t = rt_self();
	struct watch_set *s = t ? set_of(t) : NULL;

	/* si_code > 0: sent by the kernel (POLL_IN from the event), not kill/sigqueue. */
	if (s && si && si->si_code > 0)
		dispatch(t, s, si, uc);
	errno = saved;
}
