#!/usr/bin/env bash
# bench/watch-switch.sh - what a thread's breakpoint events cost at its context switches
# (issue 9: LULESH under variance, ~40,000 switches a second with OMP_WAIT_POLICY=passive).
# Two threads hand a word back and forth through a futex, WATCH_SWITCH_N times each (default
# 50000: ~100,000 switches), each thread holding 0, 1 or 2 breakpoint events of its own
# (RW, on words nobody touches), enabled, disabled (PERF_EVENT_IOC_DISABLE, as
# watch_disarm leaves them) or opened then closed (as watch_release leaves them: the
# thread's perf context stays).  Prints, per case, the median over WATCH_SWITCH_ROUNDS
# rounds (default 5, the cases interleaved in each round) of the process's CPU time (user +
# sys) per context switch, and that minus the no-event case's in the same rounds.  Run once
# with both threads free to move (two CPUs, the idle task between) and once pinned to one CPU
# (thread to thread).  Never fails on numbers.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
bench_scratch watch-switch
cat >sw.c <<'EOF_C'
#define _GNU_SOURCE
#include <linux/futex.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static int word, n, nev, mode;	/* mode: 0 enabled, 1 disabled, 2 closed */
static volatile uint64_t spare[4];

static void open_events(void)
{
	for (int i = 0; i < nev; i++) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_BREAKPOINT;
		a.size = sizeof(a);
		a.bp_type = HW_BREAKPOINT_RW;
		a.bp_addr = (uint64_t)(uintptr_t)&spare[i];
		a.bp_len = 8;
		a.sample_period = 1;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			perror("perf_event_open");
			exit(3);
		}
		if (mode == 1)
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		if (mode == 2)
			close(fd);
	}
}

static void *player(void *p)
{
	int me = (int)(intptr_t)p;

	open_events();
	for (int i = 0; i < n; i++) {
		while (__atomic_load_n(&word, __ATOMIC_ACQUIRE) != me)
			syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, !me, NULL, NULL, 0);
		__atomic_store_n(&word, !me, __ATOMIC_RELEASE);
		syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t a, b;
	struct rusage ru;

	if (argc < 4)
		return 2;
	n = atoi(argv[1]);
	nev = atoi(argv[2]);
	mode = atoi(argv[3]);
	pthread_create(&a, NULL, player, (void *)0);
	pthread_create(&b, NULL, player, (void *)1);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	getrusage(RUSAGE_SELF, &ru);
	double cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
		     ru.ru_stime.tv_usec / 1e6;
	long sw = ru.ru_nvcsw + ru.ru_nivcsw;
	printf("%.4f\n", sw > 0 ? cpu * 1e6 / (double)sw : 0.0);
	return 0;
}
EOF_C
gcc -O2 -pthread -o sw sw.c || { echo "bench: watch-switch skipped: cannot build"; exit 0; }
./sw 10 1 0 >/dev/null 2>&1 || { echo "bench: watch-switch skipped: no breakpoint events here"; exit 0; }
n=${WATCH_SWITCH_N:-50000}
rounds=${WATCH_SWITCH_ROUNDS:-5}
cases="0:0 1:0 2:0 1:1 2:1 2:2"
name() {
	case $1 in
	0:0) echo "no event" ;;
	*:0) echo "${1%:*} enabled" ;;
	*:1) echo "${1%:*} disabled" ;;
	*:2) echo "${1%:*} opened, closed" ;;
	esac
}
for pin in "" "taskset -c 0"; do
	[ -n "$pin" ] && ! command -v taskset >/dev/null && continue
	for r in $(seq "$rounds"); do
		for c in $cases; do
			# shellcheck disable=SC2086
			v=$($pin ./sw "$n" "${c%:*}" "${c#*:}") || v=nan
			echo "$v" >>"r.$r.$c"
			echo "$v" >>"c.$c"
			[ "$c" = 0:0 ] && base=$v
			awk -v v="$v" -v b="$base" 'BEGIN { print v - b }' >>"d.$c"
		done
	done
	echo "bench: watch-switch (${pin:-two CPUs}, $rounds rounds of $((2 * n)) switches," \
		"$(date -u +%H:%M) UTC, load $(cut -d' ' -f1-3 /proc/loadavg)):"
	for c in $cases; do
		printf "  %-18s %6.2f us CPU a switch, %+6.2f us against no event\n" "$(name "$c")" \
			"$(median <"c.$c")" "$(median <"d.$c")"
	done
	rm -f c.* d.* r.*
done
