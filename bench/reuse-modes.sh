#!/usr/bin/env bash
# bench/reuse-modes.sh - how far apart `sonde reuse`'s two modes are on RIBench with
# invalidations (t504's case: 2 threads, INV = 1000 shared stores a repetition, X1 lowered
# by INV/2), against how far apart two runs of the same mode are (doc/sonde-reuse.md,
# "Accuracy").  REUSE_MODES_RUNS runs (default 3) of `--exact` and of the sampled mode
# (`--source inst --period 4001`), in turn; prints S (1 - half the L1 distance of the
# reuse-distance histograms' bin fractions) for every pair of exact runs, of sampled runs,
# and each sampled run against each exact one, min / median / max.  Shapes: inc (20 x 5
# repetitions) or REUSE_MODES_SHAPE=dec (200,60,15,4,2); REUSE_MODES_INV (default 1000).
# REUSE_MODES_BEFORE=DIR: each sampled recording is analysed again by that build's
# `sonde report` (its derived files removed first), and S against the same exact runs is
# printed for both analyses: a change of the model measured on the same recordings, free
# of the runs' overlap (a recording whose invalidations carry no time is analysed alike
# by both).  REUSE_MODES_CMD="cmd args": that program (built with sonde-cc) in place of
# RIBench, run from REUSE_MODES_DIR (default the current directory) with
# OMP_NUM_THREADS=2 (a one-thread program's sampled runs are alike: the pairs are then not
# independent).  Never fails on numbers; fails when a run records nothing.
#   bench/reuse-modes.sh
#   REUSE_MODES_CMD=./cg.S REUSE_MODES_DIR=<NPB bin> REUSE_MODES_BEFORE=<old build> bench/reuse-modes.sh
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
from=$(pwd)
. "$top/bench/lib.sh"
SONDE_BUILD=${SONDE_BUILD:-$top/build}
SONDE=$SONDE_BUILD/sonde
bench_scratch reuse-modes
[ -n "${REUSE_MODES_CMD:-}" ] || rbench_or_skip reuse-modes rb
. "$top/tests/e2e/t50-reuse-lib.bash"
RUNS=${REUSE_MODES_RUNS:-3}
case ${REUSE_MODES_SHAPE:-inc} in
dec) reps=200,60,15,4,2 ;;
*) reps=20,20,20,20,20 ;;
esac
args="ribench -t 2 -o 8 -r $reps -x 500,1500,3500,7500,15500 -i ${REUSE_MODES_INV:-1000}"
# the program: RIBench (./rb in the scratch directory), or REUSE_MODES_CMD
prog=(./rb $args)
what="RIBench ${REUSE_MODES_SHAPE:-inc} with invalidations ($args)"
if [ -n "${REUSE_MODES_CMD:-}" ]; then
	read -r -a prog <<<"$REUSE_MODES_CMD"
	what="'$REUSE_MODES_CMD' on 2 threads"
	dir=$(cd "${REUSE_MODES_DIR:-$from}" && pwd) || exit 2
	export OMP_NUM_THREADS=2
fi
before=
if [ -n "${REUSE_MODES_BEFORE:-}" ]; then
	before=$(cd "$REUSE_MODES_BEFORE" 2>/dev/null && pwd)
	[ -x "$before/sonde" ] || { echo "bench: reuse-modes: REUSE_MODES_BEFORE=$REUSE_MODES_BEFORE: no sonde build there" >&2; exit 2; }
fi
echo "bench: reuse-modes: $what, $RUNS runs a mode, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
for k in $(seq "$RUNS"); do
	if [ -n "${REUSE_MODES_CMD:-}" ]; then
		(cd "$dir" && "$SONDE" reuse -q --exact -o "$T/ex$k" -- "${prog[@]}") >/dev/null 2>&1
		(cd "$dir" && "$SONDE" reuse -q --source inst --period 4001 -o "$T/sa$k" -- "${prog[@]}") >/dev/null 2>&1
	else
		"$SONDE" reuse -q --exact -o ex$k -- "${prog[@]}" >/dev/null 2>&1
		"$SONDE" reuse -q --source inst --period 4001 -o sa$k -- "${prog[@]}" >/dev/null 2>&1
	fi
	for d in ex$k sa$k; do
		[ -f $d/reuse/histogram.csv ] || { echo "bench: reuse-modes: run $k recorded nothing ($d): does the program run from there?" >&2; exit 1; }
	done
	reuse_rows ex$k/reuse/histogram.csv reuse >ex$k.csv
	reuse_rows sa$k/reuse/histogram.csv reuse >sa$k.csv
	if [ -n "$before" ]; then
		rm -rf sb$k && cp -r sa$k sb$k && rm -f sb$k/profile.db sb$k/reuse/*.csv
		"$before/sonde" report sb$k >/dev/null 2>&1
		reuse_rows sb$k/reuse/histogram.csv reuse >sb$k.csv
	fi
done
# S over a list of file pairs "a:b ..."; min / median / max
s_of() {
	local p
	for p in "$@"; do reuse_s "${p%%:*}" "${p#*:}"; done | min_med_max | tr -d '\n'
	echo " ($# pairs)"
}
ee="" ss="" se=""
for i in $(seq "$RUNS"); do
	for j in $(seq "$RUNS"); do
		[ "$i" -lt "$j" ] && ee="$ee ex$i.csv:ex$j.csv" && ss="$ss sa$i.csv:sa$j.csv"
		se="$se sa$i.csv:ex$j.csv"
	done
done
echo "  S, min / median / max:"
# shellcheck disable=SC2086
echo "    exact against exact:     $(s_of $ee)"
# shellcheck disable=SC2086
echo "    sampled against sampled: $(s_of $ss)"
# shellcheck disable=SC2086
echo "    sampled against exact:   $(s_of $se)"
if [ -n "$before" ]; then
	# shellcheck disable=SC2086
	echo "    the same sampled runs by $before's model, against exact: $(s_of $(echo $se | sed 's/sa\([0-9]*\)\.csv:/sb\1.csv:/g'))"
	echo "    each sampled run against the exact run made before it, this model / $before's:"
	for k in $(seq "$RUNS"); do
		echo "      run $k: $(reuse_s sa$k.csv ex$k.csv) / $(reuse_s sb$k.csv ex$k.csv)"
	done
fi
echo "  bin fractions of the first run of each mode (lo-hi: exact / sampled):"
join -t, -a1 -a2 -e 0 -o 0,1.2,2.2 \
	<(awk -F, '{ print $1 "-" $2 "," $3 }' ex1.csv | sort) \
	<(awk -F, '{ print $1 "-" $2 "," $3 }' sa1.csv | sort) |
	awk -F, -v se="$(awk -F, '{ s += $3 } END { print s }' ex1.csv)" \
		-v ss="$(awk -F, '{ s += $3 } END { print s }' sa1.csv)" \
		'{ printf "    %-14s %.3f / %.3f\n", $1, $2 / se, $3 / ss }' | sort -t- -k1,1n
