#!/usr/bin/env bash
# t833-variance-region-tail-call: a region whose body tail-calls its work has its time
# share (rt-variance.c, cut_at_region): gcc -O2 makes `#pragma omp parallel { work(n); }`
# a jump to work, whose frame returns into libgomp, so the region's outlined function is on
# no sample's stack and both regions read "0.0% of the time" (the usability review of
# 2026-11-28; frame pointers did not help).  vtail (tests/workloads/variance/vtail.c):
# regions `one` (1 unit a thread) and `three` (3 units), 25% and 75% of the CPU time by
# construction.  Bars: one 10-40%, three 55-90%, together 80% or more: the rest is
# libgomp's (team start, the barrier: passive waits, as t825) and the serial loop; the
# ratio is of CPU time, which a loaded machine's cache interference moves a little.
. "$(dirname "$0")/lib.sh"
export OMP_WAIT_POLICY=passive
command -v gcc >/dev/null || { skip t833 "gcc is not installed"; exit 0; }
gcc -O2 -g -fopenmp "$SONDE_TOP/tests/workloads/variance/vtail.c" -o vtail 2>build.err ||
	{ skip t833 "gcc -fopenmp could not build vtail: $(head -c 200 build.err)"; exit 0; }
# the case under test is gcc's tail call: without it the region is on the stack (t825)
objdump -d vtail | awk '/<one._omp_fn.0>:/,/^$/' | grep -q "jmp .*<work>" ||
	{ skip t833 "this gcc does not tail-call work from the region (the case under test)"; exit 0; }
"$SONDE" variance -o v -- ./vtail >out 2>err
check t833-status [ $? -eq 0 ]
check t833-output grep -qx "vtail: 150 rounds" out
share() {
	python3 -c '
import csv, sys
print(sum(float(r["share"]) for r in csv.DictReader(open(sys.argv[1]))
	if r["function"] == sys.argv[2] and r["metric"] == "cpu-time"))' v/variance/functions.csv "$1"
}
one=$(share one._omp_fn.0)
three=$(share three._omp_fn.0)
echo "    shares: one $one, three $three (0.25 and 0.75 by construction)"
check t833-one-share float_between "$one" 0.10 0.40
check t833-three-share float_between "$three" 0.55 0.90
check t833-together awk -v a="$one" -v b="$three" 'BEGIN { exit !(a + b >= 0.80) }'
check t833-no-zero-verdict bash -c '! grep -q "but 0.0% of the time" err'
