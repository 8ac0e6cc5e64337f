#!/usr/bin/env bash
# bench/reuse-memory.sh - peak memory (and time, and the recording's size) of `sonde reuse
# --exact` on any program built with sonde-cc, against the program alone, alternating in
# every round: the program, --exact with this build, and with REUSE_BENCH_BEFORE=DIR
# --exact with the build in DIR (before and after a change under the same load).  Prints
# each round and the medians of peak RSS (KiB), elapsed and CPU (user + sys) seconds and
# the recording directory's bytes, and the whole sonde command's elapsed time and its
# largest process's peak RSS (the analysis reads the recording); with a before build,
# whether the last round's histogram.csv and missratio.csv are identical, and the largest
# relative difference of a code pair's reuses and long reuses in pairs.csv (rows matched
# by use, reuse and object: a multithreaded program's own run-to-run variation shows
# there too; run the before build against itself, REUSE_BENCH_BEFORE=$SONDE_BUILD, to see
# it).  Prints; never fails on numbers.
#   bench/reuse-memory.sh [ROUNDS] [-- PROGRAM ARGS...]   (default 3 rounds of RIBench,
#                                                           rbench ribench -t 2 -o 300)
# REUSE_MEMORY_MODE="OPTIONS" replaces --exact by those `sonde reuse` options (e.g.
# "--source inst": the sampled mode, with another build's sampled mode as "before").
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
read -r -a mode <<<"${REUSE_MEMORY_MODE:---exact}"
label="${mode[*]}"
[ -z "$before" ] || [ -x "$before/sonde" ] || { echo "bench: $before/sonde missing" >&2; exit 1; }
export LD_LIBRARY_PATH="$B${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# the runtime is preloaded into /usr/bin/time too, where --exact refuses to start (not a
# sonde-cc program) and says so: that line is filtered out
quiet() { "$@" 2>&1 >/dev/null | grep -v -e "this program was not built by sonde-cc" >&2; }
# fields "elapsed cpu maxrss_kb" of a bench_time file
fields() { awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$1"; }
# fields "elapsed maxrss_kb" of a bench_time file
whole() { awk '{ printf "%s %s\n", $1, $4 }' "$1"; }
# bytes of a recording directory (0 when missing)
bytes() { if [ -d "$1" ]; then du -sb "$1" | cut -f1; else echo 0; fi; }
# pairs.csv as "use,reuse,object reuses long_reuses" lines (names may hold commas)
pairs() { awk 'NR > 1 { sub(/^[0-9]+,/, ""); match($0, /,[0-9.]+,[0-9.]+,[0-9.]+$/)
	split(substr($0, RSTART + 1), v, ","); print substr($0, 1, RSTART - 1) "\t" v[1] "\t" v[2] }' "$1"; }
load() { echo "$(date -u '+%F %T UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"; }
echo "bench: $*, $rounds alternating rounds (alone, $label${before:+, $label of $before}); $(load)"
: >"$work/r"
for i in $(seq 1 "$rounds"); do
	bench_time "$work/n" "$@"
	rm -rf "$work/a" "$work/b" "$work/s" "$work/t" "$work/ws" "$work/wt"	# a failed run must not print the last round's
	quiet /usr/bin/time -f "$BENCH_TIMEFMT" -o "$work/ws" "$B/sonde" reuse -q "${mode[@]}" -o "$work/a" -- \
		/usr/bin/time -f "$BENCH_TIMEFMT" -o "$work/s" "$@"
	cp "$work/s" "$work/t" 2>/dev/null
	cp "$work/ws" "$work/wt" 2>/dev/null
	[ -z "$before" ] ||
		quiet /usr/bin/time -f "$BENCH_TIMEFMT" -o "$work/wt" "$before/sonde" reuse -q "${mode[@]}" -o "$work/b" -- \
			/usr/bin/time -f "$BENCH_TIMEFMT" -o "$work/t" "$@"
	if [ ! -s "$work/s" ] || [ ! -s "$work/t" ]; then
		echo "bench: round $i: a sonde run failed (no time file): round left out" >&2
		continue
	fi
	echo "$(fields "$work/n") $(fields "$work/s") $(fields "$work/t") $(bytes "$work/a") $(bytes "$work/b")" \
		"$(whole "$work/ws") $(whole "$work/wt")" >>"$work/r"
	printf '  round %d: alone %s, %s %s %s [%s]%s\n' \
		"$i" "$(fields "$work/n")" "$label" "$(fields "$work/s")" "$(bytes "$work/a")" "$(whole "$work/ws")" \
		"${before:+, before $(fields "$work/t") $(bytes "$work/b") [$(whole "$work/wt")]}"
done
echo "  (the program: elapsed s, cpu s, peak KiB; recording bytes; [the whole command: elapsed s, peak KiB])"
col() { awk -v c="$1" '{ print $c }' "$work/r" | median; }
echo "bench: done $(load)"
printf 'alone          peak %s KiB  elapsed %s s  cpu %s s\n' "$(col 3)" "$(col 1)" "$(col 2)"
printf -- '%-14s peak %s KiB  elapsed %s s  cpu %s s  recording %s bytes  command %s s %s KiB\n' "$label" "$(col 6)" "$(col 4)" "$(col 5)" "$(col 10)" "$(col 12)" "$(col 13)"
[ -z "$before" ] && exit 0
printf -- '%s before peak %s KiB  elapsed %s s  cpu %s s  recording %s bytes  command %s s %s KiB  (%s)\n' "$label" "$(col 9)" "$(col 7)" "$(col 8)" "$(col 11)" "$(col 14)" "$(col 15)" "$before"
for f in histogram missratio; do
	cmp -s "$work/a/reuse/$f.csv" "$work/b/reuse/$f.csv" && r=identical || r=differ
	echo "last round, $f.csv: $r"
done
export LC_ALL=C
pairs "$work/a/reuse/pairs.csv" | sort >"$work/pa"
pairs "$work/b/reuse/pairs.csv" | sort >"$work/pb"
join -t "$(printf '\t')" "$work/pa" "$work/pb" | awk -F '\t' -v na="$(wc -l <"$work/pa")" -v nb="$(wc -l <"$work/pb")" '
	function rel(x, y) { return x == y ? 0 : (x > y ? x - y : y - x) / (x > y ? x : y) }
	{ n++; d = rel($2, $4); if (rel($3, $5) > d) d = rel($3, $5); if (d > m) m = d }
	END { printf "last round, pairs.csv: %d and %d rows, %d matched, largest relative difference %.2g\n", na, nb, n, m }'
