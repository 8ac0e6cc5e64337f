#!/usr/bin/env bash
# bench/reuse-clock-floor.sh - how short a reuse time `sonde reuse` can tell with the
# clock source and debug registers.  rbench's sweep, built by gcc, sweeps an array of N
# words over and over (each word reused after N-1 others: a sweep's time, the native run's user
# CPU time over its sweeps), for N from 10 words (a few ns) to 100,000 (~100 us); for
# each, the truth per reuse and the weighted quartiles of the time_ns rows (bins are
# powers of 2: a quartile is given as its bin).  A reuse sooner than the watchpoint's arming and trap
# reads what those take (doc/sonde-reuse.md, "Exact and estimated").  Needs debug
# registers that trap; prints, never fails on numbers.
#   bench/reuse-clock-floor.sh [N...]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
SONDE_BUILD=${SONDE_BUILD:-$top/build}
SONDE=$SONDE_BUILD/sonde
bench_scratch reuse-clock-floor
"$SONDE" info 2>/dev/null | grep -q "their traps fire" ||
	{ echo "bench: reuse-clock-floor skipped: debug registers do not trap here"; exit 0; }
# rbench's sweep (a load of each word in turn), a plain gcc build: the registers' case
gcc -O2 -g -pthread "$top/tests/workloads/reuse/rbench.c" -o rbg ||
	{ echo "bench: reuse-clock-floor skipped: gcc failed"; exit 0; }
[ $# -gt 0 ] || set -- 10 1000 10000 100000
echo "bench: reuse-clock-floor, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '  %-8s %-14s %s\n' words "truth (ns)" "measured reuse time, weighted quartiles (bins, ns)"
for n in "$@"; do
	r=$((1000000000 / n))
	u=$( { /usr/bin/time -f %U ./rbg sweep "$n" "$r" >/dev/null; } 2>&1 | tail -1)
	truth=$(awk -v u="$u" -v n="$n" -v r="$r" 'BEGIN { printf "%.0f", u * 1e9 / r }')
	rm -rf rec
	"$SONDE" reuse -q -o rec -- ./rbg sweep "$n" "$r" >/dev/null 2>&1
	q=$(awk -F, 'NR > 1 && $1 == "time_ns" { lo[++k] = $2; hi[k] = $3; c[k] = $4; t += $4 }
		END { if (!t) { print "no outcome"; exit }
		      split("0.25 0.5 0.75", qs, " "); j = 1; s = 0
		      for (i = 1; i <= k && j <= 3; i++) { s += c[i]
			      while (j <= 3 && s >= qs[j] * t) { out = out sprintf("[%s, %s) ", lo[i], hi[i]); j++ } }
		      print out }' rec/reuse/histogram.csv)
	printf '  %-8s %-14s %s\n' "$n" "$truth" "$q"
done
