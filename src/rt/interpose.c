/* SPDX-License-Identifier: MIT */
/*
 * interpose.c - malloc family, mmap/mremap/munmap, dlopen, and descriptor (close,
 * close_range, closefrom, dup2, dup3) interposers.
 *
 * Tracking costs one TLS read and a size compare per allocation below min_object, and a
 * hash probe per free once anything is tracked.  Tracked blocks live in a lock-free
 * open-addressing set so free() knows whether to write a FREE record.
 *
 * dlsym(RTLD_NEXT, "malloc") may itself call calloc: until the real functions are known,
 * requests are served from a static buffer (never freed).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <malloc.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt/ctx.h"
#include "rt/interpose.h"
#include "rt/rt.h"
#include "rt/thread.h"

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_valloc)(size_t);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_munmap)(void *, size_t);
static void *(*real_mremap)(void *, size_t, size_t, int, ...);
static void *(*real_dlopen)(const char *, int);
static int (*real_dl_iterate_phdr)(int (*)(struct dl_phdr_info *, size_t, void *), void *);
static int (*real_dlclose)(void *);
static int (*real_close)(int);
static int (*real_close_range)(unsigned int, unsigned int, int);
static int (*real_dup2)(int, int);
static int (*real_dup3)(int, int, int);

static char boot_buf[64 << 10] __attribute__((aligned(64))) RT_LARGE;
static size_t boot_used;
static int resolving;

static void *boot_alloc(size_t n)
{
	size_t k = (n + 63) & ~(size_t)63;
	if (boot_used + k > sizeof(boot_buf))
		return NULL;
	void *p = boot_buf + boot_used;
	boot_used += k;
	return p;
}

static int is_boot(const void *p)
{
	return (const char *)p >= boot_buf && (const char *)p < boot_buf + sizeof(boot_buf);
}

void interpose_init(void)
{
	if (real_malloc || resolving)
		return;
	resolving = 1;
	real_calloc = dlsym(RTLD_NEXT, "calloc");
	real_malloc = dlsym(RTLD_NEXT, "malloc");
	real_realloc = dlsym(RTLD_NEXT, "realloc");
	real_free = dlsym(RTLD_NEXT, "free");
	real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
	real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
	real_memalign = dlsym(RTLD_NEXT, "memalign");
	real_valloc = dlsym(RTLD_NEXT, "valloc");
	real_mmap = dlsym(RTLD_NEXT, "mmap");
	real_munmap = dlsym(RTLD_NEXT, "munmap");
	real_mremap = dlsym(RTLD_NEXT, "mremap");
	real_dlopen = dlsym(RTLD_NEXT, "dlopen");
	real_dlclose = dlsym(RTLD_NEXT, "dlclose");
	real_dl_iterate_phdr = dlsym(RTLD_NEXT, "dl_iterate_phdr");
	real_close = dlsym(RTLD_NEXT, "close");
	real_close_range = dlsym(RTLD_NEXT, "close_range");
	real_dup2 = dlsym(RTLD_NEXT, "dup2");
	real_dup3 = dlsym(RTLD_NEXT, "dup3");
	resolving = 0;
}

void *interpose_real_malloc(size_t n)
{
	interpose_init();
	return real_malloc ? real_malloc(n) : boot_alloc(n);
}

void interpose_real_free(void *p)
{
	if (p && !is_boot(p) && real_free)
		real_free(p);
}

/* ---- the set of tracked blocks ---- */

#define SET_BITS 20
#define SET_SIZE (1u << SET_BITS)
#define SET_PROBES 64
#define TOMB ((uintptr_t)1)

static uintptr_t *set;
/* Set once a block is tracked, never cleared: free() of untracked blocks probes nothing
 * before.  (A count kept in step cost every allocation and free a shared atomic add: its
 * cache line moved between the cores at each one.) */
static volatile int any_tracked;

static uintptr_t *set_get(void)
{
	if (!set) {
		void *p = real_mmap ? real_mmap(NULL, SET_SIZE * sizeof(uintptr_t),
						PROT_READ | PROT_WRITE,
						MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0) :
				      MAP_FAILED;
		if (p == MAP_FAILED)
			return NULL;
		if (!__sync_bool_compare_and_swap(&set, NULL, (uintptr_t *)p))
			real_munmap(p, SET_SIZE * sizeof(uintptr_t));
	}
	return set;
}

static uint32_t slot_of(uintptr_t a)
{
	return (uint32_t)((a * 0x9e3779b97f4a7c15ull) >> (64 - SET_BITS));
}

static int set_add(uintptr_t a)
{
	uintptr_t *s = set_get();
	if (!s)
		return -ENOMEM;
	for (uint32_t i = 0, h = slot_of(a); i < SET_PROBES; i++, h = (h + 1) & (SET_SIZE - 1)) {
		uintptr_t v = s[h];
		if ((v == 0 || v == TOMB) && __sync_bool_compare_and_swap(&s[h], v, a)) {
			if (!any_tracked)
				any_tracked = 1;
			return 0;
		}
	}
	return -ENOSPC;
}

static int set_del(uintptr_t a)
{
	if (!any_tracked || !set)
		return 0;
	for (uint32_t i = 0, h = slot_of(a); i < SET_PROBES; i++, h = (h + 1) & (SET_SIZE - 1)) {
		uintptr_t v = set[h];
		if (v == 0)
			return 0;
		if (v == a && __sync_bool_compare_and_swap(&set[h], a, TOMB))
			return 1;
	}
	return 0;
}

/* ---- records ---- */

/* The allocation call site: the return address of the interposed function. */
#define SITE ((uint64_t)(uintptr_t)__builtin_return_address(0))

