/* SPDX-License-Identifier: MIT */
/*
 * finish.c - ending streams: per thread, for the whole process, and the maps and .proc
 * notes that go with it.  All handler-reachable: the fatal-signal handler runs this.
 */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>

#include "rt/source-clock.h"
#include "rt/thread.h"
#include "rt/sigsafe.h"
#include "rt/watch.h"

enum { T_LIVE = 0, T_FINISHING = 1, T_FINISHED = 2 };

/*
 * Another thread's stream is finished (exit, _exit or a fatal signal in some thread) while
 * that thread may be writing a record into it: wait until it leaves the runtime (see
 * rt_enter; after that it writes nothing more).  Bounded: a thread can stay busy for good
 * (it is blocked in exec, or on a lock the dying thread holds); its stream is then
 * finished anyway.
 */
static SIGSAFE void wait_not_busy(struct rt_thread *t)
{
	uint64_t deadline = 0;
	while (__atomic_load_n(&t->busy, __ATOMIC_ACQUIRE)) {
		uint64_t now = rt_now();
		if (!deadline)
			deadline = now + 50 * 1000000ull;
		else if (now > deadline)
			break;
		sched_yield();
	}
}

/* Another thread t is finished only by rt_finish_all, which raised its stopped and issued
 * rt_inst_every_barrier (an every-access hook raises busy without a fence: source-inst.c)
 * before this waits for its busy to fall. */
SIGSAFE void rt_thread_finish(struct rt_thread *t, int signo)
{
	if (!__sync_bool_compare_and_swap(&t->finish_state, T_LIVE, T_FINISHING))
		return;
	t->stopped = 1;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (t->tid != (int)gettid())
		wait_not_busy(t);
	if (rt_tool && rt_tool->thread_end)
		rt_tool->thread_end(t);
	/* A last try even if an earlier write failed; the records still buffered first: if
	 * they are refused (out.c: the disk or SONDE_MAX_SIZE), they count as lost in the
	 * STATS below, which go alone. */
	t->out.failed = 0;
	if (interpose_thread_flush)
		interpose_thread_flush(t);
	out_flush(&t->out);
	t->out.failed = 0;
	struct sonde_rec_stats s = {
		.h = { .type = SONDE_REC_STATS, .size = sizeof(s) },
		.samples = t->stats.samples,
		.dropped = t->stats.dropped + t->out.lost,
		.signals = t->stats.signals,
		.steps = t->stats.steps,
		.traps = t->stats.traps,
		.accesses = t->stats.accesses,
		.unwind_fail = t->stats.unwind_fail,
	};
	/* the thread's CPU time: its own clock, or, finished from another thread at process
	 * end (a pool worker still alive then), the clock of its tid (the kernel's per-thread
	 * CPU clock id: ~tid << 3 | CPUCLOCK_PERTHREAD | CPUCLOCK_SCHED); 0 if it is gone */
	struct timespec ts;
	clockid_t ck = t->tid == (int)gettid() ? CLOCK_THREAD_CPUTIME_ID
					       : (clockid_t)((~(unsigned)t->tid << 3) | 6);
	if (t->tid > 0 && rt_clock_gettime(ck, &ts) == 0)
		s.cpu_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	struct sonde_rec_end e = {
		.h = { .type = SONDE_REC_END, .size = sizeof(e) },
		.signo = signo,
		.time = rt_now(),
	};
	out_append(&t->out, &s, sizeof(s));
	out_append(&t->out, &e, sizeof(e));
	out_flush_final(&t->out);
	__atomic_store_n(&t->finish_state, T_FINISHED, __ATOMIC_RELEASE);
}

