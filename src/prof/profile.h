/* SPDX-License-Identifier: MIT */
/*
 * profile.h - reader of a raw recording directory (include/sonde/format.h), offline.
 *
 * profile_read() discovers the processes of a directory by their PREFIX.proc files, parses
 * the key=value pairs, and reads every PREFIX-<tid>.sdt stream of each into arrays of
 * records in host byte order (streams written in the other byte order are swapped).
 *
 * Robustness: everything is bounded by the file sizes.  A stream whose last record is cut
 * or that has no END record is kept up to the cut and flagged `truncated` (the process
 * died).  Anything else malformed (bad magic, unsupported version, a record size that is
 * not a multiple of 8 or smaller than its type needs) is an error whose one-line reason
 * names the file and the byte offset.  Unknown record types are skipped and counted.
 *
 * Everything returned is owned by the struct profile and freed by profile_free().
 */
#ifndef SONDE_LIB_PROFILE_H
#define SONDE_LIB_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "sonde/format.h"

/* A calling-context node of one thread. */
struct prof_ctx {
	uint32_t id;
	uint32_t parent;	/* 0 for the root */
	uint64_t ip;
};

struct prof_thread {
	char *path;			/* the .sdt file */
	struct sonde_file_header hdr;	/* host byte order; magic as read */
	int swapped;			/* the writer's byte order was the other one */
	struct prof_ctx *ctx;		/* sorted by id, duplicate ids removed */
	size_t nctx;
	struct sonde_rec_mem *mem;
	size_t nmem;
	struct sonde_rec_alloc *alloc;
	size_t nalloc;
	struct sonde_rec_free *free;
	size_t nfree;
	struct sonde_rec_trap *trap;
	size_t ntrap;
	/* Records of the recording's tool (type >= SONDE_REC_TOOL), back to back as written,
	 * headers in host order: walk them with prof_tool_next. */
	unsigned char *tool_recs;
	size_t tool_len, ntool;
	int32_t omp_thread;		/* from the first OMP record: -1 when none */
	int omp_varied;			/* an OMP record said another number later */
	struct sonde_rec_stats stats;	/* the last STATS record, zero if none */
	int has_stats;
	int has_end;			/* an END record was read */
	int32_t end_signo;		/* from END: 0 or the fatal signal */
	uint64_t end_time;
	int truncated;			/* cut short: no END record, or the last one is cut */
	uint64_t cut_offset;		/* where the complete data ends when truncated */
	uint64_t unknown;		/* records of unknown types skipped */
	uint64_t bad_ctx;		/* CTX records with id 0 or a duplicate id */
};

/* t's OpenMP thread number for the reports: -1 where unknown, or where it had two. */
static inline int prof_omp_thread(const struct prof_thread *t)
{
	return t->omp_varied ? -1 : t->omp_thread;
}

struct prof_process {
	char *prefix;			/* "<pid>" or "r<rank>.<pid>" */
	char *proc_path;
	char *maps_path;		/* PREFIX.maps, else PREFIX.maps.start, else NULL */
	char *maps_closed_path;		/* PREFIX.maps.closed (libraries dlclose'd), or NULL */
	/* .proc keys; strings are "" when absent, numbers -1 (or 0 for unsigned) */
	int format;
	int pid, ppid, rank;
	char *host, *exe, *argv;	/* argv: arguments separated by \x1f */
	char *tool, *source, *source_why, *period_unit, *end;
	uint64_t period, start_ns, end_ns, min_object;
	uint64_t period_asked;		/* a clock period under the least, raised to it (0: none) */
	int max_depth;
	int signo;
	int threads;			/* the "threads" key, -1 if absent */
	int cpus;			/* the machine's CPUs ("cpus"), -1 if absent */
	int64_t switches;		/* context switches of the process, -1 if absent */
	uint64_t fds_lost;		/* runtime descriptors the program dup2'd onto (rt/interpose.c) */
	uint64_t alloc_table_full;	/* allocations untracked: the tracked set was full */
	uint64_t clock_timer_failed;	/* threads unsampled: no POSIX timer (rt/source-clock.c) */
	int watch_checked;		/* 1: the debug registers were seen to trap at start */
	char *watch_backend;		/* "hw", "soft", "none"; "" if the tool armed nothing */
	char *watch_why;		/* why that backend (rt/watch-backend.c): "debug registers
					 * do not trap on this machine ..."; "" if hw as checked */
	char *records_stopped;		/* "disk", "size" (rt/out.c); "" if the records all went */
	char *clock_event;		/* the clock source's timer: "inherited", "per-thread",
					 * "posix-timer" (rt/finish.c); "" for other sources */
	uint64_t records_stopped_at;	/* bytes of records written when they stopped */
	char *tls_blocks;		/* "OFFSET SIZE PATH" entries separated by \x1f: each
					 * module's block in a thread's static TLS, from the
					 * header's tls_lo (PATH "" the executable); "" unknown */
	char *exec_into;		/* end "exec": the image exec'd (its base name); "" else */
	int exec_followed;		/* end "exec": 1 that image was profiled, 0 not (an
					 * MPI daemon, --no-follow-exec); -1 unknown */
	char *only_functions;		/* the functions a tool was limited to ("sonde variance
					 * --function"), "; "-separated as given; "" if none */
	struct prof_thread *thread;	/* sorted by thread_index, then tid */
	size_t nthread;
};

