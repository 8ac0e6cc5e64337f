#!/usr/bin/env bash
# t812-variance-short: short functions on the debug registers.  vshort runs leaves of 2,
# 5, 10, 20 and 50 us of CPU work (tests/workloads/variance/vshort.c).  Each instance has
# its two traps' calibrated cost (~14.5 us with attr.sigtrap, ~28 us with the real-time
# signal) subtracted, and a median under the resolution R (a quarter of that cost:
# model.c, var_resolution) is reported as below it.
# The truth is taken in the recorded run itself: vshort times each of its calls by the
# thread's CPU clock in the caller and prints the median and mean of the calls sonde did
# not touch.  Before, it came from separate native runs, and this VM's vCPUs each run at
# their own speed for seconds: w50's native time moved 44.6-53.7 us from one run to the
# next, as much as the errors checked, and 5-7 of 8 runs failed at load 5-9 (issue 9).
# What is compared: sonde's instance is the call less the traps' calibrated cost; in the caller's
# clock a measured call holds the traps' real cost and their handlers (+30-50 us), a
# sampled call the sample's handler, and the calls run while an entry breakpoint waits
# in their loop's 64-byte line ~2.4 times their time.  vshort leaves out every call more
# than 25% + 1 us over the median call of its moment (the 9 rounds around it), so the
# truth is the function undisturbed, with the measured calls out, and the error is the
# calibration's (the run's traps against the number subtracted) and the instances' own.
# The cut also leaves out the function's own upper tail (steal time, interrupts), which
# the instances hold: natively beside 2 busy loops it is 0.3-3.4 us of the mean (all
# calls' mean less the kept calls', 5 runs of `vshort 3`, 19:52 UTC, load 6.3-6.7), so
# the mean's upper bound adds the tail of a native run (the one that gives VSHORT_PER_US,
# the same sizes) at the same load.
# Asserted:
#   - w10, w20 and w50 (10 us and more, above the resolution on either delivery) are
#     measured: not below, a CV;
#   - each truth rests on most of the function's calls (kept over half of them);
#   - every function that is measured (not below) has a median instance within the
#     resolution R of its truth (at most +R over it, R/2 under it), R being what the
#     model states as the calibration's error bound; and a mean at most 2R + 3 standard
#     errors (sd / sqrt(instances)) over its truth and native tail, R/2 under its truth:
#     a mean holds the outliers (steal time, interrupts) that land in the traps' window
#     around each instance, and one of 1 ms among 100 instances moves it 10 us, which the
#     standard error of that run states.  32 runs beside 2 CPU-bound loops (2026-11-26
#     20:05-20:13 UTC, load 2.6-6.5; doc/sonde-variance.md, "Below the resolution"): of
#     the 29 whose calibration read under 16 us, medians +0.2 to +1.5 us over this truth
#     for w2-w20 (+4.6 once, w10: a failure) and +0.7 to +3.1 for w50, means less the
#     native tail +0.3 to +11 us; 2 failed (that one, and a calibration of 18.7 us in a
#     busy spell, every median 2.3-3.4 us under: the calibration's own limit, not the
#     truth's).  The same rounds with the native truth: 4 failed;
#   - each row below the resolution has a median instance under it (the model's rule).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"

