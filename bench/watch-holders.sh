#!/usr/bin/env bash
# bench/watch-holders.sh - whose breakpoint events take this program's debug registers?
# `sonde reuse` (clock source, debug registers) on a gcc sweep, alone and beside other
# processes that hold breakpoint events: on their own threads (4 processes of 4, disabled;
# 2 of 4, enabled), and bound to CPUs (pid -1: 1 a CPU, then 4 a CPU, every slot).  Prints
# each run's uses watched and arm failures (doc/sonde-comm.md, "Arm failures").  Needs
# debug registers that trap, and root or perf_event_paranoid <= 0 for the CPU-bound
# events.  Its last run holds every debug register of every CPU for a few seconds: other
# programs' watchpoints (a test suite's) fail meanwhile; do not run it beside them.
# Prints, never fails on numbers.
#   bench/watch-holders.sh
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
SONDE_BUILD=${SONDE_BUILD:-$top/build}
SONDE=$SONDE_BUILD/sonde
bench_scratch watch-holders
"$SONDE" info 2>/dev/null | grep -q "their traps fire" ||
	{ echo "bench: watch-holders skipped: debug registers do not trap here"; exit 0; }
cat >hold.c <<'C'
#define _GNU_SOURCE
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
static volatile long w[1024][8];
/* hold N breakpoint events for S seconds: on this thread, or (cpu) bound to CPU i % ncpu */
int main(int argc, char **argv)
{
	int n = atoi(argv[1]), s = atoi(argv[2]), cpu = argc > 3 && argv[3][0] == 'c';
	int on = argc > 3 && argv[3][0] == 'e', ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), got = 0;
	for (int i = 0; i < n && i < 1024; i++) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_BREAKPOINT;
		a.size = sizeof(a);
		a.bp_type = HW_BREAKPOINT_W;
		a.bp_addr = (unsigned long)&w[i][0];
		a.bp_len = 8;
		a.disabled = !on;
		a.exclude_kernel = a.exclude_hv = 1;
		got += syscall(SYS_perf_event_open, &a, cpu ? -1 : 0, cpu ? i % ncpu : -1, -1, 0) >= 0;
	}
	printf("%d\n", got);
	fflush(stdout);
	sleep(s);
	return 0;
}
C
gcc -O2 hold.c -o hold && gcc -O2 -g -pthread "$top/tests/workloads/reuse/rbench.c" -o rbg 2>/dev/null ||
	{ echo "bench: watch-holders skipped: gcc failed"; exit 0; }
ncpu=$(nproc)
echo "bench: watch-holders, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), $ncpu CPUs"
run() {	# LABEL, then holders as "N MODE" pairs (MODE: t thread, e thread enabled, c CPU)
	local label=$1 held=0 n m
	shift
	while [ $# -gt 1 ]; do
		n=$1 m=$2
		shift 2
		./hold "$n" 30 "$m" >held.$held &
		held=$((held + 1))
	done
	sleep 1
	local got=$(cat held.* 2>/dev/null | paste -sd+ | bc 2>/dev/null)
	rm -rf r
	"$SONDE" reuse -o r -- ./rbg sweep 200000 500 >/dev/null 2>err
	printf '  %-44s holders hold %-3s %s; %s\n' "$label" "${got:-0}" \
		"$(grep -o '[0-9]* uses watched' err)" "$(grep -o 'arm failures: .*' err || echo 'no arm failure')"
	kill $(jobs -p) 2>/dev/null
	wait 2>/dev/null
	rm -f held.*
}
run "alone"
run "4 processes, 4 on their own thread each" 4 t 4 t 4 t 4 t
run "2 processes, 4 enabled on their own thread" 4 e 4 e
run "1 bound to each CPU" "$ncpu" c
run "4 bound to each CPU (every slot)" $((4 * ncpu)) c
