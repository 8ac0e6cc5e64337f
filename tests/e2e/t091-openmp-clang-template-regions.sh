#!/usr/bin/env bash
# t091-openmp-clang-template-regions: a parallel region in a class template's member, both
# instantiations compiled and inlined in main (tests/workloads/omp-tmpl.cc): clang outlines
# each as its own ".omp_outlined..N" from the same source lines, and sonde named both after
# the first instantiation in the line table, Grid<float> (the trial of 2026-11-29, F1:
# BabelStream's double kernels read "OMPStream<float>::dot()", miniBUDE's OmpBude<8> read
# OmpBude<1>).  The forking function is now the one whose row at the pragma's line lies
# nearest the instruction that takes the outlined function's address (symbols.c,
# forking_fn): a run of either instantiation names its own.
. "$(dirname "$0")/lib.sh"
command -v clang++ >/dev/null || { skip t091 "clang++ is not installed"; exit 0; }
src=$SONDE_TOP/tests/workloads/omp-tmpl.cc
if ! clang++ -O2 -g -fopenmp "$src" -o tmpl 2>build.err; then
	skip t091 "clang++ -fopenmp failed (libomp-dev?): $(head -c 200 build.err)"
	exit 0
fi
line=$(grep -n "// the region's loop" "$src" | cut -d: -f1)
for t in double float; do
	OMP_NUM_THREADS=2 "$SONDE" mem -o $t -- ./tmpl $t 300 >/dev/null 2>$t.err
	check t091-$t-status [ $? -eq 0 ]
	# the functions of the code rows at the region's loop (of its file: a libc row at the
	# same line number, __sysconf's, came in a make check of 2026-11-30)
	sqlite3 $t/profile.db "SELECT DISTINCT function FROM code WHERE line = $line AND file LIKE '%omp-tmpl.cc'" >$t.fns
	check "t091-$t-rows ($(wc -l <$t.fns))" [ -s $t.fns ]
	check "t091-$t-named-$t ($(tr '\n' ';' <$t.fns))" [ "$(grep -cv "^Grid<$t>::scale($t) \[clone \.omp_outlined\." $t.fns)" -eq 0 ]
done
