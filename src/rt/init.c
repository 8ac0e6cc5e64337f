/* SPDX-License-Identifier: MIT */
/*
 * init.c - libsonde.so's start and end: the constructor reads SONDE_*, picks the sample
 * source, sets up the main thread; interposers follow threads (pthread_create), fork,
 * exec and _exit; fatal signals still leave a readable profile and the program dies as
 * it would have.  Nothing here runs in a sample or trap handler except fatal_handler.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt/ctx.h"
#include "rt/interpose.h"
#include "rt/libtrim.h"
#include "rt/source-clock.h"
#include "rt/thread.h"
#include "rt/watch.h"
#include "sonde/period.h"

static pthread_key_t thread_key;
/* a fork child of a program run with --no-follow-fork: records nothing, and its exec'd
 * images must not record either */
static int dormant;
static char source_why[1024];
static int exec_gen;
static char tls_blocks[2048];	/* the .proc's tls_blocks (tls_blocks_init) */

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGSYS, SIGINT,
				     SIGTERM, SIGHUP, SIGQUIT, SIGXCPU, SIGXFSZ, SIGPIPE };

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return def;
	/* decimal digits only, as the command line takes them (launch.c parse_u64): strtoull
	 * with base 0 read SONDE_PERIOD=010 as 8 and took "+5" and hex */
	uint64_t x = 0;
	for (const char *c = v; *c; c++) {
		if (*c < '0' || *c > '9' || x > (UINT64_MAX - (uint64_t)(*c - '0')) / 10)
			return def;
		x = x * 10 + (uint64_t)(*c - '0');
	}
	return x;
}

static void config_read(void)
{
	const char *dir = getenv("SONDE_DIR");
	if (!dir || !*dir || strlen(dir) >= sizeof(rt_cfg.dir))
		return;
	strcpy(rt_cfg.dir, dir);
	const char *tool = getenv("SONDE_TOOL");
	snprintf(rt_cfg.tool, sizeof(rt_cfg.tool), "%s", tool && *tool ? tool : "mem");
	const char *src = getenv("SONDE_SOURCE");
	rt_cfg.source = SONDE_SOURCE_NONE;
	if (src && !strcmp(src, "clock"))
		rt_cfg.source = SONDE_SOURCE_CLOCK;
	else if (src && !strcmp(src, "hw"))
		rt_cfg.source = SONDE_SOURCE_HW;
	else if (src && !strcmp(src, "inst"))
		rt_cfg.source = SONDE_SOURCE_INST;
	rt_cfg.period = env_u64("SONDE_PERIOD", 0);
	rt_cfg.rank = (int)(int64_t)env_u64("SONDE_RANK", (uint64_t)-1);
	/* `sonde mem -- mpirun ...`: the launcher ran before the ranks existed */
	static const char *const rank_vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK" };
	for (size_t i = 0; rt_cfg.rank < 0 && i < sizeof(rank_vars) / sizeof(rank_vars[0]); i++)
		rt_cfg.rank = (int)(int64_t)env_u64(rank_vars[i], (uint64_t)-1);
	rt_cfg.follow_exec = (int)env_u64("SONDE_FOLLOW_EXEC", 1);
	rt_cfg.follow_fork = (int)env_u64("SONDE_FOLLOW_FORK", 1);
	rt_cfg.min_object = env_u64("SONDE_MIN_OBJECT", rt_cfg.min_object);
	rt_cfg.max_depth = (int)env_u64("SONDE_MAX_DEPTH", (uint64_t)rt_cfg.max_depth);
	rt_cfg.max_size = env_u64("SONDE_MAX_SIZE", 0);
	rt_cfg.sig_sample = (int)env_u64("SONDE_SIGNAL", (uint64_t)(SIGRTMAX - 3));
	rt_cfg.sig_watch = (int)env_u64("SONDE_WATCH_SIGNAL", (uint64_t)(SIGRTMAX - 4));
	/* Only real-time signals: SONDE_SIGNAL=2 took SIGINT, and ^C, from the program.  0
	 * says unusable: the clock source refuses to start (and says so), the hw watch
	 * backend is off. */
	if (rt_cfg.sig_sample < SIGRTMIN || rt_cfg.sig_sample > SIGRTMAX)
		rt_cfg.sig_sample = 0;
	if (rt_cfg.sig_watch < SIGRTMIN || rt_cfg.sig_watch > SIGRTMAX ||
	    rt_cfg.sig_watch == rt_cfg.sig_sample)
		rt_cfg.sig_watch = 0;
	rt_cfg.max_extra_steps = (int)env_u64("SONDE_EXTRA_STEPS", (uint64_t)rt_cfg.max_extra_steps);
	rt_cfg.debug = (int)env_u64("SONDE_DEBUG", 0);
	rt_cfg.seed = env_u64("SONDE_SEED", 0);
	exec_gen = (int)env_u64("SONDE_EXEC_GEN", 0);
	/* --no-follow-fork: only the launched process (and its exec'd images) records; this
	 * also covers children made without fork(), by posix_spawn, system() or popen() */
	uint64_t root = env_u64("SONDE_ROOT_PID", 0);
	if (!rt_cfg.follow_fork && root && root != (uint64_t)getpid())
		return;
	rt_cfg.enabled = 1;
}

/*
 * The tool SONDE_TOOL names, into rt_tool before the sources start (they, the watchpoint
 * backend and the unwinders ask its flags): 0, or -1 when there is none of that name; then
 * the runtime stays off and the program runs as it would without it.
 */
static int rt_tool_pick(void)
{
	rt_tool = rt_tool_find(rt_cfg.tool);
	if (rt_tool)
		return 0;
	char msg[480];
	snprintf(msg, sizeof(msg), "sonde: unknown tool '%s' (SONDE_TOOL); the program runs "
		 "unprofiled\n", rt_cfg.tool);
	rt_log(msg);
	rt_cfg.enabled = 0;
	return -1;
}

/*
 * rt_tool started: 0, or -1 when it refuses; then rt_tool is NULL again and the runtime
 * stays off.  No hook can run before: no thread has started (rt_thread_start).
 */
