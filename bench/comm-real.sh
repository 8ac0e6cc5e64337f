#!/usr/bin/env bash
# bench/comm-real.sh - what `sonde comm` finds in a real program the project did not
# write, run after run: per run, the communication found (true/false split) and every
# object with true sharing.  With BENCH_COMM_AFTER, the same for a second build of the
# program (say, with a race fixed), so that a finding can be checked against its fix.
# Prints; never fails on numbers.  The programs are not bundled (doc/sonde-comm.md, "A
# real program", says how the NPB CG of its example was built):
#   BENCH_COMM_REAL="/path/cg.A" [BENCH_COMM_AFTER="/path/fixed/cg.A"] bench/comm-real.sh [RUNS]
# RUNS defaults to 3.  The environment passes through (OMP_NUM_THREADS, OMP_WAIT_POLICY).
# BENCH_COMM_OPTS adds options to sonde comm; with "--compare N" (a sonde-cc build) each
# run also prints the false-sharing share of the exact count and of the sampled detector
# in the same run, the sampled one by the paper's byte rule and counting the writers'
# bytes (doc/sonde-comm.md, "Which bytes did the writer write", and "Limits"):
#   BENCH_COMM_OPTS="--compare 1009" BENCH_COMM_REAL="./bs-inst -t 2 -r 10 -m tf" bench/comm-real.sh
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${SONDE_BUILD:-$top/build}
runs=${1:-3}
if [ -z "${BENCH_COMM_REAL:-}" ]; then
	echo "bench-comm-real: skipped (set BENCH_COMM_REAL to a real program's command line)"
	exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
one() {	# one LABEL CMD...: RUNS runs of sonde comm, a line each
	local label=$1 i
	shift
	for i in $(seq "$runs"); do
		# shellcheck disable=SC2086 (the options split as on a command line)
		if ! "$B/sonde" comm -q ${BENCH_COMM_OPTS:-} -o "$work/$label-$i" -- "$@" >/dev/null \
			2>"$work/err"; then
			echo "  $label run $i: sonde comm failed: $(head -c 200 "$work/err")"
			continue
		fi
		awk -F, -v l="$label" -v i="$i" 'NR > 1 { t += $3; tr += $4; if ($4 > 0) o = o sprintf(" %s (%s true)", $1, $4) }
			END { printf "  %s run %d: communication %d, true sharing %d; objects with true sharing:%s\n",
				l, i, t, tr, (o == "" ? " none" : o) }' "$work/$label-$i/comm/objects.csv"
		db=$work/$label-$i/profile.db
		if [ -n "$(sqlite3 "$db" "SELECT value FROM meta WHERE key = 'compare_period'")" ]; then
			sqlite3 -separator ' ' "$db" "SELECT key, value FROM meta WHERE key IN
				('total_all', 'total_false', 'sampled_total_all', 'sampled_total_false',
				 'sampled_total_false_covered')" |
				awk '{ v[$1] = $2 } END { sa = v["sampled_total_all"]
					printf "    false sharing: exact %.1f%%, sampled %.1f%% by the bytes, %.1f%% counting the writers\047 bytes (%d and %d transfers)\n",
					v["total_all"] ? 100 * v["total_false"] / v["total_all"] : 0,
					sa ? 100 * v["sampled_total_false"] / sa : 0,
					sa ? 100 * (v["sampled_total_false"] - v["sampled_total_false_covered"]) / sa : 0,
					v["total_all"], sa }'
		fi
	done
}
echo "bench-comm-real: $BENCH_COMM_REAL ($(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset} OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-unset})"
read -r -a cmd <<<"$BENCH_COMM_REAL"
one before "${cmd[@]}"
if [ -n "${BENCH_COMM_AFTER:-}" ]; then
	read -r -a cmd <<<"$BENCH_COMM_AFTER"
	one after "${cmd[@]}"
fi
