/* SPDX-License-Identifier: MIT */
/*
 * ompt.c - the OpenMP runtimes' entry points, for every tool: the real function behind an
 * interposed one (rt_omp_real), and LLVM's runtime through OMPT, the OpenMP standard's
 * tool interface.
 *
 * The real function of an interposed OpenMP entry (variance's GOMP_* wrappers, the
 * __kmpc_fork_call below): the next definition after ours in the global scope (dlsym
 * RTLD_NEXT), kept once found; a program's runtime, or one loaded RTLD_GLOBAL later, is
 * found so.  A runtime loaded RTLD_LOCAL (Python extension modules, wheels that ship
 * their own) is not in that scope, but its users' references bind to our wrappers first
 * (the preloaded library comes first): there the real function is looked up in the
 * calling object's own scope (dladdr of the return address, that object dlopen'd
 * RTLD_NOLOAD, dlsym in it: its dependencies, the runtime it loaded), per caller, kept in
 * a small table (two copies of a runtime in one process each serve their own callers).
 * Where none is found the program stops with a message (exit 127), as the loader would
 * have stopped it.  Not in a handler (dlsym, dladdr, dlopen take the loader's lock).
 * The review's case (2026-11-27): a preloaded library, a plugin dlopen'd RTLD_LOCAL with
 * its own libgomp: abort() at its first region before; t822 runs it.
 *
 * LLVM's runtime (libomp, and the builds of it Intel's and AMD's compilers ship) asks for
 * an OMPT tool when it starts (ompt_start_tool; GCC's libgomp has no OMPT).  libsonde.so
 * answers under any tool, unless the program brings a tool of its own: every thread's
 * implicit task then reports its number in its team, the OpenMP thread number of the
 * reports where the thread is in a top-level region (rt_omp_number; libgomp's are read at
 * samples, omp-sig.c).  A tool that times regions (struct rt_tool's omp_* hooks: variance)
 * also gets where each thread's share of a region begins and ends; its __kmpc_fork_call
 * is variadic (the outlined function gets the captured variables as its own arguments,
 * as many as the compiler chose), so no function of ours can stand between it and the
 * outlined one: __kmpc_fork_call is interposed by a few instructions that only note the
 * outlined function (its third argument) and jump on, so that the region's callbacks
 * know whose instance it is.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sonde/openmp.h"
#include "rt/decode-x86.h"
#include "rt/rt.h"
#include "rt/thread.h"

#define RT_EXPORT __attribute__((visibility("default")))

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

__attribute__((noinline)) void *rt_omp_real(void **slot, const char *name, void *caller)
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
	OMPT_CB_PARALLEL_BEGIN = 3, OMPT_CB_PARALLEL_END = 4, OMPT_CB_IMPLICIT_TASK = 7,
	OMPT_CB_SYNC_REGION = 23,
	OMPT_SET_NEVER = 1,
	OMPT_SCOPE_BEGIN = 1,
	OMPT_TASK_INITIAL = 0x1, OMPT_TASK_IMPLICIT = 0x2,
	/* the closing barrier of a region: "implicit" up to OpenMP 5.0 (libomp 14 gives it
	 * to worksharing constructs' barriers too), "implicit_parallel" from 5.1 */
	OMPT_SYNC_BARRIER_IMPLICIT = 2, OMPT_SYNC_BARRIER_IMPLICIT_PARALLEL = 9,
};

/* the tool of SONDE_TOOL, whether started yet or not (libomp may start its tool from a
 * library's constructor, before libsonde.so's own has run) */
static const struct rt_tool *ompt_tool(void)
{
	return rt_tool ? rt_tool : rt_tool_find(getenv("SONDE_TOOL"));
}

static ompt_get_task_info_fn ompt_task_info;
/* the outlined function of the region this thread is starting (kmp_fork_hook), until
 * the region's parallel-begin callback takes it */
static RT_TLS uint64_t kmp_microtask;

/*
 * A region the compiler serialized itself (`parallel if(c)` with c false, by clang up to
 * 16 at least): the program calls __kmpc_serialized_parallel, then the outlined function
 * directly, then __kmpc_end_serialized_parallel; the first one's callback comes with `ra`,
 * its return address.  The outlined function: the first direct call after it that is a
 * function of the program (a sonde-cc build calls its instrumentation's callbacks in
 * between, through the PLT: review, 2026-11-27, whose regions were all named "_init"),
 * taken when the call that returns to `ra` is one of __kmpc_serialized_parallel (by its
 * symbol, direct or through its PLT stub: clang calls the runtime's entries so with
 * -fno-plt too), so that no other region kind's `ra` is read so (libomp's GOMP entries
 * give their caller's return address too).  0 when not found.  Each `ra`'s answer is kept
 * in a small per-thread table: the code reads (system calls) and dladdr would otherwise
 * run at every region that does not come through __kmpc_fork_call (gcc code on libomp:
 * review, 2026-11-27).
 */
