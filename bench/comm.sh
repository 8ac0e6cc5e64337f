#!/usr/bin/env bash
# bench/comm.sh - overhead of `sonde comm` at its default period, measured side by side in
# one run: native and profiled runs alternate, each pair gives ratios, the medians are
# printed.  Target (issue 8): time <= 1.15x and peak memory <= 1.15x of native.
#   inst   the program built with sonde-cc, run alone   vs  sonde comm --source inst
#          (default period 10007 accesses; soft watchpoints on), and with --no-watch
#   clock  the program built with gcc, run alone        vs  sonde comm --source clock
# Workloads: commbench fs (4 threads, true and false sharing; tests/workloads/comm/) and
# omp-stencil (a real OpenMP program: a Jacobi stencil, tests/workloads/comm/omp-stencil.c).
# Time and peak RSS are the program's own (GNU time runs inside sonde, as in bench/mem.sh),
# not the report's.  Prints; never fails on numbers.
# Last, where commbench's fixed memory goes (peak RSS with each part of the runtime loaded).
#   bench/comm.sh [PAIRS]     (default 3; COMM_BENCH_CLOCK=0 leaves the clock rows out;
#                              COMM_BENCH_ONLY=switch-bp runs the switch-bp lines alone,
#                              COMM_BENCH_ONLY=passive the passive-wait rows alone,
#                              COMM_BENCH_ONLY=timer the POSIX timers' first-expiry lines,
#                              COMM_BENCH_ONLY=commbench the commbench fs rows alone (inst
#                              and clock, the clock's steps and perf record's line);
#                              COMM_BENCH_LULESH=/path/lulesh2.0 adds LULESH's rows)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${SONDE_BUILD:-$top/build}
pairs=${1:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$top/bench/lib.sh"
[ -x "$B/sonde" ] || { echo "bench: $B/sonde not built" >&2; exit 1; }
W=$top/tests/workloads/comm

gcc -std=gnu11 -O2 -g -fno-omit-frame-pointer -pthread "$W/commbench.c" -o "$work/cb-gcc" || exit 1
gcc -O2 -g -fno-omit-frame-pointer -fopenmp "$W/omp-stencil.c" -o "$work/os-gcc" || exit 1
gcc -O2 -pthread "$W/switch-bp.c" -o "$work/switch-bp" || exit 1
inst=1
only=${COMM_BENCH_ONLY:-}
# the POSIX CPU-time timers' first expiry (rt/source-clock.c): signals a CPU second of
# 600 threads of 1.5 ms against one long thread, with each choice of first expiry, 3 runs
gcc -O2 -pthread "$W/timer-short.c" -o "$work/timer-short" || exit 1
if [ -z "$only" ] || [ "$only" = timer ]; then
	for m in full random tick; do
		for i in 1 2 3; do "$work/timer-short" "$m"; done
	done | sed 's/^/bench: timer-short: /'
	[ "$only" = timer ] && exit 0
fi
if [ "$only" = switch-bp ]; then
	inst=0
	COMM_BENCH_CLOCK=0
elif [ "$only" = passive ]; then
	inst=0
elif ! command -v clang >/dev/null ||
	! "$B/sonde-cc" -O2 -pthread "$W/commbench.c" -o "$work/cb-inst" 2>/dev/null ||
	! "$B/sonde-cc" -O2 -fopenmp "$W/omp-stencil.c" -o "$work/os-inst" 2>/dev/null; then
	echo "bench: no clang or no libomp for sonde-cc: the inst rows are left out"
	inst=0
fi

# row NAME NATIVE_PROG PROFILE_OPTS -- ARGS...: PAIRS alternating pairs, then one line of
# medians: time, CPU (user + sys), memory ratios; samples and traps per second of the
# profiled run; extra CPU per sample.
row() {
	local name=$1 prog=$2 opts=$3
	shift 4
	: >"$work/r"
	for i in $(seq 1 "$pairs"); do
		bench_time "$work/n" "$prog" "$@"
		rm -rf "$work/p"
		"$B/sonde" comm -q $opts -o "$work/p" -- /usr/bin/time -f "$BENCH_TIMEFMT" \
			-o "$work/s" "$prog" "$@" >/dev/null 2>"$work/err"
		local n t
		n=$(sqlite3 "$work/p/profile.db" "SELECT value FROM meta WHERE key = 'samples'" 2>/dev/null)
		t=$(sqlite3 "$work/p/profile.db" "SELECT value FROM meta WHERE key = 'traps'" 2>/dev/null)
		read -r ne nu ns nm <"$work/n"
		read -r se su ss sm <"$work/s"
		awk -v ne="$ne" -v se="$se" -v nm="$nm" -v sm="$sm" -v nc="$(echo "$nu + $ns" | bc)" \
			-v sc="$(echo "$su + $ss" | bc)" -v n="${n:-0}" -v t="${t:-0}" 'BEGIN {
			printf "%.4f %.4f %.4f %.0f %.0f %.2f %d %d %d\n", se / ne, (nc > 0 ? sc / nc : 0),
				sm / nm, (se > 0 ? n / se : 0), (se > 0 ? t / se : 0),
				(n > 0 ? (sc - nc) * 1e6 / n : 0), nm, sm, n }' >>"$work/r"
	done
	col() { awk -v k="$1" '{ print $k }' "$work/r" | median; }
	printf '%-34s %6s %6s %6s %8s %7s %8s  %s -> %s KB\n' "$name" "$(col 1)" "$(col 2)" "$(col 3)" \
		"$(col 4)" "$(col 5)" "$(col 6)" "$(col 7)" "$(col 8)"
}

