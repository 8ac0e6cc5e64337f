#!/usr/bin/env bash
# bench/watch-ioctl.sh - what the watch engine's system calls on one breakpoint event cost
# on this kernel (issue 9: the kernel work of a measured instance).  A micro loop on the
# calling thread's own event, as the engine makes them inside a trap handler: the count's
# read(2), PERF_EVENT_IOC_MODIFY_ATTRIBUTES (enabled, to a new address and type),
# DISABLE, ENABLE, REFRESH, the sequences the engine used per re-arm, an open and close
# (watch_release, then the next arm); then what a trap
# and one measured instance's cycle cost (part 2, below).  Prints the
# median over ROUNDS rounds of N calls each, in microseconds per call (wall time; the
# thread's CPU time beside it, which other work on the machine does not add to).
# Never fails on numbers.
#   bench/watch-ioctl.sh      (WATCH_IOCTL_N=calls per round, default 2000)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
bench_scratch watch-ioctl
cat >wcommon.h <<'EOF_C'
/* what both programs below share */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define ROUNDS 9

/* the engine's attr (watch_bp_attr); sigtrap: delivery by attr.sigtrap */
static void bp_attr(struct perf_event_attr *a, uint64_t addr, int type, int sigtrap)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_BREAKPOINT;
	a->size = sizeof(*a);
	a->bp_type = (uint32_t)type;
	a->bp_addr = addr;
	a->bp_len = type == HW_BREAKPOINT_X ? sizeof(long) : 8;
	a->sample_period = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->sigtrap = sigtrap;
	a->remove_on_exec = sigtrap;
}

static int64_t ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}
EOF_C
cat >wi.c <<'EOF_C'
#include "wcommon.h"

static volatile uint64_t word[2];
static void target(void) { __asm__ volatile(""); }

static int fd, n;
static struct perf_event_attr ax, arw;

static void op(int what, int i)
{
	uint64_t c;
	switch (what) {
	case 0: if (read(fd, &c, 8) != 8) exit(1); break;
	case 1: ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, i & 1 ? &ax : &arw); break;
	case 2: ioctl(fd, i & 1 ? PERF_EVENT_IOC_DISABLE : PERF_EVENT_IOC_ENABLE, 0); break;
	case 3: ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, i & 1 ? &ax : &arw); break;
	case 4: if (read(fd, &c, 8) != 8) exit(1);
		ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, i & 1 ? &ax : &arw); break;
	case 5: ioctl(fd, PERF_EVENT_IOC_REFRESH, 1 << 30); break;
	case 6: ioctl(fd, PERF_EVENT_IOC_DISABLE, 0); break;	/* already disabled */
	case 7: { struct timespec ts; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); } break;
	case 8: {	/* a slot closed when idle and opened at its next arm (watch_release) */
		int f = (int)syscall(SYS_perf_event_open, &arw, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		int g = f >= 0 ? fcntl(f, F_DUPFD_CLOEXEC, 700) : -1;	/* rt_hide_fd */
		if (f >= 0)
			close(f);
		if (g >= 0) {
			ioctl(g, PERF_EVENT_IOC_ENABLE, 0);
			close(g);
		}
		break;
	}
	}
}

int main(void)
{
	static const char *name[] = {
		"read(2) of the count",
		"MODIFY_ATTRIBUTES (enabled, X <-> RW)",
		"DISABLE or ENABLE (alternating)",
		"DISABLE + MODIFY_ATTRIBUTES",
		"read(2) + MODIFY_ATTRIBUTES",
		"REFRESH",
		"DISABLE of a disabled event",
		"clock_gettime(CLOCK_THREAD_CPUTIME_ID)",
		"open + move + ENABLE + close",
	};
	const char *e = getenv("WATCH_IOCTL_N");
	n = e && *e ? atoi(e) : 2000;
	bp_attr(&ax, (uint64_t)(uintptr_t)target, HW_BREAKPOINT_X, 0);
	bp_attr(&arw, (uint64_t)(uintptr_t)&word[1], HW_BREAKPOINT_RW, 0);
	fd = (int)syscall(SYS_perf_event_open, &arw, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		perror("bench: watch-ioctl skipped: perf_event_open");
		return 0;
	}
	for (int what = 0; what < 9; what++) {
		double w[ROUNDS], c[ROUNDS];
		if (what == 6)
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		for (int r = 0; r < ROUNDS; r++) {
			int64_t w0 = ns(CLOCK_MONOTONIC), c0 = ns(CLOCK_THREAD_CPUTIME_ID);
			for (int i = 0; i < n; i++)
				op(what, i);
			w[r] = (double)(ns(CLOCK_MONOTONIC) - w0) / n / 1e3;
			c[r] = (double)(ns(CLOCK_THREAD_CPUTIME_ID) - c0) / n / 1e3;
		}
		qsort(w, ROUNDS, sizeof(double), cmp);
		qsort(c, ROUNDS, sizeof(double), cmp);
		printf("  %-40s %6.2f us (CPU %5.2f us)\n", name[what], w[ROUNDS / 2], c[ROUNDS / 2]);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	}
	close(fd);
	return 0;
}
EOF_C
# 2. A trap and its delivery, and one measured instance's whole cycle as variance makes it:
# an execute breakpoint on a function's entry traps, its handler moves the event onto the
# return-address slot (RW), the return traps, its handler disables the event; the loop
# then re-arms the breakpoint (as the next sample does).  Delivery by the engine's real-time
# signal (O_ASYNC, F_SETSIG: the kernel's irq_work, a self-IPI) or by attr.sigtrap (SIGTRAP
# through task_work on the way back to user space).
cat >wt.c <<'EOF_C'
#include "wcommon.h"

