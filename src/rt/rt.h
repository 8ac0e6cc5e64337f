/* SPDX-License-Identifier: MIT */
/*
 * rt.h - the runtime's internal interface (libsonde.so, inside the profiled program).
 *
 * Data flow: a sample source (source-*.c) produces memory accesses on a thread and hands
 * each to rt_deliver_access(), which calls the active tool (tool-*.c).  Tools record
 * through the thread's writer (out.c) and calling-context tree (ctx.c).
 *
 * "Handler-safe" below means async-signal-safe: callable from a sample or trap handler
 * (no malloc, no stdio, no locks the interrupted code may hold).
 */
#ifndef SONDE_RT_H
#define SONDE_RT_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>
#include <ucontext.h>

#include "sonde/format.h"

#define RT_EXPORT __attribute__((visibility("default")))
#define RT_TLS __thread __attribute__((tls_model("initial-exec")))
/*
 * For a large zero-initialized array that a run touches a page or two of: the linker puts
 * .lbss after all of .bss, so the small variables every run writes share a few pages
 * instead of one page each between the arrays' untouched ends (libsonde.so's .bss pages
 * resident under sonde variance: 10 before, 7 after; doc/architecture.md, "The runtime's
 * fixed memory").
 */
#if defined(__GNUC__) && !defined(__clang__)
#define RT_LARGE __attribute__((section(".lbss")))
#else
/* clang 14 makes a named .lbss PROGBITS (the arrays then take file space) and accepts an
 * initializer there: plain .bss instead. */
#define RT_LARGE
#endif

/* ---- configuration, read once from SONDE_* in the constructor (init.c) ---- */

struct rt_config {
	int enabled;			/* SONDE_DIR set: profile this process */
	int source;			/* enum sonde_source_id wanted; NONE = automatic */
	uint64_t period;		/* 0 = the source's default */
	char dir[PATH_MAX];		/* SONDE_DIR: output directory */
	char tool[16];			/* SONDE_TOOL: "mem", ... */
	int rank;			/* MPI rank or -1 */
	int follow_exec;		/* SONDE_FOLLOW_EXEC: keep profiling after exec */
	int follow_fork;		/* SONDE_FOLLOW_FORK */
	uint64_t min_object;		/* SONDE_MIN_OBJECT: smaller heap blocks are not tracked */
	int max_depth;			/* SONDE_MAX_DEPTH: call-path frames kept */
	int sig_sample;			/* signal for sample sources (SONDE_SIGNAL, default SIGRTMAX-3) */
	int sig_watch;			/* signal for watchpoint traps (default SIGRTMAX-4) */
	int max_extra_steps;		/* clock source: random extra accesses skipped, 0..N-1 */
	int debug;			/* SONDE_DEBUG: messages on stderr at start/end (never in handlers) */
	uint64_t seed;			/* SONDE_SEED: random seed, 0 = from time and pid */
	uint64_t max_size;		/* SONDE_MAX_SIZE: bytes of records a process writes, 0 = no cap */
};

extern struct rt_config rt_cfg;

/* ---- per-thread state ---- */

struct rt_stats {
	uint64_t samples, dropped, signals, steps, traps, accesses, unwind_fail;
};

/* Per-thread bump allocator over mmap'd memory (arena.c).  Handler-safe. */
struct arena {
	char *base;
	size_t size, used;
};

/* Per-thread record writer (out.c). */
/* A thread's records are written at least this often while it samples (core.c). */
#define RT_OUT_FLUSH_NS 1000000000ull

struct out {
	char *buf;			/* the records' room in the mapping */
	size_t size, used;
	char *path;			/* <dir>/<pid>-<tid>.sdt, at the mapping's start */
	void *map;			/* the buffer's mapping: path, then buf */
	size_t map_size;
	int failed;			/* a write failed: records are being lost */
	uint64_t lost;			/* records lost */
	uint64_t nrec;			/* records in buf */
	uint32_t flushes;		/* buffers written so far (out.c: when to grow) */
	uint64_t flushed_at;		/* rt_now() at the last write (rt_deliver_access) */
};

struct cct_node;

struct cct {
	struct cct_node *root;
	uint32_t next_id;
};

