#!/usr/bin/env bash
# t060-mem-hotcold-clock: `sonde mem` with the clock source recovers demo-hotcold's answer
# (tests/workloads/demo-hotcold.c): objects hot, static_table and cold, and functions
# work_hot/work_static/work_cold, in the shares of the CPU time the workload spent on each;
# threads in the shares of their CPU time.
# The truth: the clock samples CPU time, which follows the construction's access counts (hot
# 62.5 %, static_table 31.25 %, cold 6.25 %) only where every access costs the same.  On the
# cloud VMs of 2026-11-29 it did not (static_table's passes took 0.44 of the time in one run,
# 0.31 in the next: CI read 0.369 against 0.3125), so the workload times its own passes
# (DEMO_HOTCOLD_TIMES: medians of blocks of passes, which a signal handler's pass does not
# move) and prints the time shares; the samples are held to those, and to the construction
# only within 0.15 (the largest cost difference seen, 12 points, and the sampling's 3).
# The timing itself takes ~5 % of the samples (clock_gettime between passes), so the shares
# compared are among the three arrays' samples (and the three functions').
# Tolerances, from the samples recorded (~1200 here): 4 binomial standard deviations of each
# share (1.4 points for the hot one at 1200), plus 1 point for the timer's bias (skid at the
# passes' ends).
. "$(dirname "$0")/lib.sh"

src=$SONDE_TOP/tests/workloads/demo-hotcold.c
DEMO_HOTCOLD_TIMES=1 "$SONDE" mem -q -o prof --source clock --seed 7 -- "$W/demo-hotcold" \
	>out 2>err
rc=$?
check t060-exit-status [ "$rc" -eq 0 ]
check t060-stdout [ "$(cat out)" = "demo-hotcold: threads=2 rounds=200 ok" ]
[ -f prof/mem/objects.csv ] || { fail t060-objects-csv "no prof/mem/objects.csv: $(tail -3 err)"; exit 0; }

# The allocation sites: the calloc line inside alloc_hot() and alloc_cold().
site() { awk -v f="$1" '$0 ~ "^static .*\\*" f "\\(void\\)" { in_f = 1 } in_f && /calloc/ { print NR; exit }' "$src"; }
hot="alloc_hot (demo-hotcold.c:$(site alloc_hot))"
cold="alloc_cold (demo-hotcold.c:$(site alloc_cold))"

# time_share NAME: the workload's own measure of its time in hot, static or cold
time_share() { sed -n "s/.*demo-hotcold: time .*$1=\([0-9.]*\).*/\1/p" err | head -1; }
for k in hot static cold; do
	[ -n "$(time_share $k)" ] || { fail t060-times "no time line from the workload: $(tail -3 err)"; exit 0; }
done
echo "    time shares: hot $(time_share hot) static $(time_share static) cold $(time_share cold)"

# share_near NAME CSV KEYCOL KEY WANT KEY2 KEY3: KEY's samples among KEY's, KEY2's and KEY3's
# within the tolerance (above) of WANT; within 0.15 of the construction's (CONSTRUCTED, the
# caller's).
share_near() {
	local v tol a b c n
	a=$(csv_get "$2" "$3" "$4" samples); b=$(csv_get "$2" "$3" "$6" samples)
	c=$(csv_get "$2" "$3" "$7" samples)
	n=$(( ${a:-0} + ${b:-0} + ${c:-0} ))
	[ "$n" -ge 1 ] || n=1
	v=$(awk -v a="${a:-0}" -v n="$n" 'BEGIN { printf "%.4f", a / n }')
	tol=$(awk -v p="$5" -v n="$n" 'BEGIN { printf "%.4f", 4 * sqrt(p * (1 - p) / n) + 0.01 }')
	echo "    $4: ${a:-0} of $n samples, share $v, want $5 +- $tol (constructed $CONSTRUCTED)"
	if [ -n "$a" ] && float_between "$v" "$(awk -v w="$5" -v t="$tol" 'BEGIN { print w - t }')" \
		"$(awk -v w="$5" -v t="$tol" 'BEGIN { print w + t }')"; then
		pass "$1"
	else
		fail "$1" "share of '$4' is $v (${a:-0} of $n), its time's $5 +- $tol"
	fi
	# the construction, where this run's machine kept it: the workload's own time share
	# within 0.1 of it (on the VMs of 2026-11-29 an array's accesses cost unequally from
	# run to run: static_table took 0.46 of the time in 1 run of 9 on a quiet machine,
	# and its samples followed, 0.463 against 0.3125 +- 0.15)
	if float_between "$5" "$(awk -v w="$CONSTRUCTED" 'BEGIN { print w - 0.1 }')" \
		"$(awk -v w="$CONSTRUCTED" 'BEGIN { print w + 0.1 }')"; then
		check "$1-constructed" float_between "$v" \
			"$(awk -v w="$CONSTRUCTED" -v t="${CONSTRUCTED_TOL:-0.15}" 'BEGIN { print w - t }')" \
			"$(awk -v w="$CONSTRUCTED" -v t="${CONSTRUCTED_TOL:-0.15}" 'BEGIN { print w + t }')"
	else
		skip "$1-constructed" "the workload's own time share was $5 in this run, not near the constructed $CONSTRUCTED (the machine's costs per access moved)"
	fi
}

