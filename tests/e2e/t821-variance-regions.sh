#!/usr/bin/env bash
# t821-variance-regions: OpenMP regions timed at the runtime's call (rt-variance.c,
# variance_region; GOMP_parallel interposed by rt-omp.c), no trap.  vregion
# (tests/workloads/variance/vregion.c, built by gcc -fopenmp) runs 400 rounds of six
# regions in 2 threads: `saw` (1-4 units a round) and `flat` (2 units), whose truth it
# prints over every instance of the same run (mean and CV of the CPU time each thread
# measured around its share's work), and four whose count only is known, each started by
# another of libgomp's entries: `parallel for` with a dynamic, a guided and a runtime
# schedule (gcc 12: GOMP_parallel_loop_nonmonotonic_dynamic, _nonmonotonic_guided,
# _maybe_nonmonotonic_runtime) and `parallel sections` (GOMP_parallel_sections).
# - Every call timed (SONDE_VARIANCE_REGIONS=1000000): exactly 2 threads x 6 regions x
#   400 rounds, each region's row holds its 800 and no more (a region's function is never
#   picked as well: before, vomp's region was timed by 288 picks beside 395 regions), in
#   2 threads.  Its mean within 10% of the truth (sonde's instance is the whole outlined
#   function, the workload's clock reads in it, less sonde's own handlers, which the truth
#   holds: -0.6% and +0.4% at 2026-11-27 01:25 UTC) and its CV within 20% + 0.02 of it
#   (0.491 against 0.500, 0.208 against 0.213 then).
# - The default (each region function at most 20 timed calls a second a thread, a
#   thread's together at most 400), over 1000 rounds (~2-5 s): the regions come ~400-800 a
#   second a thread each here, so a random share of each is timed: at least the issue's 30
#   instances a second a busy thread in all, each region at least 10 (20 a second a
#   thread, less what a loaded machine takes), at most what the budget allows (2 a thread
#   at start, then 400 a second of the thread's wall time: at most 2 + 400 x the run's
#   wall seconds a thread), and the sawtooth's CV within 30% of the truth (~200-400
#   instances at 02:40 UTC, load ~4: the CV's standard error ~0.03 for 0.5, the bar 5 of
#   them).
# - SONDE_VARIANCE_REGIONS=0: none timed there (omp_regions 0); where the debug registers
#   trap, the regions are then measured by picks, as before (at least one instance).
# - A process that forks inside a region (tests/workloads/variance/vfork.c, a team of
#   one, every call timed): each process has one instance per region that started in it,
#   the forking one the parent's only; before, the child recorded it too, with its CPU
#   clock restarted (0 ns of CPU time: the state's address, the old check, was the same
#   in the child's new arena).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"

vr_build t821 gcc || exit 0
vr_run all 1000000
check t821-all-run [ $? -eq 0 -a -n "$(vr_truth all.out saw cv)" ]
# the page's navigation bar tells the six region functions apart (gcc's outlined
# "main._omp_fn.N" names): the function first in each section's title, not its context,
# whose cut left five of PENNANT's regions reading alike (the trial of 2026-11-29, F4)
"$SONDE" report all --html all.html >/dev/null 2>&1
nav=$(grep -o '<a href="#f[0-9]*">[^<]*' all.html | sed 's/.*">//' | sed 's/^#[0-9]* //' | sort | uniq -d | wc -l)
nf=$(grep -o '<a href="#f[0-9]*">' all.html | wc -l)
check "t821-nav-distinct-$nf" [ "$nf" -ge 6 -a "$nav" -eq 0 ]
n=$(vr_meta all omp_regions)
check "t821-all-every-call-timed-${n:-none}" [ "${n:-0}" -eq 4800 ]
k=2
for r in dyn gui rtm sec; do
	ni=$(vr_row all main._omp_fn.$k instances) th=$(vr_row all main._omp_fn.$k threads)
	check "t821-all-$r-instances-${ni:-0}-threads-${th:-0}" [ "${ni:-0}" -eq "$(vr_truth all.out $r instances)" -a "${th:-0}" -eq 2 ]
	k=$((k + 1))