struct rt_thread {
	int tid;
	uint32_t index;			/* 0 = main thread */
	volatile sig_atomic_t busy;	/* runtime code (not a handler) is running: handlers drop */
	volatile sig_atomic_t stopped;	/* no more records: thread ended or process exiting */
	volatile int finish_state;	/* finish.c: live, finishing, finished */
	struct rt_stats stats;
	struct arena arena;
	struct out out;
	struct cct cct;
	uint64_t rng;			/* xorshift state */
	uint64_t stack_lo, stack_hi;
	uint64_t tls_lo, tls_hi;	/* static TLS and glibc's descriptor (thread.c) */
	void *altstack;
	size_t altstack_size;
	/* the thread's errno, which every handler of the runtime saves and restores: a word
	 * the program shares with the runtime's own code (watch.c never watches it) */
	const int *errno_addr;
	void *src;			/* the sample source's per-thread state (from the arena) */
	void *tool;			/* the tool's per-thread state */
	void *watch;			/* watch.c's per-thread state, NULL until used */
	void *alloc_sites;		/* interpose.c's call-site cache (from the arena) */
	/* omp.c: the thread's OpenMP thread number + 1 (0: not known yet), and whether a
	 * later sample saw another one; deliveries since the last look */
	int32_t omp_thread1;
	int omp_varied;
	uint32_t omp_looks;
	/* source-inst.c: the thread's countdown (in its TLS) while it samples, else NULL:
	 * another thread's read of its access count to the access (rt_inst_accesses) */
	const uint64_t *inst_left;
};

/* The calling thread's state, NULL if the thread is not profiled.  Handler-safe. */
struct rt_thread *rt_self(void);
/* The same, for the inst callbacks' inline fast path (rt_self is a call). */
extern RT_TLS struct rt_thread *rt_self_tls;

/* Next pseudo-random number of the thread.  Handler-safe. */
uint64_t rt_rand(struct rt_thread *t);
/* A second stream of the thread's: rt_rand_split gives a state seeded from t's (and salt)
 * without drawing from it, rt_rand_next the next number of a state, so that the draws of
 * the second stream leave rt_rand's as in a run without them (a --seed run's reservoir
 * choices).  Handler-safe. */
uint64_t rt_rand_split(const struct rt_thread *t, uint64_t salt);
uint64_t rt_rand_next(uint64_t *state);

/* CLOCK_MONOTONIC in ns (vDSO).  Handler-safe. */
uint64_t rt_now(void);

/* clock_gettime through the vDSO's own entry when rt_vdso_clock_gettime is set (init.c,
 * at start-up), else glibc's: glibc's wrapper lies in a 64 KB fault-around window of
 * libc's time code (mktime, strftime...) that a program that never reads a clock does
 * not map, and every thread's first rt_now mapped it (bench/memory.sh comm).  0, or
 * nonzero on an error (the vDSO's -errno, or glibc's -1).  Handler-safe. */
extern int (*rt_vdso_clock_gettime)(clockid_t clk, struct timespec *ts);
int rt_clock_gettime(clockid_t clk, struct timespec *ts);

/* ---- samples ---- */

struct rt_access {
	uint64_t ip;		/* the accessing instruction */
	uint64_t addr;		/* effective address */
	uint64_t time;		/* rt_now() */
	uint64_t weight;	/* samples this access stands for, usually 1 */
	uint16_t len;		/* bytes */
	uint16_t flags;		/* SONDE_MEM_* */
};

/*
 * Hand one sampled access to the active tool.  `uc` is the context at the accessing
 * instruction (or just after it) when called from a handler, NULL when called from
 * ordinary code (the inst source), in which case call paths are unwound from the caller,
 * skipping `skip` frames.  Handler-safe.  Drops (and counts) the sample if the thread is
 * busy in the runtime or stopped.
 */
void rt_deliver_access(struct rt_thread *t, const struct rt_access *a, const ucontext_t *uc,
		       int skip);

/* omp.c: find libgomp's thread-number functions (at start); omp-sig.c: note the calling
 * thread's number at a sample, or record `n` as its number (handler-safe). */
void rt_omp_init(void);
void rt_omp_note(struct rt_thread *t);
/* omp.c: libgomp's omp_get_level and omp_get_thread_num, NULL where it has none or they
 * are not the TLS reads a handler may call */