var_gcc_src t812 vshort.c vshort -O1 -g -fno-omit-frame-pointer || exit 0
./vshort 1 >n1.txt
per=$(awk '$2 == "loop" { print $3 }' n1.txt)
check "t812-loop-speed-$per" [ "${per:-0}" -gt 0 ]
export VSHORT_PER_US=$per
"$SONDE" variance -p 1000000 -o rec -- ./vshort 3 >out.txt 2>err.txt
check t812-run [ $? -eq 0 ]
F=rec/variance/functions.csv
var_verdicts t812-verdicts $F
cost=$(sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = 'trap_cpu_ns'")
check "t812-calibrated-$cost" [ "${cost:-0}" -gt 1000 ]
R=$(awk -v c="${cost:-0}" 'BEGIN { print c / 4 }')
# "instances vary" only over 20% plus the CV the calibration's error alone can give the
# mean (resolution / mean): w5 and w10, a few resolutions long, read "investigate" from
# that error before 2026-11-28 (the trial: 3.2 us "investigate", 3.0 us "too short").
# Every such row of this run is over its bar.
bad=$(sqlite3 -separator ' ' rec/profile.db "SELECT function, cv_within, resolution, mean FROM
	var_functions WHERE metric = 'cpu-time' AND verdict LIKE '%instances vary%' AND
	resolution > 0 AND cv_within * 100 <= 20 + 100 * resolution / mean")
check "t812-vary-over-bar[${bad:-}]" [ -z "$bad" ]
# w5 (constant work by construction): over 20% it reads "steady within its error" (71% under
# an 87% bar in a run alone, where it read "investigate" before), or, past its bar, says
# the bar
w5=$(sqlite3 -separator '|' rec/profile.db "SELECT cv_within, verdict FROM var_functions WHERE
	metric = 'cpu-time' AND function = 'w5' LIMIT 1")
if awk -v c="${w5%%|*}" 'BEGIN { exit !(c > 0.2) }'; then
	check "t812-w5-error-said[$w5]" bash -c 'echo "$1" | grep -q "steady within its error\|calibration.s error at its mean\|^varies"' _ "$w5"
fi
# the kernel's speed, probed at every trap (rt-variance.c, kernel_speed): the calibration's
# probe, the probes' mean (each clamped within 3/4 and 2x of it) and their count
metav() { sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = '$1'"; }
pc=$(metav trap_probe_ns) pm=$(metav trap_probe_mean_ns) pn=$(metav trap_probes)
check "t812-probes-$pc-$pm-$pn" [ "${pc:-0}" -gt 0 -a "${pm:-0}" -gt 0 -a "${pn:-0}" -gt 0 ]
check "t812-probe-mean-clamped" [ $((4 * ${pm:-0})) -ge $((3 * ${pc:-0})) -a "${pm:-0}" -le $((2 * ${pc:-0})) ]
# and the report says so, with their mean ratio
check t812-report-scaled grep -qE "calibrated at start, scaled at each trap by the kernel's speed: x[0-9.]+ on average" <(flat err.txt)
# the store's trap as the calibration (SONDE_TRAP_CALIBRATE=store: the path taken where no
# executable page can be made for the call's leaf): a cost and a probe all the same
SONDE_TRAP_CALIBRATE=store "$SONDE" variance -q -p 1000000 -o st -- ./vshort 0.3 >/dev/null 2>&1
sc=$(sqlite3 st/profile.db "SELECT value FROM meta WHERE key = 'trap_cpu_ns'")
sp=$(sqlite3 st/profile.db "SELECT value FROM meta WHERE key = 'trap_probe_ns'")
check "t812-store-calibration-$sc-probe-$sp" [ "${sc:-0}" -gt 1000 -a "${sp:-0}" -gt 0 ]
# a recording of a runtime without them (its STATS records cut by their 24 bytes, the
# bursts' 16 after them, the OpenMP regions' 8, the call sites' 24 and the 8 of
# no_frame_main) has no such rows,
# and its report runs
cp -r rec old && rm old/profile.db
check t812-old-stats-cut cut_stats old $((8 + 16 + 24 + 16 + 8 + 24))
"$SONDE" report old >/dev/null 2>&1
check t812-old-report-status [ $? -eq 0 ]
check t812-old-no-probe-rows [ -z "$(sqlite3 old/profile.db "SELECT value FROM meta WHERE key LIKE 'trap_probe%'")" ]
# err DIR OUT F: F's median instance less its truth, in the recording DIR of the run whose
# output is OUT ("x" if either is missing)
err() {
	local m t
	m=$(awk -F, -v f=$3 'NR > 1 && $1 == f && $2 == "main > " f { print $7 }' \
		"$1/variance/instances.csv" | sort -g | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }')
	t=$(awk -v f=$3 '$1 == "vshort" && $2 == f { print $12 }' "$2")
	awk -v m="${m:-x}" -v t="${t:-x}" 'BEGIN { print (m != "x" && t != "x" ? m - t : "x") }'
}
# The median's bar fails now and then in one run (2 of 32 beside two loops, above; w50
# +3.8 us against R = 3.5 once in a make check alone and once beside another suite,
# 2026-11-27 02:33 and 03:03 UTC, where 8 runs of this test at 03:05 read +1.0 to +2.5 on
# this build and on b3bb187 alike: the calibration's error in that run, the kernel's speed
# moving).  So where the first run is out of the bar, two more runs are made and the
# median of the three runs' errors is held to it: the claim is the typical run's error.
extra=0
for f in w2 w5 w10 w20 w50; do
	# "vshort w10 calls N cpu_ns_per_call X timed T kept K median_ns M mean_ns A"
	read -r timed kept truth tmean <<<"$(awk -v f=$f \
		'$1 == "vshort" && $2 == f { print $8, $10, $12, $14 }' out.txt)"
	# the native run's tail: its calls' mean over its kept calls' mean
	tail=$(awk -v f=$f '$1 == "vshort" && $2 == f { t = $6 - $14; print (t > 0 ? t : 0) }' n1.txt)
	check "t812-$f-truth-kept-$kept-of-$timed" awk -v k="${kept:-0}" -v t="${timed:-0}" \
		'BEGIN { exit !(t > 0 && 2 * k > t) }'
	below=$(var_col $F $f "main > $f" cpu-time below)
	mean=$(var_col $F $f "main > $f" cpu-time mean)
	sd=$(var_col $F $f "main > $f" cpu-time sd)
	res=$(var_col $F $f "main > $f" cpu-time resolution)
	n=$(var_col $F $f "main > $f" cpu-time instances)
	check "t812-$f-resolution-$res-is-quarter-of-cost" \
		awk -v r="${res:-x}" -v c="${cost:-0}" 'BEGIN { d = r - c / 4; exit !(d < 0.01 && d > -0.01) }'
	med=$(awk -F, -v f=$f 'NR > 1 && $1 == f && $2 == "main > " f { print $7 }' \
		rec/variance/instances.csv | sort -g | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }')
	name="t812-$f-mean-${mean%.*}-truth-${tmean:-none}-tail-${tail:-none}"
	name="$name-median-${med:-none}-truth-${truth:-none}-R-${R%.*}-n-$n-sd-${sd%.*}"
	if [ "$below" = 1 ]; then
		check "$name-below-median-under-R" float_between "${med:-x}" 0 "$R"
	else
		e=$(err rec out.txt $f)
		inbar() { awk -v e="$1" -v r="$R" 'BEGIN { exit !(e != "x" && e <= r && -e <= r / 2) }'; }
		if ! inbar "$e"; then
			if [ $extra = 0 ]; then
				extra=1
				for k in 2 3; do
					"$SONDE" variance -p 1000000 -o rec$k -- ./vshort 3 >out$k.txt 2>err$k.txt
				done
			fi
			# the run of the median error is the one held to both bars: its mean too
			# (a first run out of the bar had its mean 14 us over with an sd of 28 us
			# beside a clang build, 2026-11-27 04:40 UTC)
			# (a run with no error, "x": failed or no instance, counts as the largest)
			read -r e d o <<<"$(printf '%s rec out.txt\n%s rec2 out2.txt\n%s rec3 out3.txt\n' \
				"$e" "$(err rec2 out2.txt $f)" "$(err rec3 out3.txt $f)" |
				awk '{ k = $1 == "x" ? 1e300 : $1; print k, $0 }' | sort -g | sed -n 2p | cut -d' ' -f2-)"
			name="$name-errors-$(err rec out.txt $f),$(err rec2 out2.txt $f),$(err rec3 out3.txt $f)-held-$d"
			G=$d/variance/functions.csv
			mean=$(var_col $G $f "main > $f" cpu-time mean)
			sd=$(var_col $G $f "main > $f" cpu-time sd)
			n=$(var_col $G $f "main > $f" cpu-time instances)
			tmean=$(awk -v f=$f '$1 == "vshort" && $2 == f { print $14 }' "$o")
			name="$name-mean-${mean%.*}-truth-${tmean:-none}-n-$n-sd-${sd%.*}"
		fi
		check "$name-median-within-R" inbar "$e"
		check "$name-mean-within-2R-3se" awk -v m="${mean:-x}" -v t="${tmean:-x}" -v l="${tail:-x}" \
			-v r="$R" -v s="${sd:-x}" -v n="${n:-0}" 'BEGIN { exit !(m != "x" && t != "x" && l != "x" &&
				s != "x" && n > 0 && m - t - l <= 2 * r + 3 * s / sqrt(n) && t - m <= r / 2) }'
	fi
	case $f in w10 | w20 | w50)
		if [ "$below" = 1 ]; then
			# below in this run: the calibration's error (a CI clone beside two suites
			# and a build read R = 5.9 us, a cost of 23.6 us calibrated in a busy spell,
			# and w10's median fell under it; 2026-11-27 05:05 UTC): two more runs, and
			# the function measured in the other two (the typical run)
			if [ $extra = 0 ]; then
				extra=1
				for k in 2 3; do
					"$SONDE" variance -p 1000000 -o rec$k -- ./vshort 3 >out$k.txt 2>err$k.txt
				done
			fi
			b2=$(var_col rec2/variance/functions.csv $f "main > $f" cpu-time below)
			b3=$(var_col rec3/variance/functions.csv $f "main > $f" cpu-time below)
			check "t812-$f-measured-not-below-in-runs-2-3-${b2:-none}-${b3:-none}" [ "$b2" = 0 -a "$b3" = 0 ]
			check "t812-$f-has-a-cv-in-run-2" [ -n "$(var_col rec2/variance/functions.csv $f "main > $f" cpu-time cv)" ]
		else
			check "t812-$f-measured-not-below-$below" [ "$below" = 0 ]
			check "t812-$f-has-a-cv" [ -n "$(var_col $F $f "main > $f" cpu-time cv)" ]
		fi ;;
	esac
done
