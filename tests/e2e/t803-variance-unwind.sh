#!/usr/bin/env bash
# t803-variance-unwind: frames left without a return produce no instance.  vwork jump:
# deep(3) is left by longjmp/siglongjmp from deep(0) (interposed: pending instances
# dropped), so no instance of deep may be recorded, while spin (called by deep and
# flat) and flat are.  vthrow: thrower(3) throws from thrower(0) and main catches it
# (__cxa_begin_catch interposed, and slots reused by later calls are checked): no
# instance of thrower.  vwork texit: threads end by pthread_exit inside exiter(0): no
# instance of exiter, the pending ones counted at the threads' exit.  No run may crash.
# Fixed work (VWORK_ITERS rounds), not seconds: a loaded machine slows the run but
# gives it the same CPU time, so the same number of clock samples.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"

var_build t803-build vwork.c vwork -pthread || exit 0
VWORK_ITERS=1000 "$SONDE" variance -q -o j -p 1000000 -- ./vwork jump 0 >out.txt 2>&1
check t803-jump-run [ $? -eq 0 ]
check t803-jump-output grep -q "vwork jump done" out.txt
I=j/variance/instances.csv
check "t803-no-deep-instance" [ "$(var_count $I 'f == "deep"')" -eq 0 ]
check "t803-flat-measured" [ "$(var_count $I 'f == "flat"')" -ge 3 ]
check "t803-spin-under-deep-measured" [ "$(var_count $I 'f == "spin" && c ~ /deep/')" -ge 3 ]
jumps=$(sqlite3 j/profile.db "select value from meta where key = 'jumps'" 2>/dev/null || echo 0)
check "t803-jumps-dropped-$jumps" [ "${jumps:-0}" -gt 0 ]
# spin under deep is 1 unit, under flat 5: a spin instance that spanned a jump would be
# longer than flat's (tolerance: 3x the flat mean, far above noise, far below a span of
# the 4 levels + flat).
mf=$(var_col j/variance/functions.csv spin "main > flat > spin" cpu-time mean)
long=$(var_count $I "f == \"spin\" && c ~ /deep/ && cpu > 3 * ${mf:-1e18}")
# (one such instance is allowed where the run made several jumps: a spanning instance would
# come at every jump, and one of ~200 instances can take a VM's steal spike, which the
# guest counts as the thread's CPU time: a pair of suites on this 2-core KVM read one at
# 1.14 ms against flat's spin mean of 0.34 ms, its wall time the same, 2026-11-29)
if [ "${jumps:-0}" -ge 3 ]; then
	check "t803-no-spin-spanning-a-jump-$long-of-$jumps-jumps" [ "$long" -le 1 ]
else
	check "t803-no-spin-spanning-a-jump-$long" [ "$long" -eq 0 ]
fi
# (failed once in a pair run of 2026-11-28, 1 instance; not reproduced in 11 runs after,
# where the longest spin under deep was 0.56x flat's mean: the instances are kept for the
# next look)
if [ "$long" -gt 0 ]; then
	echo "    flat's spin mean $mf; the long ones:"
	awk -F, -v m="$mf" '$1 == "spin" && $2 ~ /deep/ && $7 > 3 * m' "$I" | head -5
	cp -r j "$SONDE_BUILD/test-logs/t803-jump-recording" 2>/dev/null
fi

VWORK_ITERS=300 "$SONDE" variance -q -o te -p 1000000 -- ./vwork texit 0 >out.txt 2>&1
check t803-texit-run [ $? -eq 0 ]
check t803-texit-output grep -q "vwork texit done" out.txt
check "t803-no-exiter-instance" [ "$(var_count te/variance/instances.csv 'f == "exiter"')" -eq 0 ]
ae=$(sqlite3 te/profile.db "select value from meta where key = 'at_exit'" 2>/dev/null || echo 0)
# Pending at exit needs a selection of exiter (or its callers) in one of the 600 threads'
# last milliseconds: 24 were in one run; > 0 is the claim.
check "t803-texit-pending-dropped-$ae" [ "${ae:-0}" -gt 0 ]

var_build t803-build-cxx vthrow.cc vthrow -lstdc++ || exit 0
"$SONDE" variance -q -o x -p 1000000 -- ./vthrow 2 >out.txt 2>&1
check t803-throw-run [ $? -eq 0 ]
check t803-throw-output grep -q "vthrow caught" out.txt
I=x/variance/instances.csv
check "t803-no-thrower-instance" [ "$(var_count $I 'f ~ /^thrower/')" -eq 0 ]
check "t803-steady-measured" [ "$(var_count $I 'f ~ /^steady/')" -ge 3 ]
# --timeline takes a C++ function by its full name, as the table shows it shortened
# ("spin(...)": text_short_name), or by its name before the parameter list ("spin"); all
# three give the same instances (view.c, timeline_function)
k=0
for name in "spin(int)" "spin(...)" spin; do
	k=$((k + 1))
	"$SONDE" variance --timeline "$name" x >tl.txt 2>tl.err
	check "t803-timeline-by-'$name'" [ $? -eq 0 ]
	grep 'instances in order' tl.txt >tl-$k.txt
done
check t803-timeline-same-instances sh -c 'test -s tl-1.txt && cmp -s tl-1.txt tl-2.txt && cmp -s tl-1.txt tl-3.txt' 
"$SONDE" variance --timeline "spin(long)" x >/dev/null 2>tl.err
check t803-timeline-wrong-params-exit1 [ $? -eq 1 ]
check t803-timeline-wrong-params-said grep -q "no instance of 'spin(long)'" tl.err
# two overloads, pad(int) and pad(double): "pad" and "pad(...)" name both, so neither is
# taken and both full names are listed; each full name takes its own
for name in pad "pad(...)"; do
	"$SONDE" variance --timeline "$name" x >/dev/null 2>tl.err
	check "t803-timeline-ambiguous-'$name'-exit1" [ $? -eq 1 ]
	check "t803-timeline-ambiguous-'$name'-said" grep -q "'$name' names several functions" tl.err
	check "t803-timeline-ambiguous-'$name'-lists" \
		sh -c "grep -qx \"  'pad(int)'\" tl.err && grep -qx \"  'pad(double)'\" tl.err"
done
for name in "pad(int)" "pad(double)"; do
	"$SONDE" variance --timeline "$name" x >tl.txt 2>tl.err
	check "t803-timeline-overload-'$name'" [ $? -eq 0 ]
done
