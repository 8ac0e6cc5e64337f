#!/usr/bin/env bash
# t606-vsensor-sparse: the CPU share is sampled at every slice even in a program that
# senses once in 2 s (tests/workloads/vsensor/sparse.c; CoMD senses once per print
# step).  Four spinning threads at a higher priority on rank 0's CPU in [0.5, 1.5) s
# must show in rank 0's CPU share (matrix-cpu.csv) inside that window, against the
# slices of the same 2-s period outside it.  When the share was sampled from the
# senses only, every slice of the period got one value, the window's and the rest's.
. "$(dirname "$0")/lib.sh"
. "$SONDE_TOP/tests/workloads/vsensor/vs-test.sh"
vs_setup t606-vsensor
if [ ! -r /proc/thread-self/schedstat ]; then
	skip t606-vsensor "no /proc/thread-self/schedstat: no CPU share"
	exit 0
fi
if ! vs_build sparse; then
	fail t606-vsensor-build "$(head -c 300 cc-sparse.log)"
	exit 0
fi
SONDE_DIR=$T/d SONDE_VS_SLICE_MS=100 SONDE_VS_LIVE=0 vs_run -np 2 -x SONDE_VS_SLICE_MS \
	-x SONDE_VS_LIVE -x VS_INJECT=busy:0:0.5:1.5:4 ./sparse 4 >run.out 2>run.err
check t606-vsensor-run test $? -eq 0
# rank 0's share in the window's inner slices [0.7, 1.3) and in the period's slices
# away from it, [0.1, 0.3) and [1.7, 1.9): the slices next to the window's edges are
# left out (the injector's clock starts a few ms from the runtime's)
read -r inside outside < <(python3 - "$T/d/matrix-cpu.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.reader(open(sys.argv[1])))
starts = [float(x) for x in rows[0][1:]]
r0 = next(r for r in rows[1:] if r[0] == "0")
def med(lo, hi):
    v = [float(c) for s, c in zip(starts, r0[1:]) if lo <= s + 1e-9 < hi and c != ""]
    return statistics.median(v) if v else float("nan")
print(med(0.7, 1.3), statistics.median([x for x in (med(0.1, 0.3), med(1.7, 1.9)) if x == x] or [float("nan")]))
PY
)
# 4 threads at 5 nice levels above the rank leave it a fifth of its CPU or less; a half
# is the bar: the machine's other load moves the share by less than 2x within 2 s
if awk -v i="$inside" -v o="$outside" 'BEGIN { exit !(i == i && o == o && i < 0.5 * o) }'; then
	pass "t606-vsensor-share-in-window ($inside vs $outside)"
else
	fail t606-vsensor-share-in-window "rank 0's CPU share $inside inside the window, $outside outside"
fi
