#!/usr/bin/env bash
# t829-variance-unpicked-regions: samples in an OpenMP region's outlined function are the
# program's, timed at the runtime's call and never picked; the report's "unpicked" line
# said of them "no function of the program's on the stack ... OMP_WAIT_POLICY=passive puts
# its threads to sleep" (the trial of 2026-11-29: HPCCG, run passive, 80 of 88 samples so
# named where HPC_sparsemv's region held 81% of the time).  vomp.c at -O2 without frame
# pointers, passive: all of its work is in the region, so nearly every sample is there.
# Bars: the runtime counts them (meta no_frame_region, at least half the samples: each
# region's work is ~all of the program's CPU time), and the line names the regions, and
# the waiting runtime only for the rest.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"

# (no trap needed: regions are timed at the runtime's call, the samples come from the clock)
command -v gcc >/dev/null || { skip t829 "gcc is not installed"; exit 0; }
gcc -O2 -g -fopenmp "$SONDE_TOP/tests/workloads/variance/vomp.c" -o vomp 2>build.err ||
	{ skip t829 "gcc -fopenmp does not build here: $(head -c 200 build.err)"; exit 0; }
OMP_WAIT_POLICY=passive "$SONDE" variance -o rec -- ./vomp 300 >out.txt 2>err.txt
check t829-run [ $? -eq 0 ]
s=$(sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = 'samples'")
r=$(sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = 'no_frame_region'")
check "t829-region-samples-${r:-0}-of-${s:-0}" [ "${s:-0}" -gt 0 -a $(( ${r:-0} * 2 )) -ge "${s:-0}" ]
flat err.txt >err.flat
check t829-line-names-regions grep -q "unpicked: [0-9]* of the [0-9]* samples ([0-9]*%) fell in OpenMP region functions" err.flat
# the rest (samples elsewhere: main's loop, libgomp; 3 of 27 in a run beside another
# suite) is said apart when it is 10% of the samples or more, and only the rest: the
# region samples are never counted as the waiting runtime's
nf=$(sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = 'no_frame'")
rest=$(sed -n 's/.*not picked; \([0-9]*\) ([0-9]*%) had no function of the program.*/\1/p' err.flat)
if grep -q "had no function of the program" err.flat; then
	check "t829-rest-${rest:-none}-is-no-frame-${nf:-0}-less-regions-${r:-0}" [ "${rest:-x}" = "$(( ${nf:-0} - ${r:-0} ))" ]
else
	check "t829-rest-unsaid-under-10pct-$(( ${nf:-0} - ${r:-0} ))-of-${s:-0}" [ $(( (${nf:-0} - ${r:-0}) * 10 )) -lt "${s:-1}" ]
fi
# the rest's branch on the same recording: 10 more unpicked samples outside the regions
cp -r rec more && sqlite3 more/profile.db "UPDATE meta SET value = '$(( ${r:-0} + 10 ))' WHERE key = 'no_frame'; UPDATE meta SET value = '$(( ${s:-0} + 10 ))' WHERE key = 'samples'"
"$SONDE" report more >more.err 2>&1
check t829-rest-said-10 grep -q "not picked; 10 ([0-9]*%) had no function of the program's on the stack" <(flat more.err)