#define SER_CACHE 16
static RT_TLS struct {
	uint64_t ra, fn;
} ser_cache[SER_CACHE];

static uint64_t serialized_find(uint64_t ra)
{
	static uint64_t known;	/* the __kmpc_serialized_parallel last seen */
	uint64_t callee = decode_call_target(ra), via, at = ra, fn = 0;
	Dl_info di;

	if (!callee)
		return 0;
	if ((via = decode_plt_target(callee)))
		callee = via;
	if (callee != __atomic_load_n(&known, __ATOMIC_RELAXED)) {
		if (!dladdr((void *)(uintptr_t)callee, &di) || !di.dli_sname ||
		    strcmp(di.dli_sname, "__kmpc_serialized_parallel") ||
		    (uint64_t)(uintptr_t)di.dli_saddr != callee)
			return 0;
		__atomic_store_n(&known, callee, __ATOMIC_RELAXED);
	}
	/* the arguments' set-up between the two calls: a few moves and leas, and in a
	 * sonde-cc build the instrumentation's calls (PLT stubs into the runtime) */
	for (int k = 0; k < 4; k++) {
		uint64_t after = 0, start;
		fn = decode_next_call(at, 16, &after);
		if (!fn)
			return 0;
		if (!decode_plt_target(fn) && !rt_owns_address(fn) &&
		    (!(start = rt_fn_start(fn)) || start == fn))
			return fn;
		at = after;
	}
	return 0;
}

static uint64_t serialized_fn(uint64_t ra)
{
	unsigned i = (unsigned)(ra >> 2) % SER_CACHE;

	if (ser_cache[i].ra != ra) {
		ser_cache[i].fn = serialized_find(ra);
		ser_cache[i].ra = ra;
	}
	return ser_cache[i].fn;
}

/* A region begins on its master: its outlined function, noted by our __kmpc_fork_call
 * (or after a serialized region's call: serialized_fn), the frame the runtime was
 * entered from and the program's return address go to the tool, whose value for the
 * region goes into the region's OMPT data, which the team's threads get.  0 for a region
 * of another kind (a `teams`): not timed.  The master's frames are the region's context:
 * before, a region's instances (and the samples in it) had the outlined function alone,
 * its callers 0.0% of the time (the trial of 2026-11-28: miniAMR's stencil_calc and its
 * callers under 0.1%, its region 51.5%; libgomp's had them, from rt-omp.c's wrappers). */
static void on_parallel_begin(ompt_data *task, const ompt_frame *frame, ompt_data *parallel,
			      unsigned requested, int flags, const void *ra)
{
	uint64_t fn = kmp_microtask;
	const struct rt_tool *tool = rt_tool;

	(void)task, (void)requested, (void)flags;
	kmp_microtask = 0;
	if (!fn && ra)
		fn = serialized_fn((uint64_t)(uintptr_t)ra);
	if (parallel)
		parallel->value = fn && tool && tool->omp_region_begin ?
			tool->omp_region_begin(fn, frame ? frame->enter_frame.value : 0,
					       (uint64_t)(uintptr_t)ra) : 0;
}

/* The region ends on its master, its team joined. */
static void on_parallel_end(ompt_data *parallel, ompt_data *task, int flags, const void *ra)
{
	const struct rt_tool *tool = rt_tool;

	(void)task, (void)flags, (void)ra;
	if (parallel && parallel->value && tool && tool->omp_region_end)
		tool->omp_region_end(parallel->value);
}

static void on_implicit_task(int endpoint, ompt_data *parallel, ompt_data *task,
			     unsigned actual, unsigned index, int flags)
{
	const struct rt_tool *tool = rt_tool;

	(void)actual;
	if (!(flags & OMPT_TASK_IMPLICIT))
		return;	/* the initial task: the program's own run */
	if (endpoint == OMPT_SCOPE_BEGIN) {
		struct rt_thread *t;
		int pflags = 0, thread = 0;
		ompt_data *pt = NULL, *pp = NULL;
		ompt_frame *pf = NULL;
		/* a top-level region's (the task it came from is the initial one): the
		 * thread's OpenMP number.  Asked of the runtime, not counted here: a thread
		 * that only ever serves a nested team has no top-level task of its own (review,
		 * 2026-11-27: such a thread read its nested number) */
		if (ompt_task_info && ompt_task_info(1, &pflags, &pt, &pf, &pp, &thread) &&
		    (pflags & OMPT_TASK_INITIAL) && (t = rt_self()) && !rt_enter(t)) {
			rt_omp_number(t, (int)index);
			rt_leave(t);
		}
		/* every one, a region's with no function known too: it counts as nested in
		 * an open instance */
		if (tool && tool->omp_task_begin)
			tool->omp_task_begin(parallel ? parallel->value : 0, task,
					     (uint64_t)(uintptr_t)__builtin_return_address(0),
					     (uint64_t)(uintptr_t)__builtin_frame_address(0));
	} else {
		/* a team of one ends here, with no barrier; a team's other threads end their
		 * task only when the next region comes (their instance closed at the barrier) */
		if (tool && tool->omp_task_end)
			tool->omp_task_end(task, 0);
	}
}

