/* SPDX-License-Identifier: MIT */
/*
 * rt-omp.c - the OpenMP runtimes' parallel regions, for the variance tool, timed as
 * instances of their outlined functions with no trap.
 *
 * GCC's runtime (libgomp): the entry points that start a region are interposed: every
 * thread of the team calls the region's outlined function, and the runtime's own
 * function in between (rt-variance.c, variance_region) times that call.  GOMP_parallel (a
 * `parallel`, or a `parallel for` with a static schedule), GOMP_parallel_loop_* (a
 * `parallel for` with another schedule) and GOMP_parallel_sections; the outlined
 * function is the first argument of each, its data the second.
 *
 * With any other tool, or SONDE_VARIANCE_REGIONS=0, a wrapper only jumps to the real
 * function (a tail call: no frame of ours stays under the region, so other tools' call
 * paths do not see one); where regions are timed, the arguments after the first two are
 * kept in a struct for the call (the invoke_* functions).
 *
 * The real function: src/rt/ompt.c (rt_omp_real: the global scope's next definition,
 * else the calling object's own scope, for a libgomp loaded RTLD_LOCAL; t822).
 *
 * LLVM's runtime (libomp): its regions are reported through OMPT (src/rt/ompt.c), which
 * calls the tool's omp_* hooks (rt-variance.c, var_omp_*).
 */
#include <stdint.h>

#include "rt/rt.h"

#define RT_EXPORT __attribute__((visibility("default")))

typedef void (*omp_fn)(void *);
typedef void (*invoke_fn)(omp_fn, void *, const void *);

/* rt-variance.c */
extern int variance_regions;	/* > 0: regions timed */
void variance_region(omp_fn fn, void *data, invoke_fn invoke, const void *args);

/* The real `name` for a call from `caller` (src/rt/ompt.c). */
#define real_of(slot, name) \
	(__atomic_load_n(slot, __ATOMIC_ACQUIRE) ?: rt_omp_real(slot, name, __builtin_return_address(0)))

/* ---- GOMP_parallel (fn, data, num_threads, flags) ---- */
typedef void (*par_fn)(omp_fn, void *, unsigned, unsigned);
struct par_args {
	par_fn real;
	unsigned nthreads, flags;
};

static void invoke_par(omp_fn fn, void *data, const void *p)
{
	const struct par_args *a = p;
	a->real(fn, data, a->nthreads, a->flags);
}

static __attribute__((noinline)) void timed_par(par_fn real, omp_fn fn, void *data,
						unsigned nthreads, unsigned flags)
{
	struct par_args a = { real, nthreads, flags };
	variance_region(fn, data, invoke_par, &a);
}

static void *real_par;

RT_EXPORT void GOMP_parallel(omp_fn fn, void *data, unsigned nthreads, unsigned flags)
{
	par_fn real = (par_fn)real_of(&real_par, "GOMP_parallel");

	if (variance_regions <= 0)
		real(fn, data, nthreads, flags);
	else
		timed_par(real, fn, data, nthreads, flags);
}

/* ---- GOMP_parallel_sections (fn, data, num_threads, count, flags) ---- */
typedef void (*sec_fn)(omp_fn, void *, unsigned, unsigned, unsigned);
struct sec_args {
	sec_fn real;
	unsigned nthreads, count, flags;
};

static void invoke_sec(omp_fn fn, void *data, const void *p)
{
	const struct sec_args *a = p;
	a->real(fn, data, a->nthreads, a->count, a->flags);
}

static __attribute__((noinline)) void timed_sec(sec_fn real, omp_fn fn, void *data,
						unsigned nthreads, unsigned count, unsigned flags)
{
	struct sec_args a = { real, nthreads, count, flags };
	variance_region(fn, data, invoke_sec, &a);
}

static void *real_sec;

