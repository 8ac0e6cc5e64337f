/* SPDX-License-Identifier: MIT */
/*
 * interpose.h - the allocation and loader interposers (interpose.c): heap blocks and
 * anonymous mappings of at least rt_cfg.min_object bytes become ALLOC/FREE records with
 * their allocation call path.  Not handler code.
 */
#ifndef SONDE_RT_INTERPOSE_H
#define SONDE_RT_INTERPOSE_H

#include <stddef.h>
#include <stdint.h>

/* Code of allocation wrappers (libc, libstdc++): call sites there are not cached. */
void interpose_add_wrapper_range(uint64_t lo, uint64_t hi);
/* Resolve the real functions; called first thing by the constructor. */
void interpose_init(void);
/* In a fork child, before it runs the program: forget which libraries the parent noted at
 * their dlclose (the child notes them in its own recording). */
void interpose_after_fork_child(void);
/* The program's allocator, bypassing tracking (for the runtime's own small needs). */
void *interpose_real_malloc(size_t n);
void interpose_real_free(void *p);
/* From now on, until interpose_scratch(NULL, 0), the calling thread's malloc, calloc and
 * realloc are served from buf (size bytes, cut in order) while it has room, and free of a
 * block in it does nothing: for a libc call the runtime makes whose allocations end before
 * it returns (pthread_getattr_np's cpuset copy, thread.c), so that a thread's first
 * allocation, which makes glibc create the thread's malloc arena (4 KB resident, 64 MB
 * reserved), is the program's and not the runtime's.  Weak: the CLI and unit tests link
 * thread.c without this file. */
void interpose_scratch(void *buf, size_t size) __attribute__((weak));
/* interpose_own(1) ... interpose_own(0) (nested): the calling thread's allocations come
 * from a mapping of the runtime's own, not from the program's heap, whose layout then is
 * the one the program has alone (start-up, a fork child's restart).  Weak, as above. */
void interpose_own(int on) __attribute__((weak));
/* New threads' DTVs from the runtime's mapping too, with a stand-in block of the size
 * they would have without the runtime's modules with TLS (modules of them) in the
 * program's heap; loader_lo..hi: the dynamic loader's mapping, which allocates them. */
void interpose_dtv_setup(uint64_t loader_lo, uint64_t loader_hi, int modules)
	__attribute__((weak));
/* Around fork: 0 before it, 1 in the parent after, 2 in the child (every child, followed
 * or not). */
void interpose_fork(int phase) __attribute__((weak));

#endif
