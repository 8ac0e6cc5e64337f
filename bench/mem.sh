#!/usr/bin/env bash
# bench/mem.sh - overhead of `sonde mem --source clock` at the default rate, measured side by
# side: for each workload, native and profiled runs alternate, each pair gives a time, a CPU
# time (user + system: less sensitive to the machine's other load than elapsed time) and a
# peak-memory ratio, and the medians are printed with the samples taken and dropped (by
# cause).  Then the bias of each de-biasing setting (SONDE_EXTRA_STEPS) on Bias-Bench
# (`sonde bench -s clock`) and on cost-random's known shares.  Targets (issue 7): time
# <= 1.10x, peak memory <= 1.10x or + 8 MiB under 80 MiB, every Bias-Bench load within 10
# points of 25 %.  Prints; never fails on numbers.
#   bench/mem.sh [PAIRS]            (default 5)
#   BENCH_MEM_ONLY="cost-random cost-chase" bench/mem.sh   (a subset of the workloads)
#   BENCH_MEM_STEPS="1 4 8 16"       (the settings whose bias is measured; "" skips it)
#   BENCH_MEM_BASELINE=DIR           (another build's sonde, e.g. an older commit's: its
#                                     profiled run joins each pair; its time ratio and CPU
#                                     us per signal are the columns baseline and base_us)
#   BENCH_MEM_BASELINE_ENV="V=x ..."  (environment of the baseline's runs only: with
#                                     BENCH_MEM_BASELINE=build and SONDE_CLOCK_INHERIT=0, the
#                                     same build with per-thread clock events)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${SONDE_BUILD:-$top/build}
pairs=${1:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$top/bench/lib.sh"

# per_signal NATIVE PROFILED DIR: CPU time (user + system) the profiling added, in us per
# sample signal (taken or dropped) of the recording in DIR
per_signal() {
	local nu ns su ss
	read -r _ nu ns _ <"$1"
	read -r _ su ss _ <"$2"
	awk -v a="$nu" -v b="$ns" -v c="$su" -v d="$ss" -v n="$(db_sum "$3" signals)" \
		'BEGIN { printf "%.1f", (n > 0 ? (c + d - a - b) * 1e6 / n : 0) }'
}

# name|threads|command (relative to $B/workloads)
workloads="cost-random|1|cost-random 2
cost-chase|1|cost-chase
cost-sweep|1|cost-sweep
cost-omp|2|cost-omp
cost-omp|4|cost-omp
cost-compute|1|cost-compute
membound|1|membound"
only=${BENCH_MEM_ONLY:-}

# db_sum DIR COLUMN: the column of the threads table summed over the recording
db_sum() { sqlite3 "$1/profile.db" "select coalesce(sum($2),0) from threads" 2>/dev/null || echo 0; }
# drops DIR: "cause=N ..." from the drops table (causes with a count), or "" if none
drops() {
	sqlite3 -separator = "$1/profile.db" \
		"select cause, sum(count) from drops group by cause having sum(count) > 0 order by 2 desc" \
		2>/dev/null | tr '\n' ' '
}

echo "bench: sonde mem --source clock (default rate, SONDE_EXTRA_STEPS=${SONDE_EXTRA_STEPS:-default}), $pairs alternating pairs per workload; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-12s %3s %7s %7s %7s %9s %9s %8s %7s %6s %6s %8s %7s  %s\n' workload thr time cpu memory native_KB sonde_KB samples dropped steps us/sig baseline base_us "drops by cause (last pair)"
echo "$workloads" | while IFS='|' read -r name thr cmd; do
	[ -n "$only" ] && ! [[ " $only " == *" $name "* ]] && continue
	set -- $cmd
	prog=$B/workloads/$1; shift
	[ -x "$prog" ] || { echo "bench: $prog not built (make bench builds it)" >&2; continue; }
	: >"$work/r"
	for i in $(seq 1 "$pairs"); do
		OMP_NUM_THREADS=$thr bench_time "$work/n" "$prog" "$@"
		rm -rf "$work/p"
		OMP_NUM_THREADS=$thr "$B/sonde" mem -q --force --source clock -o "$work/p" -- \
			/usr/bin/time -f "$BENCH_TIMEFMT" -o "$work/s" "$prog" "$@" >/dev/null 2>&1
		if [ -n "${BENCH_MEM_BASELINE:-}" ]; then
			rm -rf "$work/o"
			env ${BENCH_MEM_BASELINE_ENV:-} OMP_NUM_THREADS=$thr "$BENCH_MEM_BASELINE/sonde" mem -q --force --source clock -o "$work/o" -- \
				/usr/bin/time -f "$BENCH_TIMEFMT" -o "$work/b" "$prog" "$@" >/dev/null 2>&1
			base=$(bench_ratio "$work/n" "$work/b" | cut -d' ' -f1)
			bus=$(per_signal "$work/n" "$work/b" "$work/o")
		else
			base=nan
			bus=nan
		fi
		read -r _ nu ns nm <"$work/n"
		read -r _ su ss sm <"$work/s"
		smp=$(db_sum "$work/p" samples)
		cpu=$(awk -v a="$nu" -v b="$ns" -v c="$su" -v d="$ss" 'BEGIN { printf "%s", (a + b > 0 ? (c + d) / (a + b) : "nan") }')
		echo "$(bench_ratio "$work/n" "$work/s") $nm $sm $smp $(db_sum "$work/p" dropped) $(db_sum "$work/p" steps) $(per_signal "$work/n" "$work/s" "$work/p") $base $bus $cpu" >>"$work/r"
	done
	col() { awk -v c="$1" '{print $c}' "$work/r" | median; }
	printf '%-12s %3s %6.3fx %6.3fx %6.3fx %9.0f %9.0f %8.0f %7.0f %6.0f %6.0f %8s %7s  %s\n' \
		"$name" "$thr" "$(col 1)" "$(col 11)" "$(col 2)" "$(col 3)" "$(col 4)" "$(col 5)" \
		"$(col 6)" "$(col 7)" "$(col 8)" "$(col 9)" "$(col 10)" "$(drops "$work/p")"
done

# An allocation-heavy program: 4 threads x 500k malloc/free pairs of tracked sizes (every
# allocation is recorded with its call path, cached per call site).
heap=$B/workloads/rt2-heap
if [ -x "$heap" ] && [ -z "$only" ]; then
	: >"$work/heap"
	for i in 1 2 3; do
		bench_time "$work/hn" "$heap" churn
		rm -rf "$work/hp"
		"$B/sonde" mem -q -o "$work/hp" -- /usr/bin/time -f "$BENCH_TIMEFMT" -o "$work/hs" "$heap" churn >/dev/null 2>&1
		bench_ratio "$work/hn" "$work/hs" >>"$work/heap"
	done
	printf 'malloc-heavy churn (rt2-heap, 2M tracked allocations): %sx time\n' "$(awk '{print $1}' "$work/heap" | median)"
fi

# Bias of each de-biasing setting.  Bias-Bench: four identical loads, 25 % each unbiased.
# cost-random: by access count hot 80 %, warm 10 %, cold 10 % (its comment).
steps_list=${BENCH_MEM_STEPS-1 4 8 16}
[ -n "$steps_list" ] && echo "bias by SONDE_EXTRA_STEPS (1 = no extra access skipped; runtime default 8)"
for s in $steps_list; do
	rm -rf "$work/b"
	bias=$("$B/sonde" bench -s clock --extra-steps "$s" --runs 3 -o "$work/b" 2>/dev/null >/dev/null;
		awk -F, '$3 == "bias" && $4 ~ /^bias[1-4]$/ { printf "%s%.0f", (n++ ? "/" : ""), 100 * $5 }' \
			"$work/b/bench/results.csv" 2>/dev/null)
	: >"$work/sh"
	for i in 1 2 3; do
		rm -rf "$work/q"
		SONDE_EXTRA_STEPS=$s "$B/sonde" mem -q --force --source clock -o "$work/q" -- \
			/usr/bin/time -f "$BENCH_TIMEFMT" -o "$work/qs" "$B/workloads/cost-random" 2 >/dev/null 2>&1
		bench_time "$work/qn" "$B/workloads/cost-random" 2
		# the three 8 MiB arrays, hot allocated first; loads only (the set-up loop stores)
		hot=$(sqlite3 "$work/q/profile.db" "with a as (select line, loads from objects where kind = 'heap' and size = 8388608 and file like '%cost-random.c') select printf('%.1f', 100.0 * (select loads from a order by line limit 1) / sum(loads)) from a" 2>/dev/null)
		echo "${hot:-nan} $(bench_ratio "$work/qn" "$work/qs") $(db_sum "$work/q" steps) $(db_sum "$work/q" samples)" >>"$work/sh"
	done
	printf '  steps=%s  Bias-Bench %s %%  cost-random hot %s %% (80 by count)  time %sx  steps/sample %s\n' \
		"$s" "${bias:-n/a}" "$(awk '{print $1}' "$work/sh" | median)" "$(awk '{print $2}' "$work/sh" | median)" \
		"$(awk '{ if ($5 > 0) printf "%.2f\n", $4 / $5 }' "$work/sh" | median)"
done
exit 0
