#!/usr/bin/env bash
# t504-reuse-ribench-inv: RIBench with invalidations (the thesis's case 2: INV = 1000 shared
# stores per repetition, X1 lowered by INV/2), 2 threads.  Both modes see invalidations;
# the sampled reuse-distance histogram matches --exact (the oracle) with S >= 0.70.  The
# two are separate runs, and the other thread's stores remove shared words from a thread's
# stack by an amount that depends on the schedule: on a quiet machine S was 0.93 to 0.98,
# at load 10 on the 2 cores (other builds and suites running) 0.77 to 0.82, in the
# reuse branch and in main alike.  0.70 is below the loaded runs; the thesis's 0.90 holds
# only on a quiet machine here.  The analytic histogram is not the reference either, for
# the same reason.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t50-reuse-lib.bash"
reuse_build t504-build || exit 0

for shape in inc:20,20,20,20,20 dec:200,60,15,4,2; do
	name=${shape%%:*}
	args="ribench -t 2 -o 8 -r ${shape#*:} -x 500,1500,3500,7500,15500 -i 1000"
	"$SONDE" reuse -q --exact -o ex-$name -- "$T/rb" $args >/dev/null 2>&1
	"$SONDE" reuse -q --source inst --period 4001 -o sa-$name -- "$T/rb" $args >/dev/null 2>&1
	reuse_rows ex-$name/reuse/histogram.csv reuse >ex.csv
	reuse_rows sa-$name/reuse/histogram.csv reuse >sa.csv
	s=$(reuse_s ex.csv sa.csv)
	echo "ribench $name inv 1000: S(sampled, exact) = $s"
	check t504-sampled-vs-exact-$name float_between "$s" 0.70 1
	check t504-exact-inv-$name [ "$(csv_get ex-$name/reuse/histogram.csv kind invalidation count)" -gt 0 ]
	sinv=$((${sinv:-0} + $(reuse_meta sa-$name outcomes_invalidation)))
done
# The sampled runs see invalidations: about 2% of their outcomes on a quiet machine (41 of
# 2103 for dec), fewer when the two threads seldom run at once (on 2 cores shared with
# other suites, one of them saw none once, and both once, 2026-11-26, two suites side by
# side), so the check is on both shapes together, with up to two more sampled runs of
# dec (other schedules) when they saw none: what is checked is that the sampled mode
# records invalidations where the schedule makes them (148-689 a run, quiet machine).
for extra in 1 2; do
	[ "$sinv" -gt 0 ] && break
	"$SONDE" reuse -q --source inst --period 4001 -o sa-more$extra -- "$T/rb" ribench -t 2 -o 8 \
		-r 200,60,15,4,2 -x 500,1500,3500,7500,15500 -i 1000 >/dev/null 2>&1
	sinv=$((sinv + $(reuse_meta sa-more$extra outcomes_invalidation)))
	echo "sampled invalidations: none in the two shapes' runs; $sinv after $extra more run(s)"
done
check t504-sampled-inv [ "$sinv" -gt 0 ]
