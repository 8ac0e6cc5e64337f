#!/usr/bin/env bash
# t608-vsensor-output-dir: where a run's files go, and what a run that cannot finish keeps
# (the usability review of 2026-11-28).  solo.c: one rank on pmpi-solo.h's stubs (no
# mpirun), a loop of fixed work for a given number of seconds.
#  - SONDE_DIR that cannot be made (/proc/...): one line says so at the start, one at the
#    end says nothing was recorded; the program runs as alone (its output, its status 0)
#    and no "see DIR" line (before: exit 0, "see /proc/vsdir", nothing written);
#  - SONDE_DIR holding another run's recording: kept as it was, this run's goes to DIR-2,
#    said (before: its files replaced, a 4-rank run's rank-2.rec and rank-3.rec read as
#    this 2-rank job's);
#  - a run killed (SIGKILL) after 2.5 s of 5: its rank file holds records (flushed at
#    least once a second; before, in batches of 256, 12.8 s of a simple rank), `records`
#    prints them, and `report` judges the job from the ranks' files (rank-<r>.sensors and
#    .rec: judge.h) and says so, status 0, the matrices now there (before 2026-11-28: "did
#    not reach MPI_Finalize", status 1, nothing judged); a directory without
#    rank-0.sensors (a run of before) still gets that message;
#  - judged from the files, a finished run's directory gives its runtime's files: events
#    and the CPU and core matrices byte for byte, the compute matrix within 1e-6 (the file
#    holds a record's seconds in whole microseconds, the runtime judged the float);
#  - a rank stopped 2 s, resumed, then killed: judged from its files, an event of compute
#    spans the stop;
#  - a rank stopped 2 s mid-sensor: the slices it covered hold its time, and an event;
#  - rank 0 out of memory at MPI_Finalize (`solo SECONDS oom`: every calloc from there on
#    fails): the program ends as alone (its output, status 0), one line says nothing was
#    analysed and where the rank's records are, and they are there (before: SIGSEGV in the
#    runtime's gather, status 139);
#  - report of a directory that does not exist names it; `--html` with no FILE is a usage
#    error (2); SONDE_VS_THRESHOLD and SONDE_VS_SLICE_MS that are not numbers are said
#    and the defaults used (before: no flags at all, or every cell flagged).
. "$(dirname "$0")/lib.sh"
command -v mpicc >/dev/null || { skip t608-vsensor "mpicc not found"; exit 0; }
"$SONDE" vsensor cc mpicc -O2 -o solo "$SONDE_TOP/tests/workloads/vsensor/solo.c" >cc.log 2>&1 ||
	{ fail t608-vsensor-build "$(head -c 300 cc.log)"; exit 0; }

SONDE_DIR=/proc/sonde-t608 SONDE_VS_LIVE=0 ./solo 0.3 >no.out 2>no.err
check t608-unwritable-status [ $? -eq 0 ]
check t608-unwritable-program-output grep -qx "solo: done" no.out
check t608-unwritable-said grep -q "^sonde: vsensor: cannot record into '/proc/sonde-t608' (SONDE_DIR): .*; the program runs unrecorded$" no.err
check t608-unwritable-end grep -q "^sonde: vsensor: nothing recorded: cannot record into '/proc/sonde-t608'" no.err
check t608-unwritable-no-see bash -c '! grep -q "; see " no.err'