static int rt_tool_start(void)
{
	int r = rt_tool->start ? rt_tool->start() : 0;
	if (!r)
		return 0;
	/* which program refuses: under a wrapper (/usr/bin/time, env, a shell) it is the
	 * wrapper, and the program it starts may well be profiled */
	char msg[480];
	snprintf(msg, sizeof(msg), "sonde: tool '%s' cannot start in %s (pid %d): %s; %s runs "
		 "unprofiled\n", rt_cfg.tool, program_invocation_short_name, (int)getpid(),
		 rt_tool_why[0] ? rt_tool_why : strerror(-r), program_invocation_short_name);
	rt_log(msg);
	rt_cfg.enabled = 0;
	rt_tool = NULL;
	return -1;
}

static const struct rt_source *source_by_id(int id)
{
	switch (id) {
	case SONDE_SOURCE_CLOCK:
		return &rt_source_clock;
	case SONDE_SOURCE_HW:
		return &rt_source_hw;
	case SONDE_SOURCE_INST:
		return &rt_source_inst;
	}
	return NULL;
}

/* The clock source's least period: the kernel's for its CPU clock (perf's cpu-clock
 * hrtimer takes no less than 10 us), so a smaller one asked for is raised to it, and the
 * .proc file says so (period_asked) rather than report "period 1 ns" (the usability review
 * of 2026-11-27: -p 1 read "one sample per 1 ns"). */
#define CLOCK_MIN_PERIOD 10000
static uint64_t period_asked;

/* The inst source's period, a count of accesses, is taken as the next prime (the .proc's
 * period_asked keeps the one given): sonde/period.h says why. */
static int source_try(const struct rt_source *s)
{
	char why[512] = "";
	int tool_default = s == &rt_source_clock && !rt_cfg.period && rt_tool &&
			   rt_tool->clock_period;
	if (tool_default)
		rt_cfg.period = rt_tool->clock_period;
	if (s == &rt_source_clock && rt_cfg.period && rt_cfg.period < CLOCK_MIN_PERIOD) {
		period_asked = rt_cfg.period;
		rt_cfg.period = CLOCK_MIN_PERIOD;
	}
	uint64_t prime = s == &rt_source_inst && !(rt_tool &&
		(rt_tool->flags & RT_TOOL_RANDOM_WINDOWS)) ? sonde_inst_period(rt_cfg.period) :
		rt_cfg.period;
	if (prime != rt_cfg.period) {
		period_asked = rt_cfg.period;
		rt_cfg.period = prime;
	}
	int r = s->probe(why, sizeof(why));
	if (r == 0)
		r = s->start();
	if (r == 0) {
		rt_source = s;
		if (!rt_cfg.period)
			rt_cfg.period = s->default_period;
		return 0;
	}
	if (tool_default)
		rt_cfg.period = 0;
	/* not taken: as asked */
	if ((s == &rt_source_clock || s == &rt_source_inst) && period_asked) {
		rt_cfg.period = period_asked;
		period_asked = 0;
	}
	size_t n = strlen(source_why);
	snprintf(source_why + n, sizeof(source_why) - n, "%s%s: %s", n ? "; " : "", s->name,
		 why[0] ? why : strerror(-r));
	return r;
}

/* Wanted source first; automatic: hw, then clock.  inst only when asked for, or where the
 * program was built by sonde-cc and there is no PMU: the clock source counts no accesses,
 * and a user who rebuilt the program meant its counts (the trial of 2026-11-27: `sonde
 * reuse` on a sonde-cc build ran on the clock and advised a sonde-cc build); and the
 * clock's ticks land in the build's callbacks: `sonde mem` on SimpleMOC's sonde-cc build
 * dropped 44% of its samples (own time) and gave the threads' stacks 55% of the accesses
 * and the callbacks' PLT stubs 7.5% of the code (the trial of 2026-11-29), where the inst
 * source gave the stacks 0.7%.  A tool that wants the clock asks for it (variance). */
static void source_pick(void)
{
	const struct rt_source *want = source_by_id(rt_cfg.source);
	if (want && source_try(want) == 0)
		return;
	/* A period given with a source counts that source's unit (events, accesses): the
	 * fallback takes its own default rather than read it as nanoseconds (--exact's
	 * period 1 made a 1 ns clock). */
	if (want && rt_cfg.period) {
		size_t n = strlen(source_why);
		snprintf(source_why + n, sizeof(source_why) - n,
			 "; its period %llu does not apply to the fallback, which takes its default",
			 (unsigned long long)rt_cfg.period);
		rt_cfg.period = 0;
	}
	if (want != &rt_source_hw && rt_cfg.source == SONDE_SOURCE_NONE &&
	    source_try(&rt_source_hw) == 0)
		return;
	/* and where hw was asked for and is missing: its counts, not the clock's none (the
	 * usability review of 2026-11-29: `sonde reuse -s hw` on a sonde-cc build fell back
	 * to the clock) */
	if ((rt_cfg.source == SONDE_SOURCE_NONE || want == &rt_source_hw) && rt_tool &&
	    rt_source_inst.probe(NULL, 0) == 0 && source_try(&rt_source_inst) == 0) {
		size_t n = strlen(source_why);
		snprintf(source_why + n, sizeof(source_why) - n, "%sinst: the program was built "
			 "by sonde-cc, whose callbacks count its accesses", n ? "; " : "");
		return;
	}
	if (want != &rt_source_clock)
		source_try(&rt_source_clock);
}

/* The watchpoint engine's backend, before the tool starts (it may refuse without one).
 * Soft watchpoints need the program built by sonde-cc, not the inst source itself. */
static void watch_pick(void)
{
	int access_cbs = rt_source == &rt_source_inst || rt_source_inst.probe(NULL, 0) == 0;
	/* execute breakpoints: soft only in --sonde-calls builds (their entry and exit hooks,
	 * imported from us); other sonde-cc builds keep the debug registers where they trap.
	 * With the hooks, soft is also cheaper: on debug registers each hook's read of the
	 * return slot is one more trap an instance. */
	int exec = (rt_tool->flags & RT_TOOL_EXEC_WATCH) != 0;
	int hooks = exec && rt_inst_built() && rt_exe_imports("__cyg_profile_func_enter");
	/* soft data watchpoints need the access callbacks (not in a --sonde-calls-only
	 * build), soft execute breakpoints the hooks */
	int instrumented = exec ? rt_inst_built() : access_cbs;

	watch_backend_init(getenv("SONDE_WATCH"), instrumented, !exec || hooks);
}

