/* SPDX-License-Identifier: MIT */
/*
 * info-dregs.c - an independent count of the debug registers one thread can use, for
 * the `sonde info` tests: read-write breakpoints of 4 bytes on a stack array (sonde's
 * probe uses write breakpoints of 8 bytes on static data), opened until one fails.
 * Prints the count on stdout; exit 0.
 */
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	volatile uint32_t words[32];
	int fds[32], n = 0;

	memset((void *)words, 0, sizeof(words));
	for (; n < 32; n++) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_BREAKPOINT;
		a.bp_type = HW_BREAKPOINT_RW;
		a.bp_addr = (uint64_t)(uintptr_t)&words[n];
		a.bp_len = HW_BREAKPOINT_LEN_4;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		fds[n] = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
		if (fds[n] < 0)
			break;
	}
	printf("%d\n", n);
	for (int i = 0; i < n; i++)
		close(fds[i]);
	return 0;
}