/*
 * Allocation call paths, cached per thread by call site and by the site's callers.
 * Unwinding every allocation of a tracked size costs microseconds, far more than the
 * allocation (a malloc-heavy program ran 70x slower).  So a path is unwound the first time
 * and then once every SITE_REFRESH allocations (to pick up other paths to it).  The site
 * alone (the interposer's return address) is not the key: in the program's own wrapper
 * (xmalloc) it is the same for every caller, and the first caller's path was given to
 * all, its 64th allocation alone unwound again (the usability review of 2026-11-28: two
 * callers alternating read 99.4% the first's; 100 of each in turn, 128 and 72).  Nor are
 * the site and its caller's return address: a wrapper of a wrapper (minisweep's
 * Pointer_allocate -> Pointer_allocate_h_ -> malloc_host_P -> malloc) has the same two
 * for every caller, and 11 arrays of 22 MB read as one object, the first caller's (the
 * trial of 2026-11-29, F1).  The key is the site and the next SITE_LEVELS return
 * addresses above it, read from the stack: each found there at the first unwind of the
 * key so far (above the previous one, from this function's frame up the stack; the
 * offset is the same at every call along one chain of return addresses: our frames and
 * those callers' at those calls do not change), read at that offset afterwards.  Sites
 * inside allocation wrappers (strdup, operator new, std::allocator: code in libc or
 * libstdc++) are always unwound, since the object's name is their caller's.
 */
#define SITE_SLOTS 512
#define SITE_REFRESH 64
#define SITE_SCAN_MAX 65536	/* words (512 KiB) above the anchor looked through */
#define SITE_LEVELS 4

struct site_slot {		/* a path, by its key: the site and the return addresses above */
	uint64_t key;
	uint32_t ctx, uses;
};

struct site_where {		/* where the next return address above a key's lies */
	uint64_t key;		/* the site, then mixed with each return address above it */
	int32_t k;		/* words from the anchor; -1: not found (the key is whole), -2:
				 * found elsewhere once (a frame whose size varies: unwind) */
};

/*
 * Short-lived blocks.  A program that allocates and frees millions of tracked blocks a
 * second (a C++ temporary in a loop) would write an ALLOC and a FREE record for each:
 * 200 MB and seconds of report for a 0.1-s run (bench/mem.sh, rt2-heap churn).  A block's
 * records matter only if a sample or trap can fall in it, and none can if the process made
 * no observation at all between its allocation and its free (rt_obs_epoch unchanged).  So
 * the thread holds its newest ALLOC records back (PEND_SLOTS, by address, PEND_WAYS
 * places each); a free that
 * finds its block still held with the epoch unchanged drops the record and adds the block
 * to its site's count (SUM_SLOTS, by context; written as SONDE_ALLOC_SUMMARY records).  A
 * held record is written when its slot is needed, when the epoch moved before its free,
 * and when the thread finishes (interpose_thread_flush).  Blocks freed by another thread
 * are written as before.  At the default rates (about 1,000 observations a second per
 * thread) a block that lives a microsecond is counted, not recorded, 99.9% of the time.
 */
#define PEND_BITS 7
#define PEND_SLOTS (1 << PEND_BITS)
#define PEND_WAYS 4
#define SUM_SLOTS 64

struct pend_slot {
	struct sonde_rec_alloc r;	/* r.addr 0: empty */
	uint64_t epoch;
};

struct sum_slot {
	uint32_t ctx;
	uint64_t count, bytes, time;
};

/* The thread's state here (t->alloc_sites, from its arena). */
struct alloc_state {
	struct site_slot site[SITE_SLOTS];
	struct site_where where[SITE_SLOTS];
	struct pend_slot pend[PEND_SLOTS];
	struct sum_slot sum[SUM_SLOTS];
	uint32_t seen_tick;	/* interpose_flush_seen's count of observations */
};

static struct rt_ranges wrappers;

void interpose_add_wrapper_range(uint64_t lo, uint64_t hi)
{
	rt_ranges_add(&wrappers, lo, hi);
}

static int cacheable(uint64_t site)
{
	if (rt_owns_address(site))
		return 0;
	return !rt_ranges_has(&wrappers, site);
}

static struct alloc_state *alloc_state(struct rt_thread *t)
{
	if (!t->alloc_sites)
		t->alloc_sites = arena_alloc(&t->arena, sizeof(struct alloc_state));
	return t->alloc_sites;
}

static inline size_t site_hash(uint64_t a)
{
	return (size_t)((a * 0x9e3779b97f4a7c15ull) >> (64 - 9));
}

/* Whether words [w, w + n) lie in the thread's stack (unknown bounds: no). */
static int stack_holds(const struct rt_thread *t, const uint64_t *w, size_t n)
{
	uint64_t a = (uint64_t)(uintptr_t)w;
	return t->stack_lo && a >= t->stack_lo && a + n * 8 <= t->stack_hi;
}

/* The key of a path one return address longer. */
static inline uint64_t key_mix(uint64_t key, uint64_t ra)
{
	uint64_t z = key ^ (ra * 0xff51afd7ed558ccdull);
	z ^= z >> 33;
	z *= 0xc4ceb9fe1a85ec53ull;
	z ^= z >> 33;
	return z ? z : 1;
}

