#!/usr/bin/env bash
# t517-reuse-exact-signals: a program whose signal handler runs instrumented code keeps
# every access under --exact.  sigloads chases pointers, ROUNDS x 1000 loads, while a
# SIGALRM every 200 us runs 64 loads in its handler.  Before the fix the every-access
# callback put its count back with `+= 1`: a handler's access between the callback's
# decrement to 0 and that add wrapped the count, and the thread's later accesses were
# never taken (57-124k of 400k recorded, review of 2026-11-26).  Bar: the report's access
# count at least the chase's (the handler's loads only add; a few in the window may be
# missed, which the bar does not need).  b94b63a's build failed it in 3 runs of 3
# (5,599, 146,362 and 412,871 of 2,000,000 recorded).  Since the callbacks inline the
# every-access path (helper C, 2026-11-26) gcc happened to make that add a store of 1
# there, so the build just before the fix passes; inst_slow's copy still added.
. "$(dirname "$0")/lib.sh"
command -v clang >/dev/null || { skip t517 "clang is not installed (sonde-cc needs it)"; exit 0; }
"$SONDE_BUILD/sonde-cc" -O2 -g "$SONDE_TOP/tests/workloads/reuse/sigloads.c" -o sl ||
	{ fail t517-build "sonde-cc could not build sigloads"; exit 0; }
ROUNDS=2000
"$SONDE" reuse --exact -o sig -- ./sl $ROUNDS >out 2>err
check t517-status [ $? -eq 0 ]
check t517-output grep -q "^sigloads: " out
n=$(sed -n 's/.*accesses \([0-9]*\),.*/\1/p' err | head -1)
echo "accesses recorded: $n (the chase alone: $((ROUNDS * 1000)))"
check "t517-every-access-${n:-none}" [ "${n:-0}" -ge $((ROUNDS * 1000)) ]
