/* SPDX-License-Identifier: MIT */
/*
 * watch.c - what the debug-register manager does outside handlers: the one debug-register
 * probe (for `sonde info`, the tests and start-up: do breakpoints open, do they fire, do
 * MODIFY_ATTRIBUTES and attr.sigtrap work) and installing the trap handler.  Arming and
 * the trap dispatch are in watch-sig.c.
 */
#include <errno.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt/pmu.h"
#include "rt/decode-x86.h"
#include "rt/rt.h"
#include "rt/watch.h"

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif

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
static volatile uint64_t probe_var[WATCH_PROBE_MAX] __attribute__((aligned(64)));

static uint64_t read_count(int fd)
{
	uint64_t c = 0;
	return read(fd, &c, sizeof(c)) == (ssize_t)sizeof(c) ? c : UINT64_MAX;
}

/* Open write breakpoints until one fails, write each watched word once, count. */
static void probe_regs(struct watch_probe *p)
{
	int fds[WATCH_PROBE_MAX];
	struct perf_event_attr a;

	for (p->regs = 0; p->regs < WATCH_PROBE_MAX; p->regs++) {
		watch_bp_attr(&a, (uint64_t)(uintptr_t)&probe_var[p->regs], 8, WATCH_W, 0);
		fds[p->regs] = probe_open(&a);
		if (fds[p->regs] < 0) {
			p->regs_err = fds[p->regs];
			break;
		}
	}
	for (int i = 0; i < p->regs; i++)
		probe_var[i]++;
	for (int i = 0; i < p->regs; i++) {
		p->fired += read_count(fds[i]) == 1;
		close(fds[i]);
	}
}

/* See struct watch_probe.modify. */
static int probe_modify(int fires)
{
	struct perf_event_attr a;

	watch_bp_attr(&a, (uint64_t)(uintptr_t)&probe_var[0], 8, WATCH_W, 0);
	int fd = probe_open(&a);
	if (fd < 0)
		return fd;
	probe_var[0]++;		/* counted: 1 */
	watch_bp_attr(&a, (uint64_t)(uintptr_t)&probe_var[1], 8, WATCH_W, 0);
	int r = ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) ? -errno : 0;
	if (!r) {
		probe_var[0]++;	/* no longer watched */
		probe_var[1]++;	/* counted: 2 */
		if (read_count(fd) != 2)
			r = fires ? -EIO : -ENODATA;
	}
	close(fd);
	return r;
}

static volatile sig_atomic_t sigtrap_seen, sigtrap_data_ok;

static void sigtrap_probe_handler(int sig, siginfo_t *si, void *uc)
{
	uint64_t data;

	if (si->si_code != TRAP_PERF)
		return;
	/* si_perf_data follows si_addr (glibc 2.36 has no name for it). */
	memcpy(&data, (char *)&si->si_addr + sizeof(void *), sizeof(data));
	sigtrap_data_ok = data == 0x50de;
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
	sigtrap_seen = sigtrap_data_ok = 0;
	probe_var[0]++;
	/* The signal is raised on the way back to user space, before the next statement. */
	int r = sigtrap_seen != 1 ? -ENODATA : sigtrap_data_ok ? 0 : -EIO;
	close(fd);
	return r;
}

/* See struct watch_probe.sigtrap. */
static int probe_sigtrap(void)
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

static int under_hypervisor(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d;
	return __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 31));
#else
	return 0;
#endif
}

static void probe_why(struct watch_probe *p)
{
	const char *fix = "fix: run them on bare metal, or in a VM whose hypervisor passes "
			  "the debug registers through";
	int denied = p->regs_err == -EACCES || p->regs_err == -EPERM;

	p->why[0] = 0;
	if (p->regs == 0 && denied)
		snprintf(p->why, sizeof(p->why), "no breakpoint event opens: %s; fix: sysctl "
			 "kernel.perf_event_paranoid=2, or grant CAP_PERFMON",
			 pmu_strerror(p->regs_err));
	else if (p->regs == 0)
		snprintf(p->why, sizeof(p->why), "no breakpoint event opens: %s (a kernel "
			 "without hardware breakpoints, CONFIG_HAVE_HW_BREAKPOINT); the watchpoint "
			 "tools work only in programs rebuilt with sonde-cc", pmu_strerror(p->regs_err));
	else if (p->fired == 0)
		snprintf(p->why, sizeof(p->why), "they open, but no trap fires (%s): the "
			 "watchpoint tools work only in programs rebuilt with sonde-cc; %s",
			 p->hypervisor ? "the hypervisor does not pass them through"
				       : "a write to a watched word is never counted",
			 fix);
	else if (p->fired < p->regs)
		snprintf(p->why, sizeof(p->why), "they open, but only %d of the %d fire%s: the "
			 "watchpoint tools would miss traps on this machine; %s", p->fired,
			 p->regs, p->hypervisor ? " (the hypervisor passes them through only in "
						   "part)" : "", fix);
}

int watch_probe_run(struct watch_probe *p)
{
	memset(p, 0, sizeof(*p));
	p->hypervisor = under_hypervisor();
	probe_regs(p);
	int fires = watch_probe_fires(p);
	p->modify = p->regs > 0 ? probe_modify(fires) : p->regs_err;
	p->sigtrap = p->regs > 0 ? probe_sigtrap() : p->regs_err;
	probe_why(p);
	return fires ? 0 : -ENODEV;
}

static struct watch_probe probe_result;
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

static void probe_run_once(void)
{
	watch_probe_run(&probe_result);
}

const struct watch_probe *watch_probe_cached(void)
{
	pthread_once(&probe_once, probe_run_once);
	return &probe_result;
}

void watch_prefer_sigtrap(int on)
{
	const char *e = getenv("SONDE_WATCH_SIGTRAP");

	watch_sigtrap_want(on && !(e && e[0] == '0'));
}

static struct sigaction watch_old_action;
static volatile int watch_started;

int watch_is_started(void)
{
	return watch_started;
}

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
	/* a soft trap finds its accessing instruction by decoding after the hook's return
	 * (source-inst.c, access_ip) whatever the sample source, with decode_access_lite,
	 * which needs no libZydis (no decode_init) */
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
