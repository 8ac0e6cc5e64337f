#!/usr/bin/env bash
# t818-variance-arm-failures: arms the watch engine refused are said in the summary and in
# `sonde report` (meta arm_failures and watch_errno), with the errno's name; a run with
# none says nothing of them.  vbp holds all 4 debug registers of its thread, so every arm
# of variance is refused with ENOSPC.
# The held run samples at 1 ms (the perf cpu-clock event) for 1 s of CPU time: at the
# default 4 ms variance samples by POSIX CPU-time timers, which gave this thread 0 samples
# in 0.5 s of CPU time (so no arm, no failure) when it shared its CPU with a busy loop
# (taskset -c 0 beside `while :; do :; done`, 2026-11-26 20:36 UTC, load 2: 2 runs of 2;
# 116-125 samples with the perf event or alone); at 1 ms, 479-481 samples a 0.5 s and
# 948-960 a 1 s run there, and 0-2 refused arms in 0.5 s, 6 in 1 s.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"

var_gcc_src t818 vbp.c vbp -O1 -g -fno-omit-frame-pointer -pthread || exit 0

"$SONDE" variance -p 1000000 -o held -- ./vbp 4 1 >out.txt 2>err.txt
check t818-held-runs grep -q "vbp: 4 of its own breakpoints held" out.txt
n=$(sqlite3 held/profile.db "SELECT value FROM meta WHERE key = 'arm_failures'")
e=$(sqlite3 held/profile.db "SELECT value FROM meta WHERE key = 'watch_errno'")
check "t818-held-failures-$n" [ "${n:-0}" -gt 0 ]
check "t818-held-errno-$e" [ "$e" = 28 ]	# ENOSPC on Linux x86-64
check t818-summary-says-failures grep -q "arm failures: $n, the last ENOSPC" err.txt
"$SONDE" report held >rep.txt 2>&1
check t818-report-says-failures grep -q "arm failures: $n, the last ENOSPC" rep.txt

"$SONDE" variance -o free -- ./vbp 0 0.5 >out.txt 2>err.txt
check t818-free-runs grep -q "vbp: 0 of its own breakpoints held" out.txt
n=$(sqlite3 free/profile.db "SELECT value FROM meta WHERE key = 'arm_failures'")
check "t818-free-no-failures-$n" [ "${n:-0}" -eq 0 ]
check t818-free-summary-silent bash -c '! grep -q "arm failures" err.txt'
check t818-free-has-instances grep -q "instances of" err.txt
