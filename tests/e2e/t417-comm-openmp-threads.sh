#!/usr/bin/env bash
# t417-comm-openmp-threads: the report's OpenMP thread numbers (issue 8: "the report also
# shows OS tids and OpenMP thread numbers where known"; src/rt/omp.c reads them from
# libgomp at samples inside a top-level region).  omp-helper
# (tests/workloads/comm/omp-helper.c, gcc -fopenmp) starts a helper thread before its
# first region, so creation order (main 0, helper 1, worker 2) and OpenMP numbers differ;
# it prints each OpenMP thread's tid and number and the helper's tid.  Checked in
# threads.csv: each OpenMP thread's row (by tid) holds its number, the helper's none; the
# terminal report's threads line says it.  Built by clang (LLVM's libomp, whose numbers are
# not read: its omp_get_thread_num is not safe in a handler), no number, and the report
# says why.  2000 rounds (~0.5 s of each thread's CPU time: ~100 samples a thread at the
# 4 ms tick, where one inside the region is enough).
. "$(dirname "$0")/lib.sh"

src=$SONDE_TOP/tests/workloads/comm/omp-helper.c
gcc -O1 -g -fopenmp "$src" -o oh-gcc 2>build.err ||
	{ skip t417 "gcc -fopenmp could not build omp-helper.c: $(head -c 200 build.err)"; exit 0; }
OMP_WAIT_POLICY=passive "$SONDE" comm --source clock -o rec -- ./oh-gcc 2000 >out.txt 2>err.txt
check t417-run [ $? -eq 0 ]
csv=rec/comm/threads.csv
col() { awk -F, -v tid="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$h["tid"] == tid { print $h[c]; exit }' "$csv"; }
check t417-csv-has-omp-column grep -q '^thread,rank,pid,thread_in_process,tid,omp_thread$' "$csv"
for t in 0 1; do
	tid=$(awk -v t=$t '$1 == "omp-helper" && $2 == "omp" && $3 == t { print $5 }' out.txt)
	got=$(col "${tid:-none}" omp_thread) num=$(col "${tid:-none}" thread)
	echo "    OpenMP thread $t: tid ${tid:-?}, sonde thread ${num:-?}, omp_thread '${got}'"
	check "t417-omp-$t-tid-${tid:-none}-read-as-${got:-none}" [ -n "$tid" -a "$got" = "$t" ]
done
htid=$(awk '$1 == "omp-helper" && $2 == "helper" { print $4 }' out.txt)
hnum=$(col "${htid:-none}" thread) hgot=$(col "${htid:-none}" omp_thread)
check "t417-helper-thread-${hnum:-none}-has-no-omp-number-'$hgot'" [ -n "$hnum" -a -z "$hgot" ]
w=$(awk -v t=1 '$1 == "omp-helper" && $2 == "omp" && $3 == t { print $5 }' out.txt)
wnum=$(col "${w:-none}" thread)
check "t417-report-line-$wnum-omp-1" grep -q "threads (number: tid, OpenMP thread where known):.* $wnum: $w omp 1" err.txt

if command -v clang >/dev/null && clang -O1 -g -fopenmp "$src" -o oh-clang 2>build2.err; then
	OMP_WAIT_POLICY=passive "$SONDE" comm --source clock -o rec2 -- ./oh-clang 500 >out2.txt 2>err2.txt
	check t417-libomp-run [ $? -eq 0 ]
	n=$(awk -F, 'NR > 1 && $6 != ""' rec2/comm/threads.csv | wc -l)
	check "t417-libomp-no-number-$n" [ "$n" -eq 0 ]
	check t417-libomp-said grep -q "no OpenMP thread number known" err2.txt
else
	skip t417-libomp "clang -fopenmp could not build omp-helper.c"
fi
