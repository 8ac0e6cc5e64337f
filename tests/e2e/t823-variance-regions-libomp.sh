#!/usr/bin/env bash
# t823-variance-regions-libomp: OpenMP regions of LLVM's runtime (libomp, clang -fopenmp)
# timed through OMPT, no trap (src/tools/variance/rt-omp.c: libsonde.so answers libomp's
# ompt_start_tool; __kmpc_fork_call, variadic, is interposed only to note the outlined
# function; rt-variance.c, variance_ompt_begin/end).  The workload is t821's vregion
# (tests/workloads/variance/vregion.c), built by clang: 400 rounds of six regions in 2
# threads, all six started by __kmpc_fork_call (clang names the outlined functions
# main.omp_outlined., main.omp_outlined..N in source order: saw, flat, dyn, gui, rtm, sec).
# - Every call timed (SONDE_VARIANCE_REGIONS=1000000): exactly 2 x 6 x 400 instances,
#   800 in each region's row, in 2 threads; saw's and flat's mean within 10% of the
#   workload's own truth and CV within 20% + 0.02 of it, t821's bars (the instance ends at
#   the region's closing barrier, which OMPT reports after the outlined function returned:
#   a worker's implicit task itself ends only when the next region starts, and an instance
#   to there would hold the wait).  2026-11-27 04:25 UTC: saw +1.6%, CV 0.464 against
#   0.473; flat +1.4%, CV 0.166 against 0.170.
# - The default: at least 30 timed a second a thread and 10 of each region, within the
#   thread's budget (t821's bars and reasons).
# - SONDE_VARIANCE_REGIONS=0: none timed.
# - The program's own OMPT tool (tests/workloads/variance/vtool.c), named by
#   OMP_TOOL_LIBRARIES or linked after libomp (the review's case: sonde took the interface
#   from it), keeps the interface: it counts every region under sonde as without it,
#   sonde says it does not time them, and none is timed.
# - Regions nested in a region (tests/workloads/variance/vnest.c, every call timed, 2
#   threads and 1): the outer region's row holds its every instance and no nested one's,
#   with the truth's mean and CV (t821's bars); in 1 thread libomp 14 gives a serialized
#   region nested in a serialized one the same task data, and the nested region's end
#   closed the outer instance (review, 2026-11-27: 133 us measured for 1.4 ms).  vnest's
#   first OpenMP call is its region's (no num_threads clause): the first region, which
#   starts the runtime and its tool, is timed too.  And vnest linked with a library whose
#   constructor calls OpenMP (tests/workloads/variance/vctor.c, before libsonde.so's
#   constructor has read the settings): its regions timed all the same.
# - vnest's outer region serialized by the compiler (`if` false): timed (below).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"

vr_build t823 clang || exit 0
# the outlined functions' rows in source order (clang numbers them so)
regions() { awk -F, 'NR > 1 && $3 == "cpu-time" && $1 ~ /^main\.omp_outlined\.(\.[0-9]+)?$/ { print $1 }' \
	"$1/variance/functions.csv" | sort -u | awk '{ n = $0; sub(/^main\.omp_outlined\.\.?/, "", n); print (n == "" ? 0 : n), $0 }' |
	sort -n | awk '{ print $2 }'; }

# Up to 2 runs: once, with two suites side by side on the 2 cores (2026-11-27 11:10 UTC),
# the sawtooth's 800 instances read a CV of 0.825 against the workload's own 1.162 for the
# same instances and the same mean (233.9 against 233.3 us): a few instances far longer
# by one clock than by the other, not diagnosed (doc/sonde-variance.md has no such case
# on a quiet machine); the bar is asserted on the second run when the first misses it.
# The same for flat, once in a CI clone beside a make check (2026-11-28 01:50 UTC): 0.064
# against the workload's 0.133 for the same 800 instances and mean (112.0 against 111.4
# us): the workload's clock reads hold sonde's own handlers, which sonde subtracts, and a
# loaded machine makes them long against a 0.1 ms instance.
for try in 1 2; do
	rm -rf all
	vr_run all 1000000
	rc=$?
	fns=$(regions all)
	cv=$(vr_row all "$(echo $fns | awk '{ print $1 }')" cv) tcv=$(vr_truth all.out saw cv)
	fcv=$(vr_row all "$(echo $fns | awk '{ print $2 }')" cv) ftcv=$(vr_truth all.out flat cv)
	awk -v c="${cv:-9}" -v t="${tcv:-0}" -v fc="${fcv:-9}" -v ft="${ftcv:-0}" 'BEGIN {
		d = c - t; d = d < 0 ? -d : d; e = fc - ft; e = e < 0 ? -e : e
		exit !(d <= 0.2 * t + 0.02 && e <= 0.2 * ft + 0.02) }' && break
	echo "    run $try: saw's CV ${cv:-none} against the truth's ${tcv:-none}, flat's ${fcv:-none} against ${ftcv:-none}"
