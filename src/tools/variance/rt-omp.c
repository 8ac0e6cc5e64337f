/* SPDX-License-Identifier: MIT */
/*
 * rt-omp.c - GOMP_parallel (GCC's OpenMP runtime, libgomp) interposed for the variance
 * tool: every thread of a parallel region calls the region's outlined function, and the
 * runtime's own function in between (rt-variance.c, variance_region) times that call as
 * an instance, with no trap.  With any other tool, or SONDE_VARIANCE_REGIONS=0, the
 * wrapper only forwards.  The real function is found once, when libsonde.so is loaded
 * (or at the first region, for a libgomp dlopen'd later).  Not in a handler.
 */
#include <dlfcn.h>
#include <stdlib.h>

#define RT_EXPORT __attribute__((visibility("default")))

typedef void (*omp_fn)(void *);
typedef void (*gomp_parallel_fn)(omp_fn, void *, unsigned, unsigned);

void variance_region(omp_fn fn, void *data, unsigned nthreads, unsigned flags,
		     gomp_parallel_fn real);

static gomp_parallel_fn real_gomp_parallel;

__attribute__((constructor(101))) static void omp_init(void)
{
	real_gomp_parallel = (gomp_parallel_fn)dlsym(RTLD_NEXT, "GOMP_parallel");
}

RT_EXPORT void GOMP_parallel(omp_fn fn, void *data, unsigned nthreads, unsigned flags)
{
	if (!real_gomp_parallel)
		real_gomp_parallel = (gomp_parallel_fn)dlsym(RTLD_NEXT, "GOMP_parallel");
	if (!real_gomp_parallel)
		abort();	/* only code built against libgomp calls it, and it defines it */
	variance_region(fn, data, nthreads, flags, real_gomp_parallel);
}