[ "$only" = switch-bp ] || echo "bench: sonde comm at the default period, $pairs alternating pairs per row (medians)"
[ "$only" = switch-bp ] || printf '%-34s %6s %6s %6s %8s %7s %8s  %s\n' "workload / source" "time" "cpu" "mem" "smp/s" "trap/s" \
	"us/smp" "peak RSS native -> profiled"
CB="fs 12000000 50"
# omp-stencil sized for ~0.8 s native with gcc (80 steps ran 0.16 s: under what GNU time resolves)
OS="2000000 600"
if [ $inst = 1 ]; then
	row "commbench fs / inst" "$work/cb-inst" "--source inst" -- $CB
	row "commbench fs / inst --no-watch" "$work/cb-inst" "--source inst --no-watch" -- $CB
	[ "$only" = commbench ] ||
	row "omp-stencil / inst" "$work/os-inst" "--source inst" -- $OS
	[ "$only" = commbench ] ||
	row "omp-stencil / inst --no-watch" "$work/os-inst" "--source inst --no-watch" -- $OS
fi
if [ "${COMM_BENCH_CLOCK:-1}" = 1 ]; then
	[ "$only" = passive ] ||
	row "commbench fs / clock" "$work/cb-gcc" "--source clock" -- $CB
	# the same without watchpoints: commbench's sched_yield spin is a context switch per
	# yield (4 threads, 2 cores), and a thread holding breakpoint events pays at each one
	[ "$only" = passive ] ||
	row "commbench fs / clock --no-watch" "$work/cb-gcc" "--source clock --no-watch" -- $CB
	# and before the thinning where threads switch often (rt-comm.c), side by side
	[ "$only" = passive ] ||
	row "commbench fs / clock, thin=0" env "--source clock" -- SONDE_COMM_THIN=0 "$work/cb-gcc" $CB
	# and with the perf clock event that comm's clock source used before it took POSIX
	# timers where it holds breakpoint events ("The clock's timer" in doc/sonde-comm.md)
	[ "$only" = passive ] ||
	row "commbench fs / clock, perf timer" env "--source clock" -- SONDE_CLOCK_TIMER=perf "$work/cb-gcc" $CB
	[ "$only" = passive ] || [ "$only" = commbench ] ||
	row "omp-stencil / clock" "$work/os-gcc" "--source clock" -- $OS
	# OpenMP's passive waits: the threads sleep in futex between regions (as LULESH's do),
	# every wake a context switch to and from the idle task; with and without watchpoints
	if [ "$only" != commbench ]; then
		row "omp-stencil passive / clock" env "--source clock" -- OMP_WAIT_POLICY=passive "$work/os-gcc" $OS
		row "omp-stencil passive / clock --no-watch" env "--source clock --no-watch" -- OMP_WAIT_POLICY=passive "$work/os-gcc" $OS
		# the same before the thinning where threads switch often (rt-comm.c), side by side
		row "omp-stencil passive / clock, thin=0" env "--source clock" -- OMP_WAIT_POLICY=passive SONDE_COMM_THIN=0 "$work/os-gcc" $OS
		# LULESH (not bundled: COMM_BENCH_LULESH=/path/lulesh2.0, built as doc/benchmarks.md
		# says), 2 threads, passive waits: ~30,000 context switches a second; with, without
		# the thinning, and without watchpoints; and with the perf clock event the clock
		# source used before comm took POSIX timers (SONDE_CLOCK_TIMER=perf), at the default
		# period and at 4 ms, the POSIX timers' tick (the same sample rate)
		if [ -n "${COMM_BENCH_LULESH:-}" ] && [ -x "$COMM_BENCH_LULESH" ]; then
			LU="$COMM_BENCH_LULESH -s 30 -i 100 -q"
			LE="OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive"
			row "LULESH passive / clock" env "--source clock" -- $LE $LU
			row "LULESH passive / clock, perf timer" env "--source clock" -- $LE SONDE_CLOCK_TIMER=perf $LU
			row "LULESH passive / clock, perf 4 ms" env "--source clock --period 4000000" -- $LE SONDE_CLOCK_TIMER=perf $LU
			row "LULESH passive / clock, thin=0" env "--source clock" -- $LE SONDE_COMM_THIN=0 $LU
			row "LULESH passive / clock --no-watch" env "--source clock --no-watch" -- $LE $LU
		fi
	fi
	# Where the clock source's time goes on commbench: its single-steps (sonde mem keeps
	# the counts; the same source and de-biasing as comm), and perf record's own
	# sampling of the same program at the same period, for comparison.
	[ "$only" = passive ] && exit 0
	rm -rf "$work/p"
	"$B/sonde" mem -q --source clock -o "$work/p" -- "$work/cb-gcc" $CB >/dev/null 2>&1
	q() { sqlite3 "$work/p/profile.db" "$1" 2>/dev/null; }
	printf 'commbench fs / clock under sonde mem: %s samples, %s steps (%s a sample; %s extra steps from %s), dropped %s (%s)\n' \
		"$(q "SELECT value FROM meta WHERE key = 'samples'")" "$(q "SELECT value FROM meta WHERE key = 'steps'")" \
		"$(q "SELECT printf('%.1f', 1.0 * (SELECT value FROM meta WHERE key = 'steps') / (SELECT value FROM meta WHERE key = 'samples'))")" \
		"$(q "SELECT value FROM meta WHERE key = 'extra_steps'")" "$(q "SELECT value FROM meta WHERE key = 'extra_steps_from'")" \
		"$(q "SELECT value FROM meta WHERE key = 'dropped'")" \
		"$(q "SELECT group_concat(cause || ' ' || n, ', ') FROM (SELECT cause, sum(count) AS n FROM drops GROUP BY cause)")"
	if command -v perf >/dev/null && perf record -q -o "$work/perf.data" -e cpu-clock -c 900000 -- true >/dev/null 2>&1; then
		for i in $(seq 1 "$pairs"); do
			bench_time "$work/n" "$work/cb-gcc" $CB
			perf record -q -o "$work/perf.data" -e cpu-clock -c 900000 -- \
				/usr/bin/time -f "$BENCH_TIMEFMT" -o "$work/s" "$work/cb-gcc" $CB >/dev/null 2>&1
			awk -v a="$(awk '{ print $1 }' "$work/n")" -v b="$(awk '{ print $1 }' "$work/s")" \
				'BEGIN { printf "%.4f\n", b / a }'
		done | median | xargs printf 'commbench fs under perf record -e cpu-clock -c 900000: time %sx\n'
	fi
