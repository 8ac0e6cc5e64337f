#!/usr/bin/env bash
# t044-mem-openmp-clang-names: clang names a parallel region's outlined function
# ".omp_outlined." and its inlined body ".omp_outlined._debug__" (numbered per file), which
# says nothing of whose region it is: on CoMD built with sonde-cc every hot row of
# `sonde mem --source inst` read ".omp_outlined._debug__.2".  sonde names it after the
# function of the same file declared last before the region's line, as GCC's
# "main._omp_fn.0" does: vomp.c's only region is in main, so its accesses (all of the
# program's instrumented ones) are "main.omp_outlined." at vomp.c:30: the body is named as
# its wrapper, the function the OpenMP runtime calls and `sonde variance` times (the body
# read "main.omp_outlined._debug__" before 2026-11-28: one region, two names across tools).
. "$(dirname "$0")/lib.sh"
command -v clang >/dev/null || { skip t044 "clang is not installed (sonde-cc needs it)"; exit 0; }
if ! "$SONDE_BUILD/sonde-cc" -O1 -fopenmp "$SONDE_TOP/tests/workloads/variance/vomp.c" \
	-o vomp 2>build.err; then
	skip t044 "sonde-cc -fopenmp failed (libomp-dev?): $(head -c 200 build.err)"
	exit 0
fi
"$SONDE" mem -s inst -o rec -- ./vomp 5 >/dev/null 2>err.txt
check t044-run [ $? -eq 0 ]
fn=$(awk -F, 'NR == 2 { print $1 }' rec/mem/code.csv)
line=$(awk -F, 'NR == 2 { print $3 }' rec/mem/code.csv)
check "t044-top-function-$fn" [ "$fn" = main.omp_outlined. ]
check "t044-top-line-$line" [ "$line" = 30 ]
check t044-no-bare-outlined-name [ -z "$(awk -F, 'NR > 1 && $1 ~ /^\.omp_outlined/' rec/mem/code.csv)" ]
