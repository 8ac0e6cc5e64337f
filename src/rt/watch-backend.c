/* SPDX-License-Identifier: MIT */
/*
 * watch-backend.c - which backend serves the watchpoint engine in this process (watch.h):
 * for data watches, the inst callbacks of a program built by sonde-cc, else the debug
 * registers when they really trap, else the callbacks, else none.  Runs once at start-up, never in a handler.
 *
 * The check is our own and small (one breakpoint on one variable, one write, one read of
 * the count): breakpoint events open on machines whose hypervisor does not pass the debug
 * registers through (Firecracker: they open, and never count), so opening is not enough.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt/rt.h"
#include "rt/watch.h"

/* Written once by the check; volatile so the write reaches memory. */
static volatile uint64_t check_word;

/*
 * Does a W breakpoint count the one write made to its variable?  0 if it does; else
 * -errno, and a one-line reason.  `*opened`: the event could be opened.
 */
static int hw_check(char *why, size_t len, int *opened)
{
	struct perf_event_attr a;
	uint64_t count = 0;

	*opened = 0;
	watch_bp_attr(&a, (uint64_t)(uintptr_t)&check_word, 8, WATCH_W, 0);
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(why, len, "breakpoint events cannot be opened (%s%s)", strerror(e),
			 e == EACCES || e == EPERM ? ": perf_event_paranoid or capabilities" : "");
		return -e;
	}
	*opened = 1;
	check_word++;
	ssize_t n = read(fd, &count, sizeof(count));
	close(fd);
	if (n == (ssize_t)sizeof(count) && count == 1)
		return 0;
	snprintf(why, len, "debug registers do not trap on this machine (a breakpoint counted "
			   "%llu of 1 write: hypervisor)", (unsigned long long)count);
	return -EIO;
}

int watch_backend_init(const char *mode, int instrumented, int prefer_soft)
{
	char hw_why[160] = "", why[256] = "";
	int opened, id;
	const char *m = mode && *mode ? mode : "auto";
	int want_hw = !strcmp(m, "hw"), want_soft = !strcmp(m, "soft");

	if (want_soft) {
		id = instrumented ? WATCH_BACKEND_SOFT : WATCH_BACKEND_NONE;
		if (id == WATCH_BACKEND_SOFT)
			snprintf(why, sizeof(why), "software watchpoints (SONDE_WATCH=soft)");
		else
			snprintf(why, sizeof(why), "SONDE_WATCH=soft needs a program built with "
						   "sonde-cc");
	} else if (instrumented && prefer_soft && !want_hw) {
		/* The callbacks see every access of the program's code before it is made:
		 * exact (the access's address, size and kind, and its count for the inst
		 * source), ~0.1 us a trap against 4-7 us for a debug register's signal, and
		 * never the arming access itself.  What soft cannot see: code not built by
		 * sonde-cc (libc's memcpy); SONDE_WATCH=hw chooses the registers. */
		id = WATCH_BACKEND_SOFT;
		snprintf(why, sizeof(why), "software watchpoints: the program is built by sonde-cc "
					   "(SONDE_WATCH=hw for debug registers)");
	} else if (hw_check(hw_why, sizeof(hw_why), &opened) == 0) {
		id = WATCH_BACKEND_HW;
	} else if (want_hw) {
		/* Forced: the engine works on open events; whether they fire is reported. */
		id = opened ? WATCH_BACKEND_HW : WATCH_BACKEND_NONE;
		snprintf(why, sizeof(why), "%s (SONDE_WATCH=hw)", hw_why);
	} else if (instrumented) {
		id = WATCH_BACKEND_SOFT;
		snprintf(why, sizeof(why), "%s; software watchpoints through sonde-cc's callbacks",
			 hw_why);
	} else {
		id = WATCH_BACKEND_NONE;
		/* not built by sonde-cc, so no hooks: !prefer_soft is a tool of execute
		 * breakpoints (variance), whose soft ones are the call hooks (the usability
		 * review of 2026-11-30, L2: its report advised a build without them) */
		snprintf(why, sizeof(why), "%s; rebuild with %s", hw_why,
			 prefer_soft ? "sonde-cc for software watchpoints" :
				       "'sonde-cc --sonde-calls-only' (call hooks time instances)");
	}
	watch_backend_set(id, why);
	return id;
}
