#!/usr/bin/env bash
# t812-variance-short: short functions on the debug registers.  vshort runs leaves of 2,
# 5, 10, 20 and 50 us of CPU work (tests/workloads/variance/vshort.c); its native CPU time
# per call, the better of a run before and one after the recording (other work only adds
# to it), is the truth.  Each instance has its two traps' calibrated cost (~14.5 us with
# attr.sigtrap, ~28 us with the real-time signal) subtracted, and a mean under the
# resolution (a quarter of that cost: model.c, var_resolution) is reported as a bound.
# Asserted:
#   - w10, w20 and w50 (10 us and more, above the resolution on either delivery) are
#     measured: not below, a CV;
#   - every function that is measured (not below) has a median instance within the
#     resolution R of its truth (at most +R over it, R/2 under it) and a mean within
#     +2R / -R/2.  R is what the model states as the calibration's error bound;
#     bench/variance-short.sh (2026-11-26 11:09-11:12 UTC, load 9-13, alone and beside 2
#     CPU-bound loops) measured medians of the instances' errors of +0.4 to +1.9 us with
#     either delivery (R 3.6 us with attr.sigtrap, 7 us with the real-time signal), and
#     means of +0.7 to +4.8 us over the truth (0.75 R at most); a mean also holds the
#     outliers (steal time, interrupts) that land in the traps' window around each
#     instance: an earlier run (10:33 UTC, load 13) read 1.7 R for w10 alone.  Under: a
#     calibration taken in a busy spell (17.4 and 19.1 us against 14.8, in runs of this
#     test before the calibration took the third lowest of 4 batches) put w20's and w5's
#     medians 2.4 and 3.4 us under their truth.  Over: a calibration that read 10.45
#     and 12.37 us (its rounds in which the thread lost its CPU, read low: 2 of 25 runs
#     beside 3 busy loops at load 2-9, 16:13 UTC, before 622e1ee kept clean rounds only)
#     put every median 2.4-5.6 us over its truth;
#   - each row below the resolution has a median instance under it (the model's rule).
# Before: the resolution was the whole cost (14.5-15 us), and w2, w5 and w10 were all
# reported "too short", w10's mean within 0.5-2.4 us of its truth.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"

var_gcc_src t812 vshort.c vshort -O1 -g -fno-omit-frame-pointer || exit 0
./vshort 1 >n1.txt
per=$(awk '$2 == "loop" { print $3 }' n1.txt)
check "t812-loop-speed-$per" [ "${per:-0}" -gt 0 ]
export VSHORT_PER_US=$per
"$SONDE" variance -p 1000000 -o rec -- ./vshort 3 >out.txt 2>err.txt
check t812-run [ $? -eq 0 ]
./vshort 1 >n2.txt
F=rec/variance/functions.csv
cost=$(sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = 'trap_cpu_ns'")
check "t812-calibrated-$cost" [ "${cost:-0}" -gt 1000 ]
R=$(awk -v c="${cost:-0}" 'BEGIN { print c / 4 }')
for f in w2 w5 w10 w20 w50; do
	truth=$(awk -v f=$f '$1 == "vshort" && $2 == f { print $6 }' n1.txt n2.txt | sort -g | head -1)
	below=$(var_col $F $f "main > $f" cpu-time below)
	mean=$(var_col $F $f "main > $f" cpu-time mean)
	res=$(var_col $F $f "main > $f" cpu-time resolution)
	n=$(var_col $F $f "main > $f" cpu-time instances)
	check "t812-$f-resolution-$res-is-quarter-of-cost" \
		awk -v r="${res:-x}" -v c="${cost:-0}" 'BEGIN { d = r - c / 4; exit !(d < 0.01 && d > -0.01) }'
	med=$(awk -F, -v f=$f 'NR > 1 && $1 == f && $2 == "main > " f { print $7 }' \
		rec/variance/instances.csv | sort -g | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }')
	name="t812-$f-mean-${mean%.*}-median-${med:-none}-truth-$truth-R-${R%.*}-n-$n"
	if [ "$below" = 1 ]; then
		check "$name-below-median-under-R" float_between "${med:-x}" 0 "$R"
	else
		check "$name-median-within-R" awk -v m="${med:-x}" -v t="${truth:-0}" -v r="$R" \
			'BEGIN { exit !(m != "x" && m - t <= r && t - m <= r / 2) }'
		check "$name-mean-within-2R" awk -v m="${mean:-x}" -v t="${truth:-0}" -v r="$R" \
			'BEGIN { exit !(m != "x" && m - t <= 2 * r && t - m <= r / 2) }'
	fi
	case $f in w10 | w20 | w50)
		check "t812-$f-measured-not-below-$below" [ "$below" = 0 ]
		check "t812-$f-has-a-cv" [ -n "$(var_col $F $f "main > $f" cpu-time cv)" ] ;;
	esac
done
