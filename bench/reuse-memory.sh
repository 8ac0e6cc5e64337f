#!/usr/bin/env bash
# bench/reuse-memory.sh - peak memory (and time) of `sonde reuse --exact` on any program
# built with sonde-cc, against the program alone, alternating in every round: the program,
# --exact with this build, and with REUSE_BENCH_BEFORE=DIR --exact with the build in DIR
# (before and after a change under the same load).  Prints each round and the medians of
# peak RSS (KiB), elapsed and CPU (user + sys) seconds.  Prints; never fails on numbers.
#   bench/reuse-memory.sh [ROUNDS] [-- PROGRAM ARGS...]   (default 3 rounds of RIBench,
#                                                           rbench ribench -t 2 -o 300)
# A program that needs its sonde-cc runtime stub (libsonde-inst.so) alone finds it in
# the build directory (LD_LIBRARY_PATH); run it from its own working directory.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${SONDE_BUILD:-$top/build}
rounds=3
if [ $# -gt 0 ] && [ "$1" != -- ]; then rounds=$1; shift; fi
[ "${1:-}" = -- ] && shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$top/bench/lib.sh"
if [ $# -eq 0 ]; then
	command -v clang >/dev/null || { echo "bench: clang missing (sonde-cc needs it)" >&2; exit 1; }
	"$B/sonde-cc" -O2 -g -pthread "$top/tests/workloads/reuse/rbench.c" -o "$work/rb" ||
		{ echo "bench: sonde-cc could not build rbench" >&2; exit 1; }
	set -- "$work/rb" ribench -t 2 -o 300
fi
before=${REUSE_BENCH_BEFORE:-}
[ -z "$before" ] || [ -x "$before/sonde" ] || { echo "bench: $before/sonde missing" >&2; exit 1; }
export LD_LIBRARY_PATH="$B${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# the runtime is preloaded into /usr/bin/time too, where --exact refuses to start (not a
# sonde-cc program) and says so: that line is filtered out
quiet() { "$@" 2>&1 >/dev/null | grep -v -e "this program was not built by sonde-cc" >&2; }
# fields "elapsed cpu maxrss_kb" of a bench_time file
fields() { awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$1"; }
load() { echo "$(date -u '+%F %T UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"; }
echo "bench: $*, $rounds alternating rounds (alone, --exact${before:+, --exact of $before}); $(load)"
: >"$work/r"
for i in $(seq 1 "$rounds"); do
	bench_time "$work/n" "$@"
	rm -rf "$work/a" "$work/b" "$work/s" "$work/t"	# a failed run must not print the last round's
	quiet "$B/sonde" reuse -q --exact -o "$work/a" -- /usr/bin/time -f "$BENCH_TIMEFMT" -o "$work/s" "$@"
	cp "$work/s" "$work/t"
	[ -z "$before" ] ||
		quiet "$before/sonde" reuse -q --exact -o "$work/b" -- /usr/bin/time -f "$BENCH_TIMEFMT" -o "$work/t" "$@"
	if [ ! -s "$work/s" ] || [ ! -s "$work/t" ]; then
		echo "bench: round $i: a sonde run failed (no time file): round left out" >&2
		continue
	fi
	echo "$(fields "$work/n") $(fields "$work/s") $(fields "$work/t")" >>"$work/r"
	printf '  round %d: alone %s, --exact %s%s  (elapsed s, cpu s, peak KiB)\n' "$i" \
		"$(fields "$work/n")" "$(fields "$work/s")" "${before:+, before $(fields "$work/t")}"
done
col() { awk -v c="$1" '{ print $c }' "$work/r" | median; }
echo "bench: done $(load)"
printf 'alone          peak %s KiB  elapsed %s s  cpu %s s\n' "$(col 3)" "$(col 1)" "$(col 2)"
printf -- '--exact        peak %s KiB  elapsed %s s  cpu %s s\n' "$(col 6)" "$(col 4)" "$(col 5)"
[ -z "$before" ] ||
	printf -- '--exact before peak %s KiB  elapsed %s s  cpu %s s  (%s)\n' "$(col 9)" "$(col 7)" "$(col 8)" "$before"