SONDE_DIR=$T/same SONDE_VS_LIVE=0 ./solo 0.3 >/dev/null 2>first.err
check t608-first-run grep -q "see $T/same\$" first.err
# coverage.csv: solo's loop is its sensor, so its sensor timed most of the run (0.3 s;
# start-up and the last slice's rest outside), and the summary line says the share
check t608-coverage-file awk -F, 'NR == 2 && $1 == 0 && $4 > 0.5 && $4 <= 1 { ok = 1 } END { exit !ok }' "$T/same/coverage.csv"
check t608-coverage-said grep -q "sensor timing [0-9.]*% of the run" first.err
sum1=$(cat "$T"/same/* | md5sum)
SONDE_DIR=$T/same SONDE_VS_LIVE=0 ./solo 0.3 >/dev/null 2>second.err
check t608-second-moved grep -q "^sonde: vsensor: '$T/same' holds another run's recording: this job's goes to '$T/same-2'$" second.err
check t608-second-see grep -q "see $T/same-2\$" second.err
check t608-second-files [ -s "$T/same-2/matrix-compute.csv" -a -s "$T/same-2/rank-0.rec" ]
check t608-first-kept [ "$(cat "$T"/same/* | md5sum)" = "$sum1" ]

SONDE_DIR=$T/oom SONDE_VS_LIVE=0 ./solo 0.3 oom >oom.out 2>oom.err
check t608-oom-status [ $? -eq 0 ]
check t608-oom-program-output grep -qx "solo: done" oom.out
check t608-oom-said grep -q "^sonde: vsensor: out of memory gathering the ranks' records: nothing analysed; each rank's records are in $T/oom ('sonde vsensor report DIR' judges them where there is more memory)\$" oom.err
check t608-oom-records [ -s "$T/oom/rank-0.rec" ]

rm -rf k
SONDE_DIR=$T/k SONDE_VS_LIVE=0 ./solo 5 >/dev/null 2>&1 &
pid=$!
sleep 2.5
kill -KILL $pid
wait $pid 2>/dev/null
sz=$(stat -c %s "$T/k/rank-0.rec" 2>/dev/null)
check "t608-killed-records-${sz:-none}-bytes" [ "${sz:-0}" -gt 4 ]
"$SONDE" vsensor records "$T/k" >k.csv 2>k.err
check t608-killed-records-rows [ "$(($(wc -l <k.csv) - 1))" -gt 0 ]
"$SONDE" vsensor report "$T/k" >k.out 2>k.rep
check t608-killed-report-status [ $? -eq 0 ]
check t608-killed-report-says grep -q "^sonde: vsensor: '$T/k': the job did not reach MPI_Finalize .*: judged now from its ranks' files, .*: [1-9][0-9]* records, [0-9]* variance events\?; the matrices are written there\$" k.rep
check t608-killed-matrices [ -s "$T/k/matrix-compute.csv" -a -s "$T/k/events.csv" -a -s "$T/k/sensors.csv" ]
check t608-killed-heat-map grep -q "^compute" k.out
# a run of before 2026-11-28 (no rank-0.sensors): not judged, the message as it was
mkdir old && cp "$T/k/rank-0.rec" old/
"$SONDE" vsensor report "$T/old" >/dev/null 2>old.rep
check t608-old-killed-status [ $? -eq 1 ]
check t608-old-killed-says grep -q "the job did not reach MPI_Finalize .*sonde vsensor records $T/old" old.rep

# the files judged again give the runtime's own (same: the finished run above)
mkdir again && cp "$T"/same/rank-0.* again/
"$SONDE" vsensor report "$T/again" >/dev/null 2>again.rep
for f in events matrix-cpu matrix-core matrix-network matrix-io coverage; do
	check "t608-again-$f" cmp "$T/same/$f.csv" "$T/again/$f.csv"
done
check t608-again-compute awk -F, 'FNR == NR { for (i = 1; i <= NF; i++) a[FNR, i] = $i; n = FNR; next }
	{ for (i = 1; i <= NF; i++) { x = a[FNR, i]; y = $i
	  if (FNR == 1 || x == "" || y == "") { if (x != y) exit 1; continue }
	  if (x - y > 1e-6 * x || y - x > 1e-6 * x) exit 1 } m = FNR }
	END { exit !(m == n && n >= 2) }' "$T/same/matrix-compute.csv" "$T/again/matrix-compute.csv"

# a record whose slice is far past the run (a damaged byte that still decodes: slice +
# 20,000,000) is left out and said, not made the matrices' width (the code review of
# 2026-11-28: 760 MB of matrices written from a 25-byte file)
mkdir damaged && cp "$T"/same/rank-0.* damaged/
python3 -c '
import struct, sys
def varint(v):
	b = bytearray()
	while v >= 0x80:
		b.append(v & 0x7f | 0x80)
		v >>= 7
	b.append(v)
	return bytes(b)
rec = varint(2 * 20000000) + varint(0) + struct.pack("<f", 1000.0) + varint(1)
open(sys.argv[1], "ab").write(rec)' damaged/rank-0.rec
"$SONDE" vsensor report "$T/damaged" >/dev/null 2>dmg.err
check t608-damaged-status [ $? -eq 0 ]
check t608-damaged-said grep -q "1 record of a slice past the run's end left out" dmg.err
check t608-damaged-width [ "$(head -1 "$T/damaged/matrix-compute.csv" | tr ',' '\n' | wc -l)" -eq "$(head -1 "$T/same/matrix-compute.csv" | tr ',' '\n' | wc -l)" ]

# a stall: the rank stopped (SIGSTOP) 2 s in mid-sensor.  The instance's time goes to every
# slice it covered whole (records of over 1 s in at least 5 of the ~10), and an event of
# compute spans the stop (before, one slow slice where it ended, under the rule's 3 in a
# row: the trial's stopped CoMD rank was not reported)
# stopped DIR SECONDS [KILL_AFTER]: solo for SECONDS, stopped 1.5 s in for 2 s, then
# waited for, or killed (SIGKILL) KILL_AFTER seconds after it resumed.  "In": from its
# runtime's start (rank-0.sensors written at MPI_Init, 10 s at most), not from the launch,
# which a loaded machine can delay past 1.5 s (a pair of suites on 2 cores, 2026-11-29:
# no long record, no event)
stopped() {
	SONDE_DIR=$T/$1 SONDE_VS_LIVE=0 ./solo "$2" >/dev/null 2>&1 &
	local pid=$! i=0
	while [ ! -s "$T/$1/rank-0.sensors" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 1.5
	kill -STOP $pid
	sleep 2
	kill -CONT $pid
	[ -n "${3:-}" ] && sleep "$3" && kill -KILL $pid
	wait $pid 2>/dev/null
}
stopped stop 5
"$SONDE" vsensor records "$T/stop" >stop.csv 2>/dev/null
long=$(awk -F, 'NR > 1 && $4 > 1000000 { n++ } END { print n + 0 }' stop.csv)
check "t608-stall-spread-$long-slices" [ "$long" -ge 5 ]
# (an event of 1.4 s or more: the stop is 2 s, its place in the run moves with start-up)
check t608-stall-event awk -F, 'NR > 1 && $4 == "compute" && $3 - $2 >= 1.4 { ok = 1 } END { exit !ok }' "$T/stop/events.csv"
# stopped 2 s, resumed, and killed before MPI_Finalize: the event, judged from the files
stopped stopk 8 2
"$SONDE" vsensor report "$T/stopk" >stopk.out 2>stopk.rep
check t608-stopped-killed-judged grep -q "judged now from its ranks' files" stopk.rep
check t608-stopped-killed-event awk -F, 'NR > 1 && $4 == "compute" && $3 - $2 >= 1.4 { ok = 1 } END { exit !ok }' "$T/stopk/events.csv"
"$SONDE" vsensor report "$T/nodir" >/dev/null 2>nd.err
check t608-nodir-status [ $? -eq 1 ]
check t608-nodir-says grep -q "'$T/nodir': No such file or directory" nd.err
"$SONDE" vsensor report --html >/dev/null 2>h.err
check t608-html-no-file [ $? -eq 2 ]
check t608-html-no-file-says grep -q "html needs a FILE" h.err

SONDE_VS_THRESHOLD=abc SONDE_VS_SLICE_MS=x SONDE_DIR=$T/env SONDE_VS_LIVE=0 ./solo 0.3 >/dev/null 2>env.err
check t608-env-threshold grep -q "SONDE_VS_THRESHOLD='abc' is not a number in (0, 1\]: the default thresholds are used" env.err
check t608-env-slice grep -q "SONDE_VS_SLICE_MS='x' is not a number of milliseconds" env.err
check t608-env-ran [ -s "$T/env/matrix-compute.csv" ]
# score's --truth: a rank the run does not have, an end before the start, a rank that is
# not a number: usage errors (2), not "recall=1.000"
"$SONDE" vsensor score --truth compute:7:0:1 "$T/same" >/dev/null 2>s1.err
check t608-score-rank-out [ $? -eq 2 ]
check t608-score-rank-out-says grep -q "truth names rank 7, and '$T/same' has ranks 0-0" s1.err
"$SONDE" vsensor score --truth compute:0:6:3 "$T/same" >/dev/null 2>/dev/null
check t608-score-end-before-start [ $? -eq 2 ]
"$SONDE" vsensor score --truth compute:x:0:1 "$T/same" >/dev/null 2>/dev/null
check t608-score-rank-not-number [ $? -eq 2 ]
