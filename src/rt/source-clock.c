/* SPDX-License-Identifier: MIT */
/*
 * source-clock.c - the `clock` sample source: set-up and tear-down (the handlers are in
 * source-clock-sig.c).  Works on any Linux with perf events, PMU or not: the event is the
 * software cpu-clock, counted in user space only (exclude_kernel: allowed at
 * perf_event_paranoid 2, and a tick that lands in the kernel has no user instruction to
 * decode anyway).
 *
 * Period: 0.9 ms of CPU time by default, ~1,100 samples/s per thread's CPU second, so that a
 * busy thread gets at least 1,000 per second even counting the time no sample can land
 * (kernel, start-up before the runtime, the handlers themselves); each sample costs a few to a few tens of microseconds (decode, plus
 * ~15 us per single-step in a VM), so the default stays within a few percent of overhead.
 *
 * By default one event serves the whole process: opened by its first thread, inherited by
 * every thread created after it, each overflow a SIGTRAP (attr.sigtrap) in the thread it
 * lands in; per-thread events cost ~9 us at every context switch on a KVM guest
 * (source-clock.h).  Per-thread events are the fallback (kernels before 6.1, periods under
 * CLOCK_RUN_MIN_PERIOD, SONDE_CLOCK_INHERIT=0).
 *
 * Where the tool keeps debug-register events open in its threads (RT_TOOL_THREAD_BREAKPOINTS:
 * comm) and they are real (the hw watch backend), the default (SONDE_CLOCK_TIMER=auto) is a
 * POSIX timer per thread on its own CPU time (timer_create(CLOCK_THREAD_CPUTIME_ID),
 * SIGEV_THREAD_ID), no perf event at all.  Why: the first perf event a thread opens for
 * itself (a breakpoint) makes its perf context its own, no longer a clone of the inherited
 * clock event's, for the rest of its life, closed or not; from then on every context switch
 * schedules its cpu-clock event out and in (an hrtimer cancelled and restarted: on a KVM guest
 * a local-APIC write, a VM exit).  switch-bp (tests/workloads/comm/switch-bp.c) with
 * SWITCH_BP_CLOCK=inherit: a futex hand-over took ~15 us more with one disabled breakpoint
 * event per thread than without, the same once it was closed; with POSIX timers the
 * breakpoint events cost what they cost without any clock (bench/comm.sh, doc/sonde-comm.md).
 * The price: such timers expire only at the scheduler tick (4 ms at HZ=250, measured on
 * the 6.18 development VM: 250 signals a CPU second whatever the period under 4 ms, the rest
 * as timer overruns), so samples come at most one a tick; and the clock counts system time
 * too (the perf event, exclude_kernel, samples user time only): a tick in a system call
 * signals at the call's return, and the sample is the thread's next access after it.
 * (Dropping those was tried: commbench's pairs, which spin on sched_yield, then got no
 * sample at all in 100,000 hand-offs, where the perf event took ~25 in 20,000.)
 * SONDE_CLOCK_TIMER=posix chooses the timers for any tool, =perf never.
 *
 * A per-thread event's overflow signal reaches the thread through O_ASYNC/F_SETSIG/
 * F_SETOWN_EX(F_OWNER_TID) with no ring buffer mapped: the kernel signals a fasync owner on
 * every overflow whether or not there is a buffer (tested by u-clock, which samples without one).  The event is armed
 * for clock_armed overflows ahead (PERF_EVENT_IOC_REFRESH, one added back by the handlers
 * per signal: see source-clock.h), so a thread that blocks the signal cannot fill the
 * real-time signal queue.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "rt/decode-x86.h"
#include "rt/rt.h"
#include "rt/source-clock.h"
#include "rt/watch.h"

uint64_t clock_period = CLOCK_DEFAULT_PERIOD;
int clock_armed = 1;
int clock_inherit;
int clock_posix;
int clock_prev = 1;
uint64_t clock_budget_div_long = CLOCK_BUDGET_DIV_LONG;
/* SONDE_CLOCK_TIMER=auto: clock_posix decided by the first thread_start, once the watch
 * backend and the tool are known (clock_choose_timer) */
static int clock_timer_auto;
/* threads whose POSIX timer could not be made: unsampled */
uint64_t clock_timer_failed;
/* The inherited event (clock_inherit): opened by the process's first profiled thread, its
 * fd held by that thread (struct clock_thread.fd) and here; -1 while there is none. */
static int clock_inherit_fd = -1;
static volatile int clock_owns_sigtrap;	/* our handler is installed for SIGTRAP */