extern int (*rt_omp_level)(void), (*rt_omp_num)(void);
void rt_omp_number(struct rt_thread *t, int n);
/* ompt.c: the real `name` (an OpenMP runtime's entry interposed by libsonde.so) for a call
 * from `caller`, kept in *slot; exits 127 where no runtime defines it.  Not in a handler. */
void *rt_omp_real(void **slot, const char *name, void *caller);

/* ---- sample sources ---- */

struct rt_source {
	const char *name;		/* "clock", "hw", "inst" */
	int id;				/* enum sonde_source_id */
	uint64_t default_period;
	/* 0 if the source can work here; else -errno and a one-line reason in why. */
	int (*probe)(char *why, size_t len);
	/* Process-wide setup (signal handlers).  0 or -errno. */
	int (*start)(void);
	/* Start sampling the calling thread.  0 or -errno (the thread is then unsampled). */
	int (*thread_start)(struct rt_thread *t);
	/* Stop sampling the calling thread; after it returns no sample arrives for it. */
	void (*thread_stop)(struct rt_thread *t);
	/* After fork, in the child: drop the parent's per-thread state of `t` without
	 * touching the parent's resources beyond closing inherited fds. */
	void (*after_fork_child)(struct rt_thread *t);
	/* Optional: t's signals that gave no access, by cause: names[i] (static strings)
	 * and counts[i] for i < the count returned (at most max).  Handler-safe. */
	int (*drops)(const struct rt_thread *t, const char **names, uint64_t *counts, int max);
};

extern const struct rt_source rt_source_clock, rt_source_hw, rt_source_inst;

/* source-inst.c: the thread's loads and stores so far, exact with the inst source (the
 * access being delivered or trapped included) when t is the calling thread; another
 * thread's to its last access while it samples (a window off at the rare moment its
 * window turns), else the count of its last window.  Handler-safe. */
uint64_t rt_inst_accesses(struct rt_thread *t);

/*
 * source-inst.c: every access straight to a tool, for an exact mode (reuse --exact; comm
 * could use it for one too).  A tool's start hook registers `fn` (inst source only: else
 * -ENOTSUP); from then on the sanitizer callbacks of every profiled thread call
 * fn(t, addr, len, flags, ip) for each access, in place of the sampling and of
 * rt_deliver_access: no clock read, no owned-range check (instrumented code is the
 * program's), no rt_obs_note per access, and t is not claimed by rt_enter's fence.  The
 * source counts the access (stats.accesses, rt_inst_accesses stays exact) and guards
 * re-entry: a thread that is busy in the runtime or stopped has the access dropped
 * (stats.dropped), and busy is raised around the call, so a signal handler of the
 * program interrupting fn drops its own accesses, and a thread finishing the process
 * (rt_finish_all) waits for fn to return before the tool's thread_end reads t's tables.  ip is the accessing instruction, as
 * in struct rt_access (the return address resolved through a per-thread cache).  Left to
 * fn: the observations (rt_obs_note, below) it makes, and, before writing a record,
 * rt_inst_every_may_record(t): fn's own state needs no lock against a thread finishing
 * the process, but t's stream does.  fn returns t (so that the callbacks, which lower
 * busy after the call, keep no register across it: source-inst.c).  Not in a handler; fn
 * is handler-safe (the program's handlers run instrumented code).
 */
typedef struct rt_thread *(*rt_inst_every_fn)(struct rt_thread *t, uint64_t addr, uint32_t len,
					      uint32_t flags, uint64_t ip);
int rt_inst_every(rt_inst_every_fn fn);

/* source-inst.c: the sampling windows' lengths drawn uniformly in [P - P/2, P + P/2] around
 * the period P instead of P each, so that a loop whose accesses per iteration divide P (or
 * P mod them) evenly is not sampled at the same access, in the same phase in every
 * thread, for the whole run.  A tool's start hook calls it (inst source only: else
 * -ENOTSUP); a sample still stands for P accesses (the mean).  Not in a handler. */
int rt_inst_jitter(void);

