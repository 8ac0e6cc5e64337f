#!/usr/bin/env bash
# t201-mpi-mem-output: `mpirun -np 2 sonde mem -o DIR` puts every rank in DIR (relative
# to the ranks' working directory, created if missing) and no default directory appears;
# `sonde report DIR` merges both ranks.  A second job into the same DIR must not mix with
# the first: without --force the ranks refuse (and the old recording stays whole); with
# --force DIR holds the new job's ranks only.
. "$(dirname "$0")/lib.sh"
. "$SONDE_TOP/tests/workloads/mpi/mpi-test.sh"
mpi_setup t201-mpi

NP=2
PASSES=2000
{
	echo "mpi-memwork: rank 0 units 1 ok"
	echo "mpi-memwork: rank 1 units 2 ok"
	echo "mpi-memwork: ranks=$NP passes=$PASSES ok"
} | sort >want

# pids D: the sorted pids of the .proc files in D
pids() { ls "$1" | sed -n 's/^r[0-9]*\.\([0-9]*\)\.proc$/\1/p' | sort -n | tr '\n' ' '; }

mpi_run -np $NP "$SONDE" mem -o rec -- "$MW" $PASSES >out 2>err
rc=$?
check t201-mpi-status [ "$rc" -eq 0 ]
sort out >out.sorted
check t201-mpi-stdout cmp -s out.sorted want
[ "$rc" -eq 0 ] || sed 's/^/    | /' err | head -20
check t201-mpi-no-default-dir [ -z "$(ls -d sonde-* 2>/dev/null)" ]
check t201-mpi-procs test "$(ls rec | grep -c '^r[01]\.[0-9]*\.proc$')" -eq 2
check t201-mpi-rank0-message grep -q "^sonde: rank 0 done; recording in $PWD/rec " err
first=$(pids rec)

if "$SONDE" report rec --format csv >report.csv 2>report.err; then
	check t201-mpi-report-ranks test "$(rank_shares rec/mem/threads.csv | cut -d' ' -f1 | tr '\n' ' ')" = "0 1 "
	check t201-mpi-report-top grep -q "^alloc_work (mpi-memwork.c:$(mpi_alloc_line)),heap," \
		<(sed -n 2p rec/mem/objects.csv)
else
	fail t201-mpi-report "sonde report: $(head -c 300 report.err)"
fi

# Same DIR again, no --force: the ranks refuse, mpirun fails, nothing is replaced.
mpi_run -np $NP "$SONDE" mem -o rec -- "$MW" $PASSES >out2 2>err2
rc=$?
check t201-mpi-reuse-refused [ "$rc" -ne 0 ]
# Each rank says why on its stderr, but mpirun may drop what a rank wrote just before it
# exited non-zero when it aborts the job (seen once in CI on a loaded machine: err2 had no
# line of either rank).  So the message is checked on a rank started the way mpirun starts
# one (its environment names the job and the rank), and mpirun's stderr is shown if it
# lacks the line, for the record.
msg="^sonde: output directory 'rec' holds another recording"
grep -q "$msg" err2 || { echo "    note: mpirun's stderr lacks the ranks' message:"; sed 's/^/    | /' err2 | head -20; }
OMPI_MCA_ess_base_jobid=t201-other-job OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 \
	"$SONDE" mem -o rec -- "$MW" $PASSES >out2b 2>err2b
rc=$?
check t201-mpi-reuse-rank-refused [ "$rc" -ne 0 ]
check t201-mpi-reuse-message grep -q "$msg" err2b
check t201-mpi-reuse-rank-no-output [ ! -s out2b ]
check t201-mpi-reuse-no-output [ ! -s out2 ]
check t201-mpi-reuse-kept test "$(pids rec)" = "$first"

# With --force: the new job's two ranks, none of the old ones.
mpi_run -np $NP "$SONDE" mem --force -o rec -- "$MW" $PASSES >out3 2>err3
rc=$?
check t201-mpi-force-status [ "$rc" -eq 0 ]
second=$(pids rec)
check t201-mpi-force-two-procs [ "$(echo "$second" | wc -w)" -eq 2 ]
common=$(comm -12 <(echo "$first" | tr ' ' '\n' | sed '/^$/d') <(echo "$second" | tr ' ' '\n' | sed '/^$/d'))
check t201-mpi-force-replaced [ -z "$common" ]
check t201-mpi-force-no-old-db [ ! -e rec/profile.db ]
if "$SONDE" report rec --format csv >/dev/null 2>report3.err; then
	check t201-mpi-force-report [ "$(rank_shares rec/mem/threads.csv | wc -l)" -eq 2 ]
else
	fail t201-mpi-force-report "sonde report: $(head -c 300 report3.err)"
fi
# --html under MPI writes no page (no rank knows when the others are done) and says so,
# with the command that makes it after the job (the trial of 2026-11-28: silently none)
mpi_run -np $NP "$SONDE" mem -o rech --html page.html -- "$MW" $PASSES >out3 2>err3
check t201-html-status [ $? -eq 0 ]
check t201-html-said grep -q "^sonde: warning: --html under MPI: the page is not written .*sonde report --html page.html" err3
"$SONDE" report --html page.html rech >/dev/null 2>&1
check t201-html-after [ -s page.html ]
# the MPI library's own share (its progress engine polling in a wait) is said in a note
# from 10% of the samples, not below (the trial of 2026-11-28: 11-14% unsaid)
"$SONDE" report rec >rep4 2>&1
# (the prefixes of src/tools/mem/view.c, mpi_lib)
mpi=$(sqlite3 rec/profile.db "SELECT COALESCE(SUM(share), 0) FROM code WHERE $(for p in libmpi libopen-pal libopen-rte libpmix mca_ libmpich libfabric libucp libuct libucs libpsm; do printf "module LIKE '%%/$p%%' OR "; done) 0")
echo "MPI library share $mpi"
if awk -v m="$mpi" 'BEGIN { exit !(m >= 0.1) }'; then
	check t201-mpi-note grep -q "of the samples are accesses made by the MPI library's code" <(flat rep4)
else
	check t201-no-mpi-note bash -c '! grep -q "made by the MPI library" rep4'
fi
# the run's warnings, which no rank prints (none builds the profile), come with the report
# (the trial of 2026-11-28: untracked allocations recorded, never said); a period under
# the clock source's least is one such warning, cheap to make; -q leaves them out
mpi_run -np 1 "$SONDE" mem --period 1000 -o recp -- "$MW" 200 >/dev/null 2>errp
check t201-period-status [ $? -eq 0 ]
check t201-period-unsaid-at-run bash -c '! grep -q "is under the clock source" errp'
"$SONDE" report recp >/dev/null 2>repp.err
check t201-period-said-by-report grep -q "^sonde: warning: --period 1000 is under the clock source's least" repp.err
"$SONDE" report -q recp >/dev/null 2>repq.err
check t201-period-quiet bash -c '! grep -q "is under the clock source" repq.err'
