#!/usr/bin/env bash
# t834-variance-unmeasured: a function that holds much of the time in a few long calls is
# picked at a sample in one call and then waits for a next call that comes too late: it
# has no instance and so no row, and the report named it nowhere (the trial of
# 2026-11-29: miniMD's Neighbor::build, 14% of the time in ~10 calls a rank).  Now a "not
# measured" line names it with its share (model.c, unmeasured_text).  vcalls rare
# (tests/workloads/variance/vcalls.c): rare, 2 calls of ~0.5 s, most of the time; often,
# 40000 calls of ~15 us, measured.  A hook build (--sonde-calls-only): instances are timed
# where the debug registers do not trap too.
. "$(dirname "$0")/lib.sh"
command -v clang >/dev/null || { skip t834 "clang is not installed (sonde-cc needs it)"; exit 0; }
"$SONDE_BUILD/sonde-cc" --sonde-calls-only -O2 -g "$SONDE_TOP/tests/workloads/variance/vcalls.c" \
	-o vcalls 2>build.err || { fail t834-build "sonde-cc: $(head -c 200 build.err)"; exit 0; }
"$SONDE" variance -o v -- ./vcalls rare 2 >out 2>err
check t834-status [ $? -eq 0 ]
flat err >err.flat
check t834-often-row [ -n "$(sqlite3 v/profile.db "SELECT instances FROM var_functions WHERE function = 'often' AND metric = 'cpu-time'")" ]
if [ -n "$(sqlite3 v/profile.db "SELECT 1 FROM var_functions WHERE function = 'rare'")" ]; then
	skip t834-rare-named "rare was measured in this run (a pick met its second call)"
else
	check t834-rare-named grep -qE "not measured: rare \([0-9]+%\)" err.flat
	check t834-meta sh -c "sqlite3 v/profile.db \"SELECT value FROM meta WHERE key = 'unmeasured'\" | grep -qE '^rare \([0-9]+%\)'"
fi
check t834-often-not-named sh -c "! sqlite3 v/profile.db \"SELECT value FROM meta WHERE key = 'unmeasured'\" | grep -q often"
# where nothing could be timed (a plain build, debug registers that do not trap) the line
# is not given: every function is unmeasured, and the run's warning says why (the code
# review of 2026-11-29: "calls further apart" said of a function called 6,000 times)
if "$SONDE" info 2>/dev/null | grep -q "their traps fire"; then
	skip t834-plain-silent "the debug registers trap here: a plain build is timed"
elif gcc -O2 -g -fno-omit-frame-pointer "$SONDE_TOP/tests/workloads/variance/vcalls.c" -o vplain 2>/dev/null; then
	"$SONDE" variance -q -o plain -- ./vplain rare 1 >/dev/null 2>&1
	check t834-plain-silent [ -z "$(sqlite3 plain/profile.db "SELECT value FROM meta WHERE key = 'unmeasured'")" ]
fi
