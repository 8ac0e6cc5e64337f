/* SPDX-License-Identifier: MIT */
/*
 * interpose.c - malloc family, mmap/mremap/munmap and dlopen interposers.
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
#include <malloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

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
static int (*real_dlclose)(void *);

static char boot_buf[64 << 10] __attribute__((aligned(64)));
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
static volatile uint64_t n_tracked;

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
			__sync_fetch_and_add(&n_tracked, 1);
			return 0;
		}
	}
	return -ENOSPC;
}

static int set_del(uintptr_t a)
{
	if (!n_tracked || !set)
		return 0;
	for (uint32_t i = 0, h = slot_of(a); i < SET_PROBES; i++, h = (h + 1) & (SET_SIZE - 1)) {
		uintptr_t v = set[h];
		if (v == 0)
			return 0;
		if (v == a && __sync_bool_compare_and_swap(&set[h], a, TOMB)) {
			__sync_fetch_and_sub(&n_tracked, 1);
			return 1;
		}
	}
	return 0;
}

/* ---- records ---- */

/* The allocation call site: the return address of the interposed function. */
#define SITE ((uint64_t)(uintptr_t)__builtin_return_address(0))

/*
 * Allocation call paths, cached per thread by call site.  Unwinding every allocation of a
 * tracked size costs microseconds, far more than the allocation (a malloc-heavy program
 * ran 70x slower); the site (the caller's return address) names the object anyway.  So a
 * site's path is unwound the first time and then once every SITE_REFRESH allocations (to
 * pick up other paths to it).  Sites inside allocation wrappers (strdup, operator new,
 * std::allocator: code in libc or libstdc++) are always unwound, since the object's name
 * is their caller's.
 */
#define SITE_SLOTS 512
#define SITE_REFRESH 64

struct site_slot {
	uint64_t site;
	uint32_t ctx, uses;
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

static uint32_t alloc_ctx(struct rt_thread *t, uint64_t site)
{
	if (!t->alloc_sites && cacheable(site))
		t->alloc_sites = arena_alloc(&t->arena, SITE_SLOTS * sizeof(struct site_slot));
	struct site_slot *tab = t->alloc_sites;
	if (!tab || !cacheable(site))
		return ctx_here(t, NULL, 0);
	struct site_slot *e = &tab[(site * 0x9e3779b97f4a7c15ull) >> (64 - 9)];
	if (e->site == site && e->ctx && (++e->uses % SITE_REFRESH))
		return e->ctx;
	uint32_t ctx = ctx_here(t, NULL, 0);
	if (ctx && e->site != site) {
		e->site = site;
		e->uses = 0;
	}
	if (ctx)
		e->ctx = ctx;
	return ctx;
}

static __attribute__((noinline)) void track_alloc(void *p, size_t n, uint32_t flags,
						   uint64_t site)
{
	struct rt_thread *t = rt_self();
	if (!p || !t || !rt_tool || !(rt_tool->flags & RT_TOOL_OBJECTS) || rt_enter(t))
		return;
	if (set_add((uintptr_t)p) == 0) {
		struct sonde_rec_alloc r = {
			.h = { .type = SONDE_REC_ALLOC, .size = sizeof(r) },
			.ctx = alloc_ctx(t, site),
			.flags = flags,
			.addr = (uint64_t)(uintptr_t)p,
			.size = n,
			.time = rt_now(),
		};
		out_append(&t->out, &r, sizeof(r));
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
	struct sonde_rec_free r = {
		.h = { .type = SONDE_REC_FREE, .size = sizeof(r) },
		.addr = (uint64_t)(uintptr_t)p,
		.time = rt_now(),
	};
	out_append(&t->out, &r, sizeof(r));
	rt_leave(t);
	return 1;
}

static inline int worth(size_t n)
{
	return n >= rt_cfg.min_object && rt_cfg.enabled;
}

RT_EXPORT void *malloc(size_t n)
{
	if (!real_malloc) {
		interpose_init();
		if (!real_malloc)
			return boot_alloc(n);
	}
	void *p = real_malloc(n);
	if (worth(n))
		track_alloc(p, n, 0, SITE);
	return p;
}

RT_EXPORT void *calloc(size_t k, size_t n)
{
	if (!real_calloc) {
		if (resolving)
			return boot_alloc(k * n);	/* static buffer is zeroed */
		interpose_init();
		if (!real_calloc)
			return boot_alloc(k * n);
	}
	void *p = real_calloc(k, n);
	size_t total;
	if (!__builtin_mul_overflow(k, n, &total) && worth(total))
		track_alloc(p, total, 0, SITE);
	return p;
}

RT_EXPORT void *realloc(void *old, size_t n)
{
	if (is_boot(old)) {
		void *p = malloc(n);
		if (p)
			memcpy(p, old, n);	/* boot blocks are small and never moved again */
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
	if (!p || is_boot(p))
		return;
	track_free(p);
	if (!real_free)
		interpose_init();
	real_free(p);
}

RT_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	if (!real_posix_memalign)
		interpose_init();
	int r = real_posix_memalign(out, align, n);
	if (!r && worth(n))
		track_alloc(*out, n, 0, SITE);
	return r;
}

RT_EXPORT void *aligned_alloc(size_t align, size_t n)
{
	if (!real_aligned_alloc)
		interpose_init();
	void *p = real_aligned_alloc(align, n);
	if (worth(n))
		track_alloc(p, n, 0, SITE);
	return p;
}

RT_EXPORT void *memalign(size_t align, size_t n)
{
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

RT_EXPORT void *mmap(void *addr, size_t n, int prot, int flags, int fd, off_t off)
{
	if (!real_mmap)
		interpose_init();
	void *p = real_mmap(addr, n, prot, flags, fd, off);
	if (p != MAP_FAILED && (flags & MAP_ANONYMOUS) && !(flags & MAP_STACK) && worth(n))
		track_alloc(p, n, SONDE_ALLOC_MMAP, SITE);
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
	__sync_fetch_and_add(&rt_loader_busy, 1);
	void *h = real_dlopen(file, mode);
	__sync_fetch_and_sub(&rt_loader_busy, 1);
	return h;
}

RT_EXPORT int dlclose(void *h)
{
	if (!real_dlclose)
		interpose_init();
	__sync_fetch_and_add(&rt_loader_busy, 1);
	int r = real_dlclose(h);
	__sync_fetch_and_sub(&rt_loader_busy, 1);
	return r;
}
