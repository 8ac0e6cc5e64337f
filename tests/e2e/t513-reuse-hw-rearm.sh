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
# the owner's own access, its first trap, is told from a reuse by the access count alone
# on a sonde-cc program; the flag kept for programs without counts stayed set, and the
# first real reuse by the same instruction was dropped as that first trap: every reuse of
# a sweep of 1000 words (distance 999, [512, 1024)) read a pass later, in [1024, 2048)
# (the review of 2026-11-28).  Most of the sampled reuses in the sweep's bin:
SONDE_WATCH=hw "$SONDE" reuse -q --source inst --period 401 --seed 1 -o sw -- "$T/rb" sweep 1000 200 \
	>/dev/null 2>&1
share=$(awk -F, '$1 == "reuse" && $2 == 512 { print $5 }' sw/reuse/histogram.csv 2>/dev/null)
echo "    hw watch, sweep 1000: ${share:-none} of the accesses reused in [512, 1024)"
check t513-sweep-distance float_between "${share:-0}" 0.9 1
