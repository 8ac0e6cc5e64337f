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
/* The program's allocator, bypassing tracking (for the runtime's own small needs). */
void *interpose_real_malloc(size_t n);
void interpose_real_free(void *p);

#endif