static const char *period_unit(void)
{
	if (!rt_source)
		return "none";
	return rt_source->id == SONDE_SOURCE_CLOCK ? "ns" :
	       rt_source->id == SONDE_SOURCE_HW	   ? "events" :
							     "accesses";
}

static void stem_set(void)
{
	char host[128] = "";
	gethostname(host, sizeof(host) - 1);
	int n;
	if (rt_cfg.rank >= 0)
		n = snprintf(rt_stem, sizeof(rt_stem), "%s/r%d.%d", rt_cfg.dir, rt_cfg.rank, rt_pid);
	else
		n = snprintf(rt_stem, sizeof(rt_stem), "%s/%d", rt_cfg.dir, rt_pid);
	if (exec_gen > 0 && n > 0 && (size_t)n < sizeof(rt_stem))
		snprintf(rt_stem + n, sizeof(rt_stem) - (size_t)n, ".e%d", exec_gen);
}

#define LIBUNWIND_SONAME "libunwind.so.8"	/* the one the build's headers describe */

/* ctx_process_init's result: how libunwind checks the addresses it reads (1, 2: it is not
 * set up, unwinders_init). */
static int unwind_check;

static const char *unwind_check_name(void)
{
	if (unwind_check == 0)
		return "process_vm_readv";
	if (unwind_check == 1)
		return "none (not used: the tool walks frame pointers)";
	if (unwind_check == 2)
		return "none (not used: the tool takes no call path in a signal handler)";
	if (unwind_check == -ELIBACC)
		return "none (" LIBUNWIND_SONAME " could not be loaded)";
	if (unwind_check == -ELIBBAD)
		return "none (" LIBUNWIND_SONAME " lacks a function the runtime calls)";
	return unwind_check == -ENOSYS ? "pipe (process_vm_readv refused)"
				       : "pipe (libunwind's calls not found)";
}

/*
 * The unwinders, before the first thread starts: libunwind's memory check and caching
 * policy, libgcc_s for paths taken outside handlers.  Not for a tool that walks frame
 * pointers itself (RT_TOOL_FP_CONTEXT) unless the inst source calls it without a signal
 * context: loading libgcc_s and warming libunwind up in every thread cost sonde variance
 * 0.2 MB of resident memory on a 1.6 MB program (bench/variance.sh, part 4).  libunwind
 * (with its liblzma) only for a tool that unwinds from a signal context
 * (RT_TOOL_SIGNAL_CONTEXT, sonde mem): comm and reuse take call paths at allocations
 * alone, which libgcc_s serves; loading libunwind and warming it up in each thread cost
 * them 150-230 KB resident (bench/memory.sh), libc's unwind tables read for start_thread
 * and clone included.
 */
static void *unwind_h;

static void *unwind_sym(const char *name)
{
	return dlsym(unwind_h, name);
}

static void unwinders_init(void)
{
	if ((rt_tool->flags & RT_TOOL_FP_CONTEXT) && rt_source != &rt_source_inst) {
		unwind_check = 1;
		return;
	}
	/* the unwinders read libsonde.so's unwind tables at every path, in an instance too
	 * under variance's inst source (libtrim.c: 20 KB more kept resident) */
	rt_trim_keep_unwind();
	void *gcc = rt_dlopen_trimmed("libgcc_s.so.1");
	if (gcc)
		ctx_use_gcc_unwinder(dlsym(gcc, "_Unwind_Backtrace"), dlsym(gcc, "_Unwind_GetIP"));
	/* libunwind also serves paths outside handlers where libgcc_s is missing */
	if (!(rt_tool->flags & RT_TOOL_SIGNAL_CONTEXT) && gcc) {
		unwind_check = 2;
		return;
	}
	unwind_h = rt_dlopen_trimmed(LIBUNWIND_SONAME);
	unwind_check = unwind_h ? ctx_process_init(unwind_sym) : -ELIBACC;
	if (!unwind_h)	/* every call path would be empty, with no word of it */
		rt_log("sonde: warning: cannot load " LIBUNWIND_SONAME " (Debian: libunwind8): no "
		       "call paths (sample sites, allocation sites) in this recording\n");
}

/* proc_write_start's names and the command line: in a mapping of their own, unmapped
 * after, not on the stack, where their 12 KB stayed resident in the main thread's stack for
 * the whole run (bench/memory.sh: [stack] +12 KB) */
struct proc_scratch {
	char path[PATH_MAX + 8];
	char exe[PATH_MAX];
	char buf[4096];
};

static void proc_write(struct proc_scratch *s)
{
	snprintf(s->path, sizeof(s->path), "%s.proc", rt_stem);
	FILE *f = fopen(s->path, "we");
	if (!f)
		return;
	ssize_t n = readlink("/proc/self/exe", s->exe, sizeof(s->exe) - 1);
	s->exe[n > 0 ? n : 0] = 0;
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	fprintf(f, "format=%d\nprefix=%s\npid=%d\nppid=%d\nrank=%d\nhost=%s\nexe=%s\nargv=",
		SONDE_FORMAT_VERSION, strrchr(rt_stem, '/') + 1, rt_pid, (int)getppid(),
		rt_cfg.rank, host, s->exe);
	FILE *cl = fopen("/proc/self/cmdline", "re");
	if (cl) {
		size_t n = fread(s->buf, 1, sizeof(s->buf), cl);
		while (n && s->buf[n - 1] == 0)
			n--;
		for (size_t i = 0; i < n; i++)
			fputc(s->buf[i] == 0 ? 0x1f : s->buf[i] == '\n' ? ' ' : s->buf[i], f);
		fclose(cl);
	}
	fprintf(f, "\ntool=%s\nsource=%s\nsource_why=%s\nperiod=%llu\nperiod_unit=%s\n"
		   "start_ns=%llu\nmin_object=%llu\nmax_depth=%d\nexec_gen=%d\nwatch=%s\n"
		   "watch_why=%s\nunwind_check=%s\n",
		rt_cfg.tool, rt_source ? rt_source->name : "none", source_why,
		(unsigned long long)rt_cfg.period, period_unit(), (unsigned long long)rt_now(),
		(unsigned long long)rt_cfg.min_object, rt_cfg.max_depth, exec_gen,
		watch_backend_name(), watch_backend_why(), unwind_check_name());
	if (period_asked)
		fprintf(f, "period_asked=%llu\n", (unsigned long long)period_asked);
	/* the machine's CPUs: comm's core matrices span them all, whichever saw an event
	 * (a 1x1 file on a 2-CPU machine where none was seen: the comm review of 2026-11-29) */
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	if (ncpu > 0)
		fprintf(f, "cpus=%ld\n", ncpu);
	if (tls_blocks[0])
		fprintf(f, "tls_blocks=%s\n", tls_blocks);
	fclose(f);
}

