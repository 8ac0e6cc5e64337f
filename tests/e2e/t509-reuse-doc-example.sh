#!/usr/bin/env bash
# t509-reuse-doc-example: doc/sonde-reuse.md's worked example, run as written (its "$ ..."
# command lines), and its claims checked on the real output: the sampled histogram within
# S >= 0.85 of --exact (the doc's run: 0.93; the target 0.90 reported; t503 says how much
# S varies), the exact
# histogram's five phase bins holding RIBench's predicted counts, the program fitting in
# L2, and the two pairs being the lines the doc names (their text checked in rbench.c).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t50-reuse-lib.bash"
doc=$SONDE_TOP/doc/sonde-reuse.md
command -v clang >/dev/null || { skip t509-doc "clang is not installed (sonde-cc needs it)"; exit 0; }

run_doc_example t509 "$doc" tests/workloads/reuse/rbench.c

reuse_rows ri/reuse/histogram.csv reuse >sa.csv
reuse_rows ri-exact/reuse/histogram.csv reuse >ex.csv
s=$(reuse_s ex.csv sa.csv)
# The thesis's target is 0.90: S ran 0.897-0.939 over 5 runs of this example (2026-11-25,
# load 1-4), so the bar is t503's 0.85 (it says why), and the line says whether 0.90 was met.
echo "S(sampled, exact) = $s ($(awk -v s="$s" 'BEGIN { print (s >= 0.90 ? "meets" : "misses") }') the 0.90 target)"
check t509-sampled-vs-exact float_between "$s" 0.85 1
# 2 threads x 8 outer x (REP - 1) x X1 reuses per phase within the outer iteration
i=0
for x in 1000 2000 4000 8000 16000; do
	r=$(echo 50 40 40 10 3 | cut -d' ' -f$((i + 1)))
	i=$((i + 1))
	lo=$(awk -v d=$((x - 1)) 'BEGIN { b = 1; while (b * 2 <= d) b *= 2; print b }')
	got=$(awk -F, -v lo=$lo '$1 == "reuse" && $2 == lo { print $4 }' ri-exact/reuse/histogram.csv)
	# + a handful of start-up reuses (main, libc calls in instrumented code) in any bin
	check t509-exact-phase-$x float_between "$got" $((2 * 8 * (r - 1) * x)) $((2 * 8 * (r - 1) * x + 10))
done
check t509-fits-l2 grep -q "fits in the" err2
check t509-pairs [ "$(wc -l <ri/reuse/pairs.csv)" -ge 2 ]
for l in $(awk -F, 'NR > 1 { match($2, /rbench.c:[0-9]+/); print substr($2, RSTART + 9, RLENGTH - 9) }' ri/reuse/pairs.csv | sort -u); do
	code=$(sed -n "${l}p" tests/workloads/reuse/rbench.c | tr -d '\t;')
	check t509-pair-line-$l grep -qF "line $l (\`$code\`)" <(tr '\n' ' ' <"$doc" | sed 's/  */ /g')
done
# the pairs' object named by its allocation in the program, not by sonde's thread start
# (libsonde.so's thread_trampoline named it until the mend of src/tools/mem/sites.c)
obj=$(awk -F, 'NR == 2 { print $4 }' ri/reuse/pairs.csv)
ol=$(echo "$obj" | sed -n 's/.*(rbench\.c:\([0-9]*\))$/\1/p')
check "t509-object-in-program-${obj// /_}" [ -n "$ol" ]
check "t509-object-line-allocates-${ol:-none}" grep -q "alloc" <(sed -n "${ol:-0}p" tests/workloads/reuse/rbench.c)
# Where many reuses lie within a factor 2 of L1's size, the sampled summary gives L1's miss
# ratio as a range (the trial of 2026-11-28: Black-Scholes read 14.5% sampled, 0.25%
# exact); the exact run's miss ratio at this machine's L1 size must lie in it.
l1=$(reuse_meta ri-exact l1)
range=$(flat err2 | sed -n "s/.*so L1's miss ratio is uncertain, from \([0-9.]*\)% to \([0-9.]*\)%.*/\1 \2/p")
if [ -n "$range" ] && [ -n "$l1" ]; then
	ex=$(awk -F, -v b="$l1" '$1 == b { print 100 * $2 }' ri-exact/reuse/missratio.csv)
	echo "L1 ($l1 B) range $range, exact $ex%"
	check t509-l1-range-holds-exact awk -v r="$range" -v e="$ex" 'BEGIN { split(r, a, " ");
		exit !(e != "" && e + 0.05 >= a[1] && e - 0.05 <= a[2]) }'
else
	skip t509-l1-range-holds-exact "no L1 range said (L1 $l1 B): the reuses are not near its size here"
fi
