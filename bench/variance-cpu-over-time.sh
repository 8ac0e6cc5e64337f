#!/usr/bin/env bash
# bench/variance-cpu-over-time.sh - does an instance ever hold more CPU time than time
# (doc/sonde-variance.md, "Reading two clocks")?  t815's command (vprol 150 3 at -p 1 ms,
# bursts off) RUNS times (default 25) beside two busy loops, and with BEFORE=<build dir> the
# same with that build's sonde in turn; per build: the runs with an instance over t815's
# bound (CPU time over time plus one trap's calibrated CPU cost), and the largest excess
# of CPU time over time of any instance (us).  Never fails on numbers.
#   RUNS=25 BEFORE=/path/to/old/build bench/variance-cpu-over-time.sh
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
SONDE_BUILD=${SONDE_BUILD:-$top/build}
bench_scratch variance-cpu-over-time
gcc -O2 -g -fno-omit-frame-pointer -pthread "$top/tests/workloads/variance/vprol.c" -o vprol || exit 0
builds="new=$SONDE_BUILD"
[ -n "${BEFORE:-}" ] && builds="old=$BEFORE $builds"
for k in 1 2; do timeout 600 sh -c 'while :; do :; done' & done
trap 'kill $(jobs -p) 2>/dev/null' EXIT
for i in $(seq 1 "${RUNS:-25}"); do
	for b in $builds; do
		name=${b%%=*} dir=${b#*=}
		rm -rf rec
		SONDE_VARIANCE_BURST=0 "$dir/sonde" variance -q -o rec -p 1000000 -- ./vprol 150 3 >/dev/null 2>&1 || continue
		res=$(sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = 'trap_cpu_ns'")
		awk -F, -v b="$name" -v res="${res:-0}" 'NR > 1 { e = $7 - $6; if (e > m) m = e; if (e > res) bad++ }
			END { print b, m + 0, bad + 0 }' rec/variance/instances.csv >>rows.txt
	done
done
echo "bench: variance-cpu-over-time: t815's command, ${RUNS:-25} runs a build beside two busy loops, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
awk '{ n[$1]++; if ($2 > m[$1]) m[$1] = $2; if ($3 > 0) over[$1]++ }
	END { for (b in n) printf "  %s: %d runs, %d with an instance over the bound, largest CPU-over-time excess %.1f us\n", b, n[b], over[b] + 0, m[b] / 1e3 }' rows.txt
