#!/usr/bin/env bash
# t504-reuse-ribench-inv: RIBench with invalidations (the thesis's case 2: INV = 1000 shared
# stores per repetition), 2 threads, a sampled run and an --exact run (the oracle), as a user
# compares them: both see invalidations, and the sampled reuse-distance histogram matches
# the exact one with S >= 0.85, on the first of up to 3 pairs of runs (the bar: below).
# The phases' sizes are not the thesis's (500, 1500, 3500, 7500, 15500; t503 and t519 keep
# them) but 2100, 4200, 9000, 17000, 20000, 5 outer iterations: a private word's distance
# runs from X1 - 1 (every shared word this thread stored overwritten by the other since)
# to X1 - 1 + INV (none), and how many are overwritten is the schedule's: the two threads'
# overlap, its own in each run.  The thesis's 7500 and 15500 put that range across the 8192
# and 16384 bin edges (116 overwrites move 15500's uses a bin down), so two runs' exact
# histograms differed by a bin on a loaded machine: S(sampled, exact) read 0.63-0.65 in 3
# pairs of a make check beside another (2026-11-28), 0.86-0.99 alone.  Here every range
# lies inside one bin (2048-4096, 4096-8192, 8192-16384, 16384-32768 twice; the outer
# reuses near 52,300 in 32768-65536), so a run's schedule no longer picks the bin and what
# is left is the sampled estimate's own error.  16 pairs, 2026-11-28 16:19 UTC, load 2.4
# (a spinner and two other jobs), one in 4 with the exact run held to one core (taskset
# -c 0: no overlap at all): S 0.991-0.998; 9 pairs at load 2 without the spinner, the
# threads overlapping more (90-445 sampled invalidations a run against 1-58): 0.908-0.983,
# the estimate's spread over the phases, a bin's count off by up to 18% (inc: 8192-16384
# 1.74M against 2.11M, the two largest phases' mix).  The bar, 0.85, leaves 0.06 under the
# lowest seen for what a busier machine adds; 0.90 is the issue's target, met by all 25.
# The removals' accounting in one run (the thesis's sizes, edges and all) is
# t519's --check-sampling check.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t50-reuse-lib.bash"
reuse_build t504-build || exit 0

for shape in inc:20,20,20,20,20 dec:200,60,15,4,2; do
	name=${shape%%:*}
	args="ribench -t 2 -o 5 -r ${shape#*:} -x 2100,4200,9000,17000,20000 -i 1000"
	# up to 3 pairs of runs (exact, sampled): each run's overlap is its own
	for try in 1 2 3; do
		rm -rf ex-$name sa-$name
		"$SONDE" reuse -q --exact -o ex-$name -- "$T/rb" $args >/dev/null 2>&1
		"$SONDE" reuse -q --source inst --period 4001 -o sa-$name -- "$T/rb" $args >/dev/null 2>&1
		reuse_rows ex-$name/reuse/histogram.csv reuse >ex.csv
		reuse_rows sa-$name/reuse/histogram.csv reuse >sa.csv
		s=$(reuse_s ex.csv sa.csv)
		echo "ribench $name inv 1000, pair $try: S(sampled, exact) = $s"
		float_between "$s" 0.85 1 && break
	done
	check "t504-sampled-vs-exact-$name-pair-$try-S-$s" float_between "$s" 0.85 1
	check t504-exact-inv-$name [ "$(csv_get ex-$name/reuse/histogram.csv kind invalidation count)" -gt 0 ]
	sinv=$((${sinv:-0} + $(reuse_meta sa-$name outcomes_invalidation)))
done
# The sampled runs see invalidations: 166-271 of ~2600 outcomes at load 1 (1-58 at load
# 2.4: the 16 pairs above), fewer when the two threads seldom run at once (on 2 cores shared with
# other suites, one of them saw none once, and both once, 2026-11-26, two suites side by
# side), so the check is on both shapes together, with up to two more sampled runs of
# dec (other schedules) when they saw none: what is checked is that the sampled mode
# records invalidations where the schedule makes them.
for extra in 1 2; do
	[ "$sinv" -gt 0 ] && break
	"$SONDE" reuse -q --source inst --period 4001 -o sa-more$extra -- "$T/rb" ribench -t 2 -o 5 \
		-r 200,60,15,4,2 -x 2100,4200,9000,17000,20000 -i 1000 >/dev/null 2>&1
	sinv=$((sinv + $(reuse_meta sa-more$extra outcomes_invalidation)))
	echo "sampled invalidations: none in the two shapes' runs; $sinv after $extra more run(s)"
done
check t504-sampled-inv [ "$sinv" -gt 0 ]
