#!/usr/bin/env bash
# t808-variance-openmp: a parallel region (tests/workloads/variance/vomp.c: thread 0 loops
# 1 unit, thread 1 3 units, 400 rounds) is one (context, function) whatever thread runs
# it: the master calls the outlined function from GOMP_parallel, the worker from
# libgomp's thread loop, and the context starts at the outlined function in both.  So its
# row has 2 threads and a thread CV, and the per-thread instances keep the 1:3 work.
# Ratio of the per-thread lower quartiles of CPU time: 3 by construction, 2.98-3.0 in
# runs at load 2-6; the bar is only its direction, 1.2-4.5: each thread runs on its own
# vCPU of a shared host, and under load one vCPU's thread got its CPU time inflated
# (steal, a busy sibling) and not the other's: median ratio 1.76 at load 6, the quartiles'
# 1.27 in a CI-clone run beside another suite's benchmarks (then with one counter shared
# by both threads, whose contention slowed thread 0's unit; each now has its own line:
# 3.18 idle).  The row's merge, which this
# test is for, is checked above.  Built by gcc and measured on
# debug registers where they trap, else by sonde-cc --sonde-calls (clang's libomp: the
# region is called from __kmp_invoke_microtask), else SKIP.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"

src=$SONDE_TOP/tests/workloads/variance/vomp.c
if "$SONDE" info 2>/dev/null | grep -q "their traps fire" &&
	gcc -O1 -g -fno-omit-frame-pointer -fopenmp "$src" -o vomp 2>build.err; then
	how="gcc, debug registers"
elif command -v clang >/dev/null &&
	"$SONDE_BUILD/sonde-cc" --sonde-calls -O1 -fopenmp "$src" -o vomp 2>build.err; then
	how="sonde-cc --sonde-calls"
else
	skip t808 "no build that can be measured here (debug registers do not trap, and sonde-cc -fopenmp failed: $(head -c 200 build.err))"
	exit 0
fi
echo "    built by $how"
OMP_WAIT_POLICY=passive "$SONDE" variance -o omp -p 1000000 -- ./vomp 400 >out.txt 2>err.txt
check t808-run [ $? -eq 0 ]
check t808-program-output grep -q "vomp done" out.txt
F=omp/variance/functions.csv
rows=$(awk -F, 'NR > 1 && $3 == "cpu-time" && $1 ~ /omp_fn|omp_outlined/' "$F" | wc -l)
check "t808-one-row-for-the-region-$rows" [ "$rows" -eq 1 ]
fn=$(awk -F, 'NR > 1 && $3 == "cpu-time" && $1 ~ /omp_fn|omp_outlined/ { print $1; exit }' "$F")
th=$(awk -F, -v f="$fn" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$1 == f && $3 == "cpu-time" { print $h["threads"] "," $h["thread_cv"]; exit }' "$F")
check "t808-region-in-2-threads-${th%%,*}" [ "${th%%,*}" = 2 ]
check "t808-region-has-a-thread-cv-${th#*,}" float_between "${th#*,}" 0.05 2
med() {	# med THREAD: lower quartile of the region's instances' CPU time in that thread
	awk -F, -v f="$fn" -v t="$1" 'NR > 1 && $1 == f && $3 == t { print $7 }' omp/variance/instances.csv |
		sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 3) / 4)] : 0 }'
}
r=$(awk -v a="$(med 0)" -v b="$(med 1)" 'BEGIN { printf "%.2f\n", (a > 0 ? b / a : 0) }')
check "t808-thread-1-over-thread-0-quartile-$r-above-1.2" float_between "$r" 1.2 4.5
