#!/usr/bin/env bash
# t408-comm-doc-example: doc/sonde-comm.md's worked example, run as written (its "$ ..."
# command lines, with the workload path adapted), and its claims checked on the real
# output: false and true sharing both present, the false share in the range the doc gives
# from its runs (t403 says why no tighter bound holds on 2 time-shared cores), the object
# `shared`, the own-slot
# store's line as the top pair's code, and an empty matrix for the padded version.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t40-comm-lib.bash"
doc=$SONDE_TOP/doc/sonde-comm.md
command -v clang >/dev/null || { skip t408-doc "clang is not installed (sonde-cc needs it)"; exit 0; }

run_doc_example t408 "$doc" tests/workloads/comm/commbench.c

fs=$(mat_sum fs-out/comm/matrix-false-thread.csv) all=$(mat_sum fs-out/comm/matrix-all-thread.csv)
share=$(awk -v f="$fs" -v a="$all" 'BEGIN { printf "%.4f\n", a ? f / a : -1 }')
echo "false-sharing share $share"
check "t408-false-sharing-share ($share)" float_between "$share" 0.35 0.9
check t408-object-shared [ "$(sed -n 2p fs-out/comm/objects.csv | cut -d, -f1)" = shared ]
line=$(grep -n 'own slot of line 0' tests/workloads/comm/commbench.c | cut -d: -f1)
echo "top pair: $(sed -n 2p fs-out/comm/pairs.csv | cut -c1-200)"	# (for a failure's log)
check t408-code-own-slot grep -q "fs (commbench.c:$line)" <(sed -n 2p fs-out/comm/pairs.csv)
check t408-doc-line-current grep -q "line $line is \`shared\[0\].w\[me\] = i\`" "$doc"
check t408-main-empty [ "$(awk -F, 'NR == 2 { for (i = 2; i <= NF; i++) s += $i } END { print s + 0 }' fs-out/comm/matrix-all-thread.csv)" -eq 0 ]
check t408-fixed-empty [ "$(mat_sum fixed/comm/matrix-all-thread.csv)" -eq 0 ]
check t408-fixed-said grep -q 'no communication detected: the matrix is empty' err3
# the summary ends with what to do about the top object's larger kind (as the page does)
kind=$(awk -v s="$share" 'BEGIN { print (s > 0.5 ? "false" : "true") }')
flat err2 | grep -o "What to do: .\{0,120\}"	# (for a failure's log)
check "t408-what-to-do-$kind" grep -q "What to do: $kind sharing in shared" <(flat err2)
# lines.csv (the busiest cache lines, each thread's byte offsets in them, as perf c2c
# shows them): in fs mode thread t (1-4) writes word t of line 0 (`shared[0].w[me]`, byte
# 8t), false sharing, and word 0 of line 1 (`shared[1].w[0]`), true sharing
L=fs-out/comm/lines.csv
check t408-lines-header [ "$(head -1 $L)" = "line,object,total,true_sharing,false_sharing,events,offsets" ]
fl=$(awk -F, 'NR > 1 && $5 > $4 { print $7; exit }' $L)
tl=$(awk -F, 'NR > 1 && $4 > $5 { print $7; exit }' $L)
echo "false line: $fl; true line: $tl"
check t408-lines-false-offsets awk -v s="$fl" 'BEGIN { n = split(s, a, " "); if (n < 2) exit 1
	for (i = 1; i <= n; i++) { split(a[i], b, ":+"); if (b[2] != 8 * b[1]) exit 1 } }'
check t408-lines-true-offsets awk -v s="$tl" 'BEGIN { n = split(s, a, " "); if (n < 2) exit 1
	for (i = 1; i <= n; i++) { split(a[i], b, ":+"); if (b[2] != 0) exit 1 } }'
check t408-lines-object [ "$(awk -F, 'NR == 2 { print $2 }' $L)" = shared ]
check t408-lines-shown grep -q "^Top cache lines" err2
