/* SPDX-License-Identifier: MIT */
/*
 * thread.c - per-thread set-up and tear-down, the registry of live threads, and the
 * fork-child reset.  Never runs in a handler (finish.c is the handler-safe part).
 *
 * Thread states are never unmapped: a finished thread's struct goes to a free list and
 * is reused, so the exit path may walk the registry while threads end concurrently.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rt/ctx.h"
#include "rt/interpose.h"
#include "rt/sigsafe-str.h"
#include "rt/thread.h"
#include "rt/watch.h"

#define ARENA_SIZE (64u << 20)	/* reserved, touched as used: CCT nodes */
/* The record buffer, flushed when full: resident as far as it ever filled, so its size is
 * each thread's share of the peak memory.  256 KB had commbench's workers at 34-59 KB each
 * (bench/memory.sh); a flush (open, fstatfs, write, close) per 16 KB is ~340 records of 48
 * bytes, under 0.1 us a record. */
#define OUT_SIZE (16u << 10)
#define ALTSTACK_SIZE (256u << 10)

char rt_stem[PATH_MAX] RT_LARGE;
int rt_pid;
volatile uint64_t rt_unprofiled_threads;
struct rt_thread *volatile rt_threads[RT_MAX_THREADS] RT_LARGE;

static uint32_t next_index;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_thread *pool[64];
static int pool_n;

/*
 * New thread records are cut from pages of RT_THREAD_SLOT bytes each: a record (272 bytes)
 * took a page of its own, 20 KB for commbench's 5 threads, all resident at the process's
 * end (bench/memory.sh comm).  A slot is a multiple of 64 bytes so that no two threads'
 * records share a cache line (each thread writes its busy flag and counters at every
 * access under --exact).  Records are never unmapped (the pool keeps them; see
 * thread_pool_put).
 */
#define RT_THREAD_SLOT ((sizeof(struct rt_thread) + 63) & ~(size_t)63)
static char *slab;
static size_t slab_left;

static struct rt_thread *thread_alloc(void)
{
	struct rt_thread *t = NULL;
	pthread_mutex_lock(&pool_lock);
	if (pool_n) {
		t = pool[--pool_n];
	} else {
		if (slab_left < RT_THREAD_SLOT) {
			size_t page = (size_t)sysconf(_SC_PAGESIZE);
			void *p = mmap(NULL, page, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p != MAP_FAILED) {
				slab = p;
				slab_left = page;
			}
		}
		if (slab_left >= RT_THREAD_SLOT) {
			t = (struct rt_thread *)(void *)slab;
			slab += RT_THREAD_SLOT;
			slab_left -= RT_THREAD_SLOT;
		}
	}
	pthread_mutex_unlock(&pool_lock);
	if (!t)
		return NULL;
	memset(t, 0, sizeof(*t));
	return t;
}

static void thread_pool_put(struct rt_thread *t)
{
	pthread_mutex_lock(&pool_lock);
	if (pool_n < (int)(sizeof(pool) / sizeof(pool[0]))) {
		pool[pool_n++] = t;
		t = NULL;
	}
	pthread_mutex_unlock(&pool_lock);
	/* A pool overflow leaks the small struct rather than unmapping memory that the exit
	 * path might still be reading. */
}

static int registry_add(struct rt_thread *t)
{
	for (int i = 0; i < RT_MAX_THREADS; i++)
		if (!rt_threads[i] && __sync_bool_compare_and_swap(&rt_threads[i], NULL, t))
			return 0;
	return -ENOSPC;
}

static void registry_del(struct rt_thread *t)
{
	for (int i = 0; i < RT_MAX_THREADS; i++)
		if (rt_threads[i] == t) {
			rt_threads[i] = NULL;
			return;
		}
}

static void stack_range(struct rt_thread *t)
{
	pthread_attr_t attr;
	void *lo;
	size_t size;
	/* pthread_getattr_np's cpuset copy (32 bytes up to 256 CPUs, freed by
	 * pthread_attr_destroy) from here: as the thread's first allocation it made glibc
	 * create a malloc arena in every thread the program never allocates in (4 KB
	 * resident each: commbench's workers, bench/memory.sh).  glibc doubles the copy
	 * from 32 bytes until the kernel takes it, each size cut anew from this buffer: 1 KB
	 * holds them up to a kernel of 2,048 CPU ids, 512 bytes held them up to 1,024 (a
	 * seccomp filter failing sched_getaffinity below 256 bytes, 8 threads: 8 arenas with
	 * 512 bytes, 0 with 1 KB; 2026-11-26 17:56 UTC, load 1.6).  Beyond, the larger copies
	 * come from malloc: an arena, as before, nothing worse. */
	char buf[1024] __attribute__((aligned(16)));

	if (interpose_scratch)
		interpose_scratch(buf, sizeof(buf));
	if (!pthread_getattr_np(pthread_self(), &attr)) {
		if (!pthread_attr_getstack(&attr, &lo, &size)) {
			t->stack_lo = (uint64_t)(uintptr_t)lo;
			t->stack_hi = t->stack_lo + size;
		}
		pthread_attr_destroy(&attr);
	}
	if (interpose_scratch)
		interpose_scratch(NULL, 0);
}

