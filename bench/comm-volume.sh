#!/usr/bin/env bash
# bench/comm-volume.sh - the sampled detector's volume against the exact detector's in the
# same run (`sonde comm --compare 1009`, tests/workloads/comm/commbench.c built with
# sonde-cc): per workload and run, the exact transfers, the sampled estimate, their ratio,
# the share of the estimate found by traps, the cosine of the thread matrices and the
# false-sharing shares.  With COMM_VOLUME_BEFORE=<another build dir> each run is made with
# that build too, right after (side by side, same load).  Prints; never fails on numbers.
#   bench/comm-volume.sh [RUNS]      (default 3; COMM_VOLUME_ONLY="bcast1 ring" picks rows)
# Workloads (name: commbench arguments):
#   readonly  readonly 400000      main fills 64 lines once (512 stores), 4 workers read them
#   bcast1    bcast 5000 1         producer writes 1 word a line, 3 readers read whole lines
#   bcast8    bcast 5000 8         the same, 8 stores a line (a line moves once per 8 stores)
#   pingpong ring master pairs: the lock-step workloads (t402); fs80: fs 200000 80;
#   wv100: wv 200000 100 (t404's sharing run, at half its length)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${SONDE_BUILD:-$top/build}
before=${COMM_VOLUME_BEFORE:-}
runs=${1:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$B/sonde" ] || { echo "bench: $B/sonde not built" >&2; exit 1; }
[ -z "$before" ] || [ -x "$before/sonde" ] || { echo "bench: $before/sonde not built" >&2; exit 1; }
"$B/sonde-cc" -O2 -pthread "$top/tests/workloads/comm/commbench.c" -o "$work/cb" || exit 1

declare -A args=(
	[readonly]="readonly 400000" [bcast1]="bcast 5000 1" [bcast8]="bcast 5000 8"
	[pingpong]="pingpong 5000" [ring]="ring 20000" [master]="master 5000"
	[pairs]="pairs 5000" [fs80]="fs 200000 80" [wv100]="wv 200000 100"
)
rows=${COMM_VOLUME_ONLY:-readonly bcast1 bcast8 pingpong pairs ring master fs80 wv100}

meta() { sqlite3 "$1/profile.db" "SELECT value FROM meta WHERE key = '$2'"; }
cosine() {
	paste -d, "$1" "$2" | awk -F, 'NR == 1 { n = NF / 2; next }
		{ for (j = 2; j <= n; j++) { x = $j; y = $(n + j); d += x * y; a += x * x; b += y * y } }
		END { printf "%.3f\n", (a && b) ? d / sqrt(a * b) : 0 }'
}

one() {	# one BUILD LABEL ROW RUN
	local b=$1 label=$2 row=$3 r=$4 d="$work/$2-$3-$4"
	"$b/sonde" comm -q --compare 1009 -o "$d" -- "$work/cb" ${args[$row]} >/dev/null 2>&1 ||
		{ echo "bench: comm-volume: $label $row run $r failed"; return; }
	local x s st xf sf c=- m="$d/comm/sampled/matrix-all-thread.csv"
	x=$(meta "$d" total_all) s=$(meta "$d" sampled_total_all) st=$(meta "$d" sampled_total_trap)
	xf=$(meta "$d" total_false) sf=$(meta "$d" sampled_total_false)
	[ -f "$m" ] && c=$(cosine "$d/comm/matrix-all-thread.csv" "$m")
	awk -v l="$label" -v row="$row" -v r="$r" -v x="$x" -v s="$s" -v st="${st:-0}" \
		-v xf="$xf" -v sf="$sf" -v c="$c" 'BEGIN {
		printf "bench: comm-volume: %-6s %-8s run %d: exact %8d sampled %9d ratio %6.2f", l, row, r,
			x, s, x ? s / x : 0
		printf " traps %3.0f%% cosine %s false exact %.2f sampled %.2f\n", s ? 100 * st / s : 0, c,
			x ? xf / x : 0, s ? sf / s : 0 }'
}

echo "bench: comm-volume: $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
for row in $rows; do
	for r in $(seq 1 "$runs"); do
		one "$B" after "$row" "$r"
		[ -z "$before" ] || one "$before" before "$row" "$r"
	done
done
echo "bench: comm-volume: done $(date -u '+%H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