/* inherit: one event for the thread and every thread it creates, signalling by SIGTRAP
 * (source-clock.h); enabled at once.  Else disabled, for clock_arm. */
static int clock_open(uint64_t period, int tid, int inherit)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = period;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.wakeup_events = 1;
	if (inherit) {
		a.disabled = 0;
		a.inherit = 1;
		a.inherit_thread = 1;	/* threads only: a fork child opens its own */
		a.sigtrap = 1;
		a.remove_on_exec = 1;	/* the kernel requires it with sigtrap */
		a.sig_data = CLOCK_SIG_DATA;
	}
	int fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Linux 6.1 or later: it delivers a sigtrap event's SIGTRAP to a thread that blocks it
 * when it unblocks, flagged TRAP_PERF_FLAG_ASYNC.  5.13 to 6.0 take attr.sigtrap but force
 * the signal, resetting a blocked SIGTRAP's handler: a tick during our own handlers (which
 * block SIGTRAP) or pthread_create's signal mask would kill the program. */
static int kernel_delivers_blocked_sigtrap(void)
{
	struct utsname u;
	int major = 0, minor = 0;
	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return 0;
	return major > 6 || (major == 6 && minor >= 1);
}

/* Whether the inherited event is to be used: asked for (SONDE_CLOCK_INHERIT, default 1), a
 * period at which the per-thread events would run on too (CLOCK_RUN_MIN_PERIOD), and a kernel
 * that takes attr.sigtrap and delivers it asynchronously when blocked (6.1 on). */
static int clock_want_inherit(uint64_t period)
{
	const char *e = getenv("SONDE_CLOCK_INHERIT");
	if ((e && e[0] == '0') || period < CLOCK_RUN_MIN_PERIOD ||
	    !kernel_delivers_blocked_sigtrap())
		return 0;
	int fd = clock_open(period, 0, 1);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static int read_paranoid(void)
{
	char buf[16] = "";
	int fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -100;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atoi(buf) : -100;
}

static void explain(int err, char *why, size_t len)
{
	int p = read_paranoid();
	if (!why || !len)
		return;
	if (err == -EACCES || err == -EPERM) {
		if (p > 2)
			snprintf(why, len, "perf_event_open(cpu-clock) refused: perf_event_paranoid is "
				 "%d, which forbids all profiling by users; run "
				 "'sysctl kernel.perf_event_paranoid=2' (or grant CAP_PERFMON)", p);
		else
			snprintf(why, len, "perf_event_open(cpu-clock) refused (%s) although "
				 "perf_event_paranoid is %d: a seccomp filter (containers) may block "
				 "it; allow perf_event_open, or grant CAP_PERFMON", strerror(-err), p);
	} else if (err == -ENOSYS || err == -ENOENT || err == -EOPNOTSUPP) {
		snprintf(why, len, "perf_event_open(cpu-clock) failed (%s): the kernel lacks "
			 "perf events (CONFIG_PERF_EVENTS)", strerror(-err));
	} else if (err == -EMFILE || err == -ENFILE) {
		snprintf(why, len, "perf_event_open(cpu-clock) failed: out of file descriptors "
			 "(%s); raise 'ulimit -n'", strerror(-err));
	} else {
		snprintf(why, len, "perf_event_open(cpu-clock) failed: %s", strerror(-err));
	}
}

static int clock_probe(char *why, size_t len)
{
	int fd = clock_open(CLOCK_DEFAULT_PERIOD, 0, 0);
	if (fd < 0) {
		explain(fd, why, len);
		return fd;
	}
	close(fd);
	if (!rt_cfg.sig_sample) {	/* config_read: 0 unless a real-time signal */
		if (why && len)
			snprintf(why, len, "SONDE_SIGNAL does not name a real-time signal (%d "
				 "to %d)", SIGRTMIN, SIGRTMAX);
		return -EINVAL;
	}
	return 0;
}

static int clock_start(void)
{
	struct sigaction sa;

	/* A tool that takes the interrupted PC alone (RT_TOOL_NO_ACCESS) decodes nothing:
	 * no decoder, and libZydis stays unloaded; only the code reads' pid.  (rt_tool is
	 * set before the source starts; NULL in the unit tests that start it alone.) */
	if (rt_tool && (rt_tool->flags & RT_TOOL_NO_ACCESS))
		decode_after_fork();
	else
		decode_init();
	clock_period = rt_cfg.period ? rt_cfg.period : CLOCK_DEFAULT_PERIOD;
	clock_armed = clock_period >= CLOCK_RUN_MIN_PERIOD ? CLOCK_ARMED : 1;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = clock_on_trap;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, rt_cfg.sig_sample);
	if (rt_cfg.sig_watch > 0)
		sigaddset(&sa.sa_mask, rt_cfg.sig_watch);
	/* started again (a new period): keep the program's handler saved the first time, or
	 * a foreign SIGTRAP would be chained to ourselves */
	struct sigaction cur;
	if (sigaction(SIGTRAP, NULL, &cur))
		return -errno;
	if (!((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == clock_on_trap))
		clock_old_sigtrap = cur;
	if (sigaction(SIGTRAP, &sa, NULL))
		return -errno;

	sa.sa_sigaction = clock_on_sample;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGTRAP);
	if (rt_cfg.sig_watch > 0)
		sigaddset(&sa.sa_mask, rt_cfg.sig_watch);
	if (sigaction(rt_cfg.sig_sample, &sa, NULL)) {
		int e = -errno;
		sigaction(SIGTRAP, &clock_old_sigtrap, NULL);
		return e;
	}
	clock_owns_sigtrap = 1;
	/* our handler passes the watch engine its sigtrap traps; a kernel before 6.1 would
	 * kill the program at one taken while SIGTRAP is blocked (in our handlers) */
	watch_sigtrap_route(kernel_delivers_blocked_sigtrap());
	const char *timer = getenv("SONDE_CLOCK_TIMER");
	clock_posix = timer && !strcmp(timer, "posix");
	clock_timer_auto = !timer || !*timer || !strcmp(timer, "auto");
	if (timer && *timer && !clock_posix && !clock_timer_auto && strcmp(timer, "perf"))
		rt_log("sonde: warning: SONDE_CLOCK_TIMER wants auto, posix or perf: the perf "
		       "event is used\n");
	/* after the handlers: the trial event's first tick could come before close */
	clock_inherit = clock_posix ? 0 : clock_want_inherit(clock_period);
	const char *pv = getenv("SONDE_CLOCK_PREV");
	clock_prev = !(pv && pv[0] == '0');
	/* the default periods' budget: handlers at most 1 / (1 + N) of a thread's time
	 * (source-clock.h; t088 makes it tiny to see the budget at work on any machine) */
	const char *bd = getenv("SONDE_CLOCK_BUDGET_DIV");
	if (bd && *bd && strtoul(bd, NULL, 10) > 0)
		clock_budget_div_long = strtoul(bd, NULL, 10);
	return 0;
}