/* The calling thread's static TLS blocks with glibc's descriptor of it, [lo, hi): a report
 * names the data there "[TLS of thread N]".  glibc puts a new thread's TLS at the top of
 * its stack block, inside the stack range above: OpenMP's threadprivate data and libgomp's
 * own per-thread state read as "[stack of thread 3]" (the trial of 2026-11-28, PENNANT).
 * The size is glibc's private _dl_get_tls_static_info (the descriptor and the surplus
 * kept for dlopen counted), the descriptor's size its _thread_db_sizeof_pthread, as the
 * sanitizers read them; without them the range stays unknown (0). */
int rt_tls_bounds(uint64_t *lo, uint64_t *hi)
{
	static void (*info)(size_t *, size_t *);
	static const unsigned *tcb;
	static int looked;
	size_t size = 0, align = 0;
	uintptr_t tp = 0;

	if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {	/* the same values from any */
		*(void **)&info = dlsym(RTLD_DEFAULT, "_dl_get_tls_static_info");
		tcb = dlsym(RTLD_DEFAULT, "_thread_db_sizeof_pthread");
		__atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
	}
	*lo = *hi = 0;
	if (!info)
		return -ENOENT;
	info(&size, &align);
#if defined(__x86_64__)
	/* variant II: the blocks below the thread pointer, the descriptor at it */
	__asm__("mov %%fs:0, %0" : "=r"(tp));
	size_t d = tcb ? *tcb : 0;
	if (!tp || size < d || size > (64u << 20))
		return -ENOENT;
	*lo = (uint64_t)(tp + d - size);
	*hi = (uint64_t)(tp + d);
#elif defined(__aarch64__)
	/* variant I: the blocks above the thread pointer, the descriptor below it */
	__asm__("mrs %0, tpidr_el0" : "=r"(tp));
	size_t d = tcb ? *tcb : 0;
	if (!tp || size > (64u << 20) || tp < d)
		return -ENOENT;
	*lo = (uint64_t)(tp - d);
	*hi = (uint64_t)(tp + size);
#else
	(void)tp;
	(void)tcb;
	return -ENOENT;
#endif
	return 0;
}

static int altstack_init(struct rt_thread *t)
{
	stack_t cur;
	if (sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE))
		return 0;	/* the program has its own: leave it */
	void *p = mmap(NULL, ALTSTACK_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	stack_t ss = { .ss_sp = p, .ss_size = ALTSTACK_SIZE };
	if (sigaltstack(&ss, NULL)) {
		munmap(p, ALTSTACK_SIZE);
		return -errno;
	}
	t->altstack = p;
	t->altstack_size = ALTSTACK_SIZE;
	return 0;
}

static void altstack_release(struct rt_thread *t)
{
	stack_t cur;
	if (!t->altstack)
		return;
	if (sigaltstack(NULL, &cur) == 0 && cur.ss_sp == t->altstack) {
		stack_t off = { .ss_flags = SS_DISABLE };
		sigaltstack(&off, NULL);
	}
	munmap(t->altstack, t->altstack_size);
	t->altstack = NULL;
}

/* "-ID.sdt" into buf (40 bytes), which it returns */
static char *stream_suffix(char *buf, uint64_t id)
{
	rt_stpcpy(rt_u64toa(rt_stpcpy(buf, "-"), id), ".sdt");
	return buf;
}

static int stream_open(struct rt_thread *t)
{
	struct sonde_file_header h = {
		.version = SONDE_FORMAT_VERSION,
		.header_size = sizeof(h),
		.endian = SONDE_ENDIAN_TAG,
		.source = rt_source ? (uint32_t)rt_source->id : SONDE_SOURCE_NONE,
		.period = rt_cfg.period,
		.pid = rt_pid,
		.tid = t->tid,
		.rank = rt_cfg.rank,
		.thread_index = t->index,
		.start_ns = rt_now(),
		.stack_lo = t->stack_lo,
		.stack_hi = t->stack_hi,
		.tls_lo = t->tls_lo,
		.tls_hi = t->tls_hi,
	};
	memcpy(h.magic, SONDE_MAGIC, SONDE_MAGIC_LEN);
	/* the name goes into the buffer's mapping (out.c), not on the thread's stack; made
	 * without snprintf, whose first call in a thread mapped 64-192 KB of libc's printf
	 * code that the program may never use (libtrim.c, rt_trim_foreign_drop) */
	char suffix[40];
	int r = out_init(&t->out, rt_stem, stream_suffix(suffix, (uint64_t)t->tid), &h,
			 OUT_SIZE);
	/* The id was used before in this process (ids wrap at pid_max): another name, still
	 * PREFIX-<digits>.sdt, that no thread id can have (pid_max is at most 2^22); the
	 * header holds the real id. */
	for (uint64_t k = 1; r == -EEXIST && k < 1000; k++)
		r = out_init(&t->out, rt_stem,
			     stream_suffix(suffix, k * 100000000ull + (uint64_t)t->tid), &h,
			     OUT_SIZE);
	return r;
}

