#!/usr/bin/env bash
# bench/reuse-cpu.sh - the CPU time (user + sys) of RIBench on one thread (rbench ribench
# -t 1 -o 100: ~62 million accesses, ~0.15 s alone) under `sonde reuse --exact`, against
# the program alone, alternating in every round with REUSE_BENCH_BEFORE=DIR's --exact (a
# build before a change).  One thread and a short run: the two builds' figures of one round
# come seconds apart, so that a change of a few percent shows through the load of the
# shared 2-core VM better than in bench/reuse.sh's two-thread rounds.  Prints each round and
# the medians (seconds of the program's own CPU, and the ratios to the program alone);
# never fails on numbers.
#   bench/reuse-cpu.sh [ROUNDS]     (default 6)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${SONDE_BUILD:-$top/build}
rounds=${1:-6}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$top/bench/lib.sh"
rbench_build "$work/rb"
before=${REUSE_BENCH_BEFORE:-}
[ -z "$before" ] || [ -x "$before/sonde" ] || { echo "bench: $before/sonde missing" >&2; exit 1; }
args="ribench -t 1 -o 100"
load() { echo "$(date -u '+%F %T UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"; }
# the runtime is preloaded into /usr/bin/time too, where --exact refuses to start (not a
# sonde-cc program) and says so: that line is filtered out
quiet() { "$@" 2>&1 >/dev/null | grep -v -e "this program was not built by sonde-cc" >&2; }
cpu() { awk '{ printf "%.2f\n", $2 + $3 }' "$1"; }
# exact DIR OUT: the program's time file under DIR's --exact
exact() {
	rm -rf "$work/o" "$2"
	quiet "$1/sonde" reuse -q --exact -o "$work/o" -- /usr/bin/time -f "$BENCH_TIMEFMT" -o "$2" "$work/rb" $args
}
echo "bench: rbench $args, $rounds alternating rounds (alone, --exact${before:+, --exact of $before}); $(load)"
: >"$work/r"
for i in $(seq 1 "$rounds"); do
	bench_time "$work/n" "$work/rb" $args
	exact "$B" "$work/s"
	cp "$work/s" "$work/t" 2>/dev/null
	[ -z "$before" ] || exact "$before" "$work/t"
	if [ ! -s "$work/s" ] || [ ! -s "$work/t" ]; then
		echo "bench: round $i: a sonde run failed (no time file): round left out" >&2
		continue
	fi
	echo "$(cpu "$work/n") $(cpu "$work/s") $(cpu "$work/t")" >>"$work/r"
	printf '  round %d: cpu s: alone %s, --exact %s%s\n' "$i" "$(cpu "$work/n")" "$(cpu "$work/s")" \
		"${before:+, before $(cpu "$work/t")}"
done
col() { awk -v c="$1" '{ print $c }' "$work/r" | median; }
echo "bench: done $(load)"
n=$(col 1) s=$(col 2) t=$(col 3)
awk -v n="$n" -v s="$s" -v t="$t" -v b="$before" 'BEGIN {
	printf "medians: alone %.2f s, --exact %.2f s (%.2fx)", n, s, (n > 0 ? s / n : 0)
	if (b != "") printf ", before %.2f s (%.2fx; %s)", t, (n > 0 ? t / n : 0), b
	printf "\n" }'
