#!/usr/bin/env bash
# t607-vsensor-fork: a rank that forks (tests/workloads/vsensor/fork.c, one process with
# single-rank PMPI stubs: no mpirun).  The child has no CPU-share sampler thread and is
# not the rank: its MPI_Finalize must neither join the parent's thread nor gather and
# write a report of its own into the job directory (it did: two "sonde: vsensor:"
# lines, the child's over the parent's files).
. "$(dirname "$0")/lib.sh"
if ! command -v mpicc >/dev/null; then
	skip t607-vsensor "mpicc not found"
	exit 0
fi
if [ ! -r /proc/thread-self/schedstat ]; then
	skip t607-vsensor "no /proc/thread-self/schedstat: no sampler thread"
	exit 0
fi
if ! "$SONDE" vsensor cc mpicc -O2 -o fork "$SONDE_TOP/tests/workloads/vsensor/fork.c" >cc.log 2>&1; then
	fail t607-vsensor-build "$(head -c 300 cc.log)"
	exit 0
fi
SONDE_DIR=$T/d SONDE_VS_LIVE=0 timeout 60 ./fork >run.out 2>run.err
check t607-vsensor-run test $? -eq 0
# the child's alarm (10 s) kills it if its MPI_Finalize waits for a thread it has not
check t607-vsensor-child-exit grep -qx "child exit 7" run.out
check t607-vsensor-one-report test "$(grep -c '^sonde: vsensor:' run.err)" -eq 1
check t607-vsensor-report-files test -s "$T/d/sensors.csv"
# stopping the sampler: a flag and an eventfd wake it from its wait for the next slice
# boundary (60 s away here); MPI_Finalize must not wait for that boundary.  10 s: the
# program computes for well under 1 s, the rest is margin for a loaded machine
s0=$(date +%s)
SONDE_DIR=$T/d2 SONDE_VS_SLICE_MS=60000 SONDE_VS_LIVE=0 timeout 60 ./fork >run2.out 2>run2.err
check t607-vsensor-stop-run test $? -eq 0
check t607-vsensor-stop-prompt test $(($(date +%s) - s0)) -lt 10