uint32_t rt_thread_count(void)
{
	return __atomic_load_n(&next_index, __ATOMIC_RELAXED);
}

uint32_t rt_thread_next_index(void)
{
	return __atomic_fetch_add(&next_index, 1, __ATOMIC_RELAXED);
}

/* The thread's random state: with --seed, thread N draws the same numbers in every run;
 * else its tid and the time, so that a fork child does not repeat its parent's draws. */
static void thread_seed(struct rt_thread *t)
{
	t->rng = rt_cfg.seed ? rt_cfg.seed ^ ((uint64_t)(t->index + 1) * 0x9e3779b97f4a7c15ull)
			     : 0x2545f4914f6cdd1dull ^ ((uint64_t)t->tid * 0x9e3779b97f4a7c15ull) ^
				       rt_now();
}


struct rt_thread *rt_thread_start(int64_t index)
{
	struct rt_thread *t = thread_alloc();
	if (!t) {
		rt_unprofiled_threads++;
		return NULL;
	}
	t->busy = 1;
	t->tid = (int)gettid();
	t->index = index >= 0 ? (uint32_t)index : rt_thread_next_index();
	thread_seed(t);
	stack_range(t);
	rt_tls_bounds(&t->tls_lo, &t->tls_hi);
	t->errno_addr = &errno;
	if (arena_init(&t->arena, ARENA_SIZE) || altstack_init(t) || stream_open(t) ||
	    registry_add(t)) {
		altstack_release(t);
		arena_release(&t->arena);
		out_release(&t->out);
		thread_pool_put(t);
		rt_unprofiled_threads++;
		return NULL;
	}
	rt_set_self(t);
	ctx_thread_warmup();
	if (rt_tool && rt_tool->thread_start)
		rt_tool->thread_start(t);
	if (rt_source && rt_source->thread_start(t) < 0)
		t->stats.dropped = 0;	/* unsampled thread: still records allocations */
	t->busy = 0;
	return t;
}

void rt_thread_end(struct rt_thread *t)
{
	if (!t)
		return;
	t->busy = 1;
	if (rt_source)
		rt_source->thread_stop(t);
	if (rt_tool && rt_tool->thread_stop)
		rt_tool->thread_stop(t);
	rt_thread_finish(t, 0);
	/* If the exit path is finishing this thread right now, let it complete.  It waits
	 * for busy to fall first; stopped is set, so nothing can claim the thread meanwhile. */
	if (t->finish_state != 2) {
		rt_leave(t);
		for (int i = 0; i < 100000 && t->finish_state != 2; i++)
			sched_yield();
		t->busy = 1;
	}
	if (t->watch)
		watch_thread_release(t);
	registry_del(t);
	rt_set_self(NULL);
	altstack_release(t);
	out_release(&t->out);
	arena_release(&t->arena);
	thread_pool_put(t);
}

unsigned rt_forks;

void rt_thread_after_fork_child(void)
{
	struct rt_thread *me = rt_self();
	/* Another thread may have held the pool's lock at the fork: it will never unlock it
	 * in this child. */
	pool_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	/* Only the forking thread exists in the child; the others' states belong to the
	 * parent's streams.  Forget them without touching their files. */
	for (int i = 0; i < RT_MAX_THREADS; i++) {
		struct rt_thread *t = rt_threads[i];
		if (t && t->watch)
			watch_after_fork_child(t);	/* closes the parent's breakpoint fds */
		if (t != me)
			rt_threads[i] = NULL;
	}
	next_index = 1;
	rt_forks++;
	if (!me)
		return;
	me->busy = 1;
	if (rt_source && rt_source->after_fork_child)
		rt_source->after_fork_child(me);
	out_release(&me->out);
	/* fresh zeroed arena: the old tree's nodes are the parent's */
	arena_release(&me->arena);
	if (arena_init(&me->arena, ARENA_SIZE)) {
		me->stopped = 1;
		return;
	}
	/* per-thread states of the source, tool and watchpoints lived in the old arena */
	me->src = me->tool = me->alloc_sites = NULL;
	me->omp_thread1 = me->omp_varied = 0;	/* said again in the child's stream */
	ctx_reset(me);
	memset(&me->stats, 0, sizeof(me->stats));
	me->finish_state = 0;
	me->stopped = 0;
	me->tid = (int)gettid();
	me->index = 0;
	if (!rt_cfg.seed)	/* the parent's state: the same draws in both processes */
		thread_seed(me);
	if (stream_open(me)) {
		me->stopped = 1;
		return;
	}
	if (rt_tool && rt_tool->fork_child)
		rt_tool->fork_child(me);
	if (rt_source)
		rt_source->thread_start(me);
	me->busy = 0;
}
