#!/usr/bin/env bash
# t406-comm-clock: the clock source (an ordinary gcc build, sampled on CPU time with
# single-stepping): the summary says volumes are sample-scaled, the matrices keep their
# invariants, and what communication is found is between the constructed pairs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t40-comm-lib.bash"
comm_build_gcc || { fail t406-build "gcc could not build commbench"; exit 0; }

# 20000 hand-offs: ~0.1 s of CPU time, ~25 clock samples (3000 gave 0-6: the waits are
# sched_yield, which uses little CPU, and a loaded machine left none at times)
"$SONDE" comm --source clock -o rec -- "$T/cb-gcc" pairs 20000 >/dev/null 2>summary
check t406-status [ $? -eq 0 ]
check t406-source grep -q 'source clock' summary
check t406-sample-scaled grep -q 'volumes are sample-scaled' summary
check t406-invariants-thread mat_invariants rec thread
check t406-invariants-core mat_invariants rec core
check t406-samples [ "$(comm_meta rec samples)" -gt 0 ]
all=$(mat_sum rec/comm/matrix-all-thread.csv)
if [ "$all" -gt 0 ]; then
	check t406-pairs float_between "$(mat_share rec/comm/matrix-all-thread.csv "1-2 3-4")" 0.9 1
else
	skip t406-pairs "no communication sampled in this run (clock samples: $(comm_meta rec samples))"
fi