/*
 * Where each module's block lies in a thread's static TLS: "OFFSET SIZE PATH" entries (from
 * the range's low end, the same in every thread; PATH empty for the executable), separated
 * by \x1f, for the .proc's tls_blocks key: the report names the variable a sample's
 * address holds.  Taken once at start, in the main thread (a fork child keeps them: after
 * a fork the loader's lock may be held by a thread that is gone).  Modules dlopen'd later
 * get dynamic TLS, outside the range.
 */

struct tls_walk {
	uint64_t lo, hi;
	size_t n;
};

static int tls_block_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct tls_walk *w = arg;
	(void)size;
	uint64_t data = (uint64_t)(uintptr_t)info->dlpi_tls_data;
	if (!info->dlpi_tls_modid || !data || data < w->lo || data >= w->hi)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_TLS)
			continue;
		/* the path as the maps file names it: the loader's may be a soname link or a
		 * merged-/usr twin (/lib/... for /usr/lib/...), which the report's modules do
		 * not match (the review of 2026-11-28: libtl.so.1 for libtl.so.1.0) */
		char real[PATH_MAX];
		const char *name = info->dlpi_name ? info->dlpi_name : "";
		if (*name && realpath(name, real))
			name = real;
		int n = snprintf(tls_blocks + w->n, sizeof(tls_blocks) - w->n, "%s%llu %llu %s",
				 w->n ? "\x1f" : "", (unsigned long long)(data - w->lo),
				 (unsigned long long)ph->p_memsz, name);
		if (n > 0 && (size_t)n < sizeof(tls_blocks) - w->n)
			w->n += (size_t)n;
		else
			tls_blocks[w->n] = 0;	/* the entries that fit */
		break;
	}
	return 0;
}

static void tls_blocks_init(void)
{
	struct tls_walk w = { 0 };
	if (rt_tls_bounds(&w.lo, &w.hi) || !w.lo)
		return;
	dl_iterate_phdr(tls_block_cb, &w);
}

static void proc_write_start(void)
{
	/* the system call itself: the interposed mmap is the program's, to track */
	long p = syscall(SYS_mmap, NULL, sizeof(struct proc_scratch), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p < 0 && p > -4096)
		return;
	proc_write((struct proc_scratch *)p);
	syscall(SYS_munmap, p, sizeof(struct proc_scratch));
}

static void fatal_handler(int sig, siginfo_t *si, void *uc)
{
	/* SA_RESETHAND already restored the default action: after the profile is written,
	 * raising the signal again ends the program exactly as it would have ended. */
	rt_process_end("signal", sig);
	struct sigaction cur;
	if (sigaction(sig, NULL, &cur) == 0 && cur.sa_handler != SIG_DFL) {
		/* Not called by the kernel but by a handler the program installed later that
		 * chains to the one it replaced (crash reporters do): for the program we stand
		 * for the default action, so take it, or a fault would re-enter its handler for
		 * ever.  The signal is blocked in that handler: it ends the process on return. */
		struct sigaction dfl;
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(sig, &dfl, NULL);
		raise(sig);
		return;
	}
	if (si && si->si_code <= 0) {
		raise(sig);	/* sent by kill/raise: make it pending again */
	} else if (sig == SIGABRT || sig == SIGINT || sig == SIGTERM || sig == SIGHUP ||
		   sig == SIGQUIT || sig == SIGPIPE || sig == SIGXCPU || sig == SIGXFSZ) {
		raise(sig);
	}
	/* a fault (SEGV, BUS, ILL, FPE from an instruction) recurs when we return */
}

static void fatal_install(void)
{
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		struct sigaction old, sa;
		if (sigaction(fatal_signals[i], NULL, &old) || old.sa_handler != SIG_DFL ||
		    (old.sa_flags & SA_SIGINFO))
			continue;	/* the program (or its parent) chose something: keep it */
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = fatal_handler;
		sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND | SA_RESTART;
		sigfillset(&sa.sa_mask);
		sigaction(fatal_signals[i], &sa, NULL);
	}
}

static uint64_t loader_lo, loader_hi;	/* the dynamic loader's mapping (own_range_cb) */

static int own_range_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t want = (uintptr_t)data;
	uint64_t lo = UINT64_MAX, hi = 0;
	int is_loader = info->dlpi_name && strstr(info->dlpi_name, "/ld-linux");
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uint64_t a = info->dlpi_addr + ph->p_vaddr;
		lo = a < lo ? a : lo;
		hi = a + ph->p_memsz > hi ? a + ph->p_memsz : hi;
	}
	if (want >= lo && want < hi)
		rt_add_owned_range(lo, hi);
	if (is_loader) {
		ctx_set_loader_range(lo, hi);
		loader_lo = lo;
		loader_hi = hi;
	}
	if (info->dlpi_name && (strstr(info->dlpi_name, "/libc.so") ||
				strstr(info->dlpi_name, "/libstdc++.so")))
		interpose_add_wrapper_range(lo, hi);
	return 0;
}

/* Calls of thread_key_destructor so far in this thread. */
static RT_TLS unsigned key_rounds;

