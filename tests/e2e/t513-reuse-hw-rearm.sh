#!/usr/bin/env bash
# t513-reuse-hw-rearm: the debug registers re-armed while a trap's signal is still queued.
# RIBench with no shared stores (-i 0) on 2 threads has no invalidation to find.  With the
# debug registers forced (SONDE_WATCH=hw) on the sonde-cc build, a slot re-armed on the
# same fd by a new sample used to take the old arming's queued signal as a trap of the new
# one: a store of the other thread became an "invalidation" (9 and 11 of 526 and 134
# outcomes in two runs here).  The engine now ignores a signal whose event count has not
# moved since the re-arm (rt/watch.h): 0 of 332 and 0 of 234.  Needs debug registers that
# trap (sonde info), else SKIP.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t50-reuse-lib.bash"
"$SONDE" info 2>/dev/null | grep -q "their traps fire" ||
	{ skip t513 "the debug registers do not trap here (sonde info)"; exit 0; }
reuse_build t513-build || exit 0

SONDE_WATCH=hw "$SONDE" reuse -q --source inst --period 1009 -o hw -- "$T/rb" ribench -t 2 -o 4 -i 0 >/dev/null 2>&1
check t513-run [ $? -eq 0 ]
out=$(reuse_meta hw outcomes)
check "t513-outcomes-${out:-none}" [ "${out:-0}" -gt 20 ]
inv=$(reuse_meta hw outcomes_invalidation)
check "t513-no-invalidation-${inv:-none}" [ "${inv:-1}" = 0 ]
