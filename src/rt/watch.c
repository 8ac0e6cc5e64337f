/* SPDX-License-Identifier: MIT */
/*
 * watch.c - what the debug-register manager does outside handlers: probing the machine
 * (for `sonde info` and start-up) and installing the trap handler.  Arming and the trap
 * dispatch are in watch-sig.c.
 */
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt/rt.h"
#include "rt/watch.h"

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif

#define PROBE_MAX 16

void watch_bp_attr(struct perf_event_attr *a, uint64_t addr, uint32_t len, int type,
		   int disabled)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_BREAKPOINT;
	a->size = sizeof(*a);
	a->bp_type = (uint32_t)type;
	a->bp_addr = addr;
	/* The kernel wants sizeof(long) for execute breakpoints. */
	a->bp_len = type == WATCH_X ? sizeof(long) : len;
	a->sample_period = 1;
	a->exclude_kernel = 1;	/* the kernel copying a watched buffer must not count */
	a->exclude_hv = 1;
	a->disabled = disabled ? 1 : 0;
}

static int probe_open(struct perf_event_attr *a)
{
	int fd = (int)syscall(SYS_perf_event_open, a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Probe targets; volatile so every store in the probes reaches memory. */
static volatile uint64_t probe_var[PROBE_MAX];

int watch_probe_count(void)
{
	int fds[PROBE_MAX];
	int n = 0, err = 0;
	struct perf_event_attr a;

	for (; n < PROBE_MAX; n++) {
		watch_bp_attr(&a, (uint64_t)(uintptr_t)&probe_var[n], 8, WATCH_W, 1);
		fds[n] = probe_open(&a);
		if (fds[n] < 0) {
			err = fds[n];
			break;
		}
	}
	for (int i = 0; i < n; i++)
		close(fds[i]);
	return n ? n : err;
}

static int read_count(int fd, uint64_t *c)
{
	ssize_t r = read(fd, c, sizeof(*c));
	return r == (ssize_t)sizeof(*c) ? 0 : -EIO;
}

int watch_probe_modify(void)
{
	struct perf_event_attr a;
	uint64_t count = 0;

	watch_bp_attr(&a, (uint64_t)(uintptr_t)&probe_var[0], 8, WATCH_W, 0);
	int fd = probe_open(&a);
	if (fd < 0)
		return fd;
	probe_var[0] = 1;	/* counted: 1 */
	watch_bp_attr(&a, (uint64_t)(uintptr_t)&probe_var[1], 8, WATCH_W, 0);
	int r = ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) ? -errno : 0;
	if (!r) {
		probe_var[0] = 2;	/* no longer watched */
		probe_var[1] = 2;	/* counted: 2 */
		r = read_count(fd, &count);
		if (!r && count != 2)
			r = -EIO;
	}
	close(fd);
	return r;
}

static volatile sig_atomic_t sigtrap_seen;

static void sigtrap_probe_handler(int sig, siginfo_t *si, void *uc)
{
	if (si->si_code == TRAP_PERF)
		sigtrap_seen++;
}

static int sigtrap_try(void)
{
	struct perf_event_attr a;

	watch_bp_attr(&a, (uint64_t)(uintptr_t)&probe_var[0], 8, WATCH_W, 0);
	a.sigtrap = 1;
	a.remove_on_exec = 1;	/* the kernel requires it with sigtrap */
	a.sig_data = 0x50de;
	int fd = probe_open(&a);
	if (fd < 0)
		return fd;
	sigtrap_seen = 0;
	probe_var[0] = 3;
	/* The signal is raised on the way back to user space, before the next statement. */
	int r = sigtrap_seen == 1 ? 0 : -EIO;
	close(fd);
	return r;
}

int watch_probe_sigtrap(void)
{
	struct sigaction sa, old;
	sigset_t trap, oldmask;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sigtrap_probe_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, &old))
		return -errno;
	sigemptyset(&trap);
	sigaddset(&trap, SIGTRAP);
	pthread_sigmask(SIG_UNBLOCK, &trap, &oldmask);
	int r = sigtrap_try();
	pthread_sigmask(SIG_SETMASK, &oldmask, NULL);
	sigaction(SIGTRAP, &old, NULL);
	return r;
}

static struct sigaction watch_old_action;
static int watch_started;

int watch_start(void)
{
	struct sigaction sa;

	if (rt_cfg.sig_watch <= 0)
		return -EINVAL;
	if (watch_started)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = watch_signal;
	/* On the altstack so watchpoints on stack lines do not trip on handler frames; the
	 * sample and step signals are blocked so neither interrupts a trap half-handled. */
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (rt_cfg.sig_sample > 0)
		sigaddset(&sa.sa_mask, rt_cfg.sig_sample);
	sigaddset(&sa.sa_mask, SIGTRAP);
	if (sigaction(rt_cfg.sig_watch, &sa, &watch_old_action))
		return -errno;
	watch_started = 1;
	return 0;
}

void watch_stop(void)
{
	if (!watch_started)
		return;
	sigaction(rt_cfg.sig_watch, &watch_old_action, NULL);
	watch_started = 0;
}
