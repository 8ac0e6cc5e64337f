#!/usr/bin/env bash
# t809-variance-openmp-libomp: vomp (tests/workloads/variance/vomp.c, 100 rounds of a
# 2-thread region: 200 calls of its outlined function) built by sonde-cc without
# --sonde-calls, so clang's libomp runs it and the debug registers measure it.  No
# function of the OpenMP runtime is picked: before, libomp's __kmp_invoke_microtask, under
# every region of every thread, took 146 of 200 armed entries (a row ranked first with
# "varies ... but 0.0% of the time") and left the region 52 instances.  Bar: 100 of the
# 200 calls (171 measured here; an entry waits up to 8 samples for its call, and a call
# that starts while the previous one is still pending is not caught).  Regions off
# (SONDE_VARIANCE_REGIONS=0): by default libomp's regions are timed through OMPT, not
# picked (t823); this test is the picks' under libomp.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"
command -v clang >/dev/null || { skip t809 "clang is not installed (sonde-cc needs it)"; exit 0; }
"$SONDE" info 2>/dev/null | grep -q "their traps fire" ||
	{ skip t809 "debug registers do not trap here (t808 covers --sonde-calls)"; exit 0; }
if ! "$SONDE_BUILD/sonde-cc" -O1 -fopenmp "$SONDE_TOP/tests/workloads/variance/vomp.c" \
	-o vomp 2>build.err; then
	skip t809 "sonde-cc -fopenmp failed (libomp-dev?): $(head -c 200 build.err)"
	exit 0
fi
SONDE_VARIANCE_REGIONS=0 OMP_WAIT_POLICY=passive "$SONDE" variance -o omp -p 1000000 -- ./vomp 100 >out.txt 2>err.txt
check t809-run [ $? -eq 0 ]
F=omp/variance/functions.csv
rt=$(awk -F, 'NR > 1 && $1 ~ /^(__kmp|GOMP_|gomp_|\[libgomp|\[libomp)/ { print $1; exit }' "$F")
check "t809-no-runtime-row${rt:+-$rt}" [ -z "$rt" ]
n=$(awk -F, 'NR > 1 && $3 == "cpu-time" && $1 == "main.omp_outlined." { print $4 }' "$F")
check "t809-region-instances-${n:-0}-of-200" [ "${n:-0}" -ge 100 ]
