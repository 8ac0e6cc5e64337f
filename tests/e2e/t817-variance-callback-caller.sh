#!/usr/bin/env bash
# t817-variance-callback-caller: a sample that lands in a sonde-cc load/store callback
# stands for the function that called it, in the recorded path (time shares) as in the
# pick.  vptr (tests/workloads/variance/vptr.c): work() is all of the program's time and
# is called through a pointer, so it is found by the PC inside it.  Before the review
# of 2026-11-26 the sample's path began at the callback's PC, where RBP is still work's
# caller's for most of the callback's few instructions, and work's time share read
# 0.15-0.28 (0.58-0.65 the build before); the pick took the callback's return slot for
# work's, so a pick made inside a measured instance armed work's entry at once instead
# of waiting for that instance's return.  Bars: work's CPU-time share at least 0.8 (its
# share is ~1 by construction; main's loop is a few instructions a call), and at least
# 5 instances (each call is 10-30 ms: 60 calls).  The program's CPU time is the same
# whatever the load (fixed work), so the samples are too.  And the picks (profile.db's
# meta): work is picked inside its own measured instance nearly every time, so at least
# half the picks are deferred to that instance's return and at most a quarter missed
# (after the mend 59 of 61 deferred, 1 missed; before it 8 of 110 deferred, 44 missed:
# entries armed at once in the running instance, whose next call then came after its
# patience).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"

command -v clang >/dev/null || { skip t817 "clang is not installed (sonde-cc needs it)"; exit 0; }
# (built without --sonde-calls: work's instances are timed on the debug registers)
var_traps || { skip t817 "the debug registers do not trap here (work's instances are timed on them)"; exit 0; }
"$SONDE_BUILD/sonde-cc" -O1 -g "$SONDE_TOP/tests/workloads/variance/vptr.c" -o vptr 2>build.err ||
	{ fail t817-build "sonde-cc could not build vptr.c: $(head -c 200 build.err)"; exit 0; }
"$SONDE" variance -q -o r -p 1000000 -- ./vptr 60 2000000 >/dev/null 2>err.txt
check t817-run [ $? -eq 0 ]
F=r/variance/functions.csv
share=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$1 == "work" && $h["metric"] == "cpu-time" { s += $h["share"] } END { print s + 0 }' "$F")
n=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$1 == "work" && $h["metric"] == "cpu-time" { s += $h["instances"] } END { print s + 0 }' "$F")
check "t817-work-share-$share" float_between "$share" 0.8 1.0001
check "t817-work-instances-$n" [ "$n" -ge 5 ]
meta() { sqlite3 r/profile.db "SELECT value FROM meta WHERE key = '$1'" 2>/dev/null; }
picks=$(meta picks) deferred=$(meta deferred) missed=$(meta missed)
check "t817-deferred-${deferred:-none}-of-${picks:-none}" [ -n "$deferred" -a $((2 * ${deferred:-0})) -ge "${picks:-1}" ]
check "t817-missed-${missed:-none}-of-${picks:-none}" [ -n "$missed" -a $((4 * ${missed:-0})) -le "${picks:-0}" ]