/*
 * source-inst.c: also call fn at one access drawn uniformly at random among each sampling
 * window's accesses but the sampled one (the first window included; a window of one
 * access has none), with that access's address, the windows themselves
 * unchanged: a random sample of the accesses, one per window, beside the samples.  For an
 * estimate that needs random draws where the samples, a period apart, are systematic: a
 * sweep that the period nearly divides is sampled at the same few pages, or a few pages on
 * at every pass, for the whole run (reuse's footprint, rt-reuse.c).  A probe costs a second
 * slow path per window.  fn runs in the callback, from a handler or inside a tool's own
 * hook alike (the thread's busy is not looked at): handler-safe and re-entrant.  A tool's
 * start hook calls it (inst source only, else -ENOTSUP; not with rt_inst_every, whose
 * windows are one access).  Not in a handler.
 */
typedef void (*rt_inst_probe_fn)(struct rt_thread *t, uint64_t addr);
int rt_inst_probe(rt_inst_probe_fn fn);

/* source-inst.c: for the process's end, which finishes other threads: after raising
 * their stopped (and a fence), before waiting for their busy to fall.  With an
 * every-access hook it runs a membarrier, the other half of inst_every's unfenced busy
 * (source-inst.c); else nothing.  Handler-safe (a system call). */
void rt_inst_every_barrier(void);

/* For rt_inst_every's fn, before it writes a record of t (which busy, raised without a
 * fence, does not claim): the fence, then 0 if the process is finishing t (the record
 * must be dropped; thread.h's rt_enter for why).  Handler-safe. */
static inline int rt_inst_every_may_record(const struct rt_thread *t)
{
	extern volatile int rt_stopping;	/* thread.h */

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return !t->stopped && !rt_stopping;
}

/* The source in use (init.c). */
extern const struct rt_source *rt_source;

/* ---- tools ----
 *
 * A tool's runtime client (src/tools/<tool>/rt-*.c) is a table of hooks, registered by one
 * line in rt_tools[] (tools.c); SONDE_TOOL names it and the runtime refuses an unknown
 * name at start.  Every hook may be NULL.  The client records through the thread's writer
 * (rt_tool_record), arms watchpoints through the engine (rt/watch.h) and finds data
 * objects offline from the ALLOC/FREE records the runtime writes when RT_TOOL_OBJECTS is
 * set.  Hooks marked handler-safe follow the signal boundary's rules (rt/sigsafe.h).
 */
struct watch_trap;

#define RT_TOOL_OBJECTS 0x1	/* track heap allocations (ALLOC/FREE records) */
#define RT_TOOL_EXEC_WATCH 0x2	/* arms execute breakpoints (watch backend choice) */
#define RT_TOOL_NO_ACCESS 0x4	/* samples need only the context, not an access: the clock
				 * source delivers at the interrupted PC (addr 0, no steps) */
#define RT_TOOL_THREAD_BREAKPOINTS 0x8	/* keeps debug-register events open in its sampling
				 * threads: the clock source then samples with POSIX CPU-time
				 * timers (source-clock.c, SONDE_CLOCK_TIMER=auto) */
#define RT_TOOL_FP_CONTEXT 0x10	/* builds its contexts from the frame-pointer chain where a
				 * signal context exists: the runtime sets up its unwinders
				 * (libunwind, libgcc_s) only for the inst source, where it
				 * unwinds through ctx_here(t, NULL, ...) */