RT_EXPORT void GOMP_parallel_sections(omp_fn fn, void *data, unsigned nthreads, unsigned count,
				      unsigned flags)
{
	sec_fn real = (sec_fn)real_of(&real_sec, "GOMP_parallel_sections");

	if (variance_regions <= 0)
		real(fn, data, nthreads, count, flags);
	else
		timed_sec(real, fn, data, nthreads, count, flags);
}

/* ---- GOMP_parallel_loop_{static,dynamic,guided,...} (fn, data, num_threads, start, end,
 * incr, chunk_size, flags) ---- */
typedef void (*loop_fn)(omp_fn, void *, unsigned, long, long, long, long, unsigned);
struct loop_args {
	loop_fn real;
	unsigned nthreads, flags;
	long start, end, incr, chunk;
};

static void invoke_loop(omp_fn fn, void *data, const void *p)
{
	const struct loop_args *a = p;
	a->real(fn, data, a->nthreads, a->start, a->end, a->incr, a->chunk, a->flags);
}

static __attribute__((noinline)) void timed_loop(loop_fn real, omp_fn fn, void *data,
						 unsigned nthreads, long start, long end,
						 long incr, long chunk, unsigned flags)
{
	struct loop_args a = { real, nthreads, flags, start, end, incr, chunk };
	variance_region(fn, data, invoke_loop, &a);
}

#define LOOP_WRAPPER(name)                                                                   \
	static void *real_##name;                                                            \
	RT_EXPORT void name(omp_fn fn, void *data, unsigned nthreads, long start, long end,  \
			    long incr, long chunk, unsigned flags)                           \
	{                                                                                    \
		loop_fn real = (loop_fn)real_of(&real_##name, #name);                        \
		if (variance_regions <= 0)                                                    \
			real(fn, data, nthreads, start, end, incr, chunk, flags);            \
		else                                                                         \
			timed_loop(real, fn, data, nthreads, start, end, incr, chunk, flags); \
	}

LOOP_WRAPPER(GOMP_parallel_loop_static)
LOOP_WRAPPER(GOMP_parallel_loop_dynamic)
LOOP_WRAPPER(GOMP_parallel_loop_guided)
LOOP_WRAPPER(GOMP_parallel_loop_nonmonotonic_dynamic)
LOOP_WRAPPER(GOMP_parallel_loop_nonmonotonic_guided)

/* ---- GOMP_parallel_loop_*runtime (fn, data, num_threads, start, end, incr, flags) ---- */
typedef void (*rloop_fn)(omp_fn, void *, unsigned, long, long, long, unsigned);
struct rloop_args {
	rloop_fn real;
	unsigned nthreads, flags;
	long start, end, incr;
};

static void invoke_rloop(omp_fn fn, void *data, const void *p)
{
	const struct rloop_args *a = p;
	a->real(fn, data, a->nthreads, a->start, a->end, a->incr, a->flags);
}

static __attribute__((noinline)) void timed_rloop(rloop_fn real, omp_fn fn, void *data,
						  unsigned nthreads, long start, long end,
						  long incr, unsigned flags)
{
	struct rloop_args a = { real, nthreads, flags, start, end, incr };
	variance_region(fn, data, invoke_rloop, &a);
}

#define RLOOP_WRAPPER(name)                                                                  \
	static void *real_##name;                                                            \
	RT_EXPORT void name(omp_fn fn, void *data, unsigned nthreads, long start, long end,  \
			    long incr, unsigned flags)                                       \
	{                                                                                    \
		rloop_fn real = (rloop_fn)real_of(&real_##name, #name);                      \
		if (variance_regions <= 0)                                                    \
			real(fn, data, nthreads, start, end, incr, flags);                   \
		else                                                                         \
			timed_rloop(real, fn, data, nthreads, start, end, incr, flags);      \
	}

RLOOP_WRAPPER(GOMP_parallel_loop_runtime)
RLOOP_WRAPPER(GOMP_parallel_loop_nonmonotonic_runtime)
RLOOP_WRAPPER(GOMP_parallel_loop_maybe_nonmonotonic_runtime)