fi
legend() {
	echo "(time: elapsed; cpu: user + sys; ratios profiled / native; target <= 1.15 for time and"
	echo " memory.  us/smp: extra CPU per sample.  inst rows compare with the sonde-cc program"
	echo " run alone, which already pays the callbacks; clock rows with the gcc program.)"
}
[ "$only" = commbench ] && { legend; exit 0; }
# What an armed debug register costs its thread at each context switch (a futex hand-over
# between two threads, tests/workloads/comm/switch-bp.c): none, K = 1..4 disabled
# breakpoint events per thread (offK), K armed ones that never trap (onK), 4 opened and
# closed before the hand-overs (closed4), and one armed event that both threads inherit
# from main (their contexts stay clones: doc/benchmarks.md); medians of PAIRS runs each,
# alternating.  Twice: threads free to use both CPUs (hand-overs go through the idle task,
# as LULESH's passive waits do) and both on CPU 0 (SWITCH_BP_CPU=0: one thread straight
# to the other).  SWITCH_BP_TURNS sets the hand-overs per thread (default 50000).
turns=${SWITCH_BP_TURNS:-50000}
swmodes="none off1 off4 closed4 on1 on2 on3 on4 inherit"
for cpu in "" 0; do
	for i in $(seq 1 "$pairs"); do
		for m in $swmodes; do SWITCH_BP_CPU=$cpu "$work/switch-bp" $m $turns; done
	done >"$work/sw"
	sw() { awk -v m="$1:" '$1 == m { print $2 }' "$work/sw" | median; }
	base=$(sw none)
	printf 'switch-bp%s, %d hand-overs: %.3f s; us more a hand-over:' \
		"${cpu:+ on CPU $cpu}" $((2 * turns)) "$base"
	for m in $swmodes; do
		[ $m = none ] && continue
		awk -v m=$m -v a="$base" -v b="$(sw $m)" -v n=$((2 * turns)) \
			'BEGIN { printf " %s %+.1f", m, (b - a) * 1e6 / n }'
	done
	echo