n=$(awk -F, 'NR > 1 { n += $3 } END { print n + 0 }' prof/mem/objects.csv)
echo "    $n samples"
# 400 at least: the tolerances below stay under 10 points
check t060-samples [ "$n" -ge 400 ]

first=$(awk -F, 'NR == 2 { print $1 }' prof/mem/objects.csv)
check t060-hot-ranks-first [ "$first" = "$hot" ]
CONSTRUCTED=0.625 share_near t060-hot-share prof/mem/objects.csv object "$hot" "$(time_share hot)" static_table "$cold"
CONSTRUCTED=0.3125 share_near t060-static-share prof/mem/objects.csv object static_table "$(time_share static)" "$hot" "$cold"
CONSTRUCTED=0.0625 share_near t060-cold-share prof/mem/objects.csv object "$cold" "$(time_share cold)" "$hot" static_table
check t060-static-kind [ "$(csv_get prof/mem/objects.csv object static_table kind)" = static ]

CONSTRUCTED=0.625 share_near t060-code-work-hot prof/mem/code.csv function work_hot "$(time_share hot)" work_static work_cold
CONSTRUCTED=0.3125 share_near t060-code-work-static prof/mem/code.csv function work_static "$(time_share static)" work_hot work_cold
CONSTRUCTED=0.0625 share_near t060-code-work-cold prof/mem/code.csv function work_cold "$(time_share cold)" work_hot work_static

# Threads.  The clock samples CPU time: each thread's share of the samples must match its
# share of the CPU time the threads used (cpu_ns, measured by the runtime at their end),
# within the same binomial allowance plus 1 point (the handler's own time is in cpu_ns).
# The construction's 25/75 is a count of accesses, which CPU time follows only while an
# access costs the same in both threads: with another test suite on the 2 cores, the threads
# share a core with other processes and refill their caches unequally (thread 0's share
# came out 0.318 once in a pair of suites; on the VMs of 2026-11-29 thread 0's passes over
# hot took twice as long in some runs as in others, and it read 0.361 alone).  So 25/75 gets
# the objects' allowance, 0.15.
cpu_share() {
	sqlite3 "$1"/profile.db "select printf('%.4f', 1.0 * cpu_ns / (select sum(cpu_ns) from
		threads)) from threads where thread_index = $2" 2>/dev/null
}
for th in 0 1; do
	want=$(cpu_share prof $th)
	if [ -z "$want" ]; then
		fail t060-thread$th-cpu-share "no cpu_ns for thread $th in profile.db"
	else
		CONSTRUCTED=$([ $th = 0 ] && echo 0.25 || echo 0.75) CONSTRUCTED_TOL=0.15 \
			share_near t060-thread$th-cpu-share prof/mem/threads.csv thread $th "$want" \
			$((1 - th)) none
	fi
done

# At the clock's least period (10 us), where a sample costs more than the period on a VM
# whose traps exit to the hypervisor (~100-160 us a sample: a program ran at 1-5% of its
# speed and t201's MPI_Init under --period 1000 ran past 300 s), the handlers keep to a
# fifth of the thread's time (rt/source-clock.h, CLOCK_BUDGET_DIV): the signals past that
# are dropped as time-budget, said under the dropped line, and the period stretched; each
# sample counts for the periods it stood for (owed_ns), so that the thread stretched more
# is not under-counted (unweighted, the main thread read 0.06-0.26 of the samples for 0.29
# of the CPU time).  The thread shares are held to the workload's own
# time shares (threads=, its block medians: no handler's time in them, where the runtime's
# cpu_ns has the most in the thread stretched most), within 4 standard deviations of the
# weighted samples' effective number, (sum w)^2 / sum w^2, plus 3 points, no wider than
# 0.15; and that number 100 or more (weights gone wrong that left 10 would pass anything:
# the code review).
# The object shares at this period are printed, not held: they rest on few effective
# samples (the weights reach 800).
DEMO_HOTCOLD_TIMES=1 "$SONDE" mem -o least --period 10000 --seed 7 -- "$W/demo-hotcold" \
	>out2 2>err2