struct profile {
	char *dir;
	struct prof_process *proc;	/* sorted by rank, then pid, then prefix */
	size_t nproc;
	size_t ignored_streams;		/* .sdt files whose prefix has no .proc file */
};

/*
 * Read the recording in dir.  0 and *out (free with profile_free), or -errno and a
 * one-line reason in err (no newline): -ENOENT no directory or no .proc file in it,
 * -EINVAL corrupt data ("FILE: offset N: what"), -ENOMEM, other -errno from the system.
 */
int profile_read(const char *dir, struct profile **out, char *err, size_t errlen);

void profile_free(struct profile *p);

/*
 * 1 if name is one of the runtime's raw recording files, else 0: PREFIX or PREFIX-<thread>
 * and one of .sdt, .sdt.tmp (a stream being created when its process was killed: rt/out.c),
 * .proc, .maps, .maps.start, .maps.closed, PREFIX being "<pid>" or, under MPI, "r<rank>.<pid>", with
 * ".e<N>" after an exec (doc/sonde.md; rt/init.c stem_set, rt/thread.c).  Whole names, not
 * endings: a user's "notes.maps" or "r.55.proc" is not one.
 */
int prof_is_raw_name(const char *name);

/*
 * Read one .sdt stream into t (zeroed first; release with prof_thread_release).  Same
 * errors as profile_read.  Exposed for the tests and tools that read a single stream.
 */
int prof_thread_read(const char *path, struct prof_thread *t, char *err, size_t errlen);
void prof_thread_release(struct prof_thread *t);

/* The node with this id in t, NULL if there is none. */
const struct prof_ctx *prof_ctx_find(const struct prof_thread *t, uint32_t id);

/*
 * The calling path of node id, leaf first, into ips[0..max): returns the number of frames
 * stored.  Stops at the root (parent 0), at a missing id, at a cycle, or at max frames.
 * The root node (id 1, parent 0) is a frame like any other when it carries an ip.
 */
int prof_ctx_path(const struct prof_thread *t, uint32_t id, uint64_t *ips, int max);

/*
 * The next of t's tool records from byte offset *off (start at 0), advancing *off; NULL
 * after the last.  The record is h->size bytes (at least its type's size is the tool's
 * to check); its body is in the writer's byte order (t->swapped).
 */
const struct sonde_rec_hdr *prof_tool_next(const struct prof_thread *t, size_t *off);

/*
 * How many samples a process took: its threads' STATS counts, or the memory samples read
 * where a thread has no STATS (cut short).  Zero for a process that took none (a wrapper
 * such as /usr/bin/time that only waits).  Traps are not counted: a process that samples
 * nothing may still have calibrated the debug registers' cost with a few.
 */
uint64_t prof_process_samples(const struct prof_process *pr);

/*
 * The process a recording is about: the one with the most samples, the first of equals
 * (processes are sorted by rank, pid, prefix).  A program started through a wrapper
 * (`/usr/bin/time`, `env`, `taskset`, a shell script) leaves the wrapper's processes first,
 * with no sample: a tool that names or models one process must not take proc[0] blindly.
 * Among those whose counts cannot be told apart from the most (two standard deviations of
 * Poisson counts: every process at 0, or 0 and 1), the one that started first.
 * NULL if the recording has no process.
 */
const struct prof_process *profile_main_process(const struct profile *p);
/* 1 if sample counts a <= b cannot be told apart: (b - a)^2 <= 4 (a + b), two standard
 * deviations of the difference of two Poisson counts (0 and 4 can, 0 and 5 cannot). */
int prof_samples_alike(uint64_t a, uint64_t b);

/*
 * 1 if any process's clock source sampled with POSIX CPU-time timers (.proc `clock_event`
 * "posix-timer": rt/source-clock.c, where the tool holds debug-register events in its
 * threads), else 0.  Such timers expire only at a scheduler tick: the scaling a report
 * states depends on it (db_scaling).
 */
int profile_clock_posix(const struct profile *p);

/*
 * Process i is a fork that exec'd: it ended by exec and its parent is a recorded process of
 * the same program.  Its life before the exec (fork's return, a few of the program's
 * instructions) is not another run of the program: reports name it by what it exec'd
 * (the trial of 2026-11-29, F8: Open MPI's singleton start forks and execs orted, not
 * followed, and a serial run read "programs xhpcg (2)").
 */
int profile_fork_exec(const struct profile *p, size_t i);

/*
 * 1 if thread t of process pr sampled with the clock source's signal-driven timers (not
 * the POSIX ones, which have their own note) got no sampling signal, or one, in 20
 * periods or 50 ms of CPU time, whichever is longer: it blocked SIGTRAP (a program that
 * masks it: 0 samples and no reason said, the usability review of 2026-11-27).  One
 * signal: the one held pending while blocked comes once when the thread unblocks it at
 * its end, and is dropped as late, or, under load, taken as a sample (t069 failed in two
 * suites of 2026-11-29 with the perf clock, inherited); 20 periods or more of CPU give 1
 * or none by chance once in 10^7.  A first sample whose handler ran long is no such
 * thread: the timer fires on meanwhile, held pending, and comes again after it.
 */
int profile_thread_unsignalled(const struct prof_process *pr, const struct prof_thread *t);

/* What process i exec'd (end "exec"): the followed image's exe (the next process of the
 * same pid), else the .proc's exec_into; "" if unknown or it did not exec. */
const char *profile_exec_image(const struct profile *p, size_t i);

/* "clock", "hw", "inst", "none" or "unknown". */
const char *prof_source_name(uint32_t source);

#endif