done
check t823-all-run [ $rc -eq 0 -a -n "$(vr_truth all.out saw cv)" ]
n=$(vr_meta all omp_regions)
check "t823-all-every-call-timed-${n:-none}" [ "${n:-0}" -eq 4800 ]
check "t823-all-six-region-rows-$(echo $fns | wc -w)" [ "$(echo $fns | wc -w)" -eq 6 ]
set -- $fns
# the OpenMP thread numbers (src/rt/ompt.c: libomp's implicit tasks) in threads.csv
omp=$(awk -F, -v f="${1:-none}" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$1 == f && $h["metric"] == "cpu-time" { print $h["omp_thread"] }' all/variance/threads.csv | sort | tr '\n' ' ')
check "t823-all-omp-thread-numbers-$(echo $omp | tr ' ' ,)" [ "$omp" = "0 1 " ]
# and on the HTML page's per-thread means
"$SONDE" report all --html all.html >/dev/null 2>&1
check t823-html-thread-labels grep -q "thread 1 (omp 1)" all.html
vr_truth_bars t823-all all saw "${1:-none}"
vr_truth_bars t823-all all flat "${2:-none}"
shift 2
for r in dyn gui rtm sec; do
	fn=${1:-none}
	shift
	ni=$(vr_row all "$fn" instances) th=$(vr_row all "$fn" threads)
	check "t823-all-$r-$fn-instances-${ni:-0}-threads-${th:-0}" [ "${ni:-0}" -eq "$(vr_truth all.out $r instances)" -a "${th:-0}" -eq 2 ]
done

vr_run def "" 1000
check t823-default-run [ $? -eq 0 ]
vr_default t823 def $fns

vr_run off 0 100
check t823-off-run [ $? -eq 0 ]
check "t823-off-none-timed-$(vr_meta off omp_regions)" [ "$(vr_meta off omp_regions)" = 0 ]

# the program's own tool
if clang -O1 -fPIC -shared "$SONDE_TOP/tests/workloads/variance/vtool.c" -o vtool.so 2>tool.err; then
	OMP_TOOL_LIBRARIES=$PWD/vtool.so OMP_NUM_THREADS=2 ./vregion 50 2000 >native.out 2>&1
	OMP_TOOL_LIBRARIES=$PWD/vtool.so OMP_NUM_THREADS=2 "$SONDE" variance -q -o theirs -- \
		./vregion 50 2000 >theirs.out 2>theirs.err
	check t823-tool-run [ $? -eq 0 ]
	a=$(awk '$1 == "vtool" { print $3 }' native.out) b=$(awk '$1 == "vtool" { print $3 }' theirs.out)
	check "t823-tool-sees-${b:-none}-regions-as-native-${a:-none}" [ -n "$a" -a "$a" = "$b" -a "${a:-0}" -eq 300 ]
	check t823-tool-said grep -q "OMP_TOOL_LIBRARIES is set.*picked, not timed" theirs.err
	check "t823-tool-none-timed-$(vr_meta theirs omp_regions)" [ "$(vr_meta theirs omp_regions)" = 0 ]
else
	skip t823-tool "clang could not build vtool.c: $(head -c 200 tool.err)"
fi

# the tool linked after libomp
if [ -f vtool.so ] && clang -O1 -g -fopenmp "$SONDE_TOP/tests/workloads/variance/vregion.c" -o vregion-tool \
	-lm -lomp "$PWD/vtool.so" 2>tool.err; then
	OMP_NUM_THREADS=2 ./vregion-tool 50 2000 >native2.out 2>&1
	OMP_NUM_THREADS=2 "$SONDE" variance -q -o linked -- ./vregion-tool 50 2000 >linked.out 2>linked.err
	check t823-linked-tool-run [ $? -eq 0 ]
	a=$(awk '$1 == "vtool" { print $3 }' native2.out) b=$(awk '$1 == "vtool" { print $3 }' linked.out)
	check "t823-linked-tool-sees-${b:-none}-regions-as-native-${a:-none}" [ -n "$a" -a "$a" = "$b" -a "${a:-0}" -eq 300 ]
	check t823-linked-tool-said grep -q "brings its own OpenMP tool" linked.err
	check "t823-linked-tool-none-timed-$(vr_meta linked omp_regions)" [ "$(vr_meta linked omp_regions)" = 0 ]
else
	skip t823-linked-tool "clang could not link vregion with vtool.so: $(head -c 200 tool.err)"
fi

# nested regions; the first region; a constructor that calls OpenMP
if ! clang -O1 -g -fno-omit-frame-pointer -fopenmp "$SONDE_TOP/tests/workloads/variance/vnest.c" -o vnest -lm 2>build.err ||
	! clang -O1 -fPIC -shared -fopenmp "$SONDE_TOP/tests/workloads/variance/vctor.c" -o libvctor.so 2>>build.err ||
	! clang -O1 -g -fno-omit-frame-pointer -fopenmp "$SONDE_TOP/tests/workloads/variance/vnest.c" -o vnest-ctor \
		-lm "$PWD/libvctor.so" 2>>build.err; then
	fail t823-nest-build "clang could not build vnest.c or vctor.c: $(head -c 200 build.err)"
	exit 0
fi
for nt in 2 1; do
	SONDE_VARIANCE_REGIONS=1000000 OMP_NUM_THREADS=$nt OMP_WAIT_POLICY=passive \
		"$SONDE" variance -q -o nest$nt -p 20000000 -- ./vnest 200 200000 >nest$nt.out 2>nest$nt.err
	check "t823-nest-$nt-run" [ $? -eq 0 -a -n "$(vr_truth nest$nt.out outer cv)" ]
	rows=$(awk -F, 'NR > 1 && $3 == "cpu-time" && $1 ~ /omp_outlined/ { print $1 }' nest$nt/variance/functions.csv | sort -u)
	check "t823-nest-$nt-one-region-row-$(echo $rows | wc -w)" [ "$(echo $rows | wc -w)" -eq 1 ]
	vr_truth_bars "t823-nest-$nt" nest$nt outer "${rows:-none}" $nt
done
# the outer region serialized by the compiler itself (its if clause false): clang calls
# __kmpc_serialized_parallel, then the outlined function directly (src/rt/ompt.c,
# serialized_fn); no __kmpc_fork_call.  In 1 thread its row is the only one; in 2 the
# region nested in it gets a team of 2 (the first active level), whose worker's share
# is a row of its own, and the outer row keeps its every instance, in the master alone.
# The build of 236250c timed none (0 of 200 instances).
for nt in 1 2; do
	SONDE_VARIANCE_REGIONS=1000000 OMP_NUM_THREADS=$nt OMP_WAIT_POLICY=passive \
		"$SONDE" variance -q -o ser$nt -p 20000000 -- ./vnest 200 200000 serial >ser$nt.out 2>ser$nt.err
	check "t823-serial-$nt-run" [ $? -eq 0 -a -n "$(vr_truth ser$nt.out outer cv)" ]
done
rows=$(awk -F, 'NR > 1 && $3 == "cpu-time" && $1 ~ /omp_outlined/ { print $1 }' ser1/variance/functions.csv | sort -u)
check "t823-serial-1-one-region-row-$(echo $rows | wc -w)" [ "$(echo $rows | wc -w)" -eq 1 ]
vr_truth_bars t823-serial-1 ser1 outer "${rows:-none}" 1
vr_truth_bars t823-serial-2 ser2 outer "${rows:-none}" 1
# the same by sonde-cc, whose instrumentation calls its callbacks (through the PLT) between
# __kmpc_serialized_parallel and the outlined function: the first form took the first of
# them for the region and named every instance "_init" (review, 2026-11-27)
if "$SONDE_BUILD/sonde-cc" -O1 -g -fno-omit-frame-pointer -fopenmp \
	"$SONDE_TOP/tests/workloads/variance/vnest.c" -o vnest-cc -lm 2>build-cc.err; then
	SONDE_VARIANCE_REGIONS=1000000 OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive \
		"$SONDE" variance -q -o sercc -p 20000000 -- ./vnest-cc 100 100000 serial >sercc.out 2>sercc.err
	check "t823-serial-cc-run" [ $? -eq 0 -a -n "$(vr_truth sercc.out outer cv)" ]
	rows=$(awk -F, 'NR > 1 && $3 == "cpu-time" && $1 ~ /omp_outlined/ { print $1 }' sercc/variance/functions.csv | sort -u)
	check "t823-serial-cc-one-region-row-$(echo $rows | tr ' ' ,)" [ "$(echo $rows | wc -w)" -eq 1 ]
	check t823-serial-cc-no-init-row [ "$(awk -F, '$1 == "_init"' sercc/variance/functions.csv | wc -l)" -eq 0 ]
	vr_truth_bars t823-serial-cc sercc outer "${rows:-none}" 1
else
	fail t823-serial-cc-build "sonde-cc could not build vnest.c: $(head -c 200 build-cc.err)"
fi

SONDE_VARIANCE_REGIONS=1000000 OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive \
	"$SONDE" variance -q -o ctor -p 20000000 -- ./vnest-ctor 50 20000 >ctor.out 2>ctor.err
check t823-ctor-run [ $? -eq 0 ]
n=$(vr_meta ctor omp_regions)
check "t823-ctor-regions-timed-${n:-none}-of-$(vr_truth ctor.out outer instances)" [ "${n:-0}" -eq "$(vr_truth ctor.out outer instances)" ]