/*
 * A thread's end, from its key's destructor: glibc runs the destructors of all keys in
 * rounds, in key order, and starts another round (up to PTHREAD_DESTRUCTOR_ITERATIONS)
 * while a destructor set a value.  The runtime's key is created in its constructor, so
 * usually before the program's keys (not always: a library whose constructor ran first,
 * libgomp's, or a slot freed and reused, has a lower one), and in a round its destructor
 * runs before theirs: ending the thread in the first round lost every access and
 * allocation of the program's own key destructors (rbench churn: a third of its
 * accesses, t515).  The key is set again until the last round, so
 * the program's destructors of earlier rounds run while the thread is still profiled.
 * (C++ thread_local destructors run before any key's.)
 */
static void thread_key_destructor(void *p)
{
	if (++key_rounds < PTHREAD_DESTRUCTOR_ITERATIONS && pthread_setspecific(thread_key, p) == 0)
		return;
	rt_thread_end(p);
}

static void atfork_prepare(void)
{
	if (interpose_fork)
		interpose_fork(0);
	struct rt_thread *t = rt_self();
	if (t)
		t->busy = 1;
	ctx_fork_prepare();
}

static void atfork_parent(void)
{
	if (interpose_fork)
		interpose_fork(1);
	struct rt_thread *t = rt_self();
	ctx_fork_parent();
	if (t)
		t->busy = 0;
}

struct start {
	void *(*fn)(void *);
	void *arg;
	uint32_t index;
	int busy;	/* start_slots: taken */
};

/*
 * The start records of threads being created, taken by pthread_create and given back by
 * the new thread once it has copied its own.  Not from malloc: the new thread's free was
 * its first call into glibc's allocator, which made glibc create a malloc arena (4 KB
 * resident, 64 MB reserved) in every thread, the program's allocating or not (commbench's
 * four workers: bench/memory.sh comm, the 132KB mappings).  16 in .bss (64 made it a page
 * larger); when all are taken (as many threads starting at once), a page of 169 more is
 * mmap'd and chained after them, never unmapped: a slot is taken by a compare-and-swap on
 * its flag and given back by a store, a block is chained by a compare-and-swap on the
 * last one's next, so no lock (a program's thread may be stopped anywhere, a forked child
 * inherits the flags: atfork_child clears them).  Before, the 17th took malloc's record
 * and the arena came back (the review's 40 threads at once: 15 arenas).
 */
struct start_block {
	struct start_block *next;
	struct start *slot;
	int n;
};
#define START_SLOTS 16
static struct start start_static[START_SLOTS];
static struct start_block start_first = { NULL, start_static, START_SLOTS };

static struct start *start_block_take(struct start_block *b)
{
	for (int i = 0; i < b->n; i++) {
		int free_slot = 0;

		if (!__atomic_load_n(&b->slot[i].busy, __ATOMIC_RELAXED) &&
		    __atomic_compare_exchange_n(&b->slot[i].busy, &free_slot, 1, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return &b->slot[i];
	}
	return NULL;
}

static struct start *start_take(void)
{
	struct start_block *b = &start_first, *next, *nb = NULL;
	struct start *s;

	for (;;) {
		if ((s = start_block_take(b)))
			break;
		next = __atomic_load_n(&b->next, __ATOMIC_ACQUIRE);
		if (next) {
			b = next;
			continue;
		}
		if (!nb) {
			nb = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (nb == MAP_FAILED)
				return NULL;	/* pthread_create: the thread unprofiled */
			nb->slot = (struct start *)(nb + 1);	/* after the header */
			nb->n = (int)((4096 - sizeof(*nb)) / sizeof(struct start));
		}
		if (__atomic_compare_exchange_n(&b->next, &next, nb, 0, __ATOMIC_RELEASE,
						__ATOMIC_ACQUIRE))
			nb = NULL;	/* chained: taken from it next round */
		b = next ? next : b->next;
	}
	if (nb)	/* another thread chained its block first */
		munmap(nb, 4096);
	return s;
}

static void start_give(struct start *s)
{
	__atomic_store_n(&s->busy, 0, __ATOMIC_RELEASE);
}

static void atfork_child(void)
{
	if (interpose_fork)
		interpose_fork(2);
	/* the records of threads the parent was starting: no such thread here */
	for (struct start_block *b = &start_first; b; b = b->next)
		for (int i = 0; i < b->n; i++)
			b->slot[i].busy = 0;
	/* a child maps none of its parent's file pages: libsonde.so's resident part, if
	 * kept, mapped again before the child measures anything (untested: t802's fork run
	 * passes without it) */
	rt_trim_prefault();
	ctx_fork_child();
	rt_pid = (int)getpid();
	if (!rt_cfg.follow_fork) {
		struct rt_thread *t = rt_self();
		if (t && rt_source)
			rt_source->after_fork_child(t);
		if (t)
			t->stopped = 1;
		rt_cfg.enabled = 0;
		dormant = 1;
		return;
	}
	exec_gen = 0;
	if (interpose_own)
		interpose_own(1);	/* the child's restart: not in its heap either */
	/* the child's .proc counts its own take-overs; the numbers the parent lost stay
	 * marked (the program's files are there in the child too) */
	__atomic_store_n(&rt_fds_lost, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&rt_alloc_table_full, 0, __ATOMIC_RELAXED);
	interpose_after_fork_child();
	out_after_fork_child();
	stem_set();
	proc_write_start();
	rt_copy_maps(".maps.start");
	rt_thread_after_fork_child();
	if (interpose_own)
		interpose_own(0);
}

/* The vDSO's clock_gettime, for rt_clock_gettime (rt.h: why not glibc's).  The loader
 * lists the vDSO among the loaded objects; without it, or its symbol, glibc's stays. */
static void vdso_clock_init(void)
{
	void *h = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);

	if (h)
		rt_vdso_clock_gettime = (int (*)(clockid_t, struct timespec *))dlsym(
			h, "__vdso_clock_gettime");
}

/* The end of start-up, whatever its outcome: the program's libraries' pages that only
 * start-up mapped (stdio, printf and scanf: libtrim.c) unmapped again.  Not for a tool
 * that counts page faults: its instances would count the program's own first use of them
 * again, which the runtime's start-up had taken before (t802). */
static int counts_faults;	/* rt_tool counts page faults in this run (sonde_init) */

static void start_done(void)
{
	long n = rt_trim_foreign_drop(!rt_tool || !counts_faults);

	/* after the drop: this fprintf maps stdio again, with SONDE_DEBUG only (t034 reads it) */
	if (rt_cfg.debug && n >= 0)
		fprintf(stderr, "sonde: start-up's pages of other objects: %ld dropped\n", n);
	else if (rt_cfg.debug)
		fprintf(stderr, "sonde: start-up's pages of other objects: kept%s\n",
			n == RT_TRIM_DROP_THREADS ? " (other threads)" : "");
}

static void runtime_start(void);

static int tls_count_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(int *)data += info->dlpi_tls_modid != 0;
	return 0;
}

