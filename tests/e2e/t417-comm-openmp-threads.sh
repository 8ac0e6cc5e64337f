#!/usr/bin/env bash
# t417-comm-openmp-threads: the report's OpenMP thread numbers (issue 8: "the report also
# shows OS tids and OpenMP thread numbers where known").  omp-helper
# (tests/workloads/comm/omp-helper.c) starts a helper thread before its first region, so
# creation order (main 0, helper 1, worker 2) and OpenMP numbers differ; it prints each
# OpenMP thread's tid and number and the helper's tid.  Built by gcc (libgomp: the
# numbers read at samples inside a top-level region, src/rt/omp.c) and by clang (LLVM's
# libomp: said by OMPT at each thread's implicit task, src/rt/ompt.c).  Checked in
# threads.csv: each OpenMP thread's row (by tid) holds its number, the helper's none; the
# terminal report's threads line and the HTML page's Threads table say it; mem's
# threads.csv has the worker's.  gcc: 2000 rounds (~0.5 s of each thread's CPU
# time: ~100 samples a thread at the 4 ms tick, where one inside the region is enough).
. "$(dirname "$0")/lib.sh"

src=$SONDE_TOP/tests/workloads/comm/omp-helper.c
col() { awk -F, -v tid="$2" -v c="$3" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$h["tid"] == tid { print $h[c]; exit }' "$1/comm/threads.csv"; }
# numbers TAG DIR OUT ERR: the OpenMP threads' numbers and the helper's none, against OUT
numbers() {
	local tag=$1 d=$2 o=$3 e=$4 t tid got num htid hnum hgot w wnum
	check "$tag-csv-has-omp-column" grep -q '^thread,rank,pid,thread_in_process,tid,omp_thread$' "$d/comm/threads.csv"
	# no MPI: the rank column is empty, not -1 (until 2026-11-28)
	check "$tag-csv-rank-empty" awk -F, 'NR > 1 { n++; if ($2 != "") bad++ } END { exit !(n && !bad) }' "$d/comm/threads.csv"
	for t in 0 1; do
		tid=$(awk -v t=$t '$1 == "omp-helper" && $2 == "omp" && $3 == t { print $5 }' "$o")
		got=$(col "$d" "${tid:-none}" omp_thread) num=$(col "$d" "${tid:-none}" thread)
		echo "    $tag: OpenMP thread $t: tid ${tid:-?}, sonde thread ${num:-?}, omp_thread '${got}'"
		check "$tag-omp-$t-tid-${tid:-none}-read-as-${got:-none}" [ -n "$tid" -a "$got" = "$t" ]
	done
	htid=$(awk '$1 == "omp-helper" && $2 == "helper" { print $4 }' "$o")
	hnum=$(col "$d" "${htid:-none}" thread) hgot=$(col "$d" "${htid:-none}" omp_thread)
	check "$tag-helper-thread-${hnum:-none}-has-no-omp-number-'$hgot'" [ -n "$hnum" -a -z "$hgot" ]
	w=$(awk '$1 == "omp-helper" && $2 == "omp" && $3 == 1 { print $5 }' "$o")
	wnum=$(col "$d" "${w:-none}" thread)
	# the line may wrap (long tids): its lines joined
	sed -n '/threads (number: tid, OpenMP thread where known):/,/^  [a-z]/p' "$e" | tr -s ' \n' ' ' >line.txt
	check "$tag-report-line-$wnum-omp-1" grep -q "threads (number: tid, OpenMP thread where known):.* $wnum: $w omp 1" line.txt
	"$SONDE" report "$d" --html "$d.html" >/dev/null 2>&1
	check "$tag-html-threads-row-$w-omp-1" grep -q "<td>$w</td><td>1</td></tr>" "$d.html"
}

if gcc -O1 -g -fopenmp "$src" -o oh-gcc 2>build.err; then
	OMP_WAIT_POLICY=passive "$SONDE" comm --source clock -o rec -- ./oh-gcc 2000 >out.txt 2>err.txt
	check t417-gcc-run [ $? -eq 0 ]
	numbers t417-gcc rec out.txt err.txt
	# the same numbers in mem's threads.csv (and variance's: t823)
	OMP_WAIT_POLICY=passive "$SONDE" mem -q -o mrec -- ./oh-gcc 1000 >mout.txt 2>merr.txt
	check t417-mem-run [ $? -eq 0 ]
	w=$(awk '$1 == "omp-helper" && $2 == "omp" && $3 == 1 { print $5 }' mout.txt)
	got=$(awk -F, -v tid="${w:-none}" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$h["tid"] == tid { print $h["omp_thread"]; exit }' mrec/mem/threads.csv)
	check "t417-mem-worker-${w:-none}-omp-${got:-none}" [ -n "$w" -a "$got" = 1 ]
else
	skip t417-gcc "gcc -fopenmp could not build omp-helper.c: $(head -c 200 build.err)"
fi
if command -v clang >/dev/null && clang -O1 -g -fopenmp "$src" -o oh-clang 2>build2.err; then
	OMP_WAIT_POLICY=passive "$SONDE" comm --source clock -o rec2 -- ./oh-clang 500 >out2.txt 2>err2.txt
	check t417-libomp-run [ $? -eq 0 ]
	numbers t417-libomp rec2 out2.txt err2.txt
	# nested teams of threads of their own: no number for those, the top-level ones
	# right (review, 2026-11-27: a thread serving only a nested team read its nested
	# number under libomp)
	OMP_MAX_ACTIVE_LEVELS=2 OMP_WAIT_POLICY=passive "$SONDE" comm --source clock -o rec3 -- \
		./oh-clang 200 nest >out3.txt 2>err3.txt
	check t417-libomp-nest-run [ $? -eq 0 ]
	numbers t417-libomp-nest rec3 out3.txt err3.txt
	n=0
	for tid in $(awk '$1 == "omp-helper" && $2 == "nested" { print $4 }' out3.txt); do
		n=$((n + 1))
		got=$(col rec3 "$tid" omp_thread)
		check "t417-libomp-nested-thread-$tid-no-number-'$got'" [ -z "$got" ]
	done
	check "t417-libomp-nested-threads-$n" [ "$n" -ge 1 ]
else
	skip t417-libomp "clang -fopenmp could not build omp-helper.c"
fi
