#!/usr/bin/env bash
# t808-variance-openmp: a parallel region (tests/workloads/variance/vomp.c: thread 0 loops
# 1 unit, thread 1 3 units, 400 rounds) is one (context, function) whatever thread runs
# it: the master calls the outlined function from GOMP_parallel, the worker from
# libgomp's thread loop, and the context starts at the outlined function in both.  So its
# row has 2 threads and a thread CV, and the per-thread instances keep the 1:3 work.
# Ratio of the per-thread lower quartiles of CPU time: 3 by construction; the bar is only
# its direction, 1.2-4.5.  Both threads are held on one CPU (taskset): each vCPU of this
# shared host runs at its own speed for seconds at a time, and a thread's CPU time counts
# its vCPU's slowness.  On two vCPUs the ratio read 4.96 once in a full suite (thread 1's
# vCPU slowed, not thread 0's), 1.76 (median) at load 6 and 1.27 beside another suite's
# benchmarks before; pinned to one CPU, one run at load 20 (2026-11-26 16:35 UTC) read
# both threads' quartiles 1.64x their usual (179 and 534 us against 109 and 326) and the
# ratio 2.98: a slowdown of that size on one thread's vCPU alone gives 4.9.  The region
# still runs in 2 threads (num_threads(2)), which is what this test is for: the row's
# merge, checked above the ratio.  Built by gcc and measured on
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
# one CPU of those this test may use
cpu=$(taskset -pc $$ 2>/dev/null | sed 's/.*: *//; s/[-,].*//')
pin=""
[ -n "$cpu" ] && pin="taskset -c $cpu"
echo "    run on CPU ${cpu:-any}"
OMP_WAIT_POLICY=passive $pin "$SONDE" variance -o omp -p 1000000 -- ./vomp 400 >out.txt 2>err.txt
check t808-run [ $? -eq 0 ]
check t808-program-output grep -q "vomp done" out.txt
F=omp/variance/functions.csv
var_verdicts t808-verdicts $F
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
# Out of the bar, two more runs and the median of the three ratios: 5.41 once beside two
# suites at load 6 (2026-11-27 04:48 UTC; 3 runs right after: within), the host's steal
# landing in thread 1's longer instances; the claim is the typical run's ratio.
if ! float_between "$r" 1.2 4.5; then
	rs=$r
	for k in 2 3; do
		rm -rf omp
		OMP_WAIT_POLICY=passive $pin "$SONDE" variance -o omp -p 1000000 -- ./vomp 400 >out$k.txt 2>err$k.txt
		check "t808-retry-$k-run" [ $? -eq 0 ]
		rs="$rs $(awk -v a="$(med 0)" -v b="$(med 1)" 'BEGIN { printf "%.2f\n", (a > 0 ? b / a : 0) }')"
	done
	r=$(printf '%s\n' $rs | sort -g | sed -n 2p)
	echo "    ratios of three runs: $rs"
fi
check "t808-thread-1-over-thread-0-quartile-$r-above-1.2" float_between "$r" 1.2 4.5