/* The modules with TLS in the process now (a thread's DTV has a slot for each). */
static int tls_modules(void)
{
	int n = 0;
	dl_iterate_phdr(tls_count_cb, &n);
	return n;
}

__attribute__((constructor(101))) static void sonde_init(void)
{
	/* before the runtime's first call into libc: what is mapped of it now is the
	 * program's (the loader's work), what start-up maps after is the runtime's */
	rt_trim_foreign_mark();
	/* libgcc's CPU model (rt-stack.c's popcnt test) read now, not by its constructor
	 * after this one, whose code is linked last: it would map a granule of cold code
	 * again after the trimming (its constructor returns at once when this ran) */
	__builtin_cpu_init();
	config_read();
	/* the runtime off (no SONDE_*: a program that only inherited LD_PRELOAD), its code
	 * still mapped by the loader's work and fault-around: all of it but the pages the
	 * interposers use is unmapped (bench/memory.sh, "runtime off") */
	if (!rt_cfg.enabled) {
		rt_trim_object_at((const void *)&sonde_init);
		start_done();
		return;
	}
	/* the start-up's allocations not in the program's heap (interpose.c, t076) */
	if (interpose_own)
		interpose_own(1);
	int tls_before = tls_modules();	/* libsonde.so's among them */
	runtime_start();
	/* what libsonde.so and the libraries it loaded add to each new thread's DTV */
	if (rt_cfg.enabled && interpose_dtv_setup)
		interpose_dtv_setup(loader_lo, loader_hi, tls_modules() - tls_before + 1);
	if (interpose_own)
		interpose_own(0);
}

static void runtime_start(void)
{
	rt_pid = (int)getpid();
	vdso_clock_init();
	interpose_init();
	dl_iterate_phdr(own_range_cb, (void *)(uintptr_t)&sonde_init);
	stem_set();
	if (rt_tool_pick()) {
		start_done();
		return;
	}
	/* variance's page-fault counts (-e page-faults) must not see the runtime's first
	 * touches (t802), in a forked child either: the libraries it dlopens stay mapped
	 * whole, as fault-around maps them, and of libsonde.so the part its handlers and
	 * interposers run (libtrim.c; the child maps it again in atfork_child).  A run that
	 * counts no faults is trimmed as under any tool (bench/memory.sh variance) */
	counts_faults = (rt_tool->flags & RT_TOOL_COUNTS_FAULTS) &&
			(!rt_tool->counts_faults || rt_tool->counts_faults());
	if (counts_faults)
		rt_trim_keep_resident((const void *)&rt_resident_end);
	/* first: libsonde.so's start-up code and what it pulled in around it unmapped, the
	 * rest resident by the granule (libtrim.c) */
	rt_trim_object_at((const void *)&sonde_init);
	source_pick();
	watch_pick();
	unwinders_init();
	rt_omp_init();
	if (rt_tool_start()) {
		start_done();
		return;
	}
	tls_blocks_init();
	proc_write_start();
	rt_copy_maps(".maps.start");
	pthread_key_create(&thread_key, thread_key_destructor);
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	fatal_install();
	struct rt_thread *t = rt_thread_start(-1);
	/* again: the pages only start-up used (probes, configuration, the .proc) unmapped */
	rt_trim_object_at((const void *)&sonde_init);
	if (rt_cfg.debug)
		fprintf(stderr, "sonde: runtime started in %d: source %s, period %llu %s%s%s\n"
				"sonde: watchpoints %s%s%s\n",
			rt_pid, rt_source ? rt_source->name : "none",
			(unsigned long long)rt_cfg.period, period_unit(),
			source_why[0] ? "; " : "", source_why, watch_backend_name(),
			watch_backend_why()[0] ? ": " : "", watch_backend_why());
	start_done();
	(void)t;
}

__attribute__((destructor)) static void sonde_fini(void)
{
	struct rt_thread *t = rt_self();
	/* A vfork child (_exit after a failed exec) shares the parent's memory and its
	 * events: stopping "its" thread would stop the parent's sampling for good. */
	if (!rt_cfg.enabled || (int)getpid() != rt_pid)
		return;
	if (t && rt_source) {
		t->busy = 1;
		rt_source->thread_stop(t);
	}
	rt_process_end("exit", 0);
}

/* ---- threads ---- */

static void *thread_trampoline(void *p)
{
	struct start s = *(struct start *)p;
	int cancel;

	start_give(p);
	/* rt_thread_start's open of the stream is a cancellation point: a thread cancelled
	 * right after pthread_create ended there, its routine never run, even one that
	 * disables cancellation first (the review's thr.c: 8,110 routines ran under sonde,
	 * 8,310 natively).  A cancel that comes meanwhile stays pending, for the routine's
	 * first cancellation point, as without sonde. */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	struct rt_thread *t = rt_thread_start(s.index);
	if (t)
		pthread_setspecific(thread_key, t);
	pthread_setcancelstate(cancel, &cancel);
	return s.fn(s.arg);
}

RT_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
			     void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	if (!real)
		real = dlsym(RTLD_NEXT, "pthread_create");
	if (!rt_cfg.enabled || rt_stopping)
		return real(th, attr, fn, arg);
	/* the creating thread's held allocation records and its buffer, on disk before it
	 * waits for its workers (pthread_join): a master that allocates, starts the team and
	 * takes no sample itself held them until its end, lost to a SIGKILL (the review of
	 * 2026-11-28: 2,030 of 2,031 samples [unknown]) */
	struct rt_thread *me = rt_self();
	if (me && !rt_enter(me)) {
		if (interpose_thread_flush)
			interpose_thread_flush(me);
		out_flush(&me->out);
		rt_leave(me);
	}
	struct start *s = start_take();
	if (!s)
		return real(th, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	s->index = rt_thread_next_index();
	int r = real(th, attr, thread_trampoline, s);
	if (r)
		start_give(s);
	return r;
}

