#!/usr/bin/env bash
# t819-variance-frameless-leaf: a leaf that gcc builds with no frame of its own (it needs
# no stack, so -fno-omit-frame-pointer gives it none), called from a framed driver on the
# main thread and on a second thread (tests/workloads/variance/vleaf.c).  A sample in the
# leaf finds its caller's frame first, whose callee as the code names it is the caller
# itself (main thread) or, on the second thread, the callee of sonde's own thread start;
# only the sample's PC names the leaf.  Before the mend (rt-variance.c: the function the
# sample is in as a candidate of its own) the leaf was never picked: 0 instances in every
# run (the old build, 2026-11-26 19:55 UTC: 11 picks, 0 entries, 9 missed), every pick
# on the driver, called once.
# Bars: each thread measures the leaf at least once (the build before: 0), and the run at
# least one instance per 20 samples (5 runs at load 5-7 after the mend: 17-51 instances
# for 133-199 samples, 7-26 a thread; a run whose every pick is the driver gives 0).  The
# bar was 3 a thread until a make check beside a CI clone read 2 for main (2026-11-28).  The layout is
# checked first: with a frame, the leaf is named by its frame and the test proves nothing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"

command -v objdump >/dev/null || { skip t819 "objdump is not installed (the layout is checked with it)"; exit 0; }
var_gcc_src t819 vleaf.c vleaf -O2 -g -fno-omit-frame-pointer -pthread || exit 0
objdump -d --no-show-raw-insn vleaf | awk '$2 == "<leaf>:" { on = 1; next } on && /^$/ { exit } on' >leaf.txt
check t819-layout-leaf-frameless bash -c '! grep -q "push.*%rbp" leaf.txt && grep -q "ret" leaf.txt'

"$SONDE" variance -q -o rec -- ./vleaf 3000 >out.txt 2>err.txt
check t819-run [ $? -eq 0 ]
check t819-program-ran [ "$(grep -c '^leaf 3000$' err.txt)" -eq 2 ]
T=rec/variance/threads.csv
nm=$(var_col $T leaf "main > drive > leaf" cpu-time instances)
nt=$(var_col $T leaf "thr > drive > leaf" cpu-time instances)
check "t819-main-thread-instances-${nm:-0}" [ "${nm:-0}" -ge 1 ]
check "t819-second-thread-instances-${nt:-0}" [ "${nt:-0}" -ge 1 ]
s=$(sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = 'samples'")
e=$(sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = 'entries'")
check "t819-entries-${e:-0}-per-samples-${s:-0}" [ "$((20 * ${e:-0}))" -ge "${s:-1}" ]
