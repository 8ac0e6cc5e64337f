#!/usr/bin/env bash
# t818-variance-arm-failures: arms the watch engine refused are said in the summary and in
# `sonde report` (meta arm_failures and watch_errno), with the errno's name; a run with
# none says nothing of them.  vbp holds all 4 debug registers of its thread, so every arm
# of variance is refused with ENOSPC.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"

var_gcc_src t818 vbp.c vbp -O1 -g -fno-omit-frame-pointer -pthread || exit 0

"$SONDE" variance -o held -- ./vbp 4 0.5 >out.txt 2>err.txt
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
