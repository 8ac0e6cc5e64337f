#!/usr/bin/env bash
# bench/reuse-outcomes.sh - where `sonde reuse`'s sampled estimate errs, outcome by outcome:
# one `--check-sampling` run of a program (period REUSE_OUTCOMES_PERIOD, default 4001, 2
# threads, seed REUSE_OUTCOMES_SEED, default 1), then from its reuse/outcomes.csv
# (doc/sonde-reuse.md, "Output"): for each estimator, the share of the reuses it took
# (by weight), their log2 error (mean |log2((estimate + 1) / (exact + 1))|) and the share
# it put in another bin than the exact distance's; then the cells of (time distance,
# exact distance, estimate) bins with the most weight in a wrong bin.  Never fails on
# numbers.
#   bench/reuse-outcomes.sh -- ./cg.S
#   REUSE_OUTCOMES_DIR=<recording made by --check-sampling> bench/reuse-outcomes.sh
# make bench: on demand (it reads a program, or a --check-sampling recording; make bench leaves it out)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
SONDE_BUILD=${SONDE_BUILD:-$top/build}
SONDE=$SONDE_BUILD/sonde
dir=${REUSE_OUTCOMES_DIR:-}
if [ -z "$dir" ]; then
	[ "${1:-}" = -- ] && shift
	[ $# -gt 0 ] || { echo "usage: bench/reuse-outcomes.sh -- program [args]  (or REUSE_OUTCOMES_DIR=DIR)" >&2; exit 2; }
	dir=$(mktemp -d "${TMPDIR:-/tmp}/sonde-reuse-outcomes.XXXXXX")
	trap 'rm -rf "$dir"' EXIT
	rmdir "$dir"
	OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} "$SONDE" reuse -q --check-sampling \
		--period "${REUSE_OUTCOMES_PERIOD:-4001}" --seed "${REUSE_OUTCOMES_SEED:-1}" \
		-o "$dir" -- "$@" >/dev/null 2>&1 || { echo "bench: reuse-outcomes: the run failed" >&2; exit 1; }
fi
o=$dir/reuse/outcomes.csv
[ -f "$o" ] || { echo "bench: reuse-outcomes: no $o (a --check-sampling recording of a build since 2026-11-27?)" >&2; exit 1; }
echo "bench: reuse-outcomes: ${*:-$dir}, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  check S $(sqlite3 "$dir/profile.db" "SELECT value FROM meta WHERE key = 'check_s'"), log2 error $(sqlite3 "$dir/profile.db" "SELECT value FROM meta WHERE key = 'check_log_error'")"
awk -F, '
function bin(x) { x = int(x + 0.5); return x <= 0 ? 0 : int(log(x) / log(2) + 1e-9) + 1 }
NR > 1 && $3 == "reuse" && $8 != "" && $9 != "" {
	w = $5; all += w; e = $10
	d = log(($9 + 1) / ($8 + 1)) / log(2); if (d < 0) d = -d
	W[e] += w; E[e] += w * d
	wrong = bin($9) != bin($8)
	if (wrong) { X[e] += w; cell[bin($4) " " bin($8) " " bin($9)] += w }
}
END {
	printf "  %-8s %8s %10s %10s\n", "estimator", "share", "log2 err", "wrong bin"
	for (e in W) printf "  %-8s %8.3f %10.3f %10.3f\n", e, W[e] / all, E[e] / W[e], X[e] / W[e]
	print "  most weight in a wrong bin (bins are log2: b covers [2^(b-1), 2^b)), share of all reuses:"
	for (c in cell) printf "%.4f %s\n", cell[c] / all, c | "sort -gr | head -8 | awk \"{ printf \\\"    time bin %2d, exact bin %2d, estimate bin %2d: %.3f\\\\n\\\", \\$2, \\$3, \\$4, \\$1 }\""
}' "$o"
