/* SPDX-License-Identifier: MIT */
/* arena.c - per-thread bump allocation over mmap'd memory; handler-safe once set up. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "rt/rt.h"
#include "rt/sigsafe.h"

int arena_init(struct arena *a, size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	a->base = p;
	a->size = size;
	a->used = 0;
	return 0;
}

void arena_release(struct arena *a)
{
	if (a->base)
		munmap(a->base, a->size);
	a->base = NULL;
	a->size = a->used = 0;
}

SIGSAFE void *arena_alloc(struct arena *a, size_t size)
{
	size_t n = (size + 15) & ~(size_t)15;
	if (!a->base || a->used + n > a->size)
		return NULL;
	void *p = a->base + a->used;
	a->used += n;	/* fresh anonymous pages are zero, and nothing is freed */
	return p;
}
