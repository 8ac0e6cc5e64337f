#!/usr/bin/env bash
# bench/reuse-check.sh - how close `sonde reuse`'s sampled estimate comes to the exact
# histogram of the same run (`sonde reuse --check-sampling`: the sampled mode runs inside
# --exact, on the same accesses, so the two runs' different thread interleavings are out of
# the comparison; doc/sonde-reuse.md, "Accuracy").  REUSE_CHECK_RUNS runs (default 3) of
# each RIBench shape on 2 threads, with invalidations (INV 1000 shared stores a repetition)
# and the increasing shape without, and rbench's random loads of 64 words (reuses far
# shorter than the period); the sampling period is REUSE_CHECK_PERIOD (default
# 4001).  Prints for each shape S of the estimate (model) and S of the sampled reuses at
# their exact distances (sample), min / median / max, the mean |log2((estimate + 1) /
# (exact + 1))| of the estimated reuses (meta check_log_error: how far each reuse's own
# estimate lies from its exact distance, bins aside), and the check's CPU time (user +
# sys) against a plain --exact run made right after each.  REUSE_CHECK_BEFORE=DIR: the same
# recordings are modelled again by that build (a build with --check-sampling) and its S
# printed beside: a change of the model measured on the same outcomes.
# REUSE_CHECK_CMD="cmd args": a program built with sonde-cc is run as well (from
# REUSE_CHECK_DIR, default the current directory), with OMP_NUM_THREADS=2;
# REUSE_CHECK_RIBENCH=0 runs it alone.  REUSE_CHECK_SLOTS=N: --slots N (default the
# tool's).  Never fails on
# numbers.
#   bench/reuse-check.sh
#   REUSE_CHECK_BEFORE=/tmp/old/build REUSE_CHECK_CMD="bin/CoMD-openmp -x 12 -y 12 -z 12 \
#     -N 20 -n 5" REUSE_CHECK_DIR=/path/to/CoMD bench/reuse-check.sh
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
from=$(pwd)
. "$top/bench/lib.sh"
SONDE_BUILD=${SONDE_BUILD:-$top/build}
SONDE=$SONDE_BUILD/sonde
bench_scratch reuse-check
command -v sqlite3 >/dev/null || { echo "bench: reuse-check skipped: sqlite3 is not installed"; exit 0; }
rbench_or_skip reuse-check rb
. "$top/tests/e2e/t50-reuse-lib.bash"	# reuse_meta
RUNS=${REUSE_CHECK_RUNS:-3}
PERIOD=${REUSE_CHECK_PERIOD:-4001}
slots=()
[ -n "${REUSE_CHECK_SLOTS:-}" ] && slots=(--slots "$REUSE_CHECK_SLOTS")
before=
if [ -n "${REUSE_CHECK_BEFORE:-}" ]; then
	before=$(cd "$REUSE_CHECK_BEFORE" 2>/dev/null && pwd)
	[ -x "$before/sonde" ] || { echo "bench: reuse-check: REUSE_CHECK_BEFORE=$REUSE_CHECK_BEFORE: no sonde build there" >&2; exit 2; }