static __attribute__((noinline)) uint32_t alloc_ctx(struct rt_thread *t,
						     struct alloc_state *st, uint64_t site)
{
	if (!st || !cacheable(site))
		return ctx_here(t, NULL, 0);
	/* the anchor: this function's frame; the site's callers' frames lie above it */
	const uint64_t *anchor = __builtin_frame_address(0);
	uint64_t key = site;
	int known = 1;		/* every level's offset learned: key is the path's */
	for (int l = 0; l < SITE_LEVELS; l++) {
		const struct site_where *wh = &st->where[site_hash(key)];
		if (wh->key != key || wh->k == -2) {
			known = 0;
			break;
		}
		if (wh->k < 0)
			break;
		if (!stack_holds(t, anchor, (size_t)wh->k + 1)) {
			known = 0;
			break;
		}
		key = key_mix(key, anchor[wh->k]);
	}
	struct site_slot *e = &st->site[site_hash(key)];
	if (known && e->key == key && e->ctx && (++e->uses % SITE_REFRESH))
		return e->ctx;
	uint64_t ips[256];
	int max = rt_cfg.max_depth > 0 && rt_cfg.max_depth < 256 ? rt_cfg.max_depth : 256;
	int n = ctx_unwind(t, NULL, 0, ips, max);
	uint32_t ctx = ctx_intern(t, ips, n);
	if (!ctx)
		return 0;
	if (n <= 0)
		return ctx;	/* nothing unwound (a fork under way, the loader's lock...) */
	int i = 0;
	while (i < n - 1 && i < 8 && ips[i] != site)
		i++;
	if (ips[i] != site)
		return ctx;	/* the site is not on the path: nothing to learn */
	/* Learn (or check) each level's offset along the unwound path, looking up to the
	 * stack's end (the main thread's may lie a few hundred bytes above the anchor's
	 * page: a bound of 96 words missed the slot in 2 runs of 3), at most SITE_SCAN_MAX
	 * words.  An anchor off the thread's known stack (a signal's alternate stack,
	 * unknown bounds) and a path cut short learn nothing: the allocation is unwound and
	 * the keys stay as they were (the code review of 2026-11-30).  The offset is checked
	 * at every unwind, since a wrapper whose frame size varies (alloca, a VLA) puts its
	 * return address elsewhere, and the word read there could be the same for two
	 * callers (the review of 2026-11-28: one caller's 4,000 blocks named after the
	 * other): at the site's own level such a key is unwound every time (k -2); above
	 * it, the key ends there (k -1), the paths told apart by the levels below. */
	uint64_t a0 = (uint64_t)(uintptr_t)anchor;
	size_t top = stack_holds(t, anchor, 1) ? (size_t)((t->stack_hi - a0) / 8) : 0;
	if (top > SITE_SCAN_MAX)
		top = SITE_SCAN_MAX;
	if (!top)
		return ctx;
	key = site;
	for (int l = 0, from = 0; l < SITE_LEVELS; l++) {
		struct site_where *wh = &st->where[site_hash(key)];
		uint64_t ra = i + l + 1 < n ? ips[i + l + 1] : 0;
		if (wh->key == key && wh->k == -2)
			return ctx;
		if (wh->key == key && wh->k >= 0) {
			if (!ra || (size_t)wh->k >= top)
				return ctx;	/* cut short, or another stack: learn nothing */
			if (anchor[wh->k] != ra) {
				wh->k = l ? -1 : -2;
				if (!l)
					return ctx;
			}
		} else if (wh->key != key) {	/* first unwind of this key: where the next is */
			int k = -1;
			for (size_t w = (size_t)from; ra && w < top && k < 0; w++)
				if (anchor[w] == ra)
					k = (int)w;
			wh->key = key;
			/* not found (no return address unwound, or not on this stack): the
			 * key ends here, or, at the site's own level with an address, unwound */
			wh->k = k >= 0 ? k : ra && !l ? -2 : -1;
			if (wh->k == -2)
				return ctx;
		}
		if (wh->k < 0)
			break;
		from = wh->k + 1;
		key = key_mix(key, ra);
	}
	e = &st->site[site_hash(key)];
	if (e->key != key) {
		e->key = key;
		e->uses = 0;
	}
	e->ctx = ctx;
	return ctx;
}

/* The held record of addr, or NULL: its slot is one of PEND_WAYS from addr's hash. */
static struct pend_slot *pend_find(struct alloc_state *st, uint64_t addr)
{
	uint32_t h = (uint32_t)(((addr >> 4) * 0x9e3779b97f4a7c15ull) >> (64 - PEND_BITS));
	for (int i = 0; i < PEND_WAYS; i++) {
		struct pend_slot *e = &st->pend[(h + (uint32_t)i) & (PEND_SLOTS - 1)];
		if (e->r.addr == addr)
			return e;
	}
	return NULL;
}

/* A slot for addr's record: an empty one of its PEND_WAYS, else the first, whose record
 * is written out first. */
static struct pend_slot *pend_take(struct rt_thread *t, struct alloc_state *st, uint64_t addr)
{
	uint32_t h = (uint32_t)(((addr >> 4) * 0x9e3779b97f4a7c15ull) >> (64 - PEND_BITS));
	for (int i = 0; i < PEND_WAYS; i++) {
		struct pend_slot *e = &st->pend[(h + (uint32_t)i) & (PEND_SLOTS - 1)];
		if (!e->r.addr)
			return e;
	}
	struct pend_slot *e = &st->pend[h];
	out_append(&t->out, &e->r, sizeof(e->r));
	return e;
}

static void sum_write(struct rt_thread *t, struct sum_slot *e)
{
	struct sonde_rec_alloc r = {
		.h = { .type = SONDE_REC_ALLOC, .size = sizeof(r) },
		.ctx = e->ctx,
		.flags = SONDE_ALLOC_SUMMARY,
		.addr = e->count,
		.size = e->bytes,
		.time = e->time,
	};
	out_append(&t->out, &r, sizeof(r));
	e->count = 0;
}

/* A held block freed unseen: count it at its context. */
static void sum_add(struct rt_thread *t, struct alloc_state *st, const struct sonde_rec_alloc *a)
{
	struct sum_slot *e = &st->sum[(a->ctx * 0x9e3779b9u) >> (32 - 6)];
	if (e->count && e->ctx != a->ctx)
		sum_write(t, e);
	e->ctx = a->ctx;
	e->count++;
	e->bytes += a->size;
	e->time = a->time;
}

/* Write the held records, all of them, or (seen) those whose block outlived an
 * observation (its epoch is no longer the current one). */
static void pend_write(struct rt_thread *t, struct alloc_state *st, int seen)
{
	uint64_t now = __atomic_load_n(&rt_obs_epoch, __ATOMIC_RELAXED);
	for (int i = 0; i < PEND_SLOTS; i++)
		if (st->pend[i].r.addr && (!seen || st->pend[i].epoch != now)) {
			out_append(&t->out, &st->pend[i].r, sizeof(st->pend[i].r));
			st->pend[i].r.addr = 0;
		}
}

void interpose_thread_flush(struct rt_thread *t)
{
	struct alloc_state *st = t->alloc_sites;
	if (!st)
		return;
	pend_write(t, st, 0);
	for (int i = 0; i < SUM_SLOTS; i++)
		if (st->sum[i].count)
			sum_write(t, &st->sum[i]);
}