#define RT_TOOL_SIGNAL_CONTEXT 0x20	/* unwinds in handlers, from a signal context
				 * (ctx_unwind/ctx_here with uc): the runtime loads libunwind.
				 * Without it only libgcc_s is loaded, for the paths taken in
				 * ordinary code (allocation sites, the inst source's callbacks),
				 * and a path from a signal context keeps its leaf alone */
#define RT_TOOL_COUNTS_FAULTS 0x40	/* may count the program's page faults in its
				 * measurements (when its counts_faults hook, if any, says so
				 * for this run): the runtime's own libraries are then not
				 * trimmed (libtrim.c), so that no handler faults on them */
#define RT_TOOL_TICK_TIMERS 0x80	/* keeps debug-register events open in its sampling
				 * threads, as RT_TOOL_THREAD_BREAKPOINTS, but takes the POSIX
				 * timers only at periods of at least CLOCK_TICK_PERIOD, where
				 * they sample as often as the perf event (source-clock.c) */
#define RT_TOOL_RANDOM_WINDOWS 0x400	/* draws the inst source's windows around the
				 * period (rt_inst_jitter: comm): its period is taken as given,
				 * not as the next prime (init.c, source_try) */
#define RT_TOOL_PAST_ACCESS 0x200	/* takes, from the clock source, an access already made
				 * (the instruction before the PC: source-clock-sig.c, on_tick); a
				 * tool that arms a watch on the sampled access after it (comm,
				 * reuse: their self-trap filters expect the access still to come)
				 * does not set it */

struct rt_tool {
	const char *name;
	unsigned flags;			/* RT_TOOL_* */
	/* The clock source's period for this tool (ns) when none is given, 0: the source's.
	 * Also where another source asked for falls back to the clock. */
	uint64_t clock_period;
	/* Process start: after the sample source is picked, before any thread samples.
	 * 0, or -errno to record nothing (the program then runs unprofiled).  Not in a
	 * handler. */
	int (*start)(void);
	/* With RT_TOOL_COUNTS_FAULTS: does this run count page faults (the tool's settings,
	 * read from the environment)?  Asked once, right after the tool is picked, before
	 * `start` (the trimming of the runtime's libraries depends on it).  NULL: always.
	 * Not in a handler. */
	int (*counts_faults)(void);
	/* A thread starts (before its source starts sampling) / stops being sampled (after
	 * its source stopped).  Not in a handler. */
	int (*thread_start)(struct rt_thread *t);
	void (*thread_stop)(struct rt_thread *t);
	/* A sampled access of t; t is claimed (rt_enter) for the call.  `uc` and `skip` as
	 * for rt_deliver_access.  Handler-safe. */
	void (*access)(struct rt_thread *t, const struct rt_access *a, const ucontext_t *uc,
		       int skip);
	/* A watchpoint armed without a callback of its own trapped in t (watch_arm with
	 * on_trap NULL): the trap's slot, cookie, watched range and access (struct
	 * watch_trap), and the context after the access (NULL for a soft trap, rt/watch.h).
	 * t is not claimed: claim it (rt_enter) to record.  Handler-safe. */
	void (*trap)(struct rt_thread *t, const struct watch_trap *w, const ucontext_t *uc);
	/* In a fork child, in the forking thread, after the runtime reset its own state of t
	 * (the parent's other threads do not exist here).  Not in a handler. */
	void (*fork_child)(struct rt_thread *t);
	/* t's stream is about to be closed: write the tool's last records of t.  May run in
	 * another thread at process end (t is stopped then).  Handler-safe. */
	void (*thread_end)(struct rt_thread *t);
	/* The process ends (exit, exec, fatal signal `signo`), before the streams are
	 * finished.  Handler-safe. */
	void (*process_end)(int signo);
	/* LLVM's OpenMP regions, through OMPT (ompt.c), for a tool that times them: asked
	 * omp_regions() when the OpenMP runtime starts its tool, which may be before `start`
	 * (a library's constructor that calls OpenMP): > 0, the callbacks below come.  A
	 * region begins on its master, before the team runs it: its outlined function `fn`,
	 * the runtime's frame entered from the program (`fp`, OMPT's enter frame: its saved
	 * frame pointer is the program's caller's, where the runtime keeps one) and the return
	 * address of the program's call (`ra`); omp_region_begin returns the region's value
	 * (0: not timed), which the team's threads are given and omp_region_end gets (the
	 * master, after the team joined).  A thread's implicit task begins in a region of
	 * that value (`ret`, `fp`: the runtime's call of the callback); it ends (`barrier` 0)
	 * or reaches the region's closing barrier (1); omp_task_open: does a barrier starting
	 * in `task` end something of the tool's?  Not in a handler. */
	int (*omp_regions)(void);
	uint64_t (*omp_region_begin)(uint64_t fn, uint64_t fp, uint64_t ra);
	void (*omp_region_end)(uint64_t region);
	void (*omp_task_begin)(uint64_t region, const void *task, uint64_t ret, uint64_t fp);
	int (*omp_task_open)(const void *task);
	void (*omp_task_end)(const void *task, int barrier);
};

/* Every tool with a runtime client (tools.c), NULL-terminated. */
extern const struct rt_tool *const rt_tools[];
/* The tool called name, NULL if there is none. */
const struct rt_tool *rt_tool_find(const char *name);
/* The tool in use (init.c): set before the sources start, so that they may read its
 * flags; NULL before, or when the runtime is off. */
extern const struct rt_tool *rt_tool;

/* Append one of the tool's own records (type >= SONDE_REC_TOOL, declared in the tool's
 * folder) to t's stream.  0, or -ENOSPC when it is lost (counted).  Handler-safe; the
 * caller has claimed t (inside a hook, or between rt_enter and rt_leave). */
int rt_tool_record(struct rt_thread *t, const void *rec, size_t size);
/* For a tool's start hook that cannot work in this process: keep `why` (one line, what to
 * do), which the runtime prints instead of an errno's text; returns -ENOTSUP to return. */
int rt_tool_refuse(const char *why);
extern char rt_tool_why[256];	/* the reason kept by rt_tool_refuse, "" if none */
/* A tool's exact mode (--exact: every access) needs the inst source: 0 when it is the
 * source, else rt_tool_refuse with the reason, naming `option`, the one the user gave
 * ("--exact", or comm's "--compare").  Not in a handler. */
int rt_tool_need_inst(const char *tool, const char *option);

/* core.c: set the calling thread's state (thread start, never in a handler). */
void rt_set_self(struct rt_thread *t);
/* core.c: register an address range owned by the runtime (start-up only). */
void rt_add_owned_range(uint64_t lo, uint64_t hi);
/* core.c: pc is in libsonde.so (the ranges registered at start-up): its interposers' time,
 * run for the program (malloc tracking, the maps notes of dlclose), is the runtime's. */
int rt_owns_code(uint64_t pc);

/* ---- modules ---- */

/* arena.c: handler-safe after arena_init. */
int arena_init(struct arena *a, size_t size);
void arena_release(struct arena *a);
void *arena_alloc(struct arena *a, size_t size);	/* 16-byte aligned, zeroed; NULL if full */

/* out.c: out_append is handler-safe; it flushes with open/write/close when full.
 * out_init: the stream stem + suffix, created with hdr in it (-EEXIST if it exists);
 * a buffer of `size` bytes, the name included; 0 or -errno. */
int out_init(struct out *o, const char *stem, const char *suffix,
	     const struct sonde_file_header *hdr, size_t size);
int out_append(struct out *o, const void *rec, size_t size);
int out_flush(struct out *o);
/* A thread's last records (STATS and END, a few hundred bytes): written past the cap and
 * the disk's reserve too, so that the report can count what was dropped. */
int out_flush_final(struct out *o);
void out_release(struct out *o);
/* A forked child starts its own count of bytes written (SONDE_MAX_SIZE is per process). */
void out_after_fork_child(void);

/*
 * ctx.c: calling contexts.  ctx_unwind fills ips[] (leaf first) from a signal context,
 * or from the caller when uc is NULL, and returns the count; ctx_intern turns a path into
 * a node id of the thread's tree, writing new nodes to its output.  Both handler-safe.
 */
int ctx_unwind(struct rt_thread *t, const ucontext_t *uc, int skip, uint64_t *ips, int max);
uint32_t ctx_intern(struct rt_thread *t, const uint64_t *ips, int n);
/* ctx_unwind + ctx_intern; 0 if the path could not be stored. */
uint32_t ctx_here(struct rt_thread *t, const ucontext_t *uc, int skip);

/* A small fixed set of address ranges, filled at start-up, read by handlers. */
#define RT_RANGES_MAX 8
struct rt_ranges {
	struct {
		uint64_t lo, hi;
	} r[RT_RANGES_MAX];
	int n;
};
/* Add [lo, hi) (dropped when the set is full).  Start-up only. */
void rt_ranges_add(struct rt_ranges *s, uint64_t lo, uint64_t hi);
/* Is addr in one of the ranges?  Handler-safe. */
int rt_ranges_has(const struct rt_ranges *s, uint64_t addr);

/* Is addr inside the runtime's own memory or code (never watch or attribute it)? */
int rt_owns_address(uint64_t addr);

/* The main executable's load address (its dl_iterate_phdr bias; 0 if not PIE).  Not in a
 * handler (the loader's lock). */
uint64_t rt_exe_bias(void);

/* Function starts of the main executable (fnmap.c), from its ELF symbol table: load once,
 * not in a handler (0 or -errno: no file, no symbols); then rt_fn_start(pc) is the start
 * of the function that holds pc, 0 if none is known there.  Handler-safe, no lock. */
int rt_fnmap_load(void);
uint64_t rt_fn_start(uint64_t pc);
/* The start of the executable's `main` (rt_fnmap_load), 0 if unknown.  Handler-safe. */
uint64_t rt_fn_main(void);
/* Does the main executable import `name` (an undefined dynamic symbol)?  Not in a
 * handler. */
int rt_exe_imports(const char *name);
/* ... a symbol whose name starts with name's first `prefix` bytes (0: the whole name). */
int rt_exe_imports_n(const char *name, size_t prefix);
/* Was the program built by sonde-cc (its stub library, libsonde-inst.so, loaded)?  With
 * --sonde-calls-only it has the call hooks but no access callbacks: the inst source's
 * probe refuses it.  Not in a handler. */
int rt_inst_built(void);

/*
 * Observations so far in the process: a count that every sample delivered to the tool and
 * every watchpoint trap advances (core.c, watch-sig.c).  interpose.c compares it at a
 * block's allocation and free: unchanged, no record of the run can fall in the block, and
 * it is counted instead of recorded (SONDE_ALLOC_SUMMARY).  Relaxed atomics, handler-safe.
 */
extern uint64_t rt_obs_epoch;
static inline void rt_obs_note(void)
{
	__atomic_add_fetch(&rt_obs_epoch, 1, __ATOMIC_RELAXED);
}
/* interpose.c: write the thread's held allocation records and counts (finish.c, before its
 * STATS record).  Handler-safe; t is claimed by the caller.  Weak: the runtime's pure
 * library (unit tests, the CLI) has no interposers. */
void interpose_thread_flush(struct rt_thread *t) __attribute__((weak));
/* interpose.c: write the held records of blocks that outlived an observation (every 64th
 * call: core.c's rt_deliver_access, the thread claimed).  Handler-safe.  Weak, as above. */
void interpose_flush_seen(struct rt_thread *t) __attribute__((weak));

/*
 * Move a runtime fd out of the program's way: to the top quarter of RLIMIT_NOFILE,
 * close-on-exec; the original is closed.  The new fd, or -EMFILE if none is free there
 * (the caller then works without it).  Handler-safe.
 */
int rt_hide_fd(int fd);

/*
 * The registry of the runtime's descriptors (core.c): those rt_hide_fd made, until
 * rt_close_fd closes them or the program dup2's onto their number (rt_fd_lose, counted
 * in rt_fds_lost: the .proc's fds_lost).  The program's close, close_range and closefrom
 * leave them open (interpose.c).  All handler-safe, lock-free.
 */
#define RT_FD_MAX 65536
int rt_fd_mine(int fd);
int rt_fd_lose(int fd);
void rt_fd_unlose(int fd);
int rt_fd_next_mine(int lo, int hi);
int rt_close_fd(int fd);
extern uint64_t rt_fds_lost;

/* Allocations left untracked because the set of tracked blocks was full (interpose.c:
 * 2^20 blocks live at once): the .proc's alloc_table_full. */
extern uint64_t rt_alloc_table_full;

/* Append the lines of /proc/self/maps that map the file `path` to the stream's `suffix`
 * file (finish.c; interpose.c's dlclose: PREFIX.maps.closed). */
int rt_append_maps_of(const char *suffix, const char *path);
/* The same for the lines of files mapped in [lo, hi) (a file mapping about to go). */
int rt_append_maps_range(const char *suffix, uint64_t lo, uint64_t hi);
/* ioctl, read, write on a runtime descriptor: -EBADF without the call if the number is
 * not the runtime's (the program dup2'd onto it); else the call's result, or -errno. */
int rt_fd_ioctl(int fd, unsigned long req, unsigned long arg);
ssize_t rt_fd_read(int fd, void *buf, size_t n);
ssize_t rt_fd_write(int fd, const void *buf, size_t n);

/* Write a short message to stderr without stdio (handler-safe). */
void rt_log(const char *msg);

#endif /* SONDE_RT_H */
