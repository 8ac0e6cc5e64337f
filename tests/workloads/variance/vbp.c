/* SPDX-License-Identifier: MIT */
/*
 * vbp.c - a program that holds debug registers of its own (as a debugger or a watchpoint
 * library would): `vbp N SECONDS` starts a thread that opens N breakpoint events on
 * itself, then calls work() for SECONDS of CPU time.  With N = 4 every register of that
 * thread is taken before its first sample, so each of sonde variance's arms there is
 * refused (t818).  (Not in main: the runtime's calibration keeps an event there.)
 */
#define _GNU_SOURCE
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;
static volatile uint64_t spare[8];

__attribute__((noinline)) void work(int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += i * 0.5;
	sink = s;
}

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int want = 4, got;
static double secs = 0.5;

static void *thr(void *arg)
{
	for (int i = 0; i < want && i < 4; i++) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_BREAKPOINT;
		a.size = sizeof(a);
		a.bp_type = HW_BREAKPOINT_RW;
		a.bp_addr = (uint64_t)(uintptr_t)&spare[i * 2];
		a.bp_len = 8;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		got += syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC) >= 0;
	}
	double end = cpu_now() + secs;
	while (cpu_now() < end)
		work(20000);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1)
		want = atoi(argv[1]);
	if (argc > 2)
		secs = atof(argv[2]);
	if (pthread_create(&t, NULL, thr, NULL) || pthread_join(t, NULL))
		return 1;
	printf("vbp: %d of its own breakpoints held\n", got);
	return 0;
}
