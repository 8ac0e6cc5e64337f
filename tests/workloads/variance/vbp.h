/* SPDX-License-Identifier: MIT */
/*
 * vbp.h - what vbp.c and bench/variance-holder.sh's bp.c share: work(), the function sonde
 * variance measures there, and the program's own breakpoints (as a debugger's or a
 * watchpoint library's would be): vbp_open(I), I from 0 to 3, opens a breakpoint event on
 * the calling thread (RW, 8 bytes, on spare[2 I], a word nobody touches) and returns its
 * fd, or -1.  For one source file of a program: it defines work().
 */
#ifndef SONDE_VBP_H
#define SONDE_VBP_H

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
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

static int vbp_open(int i)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof(a);
	a.bp_type = HW_BREAKPOINT_RW;
	a.bp_addr = (uint64_t)(uintptr_t)&spare[i * 2];
	a.bp_len = 8;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

#endif
