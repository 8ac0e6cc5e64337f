#!/usr/bin/env bash
# t507-reuse-clock: with the clock source there is no count of a thread's accesses.  A
# sonde-cc program (soft watchpoints) still gets outcomes, recorded as reuse times: the
# histogram has time_ns rows and no time or reuse rows, and the report says plainly that
# distances need the inst source or a PMU.  A plain gcc program on a machine whose debug
# registers do not fire gets the watchpoints' failure explained instead.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t50-reuse-lib.bash"
reuse_build t507-build || exit 0

"$SONDE" reuse --source clock -o rec -- "$T/rb" sweep 1000 3000 >out 2>summary
check t507-status [ $? -eq 0 ]
h=rec/reuse/histogram.csv
check t507-no-distance [ -z "$(awk -F, '$1 == "reuse" || $1 == "time"' $h)" ]
check t507-says-why grep -q "distances need" summary
if [ "$(reuse_meta rec outcomes)" -gt 0 ]; then
	check t507-time-ns [ -n "$(awk -F, '$1 == "time_ns"' $h)" ]
else
	skip t507-time-ns "no outcome in this run (clock samples land mostly outside the sweep)"
fi
