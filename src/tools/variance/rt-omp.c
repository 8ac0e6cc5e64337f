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
 *
 * LLVM's runtime (libomp, and the builds of it Intel's and AMD's compilers ship): its
 * __kmpc_fork_call is variadic (the outlined function gets the captured variables as
 * its own arguments, as many as the compiler chose), so no function of ours can stand
 * between it and the outlined one.  Instead libsonde.so is an OMPT tool (the OpenMP
 * standard's tool interface: ompt_start_tool, below) whose callbacks say where each
 * thread's share of a region begins and ends (rt-variance.c, variance_ompt_begin), and
 * __kmpc_fork_call is interposed by a few instructions that only note the outlined
 * function (its third argument) and jump on, so that the region's callbacks know whose
 * instance it is.  See ompt_start_tool for when sonde claims the interface.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt/rt.h"
#include "sonde/openmp.h"

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
		int n = snprintf(msg, sizeof(msg), "sonde: %s: no OpenMP runtime in this process "
				 "defines it\n", name);
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

/* ---- LLVM's runtime: __kmpc_fork_call and OMPT ---- */

/*
 * The OMPT interface, as much of it as is used here, from the OpenMP 5.0 standard's
 * omp-tools.h (a stable ABI; the header comes with clang, not with gcc).
 */
typedef union {
	uint64_t value;
	void *ptr;
} ompt_data;
typedef struct {
	ompt_data exit_frame, enter_frame;
	int exit_frame_flags, enter_frame_flags;
} ompt_frame;
typedef void (*ompt_fn)(void);
typedef ompt_fn (*ompt_lookup)(const char *);
typedef int (*ompt_set_callback_fn)(int event, ompt_fn callback);
typedef int (*ompt_get_task_info_fn)(int level, int *flags, ompt_data **task, ompt_frame **frame,
				     ompt_data **parallel, int *thread_num);
typedef struct {
	int (*initialize)(ompt_lookup lookup, int initial_device, ompt_data *tool_data);
	void (*finalize)(ompt_data *tool_data);
	ompt_data tool_data;
} ompt_start_result;
typedef ompt_start_result *(*ompt_start_fn)(unsigned omp_version, const char *runtime);

enum {
	OMPT_CB_PARALLEL_BEGIN = 3, OMPT_CB_IMPLICIT_TASK = 7, OMPT_CB_SYNC_REGION = 23,
	OMPT_SET_NEVER = 1,
	OMPT_SCOPE_BEGIN = 1,
	OMPT_TASK_IMPLICIT = 0x2,
	/* the closing barrier of a region: "implicit" up to OpenMP 5.0 (libomp 14 gives it
	 * to worksharing constructs' barriers too), "implicit_parallel" from 5.1 */
	OMPT_SYNC_BARRIER_IMPLICIT = 2, OMPT_SYNC_BARRIER_IMPLICIT_PARALLEL = 9,
};

/* rt-variance.c */
void variance_ompt_begin(uint64_t fn, const void *task, uint64_t ret, uint64_t fp);
int variance_ompt_open(const void *task);
void variance_ompt_end(const void *task, int barrier);
void variance_region_fn(uint64_t fn);
int variance_regions_env(void);

static ompt_get_task_info_fn ompt_task_info;
/* the outlined function of the region this thread is starting (kmp_fork_hook), until
 * the region's parallel-begin callback takes it */
static RT_TLS uint64_t kmp_microtask;

/* A region begins on its master: its outlined function, noted by our __kmpc_fork_call,
 * goes into the region's OMPT data, which the team's threads get.  0 for a region that
 * did not come through __kmpc_fork_call (a serialized one the compiler runs itself, a
 * `teams`): not timed. */
static void on_parallel_begin(ompt_data *task, const ompt_frame *frame, ompt_data *parallel,
			      unsigned requested, int flags, const void *ra)
{
	uint64_t fn = kmp_microtask;

	(void)task, (void)frame, (void)requested, (void)flags, (void)ra;
	kmp_microtask = 0;
	if (parallel)
		parallel->value = fn;
	if (fn)
		variance_region_fn(fn);
}

static void on_implicit_task(int endpoint, ompt_data *parallel, ompt_data *task,
			     unsigned actual, unsigned index, int flags)
{
	(void)actual, (void)index;
	if (!(flags & OMPT_TASK_IMPLICIT))
		return;	/* the initial task: the program's own run */
	if (endpoint == OMPT_SCOPE_BEGIN) {
		/* every one, a region's with no function known too: it counts as nested in
		 * an open instance */
		variance_ompt_begin(parallel ? parallel->value : 0, task,
				    (uint64_t)(uintptr_t)__builtin_return_address(0),
				    (uint64_t)(uintptr_t)__builtin_frame_address(0));
	} else {
		/* a team of one ends here, with no barrier; a team's other threads end their
		 * task only when the next region comes (their instance closed at the barrier) */
		variance_ompt_end(task, 0);
	}
}

/* A barrier begins.  The region's closing one: after the outlined function returned,
 * when the runtime has cleared the task's exit frame (a worksharing construct's barrier,
 * which libomp 14 gives the same kind, is inside it: the frame is set). */
static void on_sync_region(int kind, int endpoint, ompt_data *parallel, ompt_data *task,
			   const void *ra)
{
	(void)parallel, (void)ra;
	if (endpoint != OMPT_SCOPE_BEGIN || !variance_ompt_open(task))
		return;
	if (kind == OMPT_SYNC_BARRIER_IMPLICIT) {
		int flags = 0, thread = 0;
		ompt_data *t = NULL, *p = NULL;
		ompt_frame *f = NULL;
		if (!ompt_task_info(0, &flags, &t, &f, &p, &thread) || !f || f->exit_frame.ptr)
			return;
	} else if (kind != OMPT_SYNC_BARRIER_IMPLICIT_PARALLEL) {
		return;
	}
	variance_ompt_end(task, 1);
}

static int ompt_init(ompt_lookup lookup, int device, ompt_data *data)
{
	(void)device, (void)data;
	/* a library's constructor that calls OpenMP runs this before libsonde.so's own
	 * (var_start): the setting read here then (review, 2026-11-27: such a program had
	 * no region timed) */
	int regions = variance_regions > 0 ? variance_regions : variance_regions_env();
	if (regions <= 0)
		return 0;	/* the runtime then calls nothing of ours */
	variance_regions = regions;
	ompt_set_callback_fn set = (ompt_set_callback_fn)lookup("ompt_set_callback");
	ompt_task_info = (ompt_get_task_info_fn)lookup("ompt_get_task_info");
	if (!set || !ompt_task_info)
		return 0;
	static const struct {
		int event;
		ompt_fn fn;
	} cb[] = {
		{ OMPT_CB_PARALLEL_BEGIN, (ompt_fn)on_parallel_begin },
		{ OMPT_CB_IMPLICIT_TASK, (ompt_fn)on_implicit_task },
		{ OMPT_CB_SYNC_REGION, (ompt_fn)on_sync_region },
	};
	for (size_t i = 0; i < sizeof(cb) / sizeof(cb[0]); i++)
		if (set(cb[i].event, cb[i].fn) <= OMPT_SET_NEVER) {
			for (size_t j = 0; j < i; j++)
				set(cb[j].event, NULL);
			return 0;
		}
	return 1;
}

static void ompt_fini(ompt_data *data)
{
	(void)data;
}

/*
 * The OpenMP runtime asks for a tool when it starts (libomp calls ompt_start_tool; libgomp
 * has no OMPT and does not).  sonde claims the interface only under `sonde variance` with
 * regions timed, and only where the program brings no tool of its own (the standard
 * allows one): the next ompt_start_tool in the process is asked first (libomp's own
 * default asks the libraries after it in turn: a tool linked after libomp is found so,
 * review 2026-11-27), and where it gives a tool, that tool keeps the interface; where
 * OMP_TOOL_LIBRARIES is set, the runtime is left to load those.  A tool defined in the
 * executable itself comes before libsonde.so: the runtime never asks us.  The runtime reads
 * OMP_TOOL=disabled before asking anyone.
 */
static void ompt_yield(const char *why)
{
	char msg[200];
	int n = snprintf(msg, sizeof(msg), "sonde: variance: %s; LLVM's OpenMP regions are "
			 "picked, not timed\n", why);
	if (n > 0 && n < (int)sizeof(msg) && write(2, msg, (size_t)n) < 0)
		n = 0;
}

RT_EXPORT ompt_start_result *ompt_start_tool(unsigned omp_version, const char *runtime)
{
	static ompt_start_result ours = { ompt_init, ompt_fini, { 0 } };
	ompt_start_fn next = (ompt_start_fn)dlsym(RTLD_NEXT, "ompt_start_tool");
	const char *tool = getenv("SONDE_TOOL"), *libs = getenv("OMP_TOOL_LIBRARIES");
	ompt_start_result *theirs = next ? next(omp_version, runtime) : NULL;

	if (!tool || strcmp(tool, "variance") || variance_regions_env() <= 0)
		return theirs;
	if (theirs) {
		ompt_yield("the program brings its own OpenMP tool (OMPT)");
		return theirs;
	}
	if (libs && *libs) {
		ompt_yield("OMP_TOOL_LIBRARIES is set, the OpenMP tool interface is left to it");
		return NULL;
	}
	return &ours;
}

/*
 * __kmpc_fork_call(loc, argc, microtask, ...): the outlined function is noted for the
 * region's parallel-begin callback, then the real one is jumped to with every argument
 * register as it came (rdi, rsi, rdx, rcx, r8, r9, rax: the count of vector registers a
 * variadic call passes, xmm0-7) and our frame gone, so nothing of ours is under the
 * region.  kmp_fork_hook(microtask, caller) returns the real function.
 */
static void *real_fork;

__attribute__((used, visibility("hidden"))) void *kmp_fork_hook(uint64_t microtask, void *caller);
__attribute__((used, visibility("hidden"))) void *kmp_fork_hook(uint64_t microtask, void *caller)
{
	/* always: the first region's call may be what starts the runtime and its tool
	 * (review, 2026-11-27: a program whose first OpenMP call was a region's lost it);
	 * with no tool of ours nothing reads it */
	kmp_microtask = microtask;
	return __atomic_load_n(&real_fork, __ATOMIC_ACQUIRE)
		       ?: real_slow(&real_fork, "__kmpc_fork_call", caller);
}

__asm__(".text\n"
	".globl __kmpc_fork_call\n"
	".type __kmpc_fork_call, @function\n"
	"__kmpc_fork_call:\n"
	"	.cfi_startproc\n"
	"	pushq %rdi\n	.cfi_adjust_cfa_offset 8\n"
	"	pushq %rsi\n	.cfi_adjust_cfa_offset 8\n"
	"	pushq %rdx\n	.cfi_adjust_cfa_offset 8\n"
	"	pushq %rcx\n	.cfi_adjust_cfa_offset 8\n"
	"	pushq %r8\n	.cfi_adjust_cfa_offset 8\n"
	"	pushq %r9\n	.cfi_adjust_cfa_offset 8\n"
	"	pushq %rax\n	.cfi_adjust_cfa_offset 8\n"
	/* seven pushes: the stack is 16-byte aligned again for the call */
	"	subq $128, %rsp\n	.cfi_adjust_cfa_offset 128\n"
	"	movdqu %xmm0, 0(%rsp)\n"
	"	movdqu %xmm1, 16(%rsp)\n"
	"	movdqu %xmm2, 32(%rsp)\n"
	"	movdqu %xmm3, 48(%rsp)\n"
	"	movdqu %xmm4, 64(%rsp)\n"
	"	movdqu %xmm5, 80(%rsp)\n"
	"	movdqu %xmm6, 96(%rsp)\n"
	"	movdqu %xmm7, 112(%rsp)\n"
	"	movq %rdx, %rdi\n"
	"	movq 184(%rsp), %rsi\n"	/* the return address: the caller */
	"	call kmp_fork_hook\n"
	"	movq %rax, %r11\n"
	"	movdqu 0(%rsp), %xmm0\n"
	"	movdqu 16(%rsp), %xmm1\n"
	"	movdqu 32(%rsp), %xmm2\n"
	"	movdqu 48(%rsp), %xmm3\n"
	"	movdqu 64(%rsp), %xmm4\n"
	"	movdqu 80(%rsp), %xmm5\n"
	"	movdqu 96(%rsp), %xmm6\n"
	"	movdqu 112(%rsp), %xmm7\n"
	"	addq $128, %rsp\n	.cfi_adjust_cfa_offset -128\n"
	"	popq %rax\n	.cfi_adjust_cfa_offset -8\n"
	"	popq %r9\n	.cfi_adjust_cfa_offset -8\n"
	"	popq %r8\n	.cfi_adjust_cfa_offset -8\n"
	"	popq %rcx\n	.cfi_adjust_cfa_offset -8\n"
	"	popq %rdx\n	.cfi_adjust_cfa_offset -8\n"
	"	popq %rsi\n	.cfi_adjust_cfa_offset -8\n"
	"	popq %rdi\n	.cfi_adjust_cfa_offset -8\n"
	"	jmp *%r11\n"
	"	.cfi_endproc\n"
	".size __kmpc_fork_call, .-__kmpc_fork_call\n");
