#!/usr/bin/env bash
# t514-reuse-many-pairs: --exact aggregates each thread's code pairs in memory and writes
# them once, at the thread's end, even when the loop has more hot pairs than fit a slot
# each in a direct-mapped table.  manypairs: 63 pairs by construction, each reused exactly
# N - 1 times.  Before, 32 direct-mapped slots flushed a 424-byte PAIR record on almost
# every reuse: 445 MiB for N = 20000 (1.3 M accesses), 13 GB for 0.5 s of CoMD, which
# filled the disk on a longer program.  Bar: the recording under 1 MiB (the pairs once,
# 424 bytes each, plus the thread's counters: ~30 KiB).
. "$(dirname "$0")/lib.sh"
command -v clang >/dev/null || { skip t514 "clang is not installed (sonde-cc needs it)"; exit 0; }
"$SONDE_BUILD/sonde-cc" -O2 -g "$SONDE_TOP/tests/workloads/reuse/manypairs.c" -o mp ||
	{ fail t514-build "sonde-cc could not build manypairs"; exit 0; }
N=5000

"$SONDE" reuse -q --exact -o rec -- ./mp $N >out 2>err
check t514-status [ $? -eq 0 ]
check t514-output grep -q "^manypairs: 0$" out
bytes=$(cat rec/*.sdt | wc -c)
check "t514-recording-small-$bytes" [ "$bytes" -lt $((1 << 20)) ]
# the top pairs (pairs.csv keeps 50 of the 63) each have exactly N - 1 reuses
n=$(awk -F, -v want=$((N - 1)) 'NR > 1 && $5 == want' rec/reuse/pairs.csv | wc -l)
check "t514-pairs-exact-$n-of-50" [ "$n" -eq 50 ]