fi
what="RIBench on 2 threads"
[ "${REUSE_CHECK_RIBENCH:-1}" = 0 ] && what="'${REUSE_CHECK_CMD:-}' on 2 threads"
[ "${REUSE_CHECK_RIBENCH:-1}" != 0 ] && [ -n "${REUSE_CHECK_CMD:-}" ] && what="$what, and '$REUSE_CHECK_CMD'"
echo "bench: reuse-check: $what, $RUNS runs a shape, period $PERIOD${REUSE_CHECK_SLOTS:+, --slots $REUSE_CHECK_SLOTS}, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
# one shape: NAME then the command; RUNS recordings, then the figures
shape() {
	local name=$1 k now='' old='' drawn='' cpu='' pair='' err='' olderr=''
	shift
	for k in $(seq "$RUNS"); do
		rm -rf "${T:?}/$name$k"
		bench_time "$T/ct" "$SONDE" reuse -q --check-sampling --period "$PERIOD" "${slots[@]}" \
			-o "$T/$name$k" -- "$@" 2>/dev/null
		# its CPU time against a plain --exact run's, made next (the same work but the check)
		rm -rf "${T:?}/ex$name$k"
		bench_time "$T/et" "$SONDE" reuse -q --exact -o "$T/ex$name$k" -- "$@" 2>/dev/null
		cpu="$cpu $(awk 'NR == FNR { c = $2 + $3; next } { e = $2 + $3 } END { if (e > 0) printf "%.3f", c / e }' "$T/ct" "$T/et")"
		rm -rf "${T:?}/ex$name$k"
		[ -f "$T/$name$k/profile.db" ] || { echo "  $name: run $k recorded nothing"; continue; }
		now="$now $(reuse_meta "$T/$name$k" check_s)"
		drawn="$drawn $(reuse_meta "$T/$name$k" check_s_sample)"
		err="$err $(reuse_meta "$T/$name$k" check_log_error)"
		if [ -n "$before" ]; then
			rm -rf "$T/b$name$k" && cp -r "$T/$name$k" "$T/b$name$k" &&
				rm -f "$T/b$name$k/profile.db" "$T/b$name$k"/reuse/*.csv
			"$before/sonde" report "$T/b$name$k" >/dev/null 2>&1
			old="$old $(reuse_meta "$T/b$name$k" check_s)"
			olderr="$olderr $(reuse_meta "$T/b$name$k" check_log_error)"
			pair="$pair $(reuse_meta "$T/$name$k" check_s):$(reuse_meta "$T/b$name$k" check_s)"
		fi
	done
	# shellcheck disable=SC2086
	printf '  %-10s model %s   sample %s' "$name" "$(printf '%s\n' $now | min_med_max)" \
		"$(printf '%s\n' $drawn | min_med_max)"
	# shellcheck disable=SC2086
	printf '   log2 error %s' "$(printf '%s\n' $err | min_med_max)"
	# shellcheck disable=SC2086
	printf '   CPU against --exact %s' "$(printf '%s\n' $cpu | min_med_max)"
	# shellcheck disable=SC2086
	[ -n "$before" ] && printf '   model by %s: %s' "$before" "$(printf '%s\n' $old | min_med_max)"
	# shellcheck disable=SC2086
	[ -n "$before" ] && [ -n "${olderr// /}" ] && printf ', log2 error %s' "$(printf '%s\n' $olderr | min_med_max)"
	# paired, run by run: this model's S less the other's, mean, and how many runs gained
	# shellcheck disable=SC2086
	[ -n "$before" ] && printf '   paired: %s' "$(printf '%s\n' $pair | awk -F: '
		$1 != "" && $1 != "-" && $2 != "" && $2 != "-" { d += $1 - $2; n++; up += $1 > $2 }
		END { if (n) printf "%+.4f, %d of %d higher", d / n, up, n; else print "-" }')"
	echo
}
echo "  S against --exact of the same run, min / median / max (model: the estimate; sample: the sampled reuses at their exact distances)"
x=(-x "500,1500,3500,7500,15500")
if [ "${REUSE_CHECK_RIBENCH:-1}" != 0 ]; then
	shape inc ./rb ribench -t 2 -o 8 "${x[@]}" -r 20,20,20,20,20 -i 1000
	shape dec ./rb ribench -t 2 -o 8 "${x[@]}" -r 200,60,15,4,2 -i 1000
	shape bell ./rb ribench -t 2 -o 8 "${x[@]}" -r 50,40,40,10,3 -i 1000
	shape multi ./rb ribench -t 2 -o 8 "${x[@]}" -r 100,30,24,8,7 -i 1000
	shape inc-noinv ./rb ribench -t 2 -o 8 "${x[@]}" -r 20,20,20,20,20 -i 0
	shape random ./rb random 64 2000000
fi
if [ -n "${REUSE_CHECK_CMD:-}" ]; then
	cd "${REUSE_CHECK_DIR:-$from}" || exit 1
	# shellcheck disable=SC2086
	OMP_NUM_THREADS=2 shape program $REUSE_CHECK_CMD
fi
