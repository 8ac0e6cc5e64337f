#!/usr/bin/env bash
# t609-vsensor-pragma: a loop with pragmas on it (OpenMP, GCC ivdep) keeps them when cc
# wraps it in a sensor: the tick goes on a line of its own before the pragmas, a #line
# after it (the trial of 2026-11-28: AMG with -fopenmp did not compile, "for statement
# expected before '{'").  pragma.c: a `parallel for` loop, an `omp for` inside a parallel
# region, a GCC ivdep loop after a blank line, an `omp simd` pragma continued on a second
# line, a `parallel for` in an `#ifdef _OPENMP` block with a comment line after it, a loop
# under `omp single` (the tick inside its block, as before), a _Pragma.
#  - list: the three loops the master runs are sensors; the team's `omp for` loop is not,
#    said why (every thread of the team would run its tick);
#  - cc with gcc -fopenmp compiles it; the program's output is the plain build's, its
#    __LINE__ the file's; the run records the three sensors at their lines.
. "$(dirname "$0")/lib.sh"
command -v mpicc >/dev/null || { skip t609-vsensor "mpicc not found"; exit 0; }
src=$SONDE_TOP/tests/workloads/vsensor/pragma.c
cp "$src" pragma.c && cp "$SONDE_TOP/tests/workloads/vsensor/pmpi-solo.h" .
line() { grep -n "/\* $1 \*/" pragma.c | cut -d: -f1; }
"$SONDE" vsensor list pragma.c -- -fopenmp >list.txt 2>&1
check t609-list-status [ $? -eq 0 ]
for l in "parallel for" ivdep simd guarded single _Pragma; do
	check "t609-list-sensor-$l" grep -Eq "^pragma.c:$(line "$l") +main +for +compute +sensor" list.txt
done
check t609-list-team-loop grep -Eq "^pragma.c:$(line "team loop") .*an OpenMP loop its team shares \(#pragma omp for\): each thread would time it" list.txt
# list only: a parallel region's body, `omp for reduction(+ : parallel_sum)`, a macro line
cp "$SONDE_TOP/tests/workloads/vsensor/pragma-list.c" .
"$SONDE" vsensor list pragma-list.c -- -fopenmp >list2.txt 2>&1
lline() { grep -n "/\* $1 \*/" pragma-list.c | cut -d: -f1; }
check t609-list-region-body grep -Eq "^pragma-list.c:$(lline "region body") .*the body of an OpenMP parallel region: each thread would time it" list2.txt
check t609-list-team-reduction grep -Eq "^pragma-list.c:$(lline "team reduction") .*an OpenMP loop its team shares" list2.txt
check t609-list-macro grep -Eq "^pragma-list.c:$(lline macro) .*a macro stands before the loop" list2.txt
mpicc -fopenmp -O2 pragma.c -o plain || { fail t609-plain-build "mpicc -fopenmp"; exit 0; }
OMP_NUM_THREADS=2 ./plain >plain.out
"$SONDE" vsensor cc mpicc -fopenmp -O2 -g pragma.c -o vs >cc.log 2>&1
check t609-cc-status [ $? -eq 0 ]
check t609-cc-no-error bash -c '! grep -q "error" cc.log'
[ -x vs ] || exit 0
SONDE_DIR=$T/run SONDE_VS_LIVE=0 OMP_NUM_THREADS=2 ./vs >vs.out 2>vs.err
check t609-run-status [ $? -eq 0 ]
check t609-run-output cmp plain.out vs.out
check t609-line-kept grep -qx "line $(grep -n '__LINE__' pragma.c | cut -d: -f1)" vs.out
for l in "parallel for" ivdep simd guarded single _Pragma; do
	check "t609-run-sensor-$l" grep -q "^0,pragma.c:$(line "$l") main,compute," "$T/run/sensors.csv"
done
check t609-run-no-team-sensor bash -c "! grep -q 'pragma.c:$(line "team loop") ' '$T/run/sensors.csv'"