/* SONDE_CLOCK_TIMER=auto, at the first thread_start: POSIX timers where the tool holds
 * debug-register events in its threads (clock_posix_wanted), the perf event otherwise. */
static void clock_choose_timer(void)
{
	if (!clock_timer_auto)
		return;
	clock_timer_auto = 0;
	unsigned f = rt_tool ? rt_tool->flags : 0;
	int wants = (f & RT_TOOL_THREAD_BREAKPOINTS) ||
		    ((f & RT_TOOL_TICK_TIMERS) && clock_period >= CLOCK_TICK_PERIOD);
	if (wants && watch_backend() == WATCH_BACKEND_HW && watch_is_started()) {
		clock_posix = 1;
		clock_inherit = 0;
	}
}

/* A CPU-time timer on the calling thread (tid), clock_period ns of it, its signal
 * rt_cfg.sig_sample to that thread. */
static int clock_timer_start(struct clock_thread *ct, int tid)
{
	struct sigevent ev;
	struct itimerspec it;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = rt_cfg.sig_sample;
	ev.sigev_value.sival_int = CLOCK_TIMER_SIG_VALUE;
	ev._sigev_un._tid = tid;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &ct->timer))
		return -errno;
	it.it_interval.tv_sec = (time_t)(clock_period / 1000000000u);
	it.it_interval.tv_nsec = (long)(clock_period % 1000000000u);
	/* The first expiry 1 ns: such a timer fires only at a tick on which its thread runs
	 * with a whole it_value behind it, so with a full first period a thread that lives
	 * about a tick of CPU time was rarely sampled; from 1 ns, the first tick that finds
	 * the thread running fires, as every later one does for a long-lived thread.
	 * tests/workloads/comm/timer-short.c (bench/comm.sh, COMM_BENCH_ONLY=timer): 600
	 * threads of 1.5 ms of CPU, 0.9 ms period: 97-105 signals a CPU second with a full
	 * first period, 156-180 with it at random in (0, period], 217-254 from 1 ns, against
	 * 250-267 for one long thread (doc/sonde-comm.md). */
	it.it_value.tv_sec = 0;
	it.it_value.tv_nsec = 1;
	/* published before the first signal can come: the handler checks it */
	ct->has_timer = 1;
	if (timer_settime(ct->timer, 0, &it, NULL)) {
		int e = -errno;
		ct->has_timer = 0;
		timer_delete(ct->timer);
		return e;
	}
	return 0;
}

