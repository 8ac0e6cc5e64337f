#!/usr/bin/env bash
# bench/clock-budget.sh - what the clock source's time budget (src/rt/source-clock.h,
# CLOCK_BUDGET_DIV) holds a short period to: membound alone and under `sonde mem --period P`
# in alternating pairs (BUDGET_ROUNDS, default 3), for P = 10000 (the clock's least),
# 100000 and 900000 (the default); the median elapsed and CPU ratios, and the last run's
# samples and time-budget drops.  SONDE_CLOCK_BUDGET is no switch: run it on a build from
# before the budget (BUDGET_SONDE=/path/to/old/sonde) to see what it holds back.  Never
# fails on numbers.
#   bench/clock-budget.sh
#   BUDGET_SONDE=/tmp/old/build/sonde BUDGET_ROUNDS=1 bench/clock-budget.sh
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
build=${SONDE_BUILD:-$top/build}
sonde=${BUDGET_SONDE:-$build/sonde}
w=$build/workloads/membound
[ -x "$w" ] || { echo "bench: clock-budget skipped: $w missing (make build-tests)"; exit 0; }
bench_scratch clock-budget
echo "bench: clock-budget, $sonde, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
for p in 10000 100000 900000; do
	: >el
	: >cpu
	for r in $(seq "${BUDGET_ROUNDS:-3}"); do
		bench_time a.t "$w"
		if ! timeout 600 /usr/bin/time -f "$BENCH_TIMEFMT" -o b.t "$sonde" mem -q -f -o rec \
			--period "$p" -- "$w" >/dev/null 2>&1; then
			echo "  --period $p: run $r over 600 s or failed (no ratio)"
			continue
		fi
		read -r ne nu ns _ <a.t
		read -r se su ss _ <b.t
		awk -v a="$ne" -v b="$se" 'BEGIN { if (a > 0) print b / a }' >>el
		awk -v a="$nu" -v b="$ns" -v c="$su" -v d="$ss" 'BEGIN { if (a + b > 0) print (c + d) / (a + b) }' >>cpu
	done
	# (samples taken: the weighted count, meta's samples, counts the periods they stood for)
	s=$(sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = 'records'" 2>/dev/null)
	d=$(sqlite3 rec/profile.db "SELECT COALESCE(SUM(count), 0) FROM drops WHERE cause = 'time-budget'" 2>/dev/null)
	printf '  --period %-7s elapsed %sx, CPU %sx (median of %s); last run: %s samples taken, %s time-budget drops\n' \
		"$p" "$(median <el)" "$(median <cpu)" "${BUDGET_ROUNDS:-3}" "${s:-?}" "${d:-?}"
done
# the default periods' budget (CLOCK_BUDGET_DIV_LONG, since 2026-11-29): cost-branchy,
# a branchy loop in registers, ~100 single steps to an access (the trial of that day's
# miniGhost case), alone and under `sonde mem` at the default period; BUDGET_BRANCHY the
# rounds of its loop (default 6,000,000, ~1.7 s here)
w=$build/workloads/cost-branchy
if [ -x "$w" ]; then
	: >cpu
	for r in $(seq "${BUDGET_ROUNDS:-3}"); do
		bench_time a.t "$w" "${BUDGET_BRANCHY:-6000000}"
		timeout 600 /usr/bin/time -f "$BENCH_TIMEFMT" -o b.t "$sonde" mem -q -f -o rec -- \
			"$w" "${BUDGET_BRANCHY:-6000000}" >/dev/null 2>&1 || continue
		read -r ne nu ns _ <a.t
		read -r se su ss _ <b.t
		awk -v a="$nu" -v b="$ns" -v c="$su" -v d="$ss" 'BEGIN { if (a + b > 0) print (c + d) / (a + b) }' >>cpu
	done
	d=$(sqlite3 rec/profile.db "SELECT COALESCE(SUM(count), 0) FROM drops WHERE cause = 'time-budget'" 2>/dev/null)
	printf '  cost-branchy, default period: CPU %sx (median of %s); last run: %s time-budget drops\n' \
		"$(median <cpu)" "${BUDGET_ROUNDS:-3}" "${d:-?}"
fi
