/* SPDX-License-Identifier: MIT */
/*
 * rt-omp.c - the entry points of GCC's OpenMP runtime (libgomp) that start a parallel
 * region, interposed for the variance tool: every thread of the team calls the region's
 * outlined function, and the runtime's own function in between (rt-variance.c,
 * variance_region) times that call as an instance, with no trap.  GOMP_parallel (a
 * `parallel`, or a `parallel for` with a static schedule), GOMP_parallel_loop_* (a
 * `parallel for` with another schedule) and GOMP_parallel_sections; the outlined
 * function is the first argument of each, its data the second.
 *
 * With any other tool, or SONDE_VARIANCE_REGIONS=0, a wrapper only jumps to the real
 * function (a tail call: no frame of ours stays under the region, so other tools' call
 * paths do not see one); where regions are timed, the arguments after the first two are
 * kept in a struct for the call (the invoke_* functions).
 *
 * The real function: the next definition after ours in the global scope (dlsym
 * RTLD_NEXT), kept once found; a program's libgomp, or one loaded RTLD_GLOBAL later, is
 * found so.  A libgomp loaded RTLD_LOCAL (Python extension modules, wheels that ship
 * their own) is not in that scope, but its users' references bind to our wrappers first
 * (the preloaded library comes first): there the real function is looked up in the
 * calling object's own scope (dladdr of the return address, that object dlopen'd
 * RTLD_NOLOAD, dlsym in it: its dependencies, the libgomp it loaded), per caller, kept in
 * a small table (two copies of libgomp in one process each serve their own callers).
 * Where none is found the program stops with a message (exit 127), as the loader would
 * have stopped it.  Not in a handler (dlsym, dladdr, dlopen take the loader's lock).
 * The review's case (2026-11-27): a preloaded library, a plugin dlopen'd RTLD_LOCAL with
 * its own libgomp: abort() at its first region before; t822 runs it.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RT_EXPORT __attribute__((visibility("default")))

typedef void (*omp_fn)(void *);
typedef void (*invoke_fn)(omp_fn, void *, const void *);

/* rt-variance.c */
extern int variance_regions;	/* > 0: regions timed */
void variance_region(omp_fn fn, void *data, invoke_fn invoke, const void *args);

/* the real functions of callers outside the global scope: (caller's object, name) */
#define OMP_LOCAL_MAX 32
static struct {
	void *base;
	const char *name;
	void *fn;
} omp_local[OMP_LOCAL_MAX];
static int omp_nlocal;
static pthread_mutex_t omp_local_lock = PTHREAD_MUTEX_INITIALIZER;

static void *real_in_caller(const char *name, void *caller)
{
	Dl_info di, self, got;
	void *f = NULL;

	if (!caller || !dladdr(caller, &di) || !di.dli_fbase)
		return NULL;
	pthread_mutex_lock(&omp_local_lock);
	for (int i = 0; i < omp_nlocal && !f; i++)
		if (omp_local[i].base == di.dli_fbase && !strcmp(omp_local[i].name, name))
			f = omp_local[i].fn;
	pthread_mutex_unlock(&omp_local_lock);
	if (f)
		return f;
	void *h = di.dli_fname ? dlopen(di.dli_fname, RTLD_NOLOAD | RTLD_LAZY) : NULL;
	if (h) {
		f = dlsym(h, name);
		dlclose(h);
	}
	/* our own wrapper (a scope that holds libsonde.so): not the real one */
	if (f && dladdr(f, &got) && dladdr((void *)(uintptr_t)real_in_caller, &self) &&
	    got.dli_fbase == self.dli_fbase)
		f = NULL;
	if (f) {
		pthread_mutex_lock(&omp_local_lock);
		if (omp_nlocal < OMP_LOCAL_MAX) {
			omp_local[omp_nlocal].base = di.dli_fbase;
			omp_local[omp_nlocal].name = name;
			omp_local[omp_nlocal].fn = f;
			omp_nlocal++;
		}
		pthread_mutex_unlock(&omp_local_lock);
	}
	return f;
}

static __attribute__((noinline)) void *real_slow(void **slot, const char *name, void *caller)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (f) {
		__atomic_store_n(slot, f, __ATOMIC_RELEASE);
		return f;
	}
	f = real_in_caller(name, caller);
	if (!f) {
		char msg[160];
		int n = snprintf(msg, sizeof(msg), "sonde: %s: no OpenMP runtime (libgomp) in "
				 "this process defines it\n", name);
		if (n > 0 && n < (int)sizeof(msg) && write(2, msg, (size_t)n) < 0)
			n = 0;
		_exit(127);	/* where the loader would have stopped the program */
	}
	return f;
}

/* The real `name` for a call from `caller` (see above). */
#define real_of(slot, name) \
	(__atomic_load_n(slot, __ATOMIC_ACQUIRE) ?: real_slow(slot, name, __builtin_return_address(0)))

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