check t060-least-status [ $? -eq 0 ]
check t060-least-stdout [ "$(cat out2)" = "demo-hotcold: threads=2 rounds=200 ok" ]
taken=$(sqlite3 least/profile.db "SELECT COUNT(*) FROM mem_samples" 2>/dev/null)
neff=$(sqlite3 least/profile.db "SELECT CAST(1.0 * SUM(weight) * SUM(weight) /
	SUM(1.0 * weight * weight) AS INTEGER) FROM mem_samples" 2>/dev/null)
echo "    ${taken:-?} samples taken at --period 10000, ${neff:-?} effective"
# (since 2026-11-29 the ticks' cost outside the handler is charged to the budget too:
# 482-869 taken here, 178-616 effective, against 2000-2750 and 209-378 before; the bars
# are what a share's test still needs, its tolerance capped at 0.15 below)
check t060-least-samples [ "${taken:-0}" -ge 250 ]
for o in "$hot" static_table "$cold"; do
	echo "    $o: share $(csv_get least/mem/objects.csv object "$o" share) at --period 10000"
done
# the header says the samples are weighted where they are
if [ "${taken:-0}" -lt "$(awk -F, 'NR > 1 { n += $3 } END { print n + 0 }' least/mem/objects.csv)" ]; then
	check t060-least-weighted-said grep -q "samples $taken taken, counted as [0-9]* periods of 10000 ns" <(flat err2)
	# and the tables' count column says periods, not samples (the usability review of
	# 2026-11-29: one sample of weight 61 read "61 samples")
	check t060-least-tables-count-periods grep -qE "^ +# +share +periods +loads" err2
	# the shares' sampling error from the effective samples (weighted: (sum w)^2 / sum w^2),
	# said in the header (the usability review of 2026-11-29: no uncertainty anywhere)
	pts=$(sqlite3 least/profile.db "SELECT 1.0 * SUM(weight) * SUM(weight) /
		SUM(1.0 * weight * weight) FROM mem_samples" |
		awk '{ printf "%.1f", 100 * 1.96 * sqrt(0.25 / $1) }')
	check "t060-least-error-said-$pts" grep -q "error a share is within +-$pts points of the run's (95%" <(flat err2)
else
	check t060-least-tables-count-samples grep -qE "^ +# +share +samples +loads" err2
fi
check t060-least-effective [ "${neff:-0}" -ge 100 ]
# the ticks' cost outside the handler, measured at start and charged to the budget
# (source-clock.h, clock_tick_cost): printed (100-400 us here; on bare metal a few us,
# which the calibration's noise may read as none: not held, the budget's effect is
# bench/clock-budget.sh's); SONDE_CLOCK_TICK_COST=0 leaves it out
tc=$(sed -n 's/^clock_tick_cost_ns=//p' least/*.proc | head -1)
echo "    clock_tick_cost_ns: ${tc:-not measured}"
SONDE_CLOCK_TICK_COST=0 "$SONDE" mem -q -o nocost --period 10000 -- "$W/demo-hotcold" >/dev/null 2>&1
check t060-tick-cost-off bash -c '! grep -q "^clock_tick_cost_ns=" nocost/*.proc'
check t060-tick-cost-off-ran [ -s nocost/profile.db ]
v0=$(csv_get least/mem/threads.csv thread 0 share)
want=$(sed -n 's/.*demo-hotcold: time .*threads=\([0-9.]*\),.*/\1/p' err2 | head -1)
tol=$(awk -v p="${want:-0.25}" -v n="${neff:-1}" 'BEGIN { if (n < 1) n = 1
	t = 4 * sqrt(p * (1 - p) / n) + 0.03; printf "%.4f", (t > 0.15 ? 0.15 : t) }')
echo "    thread 0: share ${v0:-missing}, its time's ${want:-missing} +- $tol (cpu_ns: $(cpu_share least 0))"
check t060-least-thread0-share float_between "${v0:-9}" \
	"$(awk -v w="${want:-9}" -v t="$tol" 'BEGIN { print w - t }')" \
	"$(awk -v w="${want:-9}" -v t="$tol" 'BEGIN { print w + t }')"
budget=$(sqlite3 least/profile.db "SELECT COALESCE(SUM(count), 0) FROM drops WHERE cause = 'time-budget'" 2>/dev/null)
echo "    time-budget drops: ${budget:-?}"
if [ "${budget:-0}" -gt 0 ]; then
	check t060-least-budget-said grep -q "time-budget: the sample handlers (the single steps to an access: code that runs long in registers takes many) and the ticks. own delivery (measured at the start) would have taken over their share" <(flat err2)
else
	check t060-least-budget-unsaid bash -c '! grep -q "time-budget:" err2'
fi
