#!/usr/bin/env bash
# bench/reuse-rss.sh - what the peak RSS of a program under `sonde reuse --exact` is made
# of: the program's resident anonymous memory (its data, the runtime's tables, the
# libraries' writable pages) and file-backed memory (the pages of its executable and
# shared libraries mapped in), each the largest value seen by polling /proc/PID/status
# every ~5 ms, beside VmHWM (the peak RSS that /usr/bin/time and bench/reuse-memory.sh
# report).  File-backed pages are shared with the page cache: how many of them a process
# has mapped depends on what the page cache holds (the kernel maps cached pages around a
# fault), not only on the program, so that part varies from run to run of one build.
# Alternating rounds: this build, then with REUSE_BENCH_BEFORE=DIR the build in DIR.
# Prints each round and the medians (KiB); never fails on numbers.
#   bench/reuse-rss.sh [ROUNDS]    (default 4; RIBench, rbench ribench -t 2 -o 60)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${SONDE_BUILD:-$top/build}
rounds=${1:-4}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$top/bench/lib.sh"
command -v pgrep >/dev/null || { echo "bench: pgrep missing (procps)" >&2; exit 1; }
rbench_build "$work/rb"
before=${REUSE_BENCH_BEFORE:-}
[ -z "$before" ] || [ -x "$before/sonde" ] || { echo "bench: $before/sonde missing" >&2; exit 1; }
load() { echo "$(date -u '+%F %T UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"; }

# one DIR: "anon file hwm" (KiB) of the program under DIR's sonde reuse --exact
one() {
	local sp pid="" a f h ma=0 mf=0 mh=0
	rm -rf "$work/o"
	"$1/sonde" reuse -q --exact -o "$work/o" -- "$work/rb" ribench -t 2 -o 60 >/dev/null 2>&1 &
	sp=$!
	for _ in $(seq 1 500); do
		pid=$(pgrep -P "$sp" -f "rb ribench" | head -1)
		[ -n "$pid" ] && break
		sleep 0.01
	done
	while [ -n "$pid" ] && [ -e "/proc/$pid/status" ]; do
		read -r a f h < <(awk '/^RssAnon/ { a = $2 } /^RssFile/ { f = $2 } /^VmHWM/ { h = $2 }
			END { print a + 0, f + 0, h + 0 }' "/proc/$pid/status" 2>/dev/null)
		[ "${a:-0}" -gt "$ma" ] && ma=$a
		[ "${f:-0}" -gt "$mf" ] && mf=$f
		[ "${h:-0}" -gt "$mh" ] && mh=$h
		sleep 0.005
	done
	wait "$sp"
	echo "$ma $mf $mh"
}

echo "bench: rbench ribench -t 2 -o 60 under --exact, $rounds alternating rounds ($B${before:+, $before}); $(load)"
: >"$work/r"
for i in $(seq 1 "$rounds"); do
	x=$(one "$B")
	y=$x
	[ -z "$before" ] || y=$(one "$before")
	echo "$x $y" >>"$work/r"
	printf '  round %d: anon file hwm %s%s\n' "$i" "$x" "${before:+, before $y}"
done
col() { awk -v c="$1" '{ print $c }' "$work/r" | median; }
echo "bench: done $(load)"
printf 'this build:   anon %s  file %s  peak (VmHWM) %s KiB  (medians; anon and file: their own peaks)\n' "$(col 1)" "$(col 2)" "$(col 3)"
[ -z "$before" ] ||
	printf 'before build: anon %s  file %s  peak (VmHWM) %s KiB  (%s)\n' "$(col 4)" "$(col 5)" "$(col 6)" "$before"
