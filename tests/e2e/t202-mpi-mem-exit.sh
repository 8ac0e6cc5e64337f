#!/usr/bin/env bash
# t202-mpi-mem-exit: a failing rank fails the job under sonde exactly as without it.
#  - rank 1 exits 3 after MPI_Finalize: mpirun's status is the same with and without sonde
#    (3 with Open MPI), and both ranks' profiles are complete.
#  - rank 1 calls MPI_Abort(4) while rank 0 works: same status as without sonde (4); Open
#    MPI sends SIGTERM to every rank's process group, then SIGKILL as soon as one of them
#    ends; sonde outlives the SIGTERM until its program has written its profile, so rank
#    0's recording ends "by signal 15" and the report still reads it; no process is left.
. "$(dirname "$0")/lib.sh"
. "$SONDE_TOP/tests/workloads/mpi/mpi-test.sh"
mpi_setup t202-mpi

NP=2
PASSES=2000

# --- a rank exits non-zero ---
mpi_run -np $NP "$MW" $PASSES exit 1 >plain.out 2>plain.err
want=$?
mpi_run -np $NP "$SONDE" mem -o rec -- "$MW" $PASSES exit 1 >out 2>err
rc=$?
check t202-mpi-exit-plain-fails [ "$want" -ne 0 ]
check t202-mpi-exit-status [ "$rc" -eq "$want" ]
sort plain.out >plain.sorted
sort out >out.sorted
check t202-mpi-exit-stdout cmp -s out.sorted plain.sorted
for r in 0 1; do
	f=$(ls rec/r$r.*.proc 2>/dev/null | head -1)
	check t202-mpi-exit-proc-r$r test "${f:+$(proc_get "$f" end)}" = exit
done
check t202-mpi-exit-report "$SONDE" report rec --format csv -q >/dev/null

# --- a rank aborts the job ---
mpi_run -np $NP "$MW" $PASSES abort 1 >plain2.out 2>plain2.err
want=$?
mpi_run -np $NP "$SONDE" mem -o rec2 -- "$MW" $PASSES abort 1 >out2 2>err2
rc=$?
check t202-mpi-abort-plain-status [ "$want" -eq 4 ]
check t202-mpi-abort-status [ "$rc" -eq "$want" ]
# The launcher has waited for every rank: none of the workload's processes is left.
check t202-mpi-abort-no-orphan [ -z "$(pgrep -f "^$MW " || true)" ]
f=$(ls rec2/r0.*.proc 2>/dev/null | head -1)
if [ -z "$f" ]; then
	fail t202-mpi-abort-proc "no rank 0 .proc in rec2: $(ls rec2 2>&1)"
else
	check t202-mpi-abort-r0-signal test "$(proc_get "$f" end) $(proc_get "$f" signo)" = "signal 15"
	check t202-mpi-abort-r0-maps [ -s "${f%.proc}.maps" ]
fi
if "$SONDE" report rec2 --format csv >report2.csv 2>report2.err; then
	# Rank 0 worked at least one unit (3/4 of it on the heap array) before the abort.
	check t202-mpi-abort-report-top grep -q "^alloc_work (mpi-memwork.c:$(mpi_alloc_line)),heap," \
		<(sed -n 2p rec2/mem/objects.csv)
else
	fail t202-mpi-abort-report "sonde report: $(head -c 300 report2.err)"
fi