int clock_sigtrap_divert(const struct sigaction *act, struct sigaction *old)
{
	if (!clock_owns_sigtrap)
		return 0;
	if (old)
		*old = clock_old_sigtrap;
	if (act)
		clock_old_sigtrap = *act;
	return 1;
}

static int clock_arm(int fd, int tid)
{
	struct f_owner_ex owner = { .type = F_OWNER_TID, .pid = tid };
	if (fcntl(fd, F_SETOWN_EX, &owner) || fcntl(fd, F_SETSIG, rt_cfg.sig_sample) ||
	    fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK))
		return -errno;
	/* enabled for clock_armed overflows; the sample handler adds one back per signal
	 * (source-clock-sig.c) */
	if (ioctl(fd, PERF_EVENT_IOC_RESET, 0) || ioctl(fd, PERF_EVENT_IOC_REFRESH, clock_armed))
		return -errno;
	return 0;
}

uint64_t clock_tick_cost;
#define CLOCK_CAL_PERIOD 20000ull	/* the calibration event's period (ns of CPU time) */
#define CLOCK_CAL_NS 2000000ull		/* the plain spin's CPU time; the ticked one's twice */
#define CLOCK_CAL_MAX 1000000ull	/* a cost above this is taken as this */

/* Spin for cpu_ns of the thread's CPU time: the loop's rounds, the CPU time in *took. */
static uint64_t spin_for(uint64_t cpu_ns, uint64_t *took)
{
	volatile uint64_t x = 0;
	uint64_t n = 0, t0 = clock_cpu_now(), t;
	do {
		for (int i = 0; i < 1000; i++)
			x += (uint64_t)i;
		n += 1000;
	} while ((t = clock_cpu_now()) - t0 < cpu_ns && t);
	*took = t - t0;
	return n;
}

/* The calibration's signals: counted, and the event enabled for the next overflow, as
 * the sample handler does (one signal an overflow: an event left enabled coalesces them). */
static volatile int cal_fd = -1;
static volatile uint64_t cal_hits;

static void cal_on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_fd == cal_fd) {
		cal_hits++;
		ioctl(cal_fd, PERF_EVENT_IOC_REFRESH, 1);
	}
}

/*
 * clock_tick_cost (source-clock.h): a spin's rate alone, then the same spin under an event
 * of CLOCK_CAL_PERIOD whose signals a stand-in handler takes: the CPU time the spin's work
 * did not get, over the signals.  ~6 ms, once a process, at its first thread's start,
 * when it has that one thread (the sample signal's handler is swapped meanwhile).  On the
 * 2-core KVM guest of 2026-11-29: 100-400 us a signal (an empty handler's).
 */
static void clock_calibrate_tick(int tid)
{
	const char *e = getenv("SONDE_CLOCK_TICK_COST");
	if (e && e[0] == '0')
		return;
	uint64_t c0 = 0, c1 = 0;
	uint64_t n0 = spin_for(CLOCK_CAL_NS, &c0);
	int fd = clock_open(CLOCK_CAL_PERIOD, tid, 0);
	if (fd < 0)
		return;
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = cal_on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	struct f_owner_ex owner = { .type = F_OWNER_TID, .pid = tid };
	cal_fd = fd;
	cal_hits = 0;
	if (sigaction(rt_cfg.sig_sample, &sa, &old)) {
		cal_fd = -1;
		close(fd);
		return;
	}
	uint64_t n1 = 0;
	if (!fcntl(fd, F_SETOWN_EX, &owner) && !fcntl(fd, F_SETSIG, rt_cfg.sig_sample) &&
	    !fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) && !ioctl(fd, PERF_EVENT_IOC_RESET, 0) &&
	    !ioctl(fd, PERF_EVENT_IOC_REFRESH, 1))
		n1 = spin_for(2 * CLOCK_CAL_NS, &c1);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	cal_fd = -1;
	close(fd);
	sigaction(rt_cfg.sig_sample, &old, NULL);
	uint64_t hits = cal_hits;
	if (hits < 5 || !n0 || !c0 || !n1)
		return;
	double work = (double)n1 * (double)c0 / (double)n0;	/* its CPU time, no tick */
	double cost = ((double)c1 - work) / (double)hits;
	clock_tick_cost = cost <= 0 ? 0 : cost > CLOCK_CAL_MAX ? CLOCK_CAL_MAX : (uint64_t)cost;
}