/* ---- exec: end this image's streams; the next image records under a new stem ---- */

static char gen_var[32];

static char preload_var[2 * PATH_MAX] RT_LARGE;

/* "LD_PRELOAD=..." without the runtime's own entry; NULL if nothing else is left. */
static char *preload_without_us(const char *var)
{
	const char *p = var + 11;
	char *o = stpcpy(preload_var, "LD_PRELOAD="), *first = o;
	while (*p) {
		size_t n = strcspn(p, ": ");
		if (n && !memmem(p, n, "libsonde.so", 11) &&
		    (size_t)(o - preload_var) + n + 2 < sizeof(preload_var)) {
			if (o != first)
				*o++ = ':';
			memcpy(o, p, n);
			o += n;
		}
		p += n;
		while (*p == ':' || *p == ' ')
			p++;
	}
	*o = 0;
	return o == first ? NULL : preload_var;
}

#define EXEC_ENV_LOCAL 512

/*
 * The environment for a new image: without the runtime's variables when it must not be
 * profiled (strip), else with the exec generation that keeps its files apart (gen > 0) -
 * but only if it is still profiled: an image given an environment without the runtime
 * (execle with an empty one) must see exactly that environment.  Built in `local` when
 * it fits: a vfork child must not allocate from its parent's heap (the block would leak
 * there); envp itself if no copy can be made.  The caller frees anything else.
 */
static char **exec_env(char *const envp[], int strip, int gen, char **local)
{
	size_t n = 0;
	while (envp && envp[n])
		n++;
	char **e = local;
	if (n + 2 > EXEC_ENV_LOCAL)
		e = (int)getpid() == rt_pid ? interpose_real_malloc((n + 2) * sizeof(char *)) : NULL;
	if (!e)
		return (char **)envp;
	size_t k = 0;
	int has_dir = 0, has_preload = 0;
	for (size_t i = 0; i < n; i++) {
		if (!strncmp(envp[i], "SONDE_EXEC_GEN=", 15))
			continue;
		int dir = !strncmp(envp[i], "SONDE_DIR=", 10);
		int ours = !strncmp(envp[i], "LD_PRELOAD=", 11) && strstr(envp[i], "libsonde.so");
		if (strip && dir)
			continue;
		if (strip && ours) {
			char *rest = preload_without_us(envp[i]);
			if (rest)
				e[k++] = rest;
			continue;
		}
		has_dir |= dir;
		has_preload |= ours;
		e[k++] = envp[i];
	}
	if (!strip && gen > 0 && has_dir && has_preload) {
		snprintf(gen_var, sizeof(gen_var), "SONDE_EXEC_GEN=%d", gen);
		e[k++] = gen_var;
	}
	e[k] = NULL;
	return e;
}

/* An MPI launcher's daemon: an MPI program started without a launcher (a singleton) forks
 * and execs one to serve it (Open MPI's orted: the trial of 2026-11-28 read its threads
 * beside the program's, and the report "sonde mem: mixed").  Not followed: its work is
 * not the program's, and a launcher started under sonde starts its ranks itself
 * (doc/sonde-mpi.md, "Mistakes to avoid"). */
static int launcher_daemon(const char *path)
{
	static const char *const names[] = { "orted", "prted", "prte", "hydra_pmi_proxy",
					     "pmi_proxy" };
	const char *b = path ? strrchr(path, '/') : NULL;
	b = b ? b + 1 : path;
	for (size_t i = 0; b && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(b, names[i]))
			return 1;
	return 0;
}

/* path: the image to be exec'd, followed or not: the .proc's exec_into and exec_followed
 * (profile.h), by which a report tells a fork that exec'd at once (Open MPI's singleton
 * start forks and execs orted, not followed) from a second copy of the program (the
 * trial of 2026-11-29, F8: "programs xhpcg (2)" on a serial run) */
static void exec_prepare(const char *path, int followed)
{
	if (rt_cfg.enabled && (int)getpid() == rt_pid) {
		char self[PATH_MAX];
		ssize_t n;
		/* the program exec'ing itself: its name, not "exe" */
		if (path && !strcmp(path, "/proc/self/exe") &&
		    (n = readlink(path, self, sizeof(self) - 1)) > 0) {
			self[n] = 0;
			path = self;
		}
		const char *b = path ? strrchr(path, '/') : NULL;
		rt_proc_append("exec_into", b ? b + 1 : path ? path : "");
		rt_proc_append_u64("exec_followed", (uint64_t)followed);
		struct rt_thread *t = rt_self();
		if (t && rt_source) {
			t->busy = 1;
			rt_source->thread_stop(t);
		}
		rt_process_end("exec", 0);
	}
}

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef void (*exit_fn)(int);

#define REAL(name, type)                         \
	static type real_##name;                 \
	if (!real_##name)                        \
		real_##name = (type)dlsym(RTLD_NEXT, #name)

RT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	REAL(execve, execve_fn);
	if (!rt_cfg.enabled && !dormant)
		return real_execve(path, argv, envp);
	int strip = !rt_cfg.follow_exec || dormant || launcher_daemon(path);
	exec_prepare(path, !strip);
	char *local[EXEC_ENV_LOCAL];
	char **e = exec_env(envp, strip, exec_gen + 1, local);
	int r = real_execve(path, argv, e);
	int saved = errno;
	if (e != (char **)envp && e != local)
		interpose_real_free(e);
	errno = saved;
	return r;
}

RT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	REAL(execvpe, execve_fn);
	if (!rt_cfg.enabled && !dormant)
		return real_execvpe(file, argv, envp);
	int strip = !rt_cfg.follow_exec || dormant || launcher_daemon(file);
	exec_prepare(file, !strip);
	char *local[EXEC_ENV_LOCAL];
	char **e = exec_env(envp, strip, exec_gen + 1, local);
	int r = real_execvpe(file, argv, e);
	int saved = errno;
	if (e != (char **)envp && e != local)
		interpose_real_free(e);
	errno = saved;
	return r;
}

RT_EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

RT_EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

