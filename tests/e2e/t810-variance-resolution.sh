#!/usr/bin/env bash
# t810-variance-resolution: on debug registers, each instance has its two traps'
# calibrated kernel time (~15 us here with attr.sigtrap delivery, ~28 us with the real-time
# signal) subtracted; an instance shorter than the error of that calibration reads the
# error, or 0 where it came out below 0 (clamped).  The resolution is a quarter of the cost
# (model.c, var_resolution: the largest error of a mean bench/variance-short.sh measured
# was 18% of it).  vwork tiny
# alternates 40000 calls of mid() (two calls of leaf(): a dozen instructions, well under
# 1 us by construction) and big() (20 units, ~0.2 ms at gcc -O1).  mid must read as
# below the resolution everywhere: "< RESOLUTION" for its mean in the text report, no CV, the
# verdict saying so, functions.csv with below=1, resolution = a quarter of the meta's trap
# cost and an empty cv, the HTML page the same bound; big must be measured as usual (a number, a
# CV).  Before, mid read a mean of 0.0-2.8 us with a CV of 200-400% (or none at all when
# every instance was clamped).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"

var_gcc_build t810 vgcc || exit 0
"$SONDE" variance -o rec -- ./vgcc tiny 2 >out.txt 2>err.txt
check t810-run [ $? -eq 0 ]
F=rec/variance/functions.csv
var_verdicts t810-verdicts $F
cost=$(sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = 'trap_cpu_ns'")
check "t810-calibrated-$cost" [ "${cost:-0}" -gt 1000 ]
check t810-columns grep -q "^function,context,metric,instances,mean,sd,cv,share,rank,min,max,threads,thread_cv,clamped,resolution,below,investigate,verdict,cv_within$" $F
check t810-mid-below [ "$(var_col $F mid "main > mid" cpu-time below)" = 1 ]
res=$(var_col $F mid "main > mid" cpu-time resolution)
check "t810-mid-resolution-$res-quarter-of-$cost" awk -v r="${res:-x}" -v c="$cost" 'BEGIN { d = r - c / 4; exit !(d < 0.01 && d > -0.01) }'
check t810-mid-no-cv [ -z "$(var_col $F mid "main > mid" cpu-time cv)" ]
check t810-mid-no-thread-cv [ -z "$(var_col rec/variance/threads.csv mid "main > mid" cpu-time cv)" ]
# clamped: the fraction of the instances the subtraction took below 0, recorded as 0.
# instances.csv keeps every instance of a row that has no more than the reservoir's 1000
# (VAR_RESERVOIR): there, the zeros of that metric's column over `instances` must be the
# fraction (to the 1e-6 the CSV's 15 digits easily hold); with more, clamped x instances
# must still be a whole count.  A row with a clamped instance has a minimum of 0, one
# without a minimum above it.
I=rec/variance/instances.csv
for fm in "mid cpu-time 7" "mid time 6" "big cpu-time 7" "big time 6"; do
	set -- $fm
	cl=$(var_col $F $1 "main > $1" $2 clamped)
	n=$(var_col $F $1 "main > $1" $2 instances)
	min=$(var_col $F $1 "main > $1" $2 min)
	check "t810-$1-$2-clamped-is-a-fraction-$cl" float_between "${cl:-x}" 0 1
	if [ "${n:-0}" -le 1000 ]; then
		zeros=$(awk -F, -v f=$1 -v k=$3 'NR > 1 && $1 == f && $2 == "main > " f && $k == 0' $I | wc -l)
		kept=$(awk -F, -v f=$1 'NR > 1 && $1 == f && $2 == "main > " f' $I | wc -l)
		check "t810-$1-$2-all-instances-kept-$kept-of-$n" test "$kept" -eq "$n"
		check "t810-$1-$2-clamped-is-$zeros-of-$n" \
			awk -v c="${cl:-x}" -v z="$zeros" -v n="$n" 'BEGIN { d = c - z / n; exit !(d < 1e-6 && d > -1e-6) }'
	else
		check "t810-$1-$2-clamped-whole-count" \
			awk -v c="${cl:-x}" -v n="$n" 'BEGIN { x = c * n; d = x - int(x + 0.5); exit !(d < 1e-6 && d > -1e-6) }'
	fi
	check "t810-$1-$2-min-0-iff-clamped" \
		awk -v c="${cl:-x}" -v m="${min:-x}" 'BEGIN { exit !((c > 0) == (m == 0)) }'
done
# big (~0.2 ms, several times the cost) is never taken below 0
check t810-big-none-clamped [ "$(var_col $F big "main > big" cpu-time clamped)" = 0.0 ]
# mid (well under 1 us) reads the calibration's error, below 0 in 2-35% of its instances
# in eleven runs: with 33-162 instances a run, one with none below 0 is improbable but
# possible (at 3% of 33, a third of the runs; at load 8-10, 1-11% in three runs), so it is
# reported, not failed; the checks above hold either way
cl=$(var_col $F mid "main > mid" cpu-time clamped)
if awk -v c="${cl:-0}" 'BEGIN { exit !(c > 0) }'; then
	pass "t810-mid-some-clamped-$cl"
else
	skip t810-mid-some-clamped "no instance of mid came out below 0 in this run ($(var_col $F mid "main > mid" cpu-time instances) instances)"
fi
# the text report: mid's mean is a bound (the resolution, in us; the cost as the traps:
# line prints it)
us=$(awk -v c="$cost" 'BEGIN { printf "%.1f", c / 4e3 }')
cus=$(awk -v c="$cost" 'BEGIN { printf "%.1f", c / 1e3 }')
row=$(grep -E "^[0-9]+ +mid +main > mid " err.txt | head -1)
check "t810-text-bound" grep -qE "^[0-9]+ +mid +main > mid +[0-9]+ +< $us us +- +- " <<<"$row"
check t810-text-verdict grep -q "too short for the debug registers here: under the $us us resolution (a quarter of the $cus us subtracted" <<<"$row"
# big: ~0.2 ms of work, many times the resolution: measured
check t810-big-measured [ "$(var_col $F big "main > big" cpu-time below)" = 0 ]
check t810-big-cv [ -n "$(var_col $F big "main > big" cpu-time cv)" ]
# the page: the same bound in the ranked table
"$SONDE" report rec --html page.html >/dev/null 2>&1
check t810-html-bound grep -q "&lt; $us<" page.html
# the wall-time table on the page shows mid's bound as the terminal's does ("< R"; it read
# "-" until 2026-11-28, where the terminal said "< R us")
if [ "$(var_col $F mid "main > mid" time below)" = 1 ]; then
	check t810-text-time-bound grep -qE "^[0-9]+ +mid +main > mid +< [0-9.]+ us +- +- " \
		<(sed -n '/^time per instance:/,/^$/p' err.txt)
	check t810-html-time-bound grep -q "<td[^>]*>mid</td><td[^>]*>main &gt; mid</td><td[^>]*>&lt; [0-9.]*</td>" \
		<(sed -n '/<table id="metric-time"/,/<\/table>/p' page.html | tr -d '\n')
	# and its section draws no distribution of the calibration's error (it drew a
	# histogram and a timeline until 2026-11-28: the trial)
	r=$(sqlite3 rec/profile.db "SELECT rank FROM var_functions WHERE metric = 'cpu-time' AND function = 'mid' AND below = 1")
	check "t810-html-no-hist-${r:-none}" bash -c "[ -n '$r' ] && ! grep -q 'id=\"hist-$r\"' page.html"
	check t810-html-below-said grep -q "so no distribution is drawn" page.html
else
	skip t810-html-time-bound "mid's wall time was over the resolution in this run"
fi
# A row under the resolution in CPU time but not in wall time (the trial of 2026-11-28:
# SimpleMOC's attenuate_fluxes, "< 3.6 us" in CPU time beside a wall-time mean of 26 us
# and a CV of 659%, preempted on a loaded machine) is said to be time off the CPU.  That
# needs preemption to arise; here the recording's wall-time row of mid is made so in a
# copy of its database, and the view must name exactly the rows so (mid and any other).
mkdir -p offcpu && cp rec/profile.db offcpu/
sqlite3 offcpu/profile.db "UPDATE var_functions SET below = 0, mean = 50000, sd = 100000, cv = 2.0 WHERE function = 'mid' AND context = 'main > mid' AND metric = 'time'"
# the rows the note must name: those under the resolution in CPU time and not in wall
# time, from the copy's table (mid's, and any other this run made so)
rows=$(sqlite3 offcpu/profile.db "SELECT '#' || t.rank FROM var_functions t JOIN var_functions c ON c.function = t.function AND c.context = t.context AND c.metric = 'cpu-time' WHERE t.metric = 'time' AND c.below = 1 AND t.below = 0 AND t.mean >= 2 * c.resolution ORDER BY t.rank" | paste -sd, | sed 's/,/, /g')
r=$(sqlite3 offcpu/profile.db "SELECT rank FROM var_functions WHERE function = 'mid' AND context = 'main > mid' AND metric = 'time'")
"$SONDE" report offcpu >offcpu.txt 2>&1
check "t810-off-cpu-names-mid (#$r in $rows)" grep -q "#$r\b" <<<"$rows"
check "t810-off-cpu-said ($rows)" grep -Eq "Rows? $rows (is|are) under the resolution in CPU time: (its|their) wall time is mostly time off the CPU" <(flat offcpu.txt)
