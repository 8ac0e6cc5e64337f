#!/usr/bin/env bash
# t088-mem-clock-budget: the clock source's time budget holds at the default periods too
# (the inherited event, POSIX timers: source-clock-sig.c, budget_tick; a third of a thread's
# time, CLOCK_BUDGET_DIV_LONG), and within a sample (every 4 steps).  Before, only the
# per-thread events (periods under 0.5 ms) kept one, and code running long stretches in
# registers paid ~100 single steps at every tick: the trial of 2026-11-29 ran a branchy
# register loop 17.7x slower under sonde mem, miniGhost 4.4x.  cost-branchy is such code
# (tests/workloads/cost-branchy.c).  No time is measured here (the machine's speed and
# load decide what a step costs): SONDE_CLOCK_BUDGET_DIV=100000 makes the budget a
# hundred-thousandth of the thread's time, so that on any machine the first sample spends
# it and every later tick is dropped before any step: time-budget drops are nearly all the
# signals, and the steps those of one sample (at most CLOCK_MAX_STEPS, 256) and few more.
# The default run's figures are printed (its cost: bench/clock-budget.sh).
. "$(dirname "$0")/lib.sh"
if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 2 ] && [ "$(id -u)" -ne 0 ]; then
	skip t088 "perf_event_paranoid > 2: no cpu-clock sampling for users"
	exit 0
fi
SONDE_CLOCK_BUDGET_DIV=100000 "$SONDE" mem -q -s clock -o tiny -- "$W/cost-branchy" 1500000 >out 2>err
check t088-status [ $? -eq 0 ]
check t088-output grep -q '^cost-branchy: [0-9]* ok$' out
ev=$(sed -n 's/^clock_event=//p' tiny/*.proc | head -1)
read -r sig steps <<<"$(sqlite3 -separator ' ' tiny/profile.db "SELECT SUM(signals), SUM(steps) FROM threads")"
tb=$(sqlite3 tiny/profile.db "SELECT COALESCE(SUM(count), 0) FROM drops WHERE cause = 'time-budget'")
echo "    tiny budget ($ev): $sig signals, $tb dropped by the budget, $steps steps"
if [ "$ev" = per-thread ]; then
	skip t088-tiny "the clock ran one event per thread here (an older kernel): t060 holds that path's budget"
elif [ "${sig:-0}" -lt 50 ]; then
	skip t088-tiny "only ${sig:-0} signals (a busy machine): too few to judge"
else
	check "t088-tiny-dropped-$tb-of-$sig" [ $((10 * ${tb:-0})) -ge $((9 * sig)) ]
	check "t088-tiny-steps-$steps" [ "${steps:-999999}" -le $((256 + sig / 10)) ]
	"$SONDE" report tiny >rep 2>&1
	check t088-tiny-said grep -q "time-budget: the sample handlers (the single steps to an access" <(flat rep)
fi
# the default budget: figures for the log, the program unchanged
"$SONDE" mem -q -s clock -o dflt -- "$W/cost-branchy" 1500000 >out2 2>err2
check t088-default-output cmp -s out out2
read -r sig steps <<<"$(sqlite3 -separator ' ' dflt/profile.db "SELECT SUM(signals), SUM(steps) FROM threads")"
tb=$(sqlite3 dflt/profile.db "SELECT COALESCE(SUM(count), 0) FROM drops WHERE cause = 'time-budget'")
echo "    default budget: $sig signals, $tb dropped by the budget, $steps steps"
