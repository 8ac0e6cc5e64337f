/* SPDX-License-Identifier: MIT */
/*
 * switch-bp.c - what an armed debug register costs its thread at each context switch.
 *
 *   switch-bp MODE [N]   two threads hand a turn back and forth N times (default 100000)
 *                        through a futex, every hand-over a context switch in each (a
 *                        wake on the other CPU, or a switch to and from the idle task);
 *                        MODE: none, off (a breakpoint event per thread, disabled), on
 *                        (enabled, on a word nobody touches: it never traps) or inherit
 *                        (one enabled event opened by main before the threads start, with
 *                        `inherit`: each thread holds a copy, and the copies' contexts are
 *                        clones, which the kernel swaps at a switch between the two).
 *                        offK, onK (K = 1..4): K events per thread, on K words; closedK:
 *                        K enabled events opened then closed before the hand-overs (what
 *                        a thread pays once it holds no event any more).
 *   switch-bp open [N]   no hand-over: N times, open an enabled breakpoint event on the
 *                        calling thread and close it; prints "open: U us" a pair (what
 *                        a re-arm costs after the events were closed).
 *   SWITCH_BP_CPU=C      run both threads on CPU C: every hand-over is then a switch from
 *                        one thread of the process straight to the other.
 *   SWITCH_BP_CLOCK=K    a sampling clock beside, as the clock source has (0.9 ms of CPU
 *                        time, a signal each that the handler only counts): inherit (one
 *                        cpu-clock event opened by main with inherit and sigtrap, each
 *                        thread's copy a clone: the clock source's default), thread (each
 *                        thread opens its own cpu-clock event, sigtrap) or posix (each
 *                        thread a timer_create(CLOCK_THREAD_CPUTIME_ID) timer, its signal
 *                        to the thread: no perf event).  With inherit, the breakpoint
 *                        events of the modes above make each thread's perf context its
 *                        own (no longer a clone of main's).
 * Prints "MODE: S s" (elapsed).  bench/comm.sh runs it: sonde comm keeps up to 4 such
 * breakpoints armed in each sampling thread between its samples.
 */
#define _GNU_SOURCE
#include <linux/hw_breakpoint.h>
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int mode;	/* 0 none, 1 off, 2 on, 3 inherit, 4 closed */
static int nbp = 1;	/* events per thread (off, on, closed) */
static long turns = 100000;
static volatile int turn;
static volatile long untouched[2][8];
static int fds[2][4];
static int clock_kind;	/* SWITCH_BP_CLOCK: 0 none, 1 inherit, 2 thread, 3 posix */
static volatile long ticks;

static void on_tick(int sig)
{
	(void)sig;
	__atomic_fetch_add(&ticks, 1, __ATOMIC_RELAXED);
}

/* A 0.9 ms cpu-clock event on the calling thread, a SIGTRAP at each overflow; inherit: and
 * on the threads it creates afterwards. */
static void cpu_clock(int inherit)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 900000;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.inherit = inherit;
	a.inherit_thread = inherit;
	a.sigtrap = 1;
	a.remove_on_exec = 1;
	if (syscall(SYS_perf_event_open, &a, 0, -1, -1, 0) < 0) {
		perror("switch-bp: perf_event_open(cpu-clock)");
		exit(1);
	}
}

/* A 0.9 ms timer on the calling thread's CPU time, SIGRTMIN to the thread. */
static void posix_clock(void)
{
	struct sigevent ev;
	timer_t t;
	struct itimerspec it = { { 0, 900000 }, { 0, 900000 } };
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGRTMIN;
	ev._sigev_un._tid = (int)syscall(SYS_gettid);
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &t) || timer_settime(t, 0, &it, NULL)) {
		perror("switch-bp: timer_create");
		exit(1);
	}
}

/* An enabled (or, off, disabled) breakpoint on w for the calling thread; inherit: and
 * for the threads it creates afterwards. */
static int breakpoint(volatile long *w, int off, int inherit)
{
	int fd;
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_BREAKPOINT;
	a.bp_type = HW_BREAKPOINT_RW;
	a.bp_addr = (unsigned long)w;
	a.bp_len = 8;
	a.sample_period = 1;
	a.exclude_kernel = 1;
	a.disabled = off;
	a.inherit = inherit;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		perror("switch-bp: perf_event_open(breakpoint)");
		exit(1);
	}
	return fd;
}

static void *player(void *p)
{
	int me = (int)(long)p;
	if (clock_kind == 2)
		cpu_clock(0);
	else if (clock_kind == 3)
		posix_clock();
	for (int k = 0; k < nbp && (mode == 1 || mode == 2 || mode == 4); k++)
		fds[me][k] = breakpoint(&untouched[me][k], mode == 1, 0);
	for (int k = 0; k < nbp && mode == 4; k++)
		close(fds[me][k]);
	for (long i = 0; i < turns; i++) {
		while (turn != me)
			syscall(SYS_futex, &turn, FUTEX_WAIT_PRIVATE, 1 - me, NULL, NULL, 0);
		turn = 1 - me;
		syscall(SYS_futex, &turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	pthread_t a, b;

	static const char *const modes[] = { "none", "off", "on", "inherit", "closed" };
	mode = -1;
	for (int i = 0; argc >= 2 && i < 5; i++) {
		size_t l = strlen(modes[i]);
		if (strncmp(argv[1], modes[i], l))
			continue;
		if (!argv[1][l])
			mode = i;
		else if ((i == 1 || i == 2 || i == 4) && argv[1][l] >= '1' && argv[1][l] <= '4' &&
			 !argv[1][l + 1]) {
			mode = i;
			nbp = argv[1][l] - '0';
		}
	}
	if (mode < 0 && !(argc >= 2 && !strcmp(argv[1], "open"))) {
		fprintf(stderr, "usage: switch-bp none|off[K]|on[K]|closed[K]|inherit|open [N] (K 1-4)\n");
		return 2;
	}
	if (argc > 2)
		turns = atol(argv[2]);
	if (!strcmp(argv[1], "open")) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (long i = 0; i < turns; i++)
			close(breakpoint(&untouched[0][i & 3], 0, 0));
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("open: %.2f us\n", ((double)(t1.tv_sec - t0.tv_sec) * 1e9 +
					   (double)(t1.tv_nsec - t0.tv_nsec)) / 1e3 / (double)turns);
		return 0;
	}
	const char *cpu = getenv("SWITCH_BP_CPU");
	if (cpu && *cpu) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(atoi(cpu), &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			perror("switch-bp: sched_setaffinity");
			return 1;
		}
	}
	const char *ck = getenv("SWITCH_BP_CLOCK");
	if (ck && *ck) {
		static const char *const kinds[] = { "none", "inherit", "thread", "posix" };
		clock_kind = -1;
		for (int i = 0; i < 4; i++)
			if (!strcmp(ck, kinds[i]))
				clock_kind = i;
		if (clock_kind < 0) {
			fprintf(stderr, "switch-bp: SWITCH_BP_CLOCK is none, inherit, thread or posix\n");
			return 2;
		}
		signal(SIGTRAP, on_tick);
		signal(SIGRTMIN, on_tick);
	}
	if (clock_kind == 1)
		cpu_clock(1);
	if (mode == 3)
		breakpoint(&untouched[0][0], 0, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_create(&a, NULL, player, (void *)0L);
	pthread_create(&b, NULL, player, (void *)1L);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%s: %.3f s\n", argv[1],
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