done
# The same with the clock source's timer beside (SWITCH_BP_CLOCK, switch-bp.c): the
# inherited cpu-clock event (the clock source's default; a breakpoint event opened in a
# thread makes its perf context its own, for its life, closed or not), one cpu-clock event
# per thread, and a POSIX CPU-time timer per thread (no perf event: what comm uses on debug
# registers, SONDE_CLOCK_TIMER=auto).  Per clock, one line: its "none" against no clock at
# all, then off1 (one disabled breakpoint event per thread), closed1 (opened and closed)
# and on1 (one armed) against its own "none"; us a hand-over, medians of PAIRS
# alternating runs, threads free on both CPUs.
ckmodes="none off1 closed1 on1"
for i in $(seq 1 "$pairs"); do
	"$work/switch-bp" none $turns | sed 's/^/noclock-/'
	for ck in inherit thread posix; do
		for m in $ckmodes; do SWITCH_BP_CLOCK=$ck "$work/switch-bp" $m $turns | sed "s/^/$ck-/"; done
	done
done >"$work/swc"
swc() { awk -v m="$1:" '$1 == m { print $2 }' "$work/swc" | median; }
for ck in inherit thread posix; do
	printf 'switch-bp, clock %s beside: us more a hand-over: none %+.1f (against no clock, %.3f s)' \
		$ck "$(awk -v a="$(swc noclock-none)" -v b="$(swc $ck-none)" -v n=$((2 * turns)) \
			'BEGIN { print (b - a) * 1e6 / n }')" "$(swc noclock-none)"
	for m in off1 closed1 on1; do
		awk -v m=$m -v a="$(swc $ck-none)" -v b="$(swc $ck-$m)" -v n=$((2 * turns)) \
			'BEGIN { printf ", %s %+.1f", m, (b - a) * 1e6 / n }'
	done
	echo " (against its none)"
done
# what re-opening costs once a thread's events are closed: open + close of one breakpoint
for i in $(seq 1 "$pairs"); do "$work/switch-bp" open 20000; done |
	awk '{ print $2 }' | median | xargs printf 'switch-bp open: %s us to open and close a breakpoint event\n'
# Where commbench's fixed memory goes: peak RSS (median of PAIRS runs) of the sonde-cc
# program alone, with libsonde.so preloaded and the runtime off (no SONDE_* variables),
# under `sonde mem` and under `sonde comm`.  (libpfm4, 2.1 MB of it when it was linked, is
# loaded only where PEBS events are probed: src/rt/pmu.c.)
if [ $inst = 1 ]; then
	rss() {
		for i in $(seq 1 "$pairs"); do
			rm -rf "$work/p"
			"$@" >/dev/null 2>&1
			awk '{ print $4 }' "$work/s"
		done | median
	}
	T=(/usr/bin/time -f "$BENCH_TIMEFMT" -o "$work/s")
	printf 'peak RSS of commbench fs (KB): alone %s, +libsonde.so (off) %s, ' \
		"$(rss "${T[@]}" "$work/cb-inst" $CB)" \
		"$(rss env LD_PRELOAD="$B/libsonde.so" "${T[@]}" "$work/cb-inst" $CB)"
	printf 'sonde mem %s, sonde comm %s\n' \
		"$(rss "$B/sonde" mem -q --source inst -o "$work/p" -- "${T[@]}" "$work/cb-inst" $CB)" \
		"$(rss "$B/sonde" comm -q --source inst -o "$work/p" -- "${T[@]}" "$work/cb-inst" $CB)"
fi
[ "$only" = switch-bp ] && exit 0
legend
exit 0