/*
 * The held records of blocks that outlived an observation (their epoch moved): written
 * now, as their free would write them, so that a process killed by SIGKILL (a batch
 * system's time limit, the OOM killer), which runs no handler, keeps them (the usability
 * review of 2026-11-28: every heap object of such a run read [unknown], the records of its
 * long-lived blocks held until their free).  From rt_deliver_access, the thread claimed;
 * every FLUSH_EVERY observations of the thread.  Handler-safe.
 */
#define FLUSH_EVERY 64

void interpose_flush_seen(struct rt_thread *t)
{
	struct alloc_state *st = t->alloc_sites;
	if (st && !(++st->seen_tick % FLUSH_EVERY))
		pend_write(t, st, 1);
}

static __attribute__((noinline)) void track_alloc(void *p, size_t n, uint32_t flags,
						   uint64_t site)
{
	struct rt_thread *t = rt_self();
	if (!p || !t || !rt_tool || !(rt_tool->flags & RT_TOOL_OBJECTS) || rt_enter(t))
		return;
	int added = set_add((uintptr_t)p);
	if (added == -ENOSPC)	/* said at the end: their data reads as untracked */
		__atomic_fetch_add(&rt_alloc_table_full, 1, __ATOMIC_RELAXED);
	if (added == 0) {
		struct alloc_state *st = alloc_state(t);
		struct sonde_rec_alloc r = {
			.h = { .type = SONDE_REC_ALLOC, .size = sizeof(r) },
			.ctx = alloc_ctx(t, st, site),
			.flags = flags,
			.addr = (uint64_t)(uintptr_t)p,
			.size = n,
			.time = rt_now(),
		};
		if (st && !flags) {	/* malloc family: held back (mappings are few) */
			struct pend_slot *e = pend_take(t, st, r.addr);
			e->r = r;
			e->epoch = __atomic_load_n(&rt_obs_epoch, __ATOMIC_RELAXED);
		} else {
			out_append(&t->out, &r, sizeof(r));
		}
	}
	rt_leave(t);
}

/* 1 if p was a tracked block (its life ends here), else 0. */
static int track_free(void *p)
{
	if (!p || !set_del((uintptr_t)p))
		return 0;
	struct rt_thread *t = rt_self();
	/* no record: the reader ends the block's life at the next reuse of the address */
	if (!t || rt_enter(t))
		return 1;
	struct alloc_state *st = t->alloc_sites;
	struct pend_slot *e = st ? pend_find(st, (uint64_t)(uintptr_t)p) : NULL;
	if (e) {
		if (e->epoch == __atomic_load_n(&rt_obs_epoch, __ATOMIC_RELAXED)) {
			sum_add(t, st, &e->r);	/* nothing could see it: counted */
			e->r.addr = 0;
			rt_leave(t);
			return 1;
		}
		out_append(&t->out, &e->r, sizeof(e->r));
		e->r.addr = 0;
	}
	struct sonde_rec_free r = {
		.h = { .type = SONDE_REC_FREE, .size = sizeof(r) },
		.addr = (uint64_t)(uintptr_t)p,
		.time = rt_now(),
	};
	out_append(&t->out, &r, sizeof(r));
	rt_leave(t);
	return 1;
}

/* interpose_scratch's buffer, per thread */
struct scratch {
	char *buf;
	size_t size, used;
};
static RT_TLS struct scratch scratch;

void interpose_scratch(void *buf, size_t size)
{
	scratch = (struct scratch){ buf, size, 0 };
}

/* n bytes from the thread's scratch buffer, or NULL (none, or no room) */
static void *scratch_alloc(size_t n)
{
	size_t k = (n + 15) & ~(size_t)15;

	if (!scratch.buf || k < n || k > scratch.size - scratch.used)
		return NULL;
	scratch.used += k;
	return scratch.buf + scratch.used - k;
}

static int in_scratch(const void *p)
{
	return scratch.buf && (const char *)p >= scratch.buf &&
	       (const char *)p < scratch.buf + scratch.size;
}

/*
 * The runtime's own allocations while a thread is inside interpose_own(1): its start-up
 * (the dlopens of the decoder and unwinder, fopen, opendir: ~40 blocks) and a fork child's
 * restart.  From the program's heap they shifted every later block the program allocates:
 * under sonde its first malloc returned ...2f0 where alone it returns ...2a0, and the next
 * ones went into the runtime's freed chunks (630, 680 against 2c0, 310): blocks the program
 * lays out side by side landed in other cache lines, so comm's false sharing was not the
 * program's.  They come from one reserved mapping instead, cut in order (a free gives
 * back the room of the last block only); the program's heap is the one it has alone (t076).
 */
#define OWN_SIZE ((size_t)16 << 20)	/* reserved; start-up keeps 9 KB (comm), 13 (mem) */
static char *own_base;
static size_t own_used;
static RT_TLS int own_depth;

void interpose_own(int on)
{
	own_depth += on ? 1 : -1;
}

static int is_own(const void *p)
{
	const char *b = __atomic_load_n(&own_base, __ATOMIC_ACQUIRE);
	return b && (const char *)p >= b && (const char *)p < b + OWN_SIZE;
}

/* n bytes aligned to align (a power of 2), the size kept in the 8 bytes before; NULL when
 * the mapping is full (the caller takes the program's allocator then) */