static volatile uint64_t word, sink;
static int fd, sigtrap, extra_disable, deliver = 1;
static volatile int phase;
static struct perf_event_attr ax;

__attribute__((noinline)) void fn(void) { sink++; }

static void attr(struct perf_event_attr *a, uint64_t addr, int type)
{
	bp_attr(a, addr, type, sigtrap);
}

static uint64_t count(void)
{
	uint64_t c = 0;
	return read(fd, &c, 8) == 8 ? c : 0;
}

/* the engine's work at each trap: the count's read, then entry: (DISABLE,) read, MODIFY
 * onto the slot; return: DISABLE */
static void on_trap(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	struct perf_event_attr a;

	(void)sig;
	(void)si;
	if (phase == 0) {
		count();
		if (extra_disable)
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		attr(&a, (uint64_t)uc->uc_mcontext.gregs[REG_RSP], HW_BREAKPOINT_RW);
		count();
		ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a);
		phase = 1;
	} else if (phase == 1) {
		count();
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		phase = 2;
	}
}

static int open_bp(uint64_t addr, int type)
{
	struct perf_event_attr a;
	attr(&a, addr, type);
	a.disabled = 1;
	int f = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (f < 0)
		return f;
	if (!sigtrap && deliver) {
		struct f_owner_ex own = { F_OWNER_TID, (int)syscall(SYS_gettid) };
		fcntl(f, F_SETOWN_EX, &own);
		fcntl(f, F_SETSIG, SIGRTMIN + 3);
		fcntl(f, F_SETFL, fcntl(f, F_GETFL) | O_ASYNC);
	}
	ioctl(f, PERF_EVENT_IOC_ENABLE, 0);
	return f;
}

/* us per trap: a W watch on a word stored n times */
static double one_trap(int n)
{
	fd = open_bp((uint64_t)(uintptr_t)&word, HW_BREAKPOINT_W);
	if (fd < 0)
		return -1;
	phase = 3;
	int64_t t0 = ns(CLOCK_MONOTONIC);
	for (int i = 0; i < n; i++)
		word++;
	double us = (double)(ns(CLOCK_MONOTONIC) - t0) / n / 1e3;
	if (count() != (uint64_t)n)
		us = -1;
	close(fd);
	return us;
}

/* us per instance cycle; -1 if a cycle went wrong */
static double cycle(int n)
{
	fd = open_bp((uint64_t)(uintptr_t)fn, HW_BREAKPOINT_X);
	if (fd < 0)
		return -1;
	attr(&ax, (uint64_t)(uintptr_t)fn, HW_BREAKPOINT_X);
	int bad = 0;
	int64_t t0 = ns(CLOCK_MONOTONIC);
	for (int i = 0; i < n; i++) {
		count();
		ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &ax);
		phase = 0;
		fn();
		bad += phase != 2;
	}
	double us = (double)(ns(CLOCK_MONOTONIC) - t0) / n / 1e3;
	close(fd);
	return bad ? -1 : us;
}

static void report(const char *what, double (*f)(int), int n)
{
	double r[ROUNDS];
	for (int i = 0; i < ROUNDS; i++)
		if ((r[i] = f(n)) < 0) {
			printf("  %-52s failed\n", what);
			return;
		}
	qsort(r, ROUNDS, sizeof(double), cmp);
	printf("  %-52s %6.2f us\n", what, r[ROUNDS / 2]);
}

int main(void)
{
	const char *e = getenv("WATCH_IOCTL_N");
	int n = e && *e ? atoi(e) / 4 : 500;
	struct sigaction sa;
	stack_t ss = { .ss_sp = malloc(65536), .ss_size = 65536 };

	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigaction(SIGRTMIN + 3, &sa, NULL);
	sigaction(SIGTRAP, &sa, NULL);
	deliver = 0;
	report("a W trap, counted, no signal", one_trap, n);
	deliver = 1;
	report("a W trap, real-time signal (O_ASYNC)", one_trap, n);
	sigtrap = 1;
	report("a W trap, attr.sigtrap (SIGTRAP)", one_trap, n);
	sigtrap = 0;
	extra_disable = 1;
	report("instance cycle, real-time signal, DISABLE + MODIFY", cycle, n);
	extra_disable = 0;
	report("instance cycle, real-time signal, MODIFY", cycle, n);
	sigtrap = 1;
	report("instance cycle, attr.sigtrap, MODIFY", cycle, n);
	return 0;
}
EOF_C
gcc -O2 wi.c -o wi || exit 0
gcc -O2 wt.c -o wt || exit 0
echo "bench: watch engine system calls on one breakpoint event of the calling thread ($(uname -r), median of 9 rounds of ${WATCH_IOCTL_N:-2000}, $(date -u +%H:%M) UTC, load $(cut -d' ' -f1 /proc/loadavg))"
./wi
echo "bench: a trap's delivery and one instance's cycle (2 traps, the engine's system calls), median of 9 rounds of $((${WATCH_IOCTL_N:-2000} / 4))"
./wt
exit 0
