#!/usr/bin/env bash
# t610-vsensor-silent: a rank that recorded nothing for a second or more (no sensor ran, and
# it neither ran nor waited for a CPU) is said, not left as blank cells under "no variance
# events" (the trial of 2026-11-29: a rank stopped 2 s outside its sensors read as a clean
# run).  `solo 2 nap` (tests/workloads/vsensor/solo.c): 1 s of its loop, 2 s asleep between
# the loops, 1 s more; `solo 2 spin`, stopped 2 s by SIGSTOP in a busy loop outside its
# sensors.  The nap's stretch, in 200 ms slices: 2 s, give or take the slice at either
# end (1.6-2.4 s), from 1 s after MPI_Init, give or take the same (0.6-1.4 s).
. "$(dirname "$0")/lib.sh"
command -v mpicc >/dev/null || { skip t610-vsensor "mpicc not found"; exit 0; }
"$SONDE" vsensor cc mpicc -O2 -o solo "$SONDE_TOP/tests/workloads/vsensor/solo.c" >cc.log 2>&1 ||
	{ fail t610-vsensor-build "$(head -c 300 cc.log)"; exit 0; }

SONDE_DIR=$T/nap SONDE_VS_LIVE=0 ./solo 2 nap >nap.out 2>nap.err
check t610-nap-status [ $? -eq 0 ]
check t610-nap-output grep -qx "solo: done" nap.out
check t610-nap-end-line grep -q "^sonde: vsensor: 1 rank, .*, 1 stretch ([0-9.]* s) in which a rank recorded nothing; see $T/nap\$" nap.err
row=$(awk -F, 'NR == 2' "$T/nap/silent.csv" 2>/dev/null)
echo "    silent.csv: ${row:-none}"
check t610-nap-one-row [ "$(($(wc -l <"$T/nap/silent.csv") - 1))" -eq 1 ]
IFS=, read -r rank start end secs <<<"${row:-,,,}"
check t610-nap-rank [ "$rank" = 0 ]
check t610-nap-seconds float_between "${secs:-0}" 1.6 2.4
check t610-nap-start float_between "${start:-0}" 0.6 1.4
check t610-nap-end awk -v s="${start:-0}" -v e="${end:-0}" -v w="${secs:-0}" \
	'BEGIN { d = e - s - w; exit !(d < 0.0015 && d > -0.0015) }'

"$SONDE" vsensor report "$T/nap" >rep.out 2>rep.err
check t610-report-status [ $? -eq 0 ]
check t610-report-says grep -q "1 stretch of 1.0 s or more in which a rank recorded nothing: no sensor ran, and its main thread neither ran nor waited for a CPU" <(flat rep.out)
check t610-report-rank-line grep -qE "^  rank 0: [0-9.]+ s from [0-9.]+ s$" rep.out
# -q keeps it: no rule judges such a stretch, so it is not a note on the rule
"$SONDE" vsensor report -q "$T/nap" >q.out 2>&1
check t610-report-quiet-says grep -q "in which a rank recorded nothing" <(flat q.out)
"$SONDE" vsensor report --json "$T/nap" >j.out 2>&1
check t610-report-json python3 -c '
import json, sys
d = json.load(open("j.out"))
s = d["silences"]
sys.exit(not (len(s) == 1 and s[0]["rank"] == 0 and 1.6 <= s[0]["seconds"] <= 2.4))'
"$SONDE" vsensor report --html nap.html "$T/nap" >/dev/null 2>&1
check t610-report-html grep -q "in which a rank recorded" nap.html

# judged again from the files: the same stretches
mkdir again && cp "$T"/nap/rank-0.* again/
"$SONDE" vsensor report "$T/again" >/dev/null 2>&1
check t610-again-silent cmp "$T/nap/silent.csv" "$T/again/silent.csv"

# a rank stopped (SIGSTOP) 2 s outside its sensors, in solo's 4 s spin: its sampler
# stopped with it, and the CPU share it found at SIGCONT once filled every slice of the
# stop (the code review of 2026-11-29: nothing said).  The stop, sent 0.3 s after the spin
# says it started (not at a time from the start, which a loaded machine moves): 2 s, give
# or take a slice and the signals' latency (1.4-2.6 s).  The spin itself, busy outside
# any sensor, is no silence.
SONDE_DIR=$T/stop SONDE_VS_LIVE=0 ./solo 2 spin >stop.out 2>stop.err &
pid=$!
for i in $(seq 100); do grep -q "^solo: spinning" stop.err && break; sleep 0.1; done
sleep 0.3
kill -STOP $pid
sleep 2
kill -CONT $pid
wait $pid
check t610-stop-status [ $? -eq 0 ]
rows=$(($(wc -l <"$T/stop/silent.csv" 2>/dev/null || echo 1) - 1))
row=$(awk -F, 'NR == 2' "$T/stop/silent.csv" 2>/dev/null)
echo "    stopped: silent.csv ${row:-none} ($rows rows)"
check t610-stop-one-row [ "$rows" -eq 1 ]
IFS=, read -r rank start end secs <<<"${row:-,,,}"
check t610-stop-seconds float_between "${secs:-0}" 1.4 2.6

# slices of 5 ms (under the CPU share's 10 ms floor, which left a busy rank with no record
# at all: 2 stretches of 3.5 s said, the code review): the spin is no silence
SONDE_DIR=$T/fine SONDE_VS_SLICE_MS=5 SONDE_VS_LIVE=0 ./solo 1 spin >/dev/null 2>fine.err
check t610-fine-slices-no-row [ "$(wc -l <"$T/fine/silent.csv" 2>/dev/null)" = 1 ]

# a run without a nap: the file's header alone, nothing said
SONDE_DIR=$T/plain SONDE_VS_LIVE=0 ./solo 1.5 >/dev/null 2>plain.err
check t610-plain-no-row [ "$(wc -l <"$T/plain/silent.csv" 2>/dev/null)" = 1 ]
check t610-plain-end-line bash -c '! grep -q "recorded nothing" plain.err'
"$SONDE" vsensor report "$T/plain" >plain.out 2>&1
check t610-plain-unsaid bash -c '! grep -q "recorded nothing" plain.out'
"$SONDE" vsensor report --json "$T/plain" >pj.out 2>&1
check t610-plain-json python3 -c 'import json, sys; sys.exit(json.load(open("pj.out"))["silences"] != [])'