static int clock_thread_start(struct rt_thread *t)
{
	struct clock_thread *ct = t->src;
	if (!ct) {
		ct = arena_alloc(&t->arena, sizeof(*ct));
		if (!ct)
			return -ENOMEM;
		ct->fd = -1;
		/* no cache (arena full): every look-ahead decodes afresh */
		ct->dcache = arena_alloc(&t->arena, CLOCK_DCACHE * sizeof(*ct->dcache));
		t->src = ct;
	}
	int tid = (int)syscall(SYS_gettid);
	ct->stepping = 0;
	ct->watchdog = 0;
	ct->last_exit = 0;
	ct->credit = CLOCK_BUDGET_CAP;
	ct->credit_at = ct->sample_at = 0;
	clock_choose_timer();
	if (clock_posix) {
		ct->fd = -1;
		if (ct->has_timer)
			return 0;
		int r = clock_timer_start(ct, tid);
		/* No timer for this thread (EAGAIN: the user's pending-signal limit, ulimit -i,
		 * from which every timer of the user's processes holds a slot): the thread goes
		 * unsampled, counted in the .proc (clock_timer_failed) and said after the run.
		 * Not a perf event instead: its signals need slots of the same exhausted limit,
		 * and where the queue is full the kernel sends SIGIO, which kills the program
		 * (seen at ulimit -i 2). */
		if (r)
			__atomic_add_fetch(&clock_timer_failed, 1, __ATOMIC_RELAXED);
		return r;
	}
	if (clock_inherit) {
		/* The process's first profiled thread opens the event; every later one was
		 * created by a thread that had it, and has its own copy since its clone. */
		ct->fd = -1;
		if (clock_inherit_fd >= 0)
			return 0;
		int fd = clock_open(clock_period, tid, 1);
		if (fd < 0)
			return fd;
		clock_inherit_fd = ct->fd = rt_hide_fd(fd);
		return 0;
	}
	static int calibrated;
	if (!__atomic_exchange_n(&calibrated, 1, __ATOMIC_ACQ_REL))
		clock_calibrate_tick(tid);
	int fd = clock_open(clock_period, tid, 0);
	if (fd < 0)
		return fd;
	fd = rt_hide_fd(fd);
	/* published before the first signal can come: the handler compares si_fd with it */
	ct->fd = fd;
	int r = clock_arm(fd, tid);
	if (r) {
		ct->fd = -1;
		rt_close_fd(fd);
	}
	return r;
}

static void clock_thread_stop(struct rt_thread *t)
{
	struct clock_thread *ct = t->src;
	if (ct && ct->has_timer) {
		/* a signal already queued finds has_timer 0 and is ignored */
		ct->has_timer = 0;
		timer_delete(ct->timer);
	}
	if (!ct || ct->fd < 0)
		return;
	int fd = ct->fd;
	/* the inherited event: disabled in every thread (the process ends or execs); not
	 * if the program dup2'd onto the number (its file now, left alone by rt_close_fd) */
	rt_fd_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	/* a signal already queued finds fd -1 and is ignored */
	ct->fd = -1;
	if (fd == clock_inherit_fd)
		clock_inherit_fd = -1;
	rt_close_fd(fd);
}

static void clock_after_fork_child(struct rt_thread *t)
{
	struct clock_thread *ct = t->src;
	/* The parent's events, inherited as fds: only ours to close, never to disable.  The
	 * inherited event is not copied into a fork child (inherit_thread), but its fd is,
	 * whichever thread opened it: the child's first thread_start opens its own. */
	int ifd = clock_inherit_fd;
	clock_inherit_fd = -1;
	if (ct && ct->fd >= 0 && ct->fd != ifd)
		rt_close_fd(ct->fd);
	if (ifd >= 0)
		rt_close_fd(ifd);
	if (!ct)
		return;
	ct->fd = -1;
	ct->has_timer = 0;	/* a fork child has no timers; thread_start makes its own */
	decode_after_fork();	/* the memory reads' pid */
	ct->stepping = 0;
	ct->watchdog = 0;
}

const struct rt_source rt_source_clock = {
	.name = "clock",
	.id = SONDE_SOURCE_CLOCK,
	.default_period = CLOCK_DEFAULT_PERIOD,
	.probe = clock_probe,
	.start = clock_start,
	.thread_start = clock_thread_start,
	.thread_stop = clock_thread_stop,
	.after_fork_child = clock_after_fork_child,
	.drops = clock_drops,
};
