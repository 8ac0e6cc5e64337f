#!/usr/bin/env bash
# bench/reuse.sh - cost of `sonde reuse` on RIBench (2 threads, built with sonde-cc),
# measured side by side in one run: the sonde-cc program alone (its callbacks are no-ops),
# then sampled (inst source, period 4001 and the default 10007) and --exact, alternating,
# each pair giving a ratio; medians printed.  Targets (issue 10): sampled <= 1.5x the
# sonde-cc program's own run, --exact <= 5x (10x cheaper than the Pin-based tool's 49x),
# memory <= 1.5x.  Elapsed-time ratios on a loaded machine mostly measure the load (a
# process with more CPU to do waits longer for it), so the CPU-time (user + sys) ratios
# are printed too.  Prints; never fails on numbers.
#   bench/reuse.sh [PAIRS]     (default 5)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${SONDE_BUILD:-$top/build}
pairs=${1:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$top/bench/lib.sh"
command -v clang >/dev/null || { echo "bench: clang missing (sonde-cc needs it)" >&2; exit 1; }
"$B/sonde-cc" -O2 -g -pthread "$top/tests/workloads/reuse/rbench.c" -o "$work/rb" ||
	{ echo "bench: sonde-cc could not build rbench" >&2; exit 1; }
# -o 300: the program alone runs ~0.5-1 s on the 2-core VM (-o 40 ran 0.05-0.12 s, too
# short to time against process start-up and the recording's own start and end)
args="ribench -t 2 -o 300"

# cpu_ratio A B: B's user + sys CPU time over A's (two bench_time files)
cpu_ratio() {
	local ne nu ns nm se su ss sm
	read -r ne nu ns nm <"$1"
	read -r se su ss sm <"$2"
	awk -v a="$nu" -v b="$ns" -v c="$su" -v d="$ss" 'BEGIN { n = a + b; printf "%s\n", (n > 0 ? (c + d) / n : "nan") }'
}

echo "bench: rbench $args, $pairs alternating rounds (native sonde-cc run, sampled p4001, sampled p10007, --exact)"
: >"$work/r"
for i in $(seq 1 "$pairs"); do
	bench_time "$work/n" "$work/rb" $args
	rm -rf "$work/a" "$work/b" "$work/c"
	"$B/sonde" reuse -q --source inst --period 4001 -o "$work/a" -- /usr/bin/time -f "$BENCH_TIMEFMT" -o "$work/s1" "$work/rb" $args >/dev/null
	"$B/sonde" reuse -q --source inst -o "$work/b" -- /usr/bin/time -f "$BENCH_TIMEFMT" -o "$work/s2" "$work/rb" $args >/dev/null
	"$B/sonde" reuse -q --exact -o "$work/c" -- /usr/bin/time -f "$BENCH_TIMEFMT" -o "$work/s3" "$work/rb" $args >/dev/null
	echo "$(bench_ratio "$work/n" "$work/s1") $(bench_ratio "$work/n" "$work/s2") $(bench_ratio "$work/n" "$work/s3") $(cpu_ratio "$work/n" "$work/s1") $(cpu_ratio "$work/n" "$work/s2") $(cpu_ratio "$work/n" "$work/s3")" >>"$work/r"
	printf '  round %d: native %ss, p4001 %ss, p10007 %ss, exact %ss\n' "$i" "$(cut -d' ' -f1 "$work/n")" \
		"$(cut -d' ' -f1 "$work/s1")" "$(cut -d' ' -f1 "$work/s2")" "$(cut -d' ' -f1 "$work/s3")"
done
col() { awk -v c="$1" '{ print $c }' "$work/r" | median; }
printf 'sonde reuse sampled (inst, period 4001)  time %s  cpu %s  memory %s  (targets <= 1.5, <= 1.5)\n' "$(col 1)" "$(col 7)" "$(col 2)"
printf 'sonde reuse sampled (inst, period 10007) time %s  cpu %s  memory %s\n' "$(col 3)" "$(col 8)" "$(col 4)"
printf 'sonde reuse --exact                      time %s  cpu %s  memory %s  (target <= 5)\n' "$(col 5)" "$(col 9)" "$(col 6)"