SIGSAFE void rt_finish_all(int signo)
{
	struct rt_thread *me = rt_self();
	if (me)
		rt_thread_finish(me, signo);
	/* Every other thread's stopped first, then one barrier for all of them (a
	 * membarrier's IPIs, or a grace period with the global fallback: ~10 ms, which once
	 * per thread would add seconds at the exit of a program of a thousand threads). */
	for (int i = 0; i < RT_MAX_THREADS; i++) {
		struct rt_thread *t = rt_threads[i];
		if (t && t != me && __atomic_load_n(&t->finish_state, __ATOMIC_ACQUIRE) == T_LIVE)
			t->stopped = 1;
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	rt_inst_every_barrier();
	for (int i = 0; i < RT_MAX_THREADS; i++) {
		struct rt_thread *t = rt_threads[i];
		if (t && t != me)
			rt_thread_finish(t, 0);
	}
}

static SIGSAFE int open_stem(const char *suffix, int flags)
{
	char path[PATH_MAX + 32];
	char *p = rt_stpcpy(path, rt_stem);
	rt_stpcpy(p, suffix);
	return open(path, flags | O_CLOEXEC, 0644);
}

/* /proc/self/maps for reading in *in, the stream's `suffix` file opened with `flags` in
 * *out: 0, or -errno with neither open. */
static SIGSAFE int maps_open(const char *suffix, int flags, int *in, int *out)
{
	*in = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (*in < 0)
		return -errno;
	*out = open_stem(suffix, flags);
	if (*out < 0) {
		int e = -errno;
		close(*in);
		return e;
	}
	return 0;
}

SIGSAFE int rt_copy_maps(const char *suffix)
{
	int in, out, e = maps_open(suffix, O_WRONLY | O_CREAT | O_TRUNC, &in, &out);
	if (e)
		return e;
	char buf[4096];
	ssize_t n;
	while ((n = read(in, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0 && write(out, buf, (size_t)n) != n)
			break;
	close(in);
	close(out);
	return 0;
}

/* Append to the stream's `suffix` file the lines of /proc/self/maps that map the file
 * `path` (a library about to be dlclose'd: the exit's copy will not have them, and the
 * samples in its code would read [unknown]: Open MPI's components under MPI_Finalize);
 * with path NULL, those of files mapped in [rlo, rhi) (a file mapping about to be
 * unmapped, rt_append_maps_range). */
static SIGSAFE int append_maps(const char *suffix, const char *path, uint64_t rlo,
			       uint64_t rhi)
{
	size_t plen = path ? strlen(path) : 0, have = 0;
	uint64_t last_end = 0;	/* the end of the file's last mapping, if the last line */
	char buf[8192];
	int in, out, e = maps_open(suffix, O_WRONLY | O_CREAT | O_APPEND, &in, &out);
	if (e)
		return e;
	for (;;) {
		ssize_t n = read(in, buf + have, sizeof(buf) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		size_t start = 0;
		for (size_t i = start; i < have; i++) {
			if (buf[i] != '\n')
				continue;
			const char *line = buf + start;
			size_t len = i - start;
			uint64_t lo = 0, hi = 0;
			const char *c = line;
			for (; c < line + len && *c != '-'; c++)
				lo = lo << 4 | (uint64_t)(*c <= '9' ? *c - '0' : (*c | 0x20) - 'a' + 10);
			for (c++; c < line + len && *c != ' '; c++)
				hi = hi << 4 | (uint64_t)(*c <= '9' ? *c - '0' : (*c | 0x20) - 'a' + 10);
			/* the path is the line's last field, after a space; the nameless mapping
			 * right after the file's last one is its .bss (a line of 5 fields ends in
			 * the inode "0" and spaces) */
			/* by range: a line of a file (its path holds a '/', nothing before it
			 * does) overlapping it */
			int mine = path ? len > plen && line[len - plen - 1] == ' ' &&
						 !memcmp(line + len - plen, path, plen)
					: lo < rhi && rlo < hi && memchr(line, '/', len) != NULL;
			int bss = path && !mine && lo && lo == last_end && len &&
				  line[len - 1] == ' ';
			if ((mine || bss) && write(out, line, len + 1) != (ssize_t)(len + 1))
				break;
			last_end = mine ? hi : 0;
			start = i + 1;
		}
		memmove(buf, buf + start, have - start);
		have -= start;
		if (have == sizeof(buf))
			have = 0;	/* a line longer than the buffer: dropped */
	}
	close(in);
	close(out);
	return 0;
}

SIGSAFE int rt_append_maps_of(const char *suffix, const char *path)
{
	return append_maps(suffix, path, 0, 0);
}

SIGSAFE int rt_append_maps_range(const char *suffix, uint64_t lo, uint64_t hi)
{
	return append_maps(suffix, NULL, lo, hi);
}

SIGSAFE void rt_proc_append(const char *key, const char *value)
{
	char line[512];
	char *p = line, *end = line + sizeof(line) - 2;
	for (const char *s = key; *s && p < end; s++)
		*p++ = *s;
	if (p < end)
		*p++ = '=';
	for (const char *s = value; *s && p < end; s++)
		*p++ = (*s == '\n') ? ' ' : *s;
	*p++ = '\n';
	int fd = open_stem(".proc", O_WRONLY | O_APPEND | O_CREAT);
	if (fd < 0)
		return;
	ssize_t r = write(fd, line, (size_t)(p - line));
	(void)r;
	close(fd);
}

SIGSAFE void rt_proc_append_u64(const char *key, uint64_t value)
{
	char v[24];
	rt_u64toa(v, value);
	rt_proc_append(key, v);
}

SIGSAFE void rt_process_end(const char *how, int signo)
{
	static volatile int ended;
	if (!rt_cfg.enabled || (int)getpid() != rt_pid)
		return;	/* a vfork child shares our memory: the parent ends its own streams */
	if (!__sync_bool_compare_and_swap(&ended, 0, 1))
		return;
	rt_stopping = 1;
	int saved = errno;
	if (rt_tool && rt_tool->process_end)
		rt_tool->process_end(signo);
	rt_finish_all(signo);
	rt_copy_maps(".maps");
	rt_proc_append_u64("end_ns", rt_now());
	rt_proc_append("end", how);
	rt_proc_append_u64("signo", (uint64_t)signo);
	rt_proc_append_u64("threads", rt_thread_count());
	rt_proc_append_u64("unprofiled_threads", rt_unprofiled_threads);
	/* The process's context switches so far (its ended threads' included): a thread
	 * holding perf events of its own pays at each one (doc/benchmarks.md). */
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		rt_proc_append_u64("switches", (uint64_t)(ru.ru_nvcsw + ru.ru_nivcsw));
	if (watch_is_started())
		rt_proc_append("watch_backend", watch_backend_name());
	/* chosen by the start-up check that a write to a watched word traps (watch-backend.c,
	 * hw_check; not forced by SONDE_WATCH=hw): a run with no trap then means no thread
	 * touched a watched line, not registers that never fire */
	if (watch_is_started() && watch_backend() == WATCH_BACKEND_HW && !*watch_backend_why())
		rt_proc_append_u64("watch_checked", 1);
	/* how the debug registers' traps came: attr.sigtrap or the engine's own signal */
	if (watch_is_started() && watch_backend() == WATCH_BACKEND_HW)
		rt_proc_append("watch_delivery", watch_sigtrap_used ? "sigtrap" : "signal");
	if (watch_sigtrap_used)
		rt_proc_append_u64("watch_merged", __atomic_load_n(&watch_sigtrap_merged,
								   __ATOMIC_RELAXED));
	/* the clock source's timer: one event inherited by every thread, one per thread, or
	 * a POSIX timer per thread (t017c: only the inherited one was lost to a program's
	 * close_range) */
	if (rt_source == &rt_source_clock)
		rt_proc_append("clock_event", clock_posix ? "posix-timer" :
					      clock_inherit ? "inherited" : "per-thread");
	if (rt_source == &rt_source_clock && clock_tick_cost)
		rt_proc_append_u64("clock_tick_cost_ns", clock_tick_cost);
	uint64_t tf = __atomic_load_n(&clock_timer_failed, __ATOMIC_RELAXED);
	if (rt_source == &rt_source_clock && tf)
		rt_proc_append_u64("clock_timer_failed", tf);
	/* runtime descriptors the program dup2'd onto (interpose.c): their events ended */
	uint64_t lost = __atomic_load_n(&rt_fds_lost, __ATOMIC_RELAXED);
	if (lost)
		rt_proc_append_u64("fds_lost", lost);
	uint64_t full = __atomic_load_n(&rt_alloc_table_full, __ATOMIC_RELAXED);
	if (full)
		rt_proc_append_u64("alloc_table_full", full);
	errno = saved;
}