done
vr_truth_bars t821-all all saw main._omp_fn.0
vr_truth_bars t821-all all flat main._omp_fn.1

# the default: a random share of each region, within the budget
vr_run def "" 1000
check t821-default-run [ $? -eq 0 ]
vr_default t821 def main._omp_fn.0 main._omp_fn.1 main._omp_fn.2 main._omp_fn.3 main._omp_fn.4 main._omp_fn.5
cv=$(vr_row def main._omp_fn.0 cv) tcv=$(vr_truth def.out saw cv)
# (the truth is every instance's CPU time as the workload read it, 0.447 by construction;
# where a few instances took a VM's steal spike, it read 1.54 in a pair of suites,
# 2026-11-29, and the ~65 timed at random missed them, 0.47: the construction's then)
# (and where the run's truth is disturbed, sonde may read it, not the construction's: a
# make check of 2026-11-29 read 0.735 against a run's truth of 0.731; either passes)
own=$tcv
if awk -v t="$tcv" 'BEGIN { exit !(t > 0.447 * 1.5) }'; then
	tcv=0.447
	echo "    the run's own truth read a CV of $own (disturbed): against it or the construction's, 0.447"
fi
check "t821-default-saw-cv-$cv-truth-$tcv" awk -v c="${cv:-9}" -v t="$tcv" -v o="$own" \
	'function near(x) { d = c - x; d = d < 0 ? -d : d; return d <= 0.3 * x }
	 BEGIN { exit !(near(t) || near(o)) }'

# Sparse regions at the default rate (6 rounds, each call ~20-100 ms here: a few calls a
# second a function, under the 20 allowed): every call timed, weight 1.  All threads
# enter a region at once, and a call of the next round counted in the first 10 ms
# window read as 3 calls in 20 ms, a share of 0.27: a region called once a second lost
# one call in five (the trial of 2026-11-29, F2).
SONDE_VARIANCE_REGIONS= OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive \
	"$SONDE" variance -q -o sparse -- ./vregion 6 80000000 >sparse.out 2>sparse.err
check t821-sparse-run [ $? -eq 0 ]
for f in 0 1 2; do
	ni=$(vr_row sparse main._omp_fn.$f instances)
	check "t821-sparse-fn$f-every-call-${ni:-0}" [ "${ni:-0}" -eq 12 ]
done
w=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next } $h["weight"] != 1 { n++ }
	END { print n + 0 }' sparse/variance/instances.csv)
check "t821-sparse-weights-1 ($w other)" [ "$w" -eq 0 ]

# off
vr_run off 0 400 1000000
check t821-off-run [ $? -eq 0 ]
check "t821-off-none-timed-$(vr_meta off omp_regions)" [ "$(vr_meta off omp_regions)" = 0 ]
if "$SONDE" info 2>/dev/null | grep -q "their traps fire"; then
	ni=$(vr_row off main._omp_fn.0 instances)
	check "t821-off-picks-measure-the-region-${ni:-0}" [ "${ni:-0}" -ge 1 ]
fi

# a fork inside a region
if gcc -O1 -g -fopenmp "$SONDE_TOP/tests/workloads/variance/vfork.c" -o vfork 2>build2.err; then
	SONDE_VARIANCE_REGIONS=1000000 "$SONDE" variance -q -o fk -- ./vfork >fk.out 2>fk.err
	check t821-fork-run [ $? -eq 0 ]
	for who in parent child; do
		read -r pid want <<<"$(awk -v w=$who '$1 == "vfork" && $2 == w { print $4, $6 }' fk.out)"
		got=$(awk -F, -v p="${pid:-none}" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
			$1 == "main._omp_fn.0" && $h["metric"] == "cpu-time" && $h["process"] == p { print $h["instances"] }' \
			fk/variance/threads.csv)
		check "t821-fork-$who-${pid:-none}-instances-${got:-0}-of-${want:-none}" [ -n "$want" -a "${got:-0}" = "$want" ]
	done
else
	skip t821-fork "gcc -fopenmp could not build vfork.c: $(head -c 200 build2.err)"
fi