static void *own_alloc(size_t n, size_t align)
{
	char *b = __atomic_load_n(&own_base, __ATOMIC_ACQUIRE);
	if (!b) {
		void *m = (void *)syscall(SYS_mmap, NULL, OWN_SIZE, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		char *none = NULL;
		if (!__atomic_compare_exchange_n(&own_base, &none, (char *)m, 0,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			syscall(SYS_munmap, m, OWN_SIZE);	/* another thread's is there */
		b = __atomic_load_n(&own_base, __ATOMIC_ACQUIRE);
	}
	if (align > 4096)
		return NULL;	/* the mapping starts on a page: larger ones from the heap */
	if (align < 16)
		align = 16;
	size_t u = __atomic_load_n(&own_used, __ATOMIC_RELAXED), at, end;
	do {
		at = (u + 8 + align - 1) & ~(align - 1);
		if (n > OWN_SIZE || at > OWN_SIZE - n)
			return NULL;
		end = (at + n + 15) & ~(size_t)15;
	} while (!__atomic_compare_exchange_n(&own_used, &u, end, 0, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	((size_t *)(b + at))[-1] = n;
	((size_t *)(b + at))[-2] = u;	/* at >= u + 16: u is a multiple of 16 */
	return b + at;
}

/* A free of the last block cut gives its room back (fopen and fclose, opendir and
 * closedir: of start-up's 183 KB cut, 9 KB stay in use under comm); another's stays. */
static void own_free(void *p)
{
	char *b = __atomic_load_n(&own_base, __ATOMIC_ACQUIRE);
	size_t at = (size_t)((char *)p - b), n = ((size_t *)p)[-1];
	size_t end = (at + n + 15) & ~(size_t)15;
	__atomic_compare_exchange_n(&own_used, &end, ((size_t *)p)[-2], 0, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
}

static size_t own_size_of(const void *p)
{
	return ((const size_t *)p)[-1];
}

/*
 * A new thread's DTV, from the runtime's mapping too, with a block of the size the
 * program alone would have had in its heap in its place.  glibc sizes the DTV by the
 * modules with TLS (16 bytes each, calloc(k, 16) from the loader, k >= 16), and
 * libsonde.so is one more (libunwind another, under mem): every pthread_create moved the
 * creator's later blocks 16 or 32 bytes (t076).  The stand-in is allocated and freed
 * with the DTV; the DTVs come from fixed slots, a freed one reused.
 */
#define DTV_SLOT 1024			/* 63 entries: up to 47 modules with TLS (a DTV
					 * has 16 more), beyond, the heap's */
#define DTV_SLOTS 8192			/* threads living or with their stack cached */
struct dtv_slot {
	void *stand_in;
	uint32_t next_free;		/* a free slot's successor + 1, 0: none */
	uint32_t pad;
	char dtv[DTV_SLOT - 16];
};
static struct dtv_slot *dtv_base;
static uint64_t dtv_loader_lo, dtv_loader_hi;
static size_t dtv_extra;		/* bytes the runtime's modules add to a DTV */
static uint32_t dtv_free, dtv_used;	/* the free list's head + 1; slots ever cut */
static int dtv_lock;

void interpose_dtv_setup(uint64_t loader_lo, uint64_t loader_hi, int modules)
{
	if (modules <= 0 || dtv_base)
		return;
	void *m = (void *)syscall(SYS_mmap, NULL, sizeof(struct dtv_slot) * DTV_SLOTS,
				  PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return;
	dtv_loader_lo = loader_lo;
	dtv_loader_hi = loader_hi;
	dtv_extra = (size_t)modules * 16;
	__atomic_store_n(&dtv_base, (struct dtv_slot *)m, __ATOMIC_RELEASE);
}

static int is_dtv(const void *p)
{
	const char *b = (const char *)__atomic_load_n(&dtv_base, __ATOMIC_ACQUIRE);
	return b && (const char *)p >= b &&
	       (const char *)p < b + sizeof(struct dtv_slot) * DTV_SLOTS;
}

static void dtv_lock_take(void)
{
	while (__atomic_exchange_n(&dtv_lock, 1, __ATOMIC_ACQUIRE))
		__builtin_ia32_pause();
}

/* a DTV of total bytes for the loader's calloc, or NULL (the heap's, as before) */
static void *dtv_alloc(size_t total)
{
	if (total > sizeof(((struct dtv_slot *)0)->dtv) || total <= dtv_extra)
		return NULL;
	void *stand_in = real_calloc(1, total - dtv_extra);
	if (!stand_in)
		return NULL;
	struct dtv_slot *s = NULL;
	dtv_lock_take();
	if (dtv_free) {
		s = &dtv_base[dtv_free - 1];
		dtv_free = s->next_free;
	} else if (dtv_used < DTV_SLOTS) {
		s = &dtv_base[dtv_used++];
	}
	__atomic_store_n(&dtv_lock, 0, __ATOMIC_RELEASE);
	if (!s) {
		real_free(stand_in);
		return NULL;
	}
	s->stand_in = stand_in;
	return memset(s->dtv, 0, total);
}

/* fork: the slots' lock taken around it (a thread creating threads while another forks
 * left it held in the child, whose next thread start spun for ever: the code review of
 * 2026-11-29); 0 prepare, 1 parent, 2 child */
void interpose_fork(int phase)
{
	if (!dtv_base)
		return;
	if (phase == 0)
		dtv_lock_take();
	else
		__atomic_store_n(&dtv_lock, 0, __ATOMIC_RELEASE);
}

static void dtv_release(void *p)
{
	struct dtv_slot *s = &dtv_base[((char *)p - (char *)dtv_base) / sizeof(*s)];
	real_free(s->stand_in);
	dtv_lock_take();
	s->next_free = dtv_free;
	dtv_free = (uint32_t)(s - dtv_base) + 1;
	__atomic_store_n(&dtv_lock, 0, __ATOMIC_RELEASE);
}

static inline int worth(size_t n)
{
	return n >= rt_cfg.min_object && rt_cfg.enabled;
}

RT_EXPORT void *malloc(size_t n)
{
	void *p;
	if (own_depth && (p = own_alloc(n, 16)))
		return p;
	if (!real_malloc) {
		interpose_init();
		if (!real_malloc)
			return boot_alloc(n);
	}
	p = scratch.buf ? scratch_alloc(n) : NULL;
	if (p)
		return p;
	p = real_malloc(n);
	if (worth(n))
		track_alloc(p, n, 0, SITE);
	return p;
}

RT_EXPORT void *calloc(size_t k, size_t n)
{
	size_t total;
	void *p;
	if (own_depth && !__builtin_mul_overflow(k, n, &total) && (p = own_alloc(total, 16)))
		return memset(p, 0, total);	/* the room of a freed block, maybe */
	uint64_t ret = (uint64_t)(uintptr_t)__builtin_return_address(0);
	if (n == 16 && k >= 16 && ret >= dtv_loader_lo && ret < dtv_loader_hi && dtv_base &&
	    real_calloc && (p = dtv_alloc(k * n)))
		return p;	/* a thread's DTV, from the loader's allocate_dtv */
	if (!real_calloc) {
		if (resolving)
			return boot_alloc(k * n);	/* static buffer is zeroed */
		interpose_init();
		if (!real_calloc)
			return boot_alloc(k * n);
	}
	p = scratch.buf && !__builtin_mul_overflow(k, n, &total) ? scratch_alloc(total) : NULL;
	if (p)
		return memset(p, 0, total);
	p = real_calloc(k, n);
	if (!__builtin_mul_overflow(k, n, &total) && worth(total))
		track_alloc(p, total, 0, SITE);
	return p;
}

RT_EXPORT void *realloc(void *old, size_t n)
{
	if (old ? is_own(old) : own_depth > 0) {	/* from the runtime's, or into it */
		size_t have = old ? own_size_of(old) : 0;
		void *p = malloc(n);
		if (p && old) {
			memmove(p, old, have < n ? have : n);	/* p may be old's room */
			free(old);
		}
		return p;
	}
	if (is_dtv(old) && n <= sizeof(((struct dtv_slot *)0)->dtv) && n > dtv_extra) {
		/* the loader's resize (a dlopen of more modules with TLS): in the slot, the
		 * stand-in resized as the program's own DTV would be */
		struct dtv_slot *s = &dtv_base[((char *)old - (char *)dtv_base) / sizeof(*s)];
		void *si = real_realloc(s->stand_in, n - dtv_extra);
		if (!si)
			return NULL;
		s->stand_in = si;
		return old;
	}
	if (is_dtv(old)) {	/* beyond the slot: to the heap */
		void *p = real_malloc(n);
		if (p) {
			memcpy(p, old, n < sizeof(((struct dtv_slot *)0)->dtv) ? n :
						  sizeof(((struct dtv_slot *)0)->dtv));
			dtv_release(old);
		}
		return p;
	}
	if (is_boot(old)) {
		void *p = malloc(n);
		if (p)
			memcpy(p, old, n);	/* boot blocks are small and never moved again */
		return p;
	}
	if (scratch.buf && (!old || in_scratch(old))) {
		/* a scratch block is followed by the ones cut after it, or by free room */
		size_t have = old ? (size_t)(scratch.buf + scratch.used - (char *)old) : 0;
		void *p = scratch_alloc(n);
		if (!p)
			p = malloc(n);
		if (p && old)
			memcpy(p, old, have < n ? have : n);
		return p;
	}
	if (!real_realloc)
		interpose_init();
	/* before the call: once the block moves, another thread may get its old address */
	int was_tracked = track_free(old);
	void *p = real_realloc(old, n);
	if (!p && n && was_tracked)	/* failed: the old block lives on */
		track_alloc(old, malloc_usable_size(old), 0, SITE);
	else if (worth(n))
		track_alloc(p, n, 0, SITE);
	return p;
}

RT_EXPORT void free(void *p)
{
	if (!p || is_boot(p) || in_scratch(p))
		return;
	if (is_own(p)) {
		own_free(p);
		return;
	}
	if (is_dtv(p)) {
		dtv_release(p);
		return;
	}
	track_free(p);
	if (!real_free)
		interpose_init();
	real_free(p);
}

RT_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	void *o;
	if (own_depth && align >= sizeof(void *) && !(align & (align - 1)) &&
	    (o = own_alloc(n, align))) {
		*out = o;
		return 0;
	}
	if (!real_posix_memalign)
		interpose_init();
	int r = real_posix_memalign(out, align, n);
	if (!r && worth(n))
		track_alloc(*out, n, 0, SITE);
	return r;
}

RT_EXPORT void *aligned_alloc(size_t align, size_t n)
{
	void *o;
	if (own_depth && align && !(align & (align - 1)) && (o = own_alloc(n, align)))
		return o;
	if (!real_aligned_alloc)
		interpose_init();
	void *p = real_aligned_alloc(align, n);
	if (worth(n))
		track_alloc(p, n, 0, SITE);
	return p;
}

RT_EXPORT void *memalign(size_t align, size_t n)
{
	void *o;
	if (own_depth && align && !(align & (align - 1)) && (o = own_alloc(n, align)))
		return o;
	if (!real_memalign)
		interpose_init();
	void *p = real_memalign(align, n);
	if (worth(n))
		track_alloc(p, n, 0, SITE);
	return p;
}

RT_EXPORT void *valloc(size_t n)
{
	if (!real_valloc)
		interpose_init();
	void *p = real_valloc(n);
	if (worth(n))
		track_alloc(p, n, 0, SITE);
	return p;
}

/*
 * The program's file mappings (of tracked size), so that one unmapped before the exit's copy
 * of the maps keeps its name: at its munmap its lines go to PREFIX.maps.closed, as a
 * dlclose'd library's (the trial of 2026-11-28: Phoenix's linear_regression maps its input,
 * 54% of the samples, and unmaps it before exit: "[unknown]").  A ring of the last
 * FMAP_SLOTS; at most FMAP_APPENDS copies a process (each reads the whole maps file: a
 * program that maps and unmaps files in a loop pays it that often at most).
 */
#define FMAP_SLOTS 256
#define FMAP_APPENDS 256
static uint64_t fmap_lo[FMAP_SLOTS], fmap_hi[FMAP_SLOTS];
static unsigned fmap_next, fmap_appends;

static void fmap_note(void *p, size_t n)
{
	unsigned i = __atomic_fetch_add(&fmap_next, 1, __ATOMIC_RELAXED) % FMAP_SLOTS;
	__atomic_store_n(&fmap_lo[i], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&fmap_hi[i], (uint64_t)(uintptr_t)p + n, __ATOMIC_RELAXED);
	__atomic_store_n(&fmap_lo[i], (uint64_t)(uintptr_t)p, __ATOMIC_RELEASE);
}

/* Before an munmap of [p, p + n): the lines of the noted file mappings it overlaps. */
static void fmap_unmap(void *p, size_t n)
{
	uint64_t lo = (uint64_t)(uintptr_t)p, hi = lo + n;
	unsigned noted = __atomic_load_n(&fmap_next, __ATOMIC_RELAXED);
	/* the slots used so far only: a program that maps no file pays nothing at its
	 * munmaps (glibc's free of a large block is one) */
	for (unsigned i = 0; i < FMAP_SLOTS && i < noted; i++) {
		uint64_t a = __atomic_load_n(&fmap_lo[i], __ATOMIC_ACQUIRE);
		uint64_t b = __atomic_load_n(&fmap_hi[i], __ATOMIC_RELAXED);
		if (!a || a >= hi || lo >= b)
			continue;
		__atomic_store_n(&fmap_lo[i], 0, __ATOMIC_RELAXED);
		if (__atomic_fetch_add(&fmap_appends, 1, __ATOMIC_RELAXED) < FMAP_APPENDS)
			rt_append_maps_range(".maps.closed", lo, hi);
		return;
	}
}

RT_EXPORT void *mmap(void *addr, size_t n, int prot, int flags, int fd, off_t off)
{
	if (!real_mmap)
		interpose_init();
	void *p = real_mmap(addr, n, prot, flags, fd, off);
	if (p != MAP_FAILED && (flags & MAP_ANONYMOUS) && !(flags & MAP_STACK) && worth(n))
		track_alloc(p, n, SONDE_ALLOC_MMAP, SITE);
	else if (p != MAP_FAILED && !(flags & MAP_ANONYMOUS) && fd >= 0 && rt_cfg.enabled &&
		 worth(n) && !rt_owns_code(SITE))	/* the program's, not the runtime's */
		fmap_note(p, n);
	return p;
}

RT_EXPORT void *mmap64(void *addr, size_t n, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, n, prot, flags, fd, off);
}

RT_EXPORT int munmap(void *p, size_t n)
{
	if (!real_munmap)
		interpose_init();
	track_free(p);
	if (rt_cfg.enabled)
		fmap_unmap(p, n);
	return real_munmap(p, n);
}

/*
 * A tracked mapping that mremap moves or resizes is a new block: without this the old
 * address stayed live (in the set and for the reader) for ever, and the new one untracked.
 */
RT_EXPORT void *mremap(void *old, size_t old_len, size_t len, int flags, ...)
{
	void *want = NULL;
	if (flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)) {
		va_list ap;
		va_start(ap, flags);
		want = va_arg(ap, void *);
		va_end(ap);
	}
	if (!real_mremap)
		interpose_init();
	int tracked = !(flags & MREMAP_DONTUNMAP) && track_free(old);
	void *p = real_mremap(old, old_len, len, flags, want);
	if (tracked && p != MAP_FAILED && worth(len))
		track_alloc(p, len, SONDE_ALLOC_MMAP, SITE);
	return p;
}

RT_EXPORT void *dlopen(const char *file, int mode)
{
	if (!real_dlopen)
		interpose_init();
	rt_loader_enter();
	void *h = real_dlopen(file, mode);
	rt_loader_leave();
	return h;
}

/*
 * The program's dl_iterate_phdr holds the loader's lock, as dlopen does, while its callback
 * runs: a sample that lands there must not unwind (libunwind's dl_iterate_phdr, in the
 * handler, waited on that lock for good: a program calling it 30 million times hung under
 * `sonde mem` in 3 runs of 3, SIGKILL only; the usability review of 2026-11-27).  Counted
 * in rt_loader_busy as dlopen is; the runtime's own calls, made busy (a handler's
 * libunwind, whose samples the busy flag already drops), are not, so that one thread's
 * unwinding does not cut the others' paths short.
 */
RT_EXPORT int dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
	if (!real_dl_iterate_phdr)
		interpose_init();
	if (!real_dl_iterate_phdr)
		return 0;	/* (dlsym failed: nothing to walk) */
	struct rt_thread *t = rt_self();
	if (t && t->busy)
		return real_dl_iterate_phdr(cb, data);
	rt_loader_enter();
	int r = real_dl_iterate_phdr(cb, data);
	rt_loader_leave();
	return r;
}

/* 1 the first time the image of `name` loaded at `base` is dlclose'd in this process (a
 * table of what was noted; when full, every time: the reader drops the repeats). */
#define CLOSED_SLOTS 256
static uintptr_t closed_bases[CLOSED_SLOTS];

void interpose_after_fork_child(void)
{
	memset(closed_bases, 0, sizeof(closed_bases));	/* the child notes in its own file */
}

static int first_close_of(uintptr_t at, const char *name)
{
	uint64_t hash = 0xcbf29ce484222325ull;	/* FNV-1a: another library at the same base */
	for (const char *c = name; *c; c++)
		hash = (hash ^ (uint8_t)*c) * 0x100000001b3ull;
	uintptr_t base = (at ^ (uintptr_t)hash) | 1;	/* never 0, the empty slot */

	for (int i = 0; i < CLOSED_SLOTS; i++) {
		uintptr_t v = __atomic_load_n(&closed_bases[i], __ATOMIC_ACQUIRE);
		if (v == base)
			return 0;
		if (!v && __sync_bool_compare_and_swap(&closed_bases[i], 0, base))
			return 1;
		if (__atomic_load_n(&closed_bases[i], __ATOMIC_ACQUIRE) == base)
			return 0;	/* another thread noted it just now */
	}
	return 1;
}

RT_EXPORT int dlclose(void *h)
{
	if (!real_dlclose)
		interpose_init();
	/* the library's mappings, before they may go: the report symbolizes its code with
	 * them (profile.c, maps_closed_path); the exit's copy of the maps lacks it.  Once
	 * per loaded image (a dlclose that only drops a reference, repeated 20,000 times,
	 * wrote 12 MB: review); the name as given to dlopen ("./plug.so") resolved. */
	struct link_map *lm = NULL;
	char real[PATH_MAX];
	if (rt_cfg.enabled && dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name &&
	    *lm->l_name && first_close_of(lm->l_addr, lm->l_name) && realpath(lm->l_name, real))
		rt_append_maps_of(".maps.closed", real);
	rt_loader_enter();
	int r = real_dlclose(h);
	rt_loader_leave();
	return r;
}

/* ---- descriptors ---- */

/*
 * The runtime's descriptors (its perf events, rt_fd_mine) are not the program's: to the
 * program they are not open.  Its close() of one fails with EBADF, as for a number it
 * never opened, and its close_range() and closefrom() close its own descriptors around
 * them.  Before, a program that closed "everything above 2" closed the runtime's events
 * with the rest, and its threads went unsampled from then on: rt-fdstorm at the default
 * period got 0 samples in 225 threads after its close_range.  The cost for every close
 * of the program's: a bit test (and nothing else unless the bit is set).  The runtime's
 * own closes go through rt_close_fd (the system call); a close() of a registered
 * descriptor from the runtime's code (ctx.c's fallback pipe) is one of those.
 * Not covered: a program's raw syscall(SYS_close...), and glibc's internal closes.
 */
static int sys_close(int fd)
{
	if (!real_close)
		interpose_init();
	return real_close ? real_close(fd) : (int)syscall(SYS_close, fd);
}

RT_EXPORT int close(int fd)
{
	if (__builtin_expect(rt_fd_mine(fd), 0)) {
		uint64_t caller = (uint64_t)(uintptr_t)__builtin_return_address(0);
		/* libsonde's own code, or libunwind's reopening its fallback pipe (ctx.c),
		 * which the runtime made */
		if (!rt_owns_address(caller) && !ctx_in_unwinder(caller)) {
			errno = EBADF;
			return -1;
		}
		int r = rt_close_fd(fd);
		if (r < 0) {
			errno = -r;
			return -1;
		}
		return 0;
	}
	return sys_close(fd);
}

static int sys_close_range(unsigned int lo, unsigned int hi, int flags)
{
	if (!real_close_range)
		interpose_init();
	if (real_close_range)
		return real_close_range(lo, hi, flags);
	return (int)syscall(SYS_close_range, lo, hi, flags);
}

/*
 * close_range in sub-ranges between the runtime's descriptors: one call per gap, so a
 * run of consecutive runtime descriptors (700, 701, ...) costs one call more than the
 * program's.  CLOSE_RANGE_CLOEXEC, CLOSE_RANGE_UNSHARE go with every sub-range (the
 * first unshares the table, the others find it unshared); when there is no sub-range,
 * UNSHARE is done alone.  A runtime descriptor made by another thread during the call,
 * in a sub-range already computed, is closed with the program's (a narrow window).
 */
RT_EXPORT int close_range(unsigned int first, unsigned int last, int flags)
{
	if (first > last || (flags & ~(CLOSE_RANGE_CLOEXEC | CLOSE_RANGE_UNSHARE)))
		return sys_close_range(first, last, flags);	/* its EINVAL */
	uint64_t lo = first, end = (uint64_t)last + 1;
	int calls = 0, err = 0;
	while (lo < end) {
		uint64_t m = lo >= RT_FD_MAX ? end :
			(uint64_t)rt_fd_next_mine((int)lo, end > RT_FD_MAX ? RT_FD_MAX : (int)end);
		if (m >= RT_FD_MAX)
			m = end;
		if (m > lo) {
			if (sys_close_range((unsigned int)lo, (unsigned int)(m - 1), flags) && !err)
				err = errno;
			calls++;
		}
		lo = m + 1;
	}
	if (!calls && (flags & CLOSE_RANGE_UNSHARE) && unshare(CLONE_FILES) && !err)
		err = errno;
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/* closefrom: glibc's calls its close_range inside libc, not through ours. */
RT_EXPORT void closefrom(int lowfd)
{
	if (lowfd < 0)
		lowfd = 0;
	if (close_range((unsigned int)lowfd, ~0u, 0) == 0)
		return;
	/* no close_range (a kernel before 5.9): one by one to the limit, as close() */
	struct rlimit rl;
	int lim = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (1u << 20) ?
		(int)rl.rlim_cur : 1 << 20;
	for (int fd = lowfd; fd < lim; fd++)
		if (!rt_fd_mine(fd))
			sys_close(fd);
}

/*
 * dup2/dup3 onto a runtime descriptor's number: the program gets what it asked for, and
 * the runtime loses that descriptor.  Its bit is cleared first, so the runtime's later
 * uses of the number (rt_close_fd, its ioctls and reads, which test the bit) leave the
 * program's file alone; the .proc's fds_lost counts such takeovers.  Moving the runtime's
 * file to another number instead would keep its sampling, but the number is held by a
 * thread's source or watch slot, possibly in a handler running now, and telling it
 * without a lock is not cheap; a program that dup2's onto numbers it never opened is
 * rare.  What is lost: that thread's events (a clock event without a ring ends with its
 * last descriptor), or the process's inherited clock event at the default period.
 * The runtime's descriptor as oldfd is not open, to the program: EBADF.
 */
static int take_over(int oldfd, int newfd)
{
	if (rt_fd_mine(oldfd)) {
		errno = EBADF;
		return -1;
	}
	return rt_fd_mine(newfd) && oldfd != newfd && fcntl(oldfd, F_GETFD) >= 0 &&
	       rt_fd_lose(newfd);
}

/* The call itself, then: a failed one (RLIMIT_NOFILE lowered, oldfd closed meanwhile by
 * another thread) took nothing over, and the runtime keeps its descriptor. */
static int dup_done(int r, int newfd, int taken)
{
	if (r < 0 && taken) {
		int e = errno;
		rt_fd_unlose(newfd);
		errno = e;
	}
	return r;
}

RT_EXPORT int dup2(int oldfd, int newfd)
{
	int taken = take_over(oldfd, newfd);
	if (taken < 0)
		return -1;
	if (!real_dup2)
		interpose_init();
	/* not resolved yet (another thread resolving): the system call */
	return dup_done(real_dup2 ? real_dup2(oldfd, newfd) : (int)syscall(SYS_dup2, oldfd, newfd),
			newfd, taken);
}

RT_EXPORT int dup3(int oldfd, int newfd, int flags)
{
	/* what dup3 refuses (EINVAL) takes nothing over */
	int taken = (flags & ~O_CLOEXEC) || oldfd == newfd ? 0 : take_over(oldfd, newfd);
	if (taken < 0)
		return -1;
	if (!real_dup3)
		interpose_init();
	return dup_done(real_dup3 ? real_dup3(oldfd, newfd, flags)
				  : (int)syscall(SYS_dup3, oldfd, newfd, flags),
			newfd, taken);
}
