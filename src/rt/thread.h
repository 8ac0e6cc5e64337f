/* SPDX-License-Identifier: MIT */
/*
 * thread.h - the runtime's per-thread and per-process lifecycle (thread.c, finish.c).
 * Functions marked handler-safe are called from the fatal-signal handler.
 */
#ifndef SONDE_RT_THREAD_H
#define SONDE_RT_THREAD_H

#include <limits.h>
#include <stdint.h>

#include "rt/rt.h"

#define RT_MAX_THREADS 4096	/* live threads tracked at once; more run unprofiled */

/* DIR/PREFIX, the stem of every file this process writes (set by init.c). */
extern char rt_stem[PATH_MAX];
extern int rt_pid;
/* Set when the process is ending: handlers record nothing more. */
extern volatile int rt_stopping;
/* Forks this process descends by (thread.c, counted in each fork child): state kept across
 * a call the program may fork in (a tool's pointer into the old arena, unmapped and maybe
 * mapped again at the same address in the child) is told stale by it, not by its address. */
extern unsigned rt_forks;
/* Threads that could not be profiled (registry full, out of memory, fd limit). */
extern volatile uint64_t rt_unprofiled_threads;

/*
 * Runtime code that writes the thread's records claims the thread first: 0 if it may (and
 * then calls rt_leave), -1 if the thread is busy in the runtime already or stopped.  busy
 * is raised before stopped is read; rt_thread_finish, run from another thread when the
 * process ends, raises stopped before it waits for busy to fall: one of the two sees the
 * other, so a stream is never written by two threads at once.  Handler-safe.
 */
static inline int rt_enter(struct rt_thread *t)
{
	if (t->busy)
		return -1;
	t->busy = 1;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (t->stopped || rt_stopping) {
		t->busy = 0;
		return -1;
	}
	return 0;
}

static inline void rt_leave(struct rt_thread *t)
{
	__atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
}

/* Threads started in this process so far (the main thread included).  Handler-safe. */
uint32_t rt_thread_count(void);
/* The next thread index: taken at pthread_create, in the creating thread, so indexes follow
 * creation order even when threads start running in another order. */
uint32_t rt_thread_next_index(void);
/* The calling thread's static TLS with glibc's descriptor of it, [*lo, *hi): 0, or -ENOENT
 * (both 0) where glibc does not say.  Not handler-safe (dlsym at the first call). */
int rt_tls_bounds(uint64_t *lo, uint64_t *hi);
/* Set up the calling thread (thread start, or the main thread in the constructor) with
 * the index taken for it, or -1 to take the next one now. */
struct rt_thread *rt_thread_start(int64_t index);
/* Tear down the calling thread's state at its end: stop its source, flush, free. */
void rt_thread_end(struct rt_thread *t);
/* In a fork child: the calling thread becomes thread 0 of a new recording. */
void rt_thread_after_fork_child(void);

/* Write the thread's STATS and END records and flush; once per thread.  Handler-safe. */
void rt_thread_finish(struct rt_thread *t, int signo);
/* Finish every live thread, the calling one first.  Handler-safe. */
void rt_finish_all(int signo);
/* Copy /proc/self/maps to rt_stem + suffix.  Handler-safe. */
int rt_copy_maps(const char *suffix);
/* Append "key=value\n" to rt_stem.proc.  Handler-safe. */
void rt_proc_append(const char *key, const char *value);
void rt_proc_append_u64(const char *key, uint64_t value);
/* End of the process (exit, exec, fatal signal): finish all threads, copy maps, note how
 * it ended.  Idempotent.  Handler-safe. */
void rt_process_end(const char *how, int signo);

/* Registry access for finish.c. */
extern struct rt_thread *volatile rt_threads[RT_MAX_THREADS];

#endif