/* A barrier begins.  The region's closing one: after the outlined function returned,
 * when the runtime has cleared the task's exit frame (a worksharing construct's barrier,
 * which libomp 14 gives the same kind, is inside it: the frame is set). */
static void on_sync_region(int kind, int endpoint, ompt_data *parallel, ompt_data *task,
			   const void *ra)
{
	const struct rt_tool *tool = rt_tool;

	(void)parallel, (void)ra;
	if (endpoint != OMPT_SCOPE_BEGIN || !tool || !tool->omp_task_open ||
	    !tool->omp_task_open(task))
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
	if (tool->omp_task_end)
		tool->omp_task_end(task, 1);
}

static int ompt_init(ompt_lookup lookup, int device, ompt_data *data)
{
	(void)device, (void)data;
	ompt_set_callback_fn set = (ompt_set_callback_fn)lookup("ompt_set_callback");
	ompt_task_info = (ompt_get_task_info_fn)lookup("ompt_get_task_info");
	if (!set || !ompt_task_info)
		return 0;
	/* the tool's wish asked now: a library's constructor that calls OpenMP runs this
	 * before libsonde.so's own (review, 2026-11-27: such a program had no region timed) */
	const struct rt_tool *tool = ompt_tool();
	int regions = tool && tool->omp_regions && tool->omp_regions() > 0;
	static const struct {
		int event;
		ompt_fn fn;
		int regions;	/* for a tool that times regions only */
	} cb[] = {
		{ OMPT_CB_IMPLICIT_TASK, (ompt_fn)on_implicit_task, 0 },
		{ OMPT_CB_PARALLEL_BEGIN, (ompt_fn)on_parallel_begin, 1 },
		{ OMPT_CB_PARALLEL_END, (ompt_fn)on_parallel_end, 1 },
		{ OMPT_CB_SYNC_REGION, (ompt_fn)on_sync_region, 1 },
	};
	for (size_t i = 0; i < sizeof(cb) / sizeof(cb[0]); i++)
		if ((regions || !cb[i].regions) && set(cb[i].event, cb[i].fn) <= OMPT_SET_NEVER) {
			for (size_t j = 0; j < i; j++)
				set(cb[j].event, NULL);
			return 0;	/* the runtime then calls nothing of ours */
		}
	return 1;
}

static void ompt_fini(ompt_data *data)
{
	(void)data;
}

/*
 * The OpenMP runtime asks for a tool when it starts.  sonde claims the interface under any
 * tool, only where the program brings no tool of its own (the standard allows one): the
 * next ompt_start_tool in the process is asked first (libomp's own default asks the
 * libraries after it in turn: a tool linked after libomp is found so, review 2026-11-27),
 * and where it gives a tool, that tool keeps the interface; where OMP_TOOL_LIBRARIES is
 * set, the runtime is left to load those.  A tool defined in the executable itself comes
 * before libsonde.so: the runtime never asks us.  The runtime reads OMP_TOOL=disabled
 * before asking anyone.
 */
static void ompt_yield(const struct rt_tool *tool, const char *why)
{
	char msg[240];
	/* said where it changes what is measured (a tool that times regions); elsewhere the
	 * reports only lack libomp's thread numbers, and a tool's run stays quiet */
	if (!tool->omp_regions || tool->omp_regions() <= 0)
		return;
	int n = snprintf(msg, sizeof(msg), "sonde: %s: %s; LLVM's OpenMP regions are picked, "
			 "not timed\n", tool->name, why);
	if (n > 0 && n < (int)sizeof(msg) && write(2, msg, (size_t)n) < 0)
		n = 0;
}

RT_EXPORT ompt_start_result *ompt_start_tool(unsigned omp_version, const char *runtime)
{
	static ompt_start_result ours = { ompt_init, ompt_fini, { 0 } };
	ompt_start_fn next = (ompt_start_fn)dlsym(RTLD_NEXT, "ompt_start_tool");
	const char *libs = getenv("OMP_TOOL_LIBRARIES");
	const struct rt_tool *tool = ompt_tool();
	ompt_start_result *theirs = next ? next(omp_version, runtime) : NULL;

	if (!tool)
		return theirs;
	if (theirs) {
		ompt_yield(tool, "the program brings its own OpenMP tool (OMPT)");
		return theirs;
	}
	if (libs && *libs) {
		ompt_yield(tool, "OMP_TOOL_LIBRARIES is set, the OpenMP tool interface is left to it");
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
		       ?: rt_omp_real(&real_fork, "__kmpc_fork_call", caller);
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
