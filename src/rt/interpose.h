/* SPDX-License-Identifier: MIT */
/*
 * interpose.h - the allocation and loader interposers (interpose.c): heap blocks and
 * anonymous mappings of at least rt_cfg.min_object bytes become ALLOC/FREE records with
 * their allocation call path.  Not handler code.
 */
#ifndef SONDE_RT_INTERPOSE_H
#define SONDE_RT_INTERPOSE_H

#include <stddef.h>

/* Resolve the real functions; called first thing by the constructor. */
void interpose_init(void);
/* The program's allocator, bypassing tracking (for the runtime's own small needs). */
void *interpose_real_malloc(size_t n);
void interpose_real_free(void *p);

#endif