static char **collect_args(const char *arg0, va_list ap, char ***envp)
{
	size_t n = 1;
	va_list aq;
	va_copy(aq, ap);
	while (va_arg(aq, char *))
		n++;
	va_end(aq);
	char **argv = interpose_real_malloc((n + 1) * sizeof(char *));
	if (!argv)
		return NULL;
	argv[0] = (char *)arg0;
	for (size_t i = 1; i <= n; i++)
		argv[i] = va_arg(ap, char *);
	if (envp)
		*envp = va_arg(ap, char **);
	return argv;
}

/* The list forms: gather the arguments (and, for execle, the environment) and call fn. */
static int exec_va(execve_fn fn, const char *file, const char *arg, va_list ap, int with_env)
{
	char **envp = environ;
	char **argv = collect_args(arg, ap, with_env ? &envp : NULL);
	if (!argv)
		return errno = ENOMEM, -1;
	int r = fn(file, argv, envp);
	int saved = errno;
	interpose_real_free(argv);
	errno = saved;
	return r;
}

RT_EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	int r = exec_va(execve, path, arg, ap, 0);
	va_end(ap);
	return r;
}

RT_EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	int r = exec_va(execvpe, file, arg, ap, 0);
	va_end(ap);
	return r;
}

RT_EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	int r = exec_va(execve, path, arg, ap, 1);
	va_end(ap);
	return r;
}

/* ---- _exit skips destructors: end the streams first ---- */

RT_EXPORT void _exit(int status)
{
	REAL(_exit, exit_fn);
	sonde_fini();
	real__exit(status);
	__builtin_unreachable();
}

RT_EXPORT void _Exit(int status)
{
	_exit(status);
}

/* ---- the runtime's own signals stay the runtime's ----
 *
 * A program that installs a handler for one of the real-time signals the runtime uses
 * would steal its samples (and receive signals it never asked for).  Its request is kept
 * in a shadow table and reported back as installed, but not applied.  (signal() is
 * interposed through this one; the runtime's own calls come from its own code range.)
 */

static struct sigaction shadow[2];

static int own_signal(int sig)
{
	if (!rt_cfg.enabled || sig <= 0)
		return -1;
	if (sig == rt_cfg.sig_sample)
		return 0;
	if (sig == rt_cfg.sig_watch)
		return 1;
	return -1;
}

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

static int sigaction_from(uint64_t caller, int sig, const struct sigaction *act,
			  struct sigaction *old)
{
	REAL(sigaction, sigaction_fn);
	/* the clock source single-steps with SIGTRAP: a program's handler is chained to */
	if (sig == SIGTRAP && !rt_stopping && !rt_owns_address(caller) &&
	    clock_sigtrap_divert(act, old))
		return 0;
	int k = own_signal(sig);
	/* the runtime's own calls (sources, watch.c) go through */
	if (k < 0 || rt_stopping || rt_owns_address(caller))
		return real_sigaction(sig, act, old);
	if (old)
		*old = shadow[k];
	if (act)
		shadow[k] = *act;
	return 0;
}

RT_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	return sigaction_from((uint64_t)(uintptr_t)__builtin_return_address(0), sig, act, old);
}

RT_EXPORT sighandler_t signal(int sig, sighandler_t h)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h;
	sa.sa_flags = SA_RESTART;
	if (sigaction_from((uint64_t)(uintptr_t)__builtin_return_address(0), sig, &sa, &old))
		return SIG_ERR;
	return old.sa_handler;
}

/* ---- the program's own alternate signal stacks ----
 *
 * The runtime's handlers need about 12 KiB of stack (signal frame, decoder, unwinder),
 * more than the 8 KiB alternate stacks many programs install: a sample taken on such a
 * stack writes below it, into the program's memory (seen: t016).  So a thread keeps the
 * runtime's stack when the program asks for one smaller than ALT_MIN: the program's is
 * remembered and reported back as installed, and its SA_ONSTACK handlers run on the
 * runtime's larger stack instead.  Larger stacks are installed as asked.  A thread that
 * never asked sees no alternate stack, as it would without the runtime.
 */
#define ALT_MIN (64u << 10)

static RT_TLS stack_t alt_shadow;
static RT_TLS int alt_shadowed;

static size_t alt_kernel_min(void)
{
	unsigned long m = getauxval(AT_MINSIGSTKSZ);
	return m ? m : 2048;
}

static int sigaltstack_real(const stack_t *ss, stack_t *old)
{
	return (int)syscall(SYS_sigaltstack, ss, old);
}

RT_EXPORT int sigaltstack(const stack_t *ss, stack_t *old)
{
	uint64_t caller = (uint64_t)(uintptr_t)__builtin_return_address(0);
	struct rt_thread *t = rt_self();
	stack_t cur;
	if (!rt_cfg.enabled || !t || !t->altstack || rt_owns_address(caller) ||
	    sigaltstack_real(NULL, &cur))
		return sigaltstack_real(ss, old);
	int ours = cur.ss_sp == t->altstack && !(cur.ss_flags & SS_DISABLE);
	if (ss && (cur.ss_flags & SS_ONSTACK))
		return errno = EPERM, -1;		/* as the kernel: not while on it */
	stack_t prev = cur;				/* the program's own, installed */
	if (alt_shadowed)
		prev = alt_shadow;
	else if (ours)
		prev = (stack_t){ .ss_flags = SS_DISABLE };
	if (ss && !(ss->ss_flags & SS_DISABLE) && ss->ss_size >= ALT_MIN) {
		if (sigaltstack_real(ss, NULL))
			return -1;
		alt_shadowed = 0;
	} else if (ss) {
		if (!(ss->ss_flags & SS_DISABLE) && ss->ss_size < alt_kernel_min())
			return errno = ENOMEM, -1;	/* as the kernel would have said */
		if (!ours) {
			stack_t mine = { .ss_sp = t->altstack, .ss_size = t->altstack_size };
			if (sigaltstack_real(&mine, NULL))
				return -1;
		}
		alt_shadow = *ss;
		alt_shadow.ss_flags &= SS_DISABLE;
		alt_shadowed = 1;
	}
	if (old) {
		*old = prev;
		old->ss_flags |= cur.ss_flags & SS_ONSTACK;
	}
	return 0;
}
