#!/usr/bin/env bash
# t064-mem-drops: dropped samples are accounted for by cause, in profile.db (drops table)
# and in the text report.  cost-compute touches no memory in its loop: the clock source
# finds no access within its look-ahead and drops nearly every sample as "far".
. "$(dirname "$0")/lib.sh"

if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 2 ] && [ "$(id -u)" -ne 0 ]; then
	skip mem-drops "perf_event_paranoid > 2: no cpu-clock sampling for users"
	exit 0
fi

"$SONDE" mem -s clock -o far -- "$W/cost-compute" >out 2>err
check mem-drops-runs grep -q '^cost-compute: .* ok$' out
db=far/profile.db
dropped=$(sqlite3 "$db" "select coalesce(sum(dropped),0) from threads")
by_cause=$(sqlite3 "$db" "select coalesce(sum(count),0) from drops")
far=$(sqlite3 "$db" "select coalesce(sum(count),0) from drops where cause = 'far'")
echo "dropped $dropped, by cause $by_cause, far $far"
# every dropped sample has a cause (the causes add up to the threads' counts exactly)
check mem-drops-sum test "${dropped:-0}" -gt 0 -a "${dropped:-0}" = "${by_cause:-x}"
# a loop with no access: most drops are "far" (a few may land in start-up or exit code,
# where an access is near, or be refused: the bar is half, far from both outcomes)
check mem-drops-far test "$((2 * ${far:-0}))" -gt "${dropped:-0}"
# the report goes to stderr (the program owns stdout)
check mem-drops-text grep -q "^ *by cause: far " err
# scripts read them from JSON too
"$SONDE" report --format json far >json 2>&1
check mem-drops-json grep -q '"cause": "far"' json
