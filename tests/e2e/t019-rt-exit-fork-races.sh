#!/usr/bin/env bash
# t019-rt-exit-fork-races: the end of a process and fork, while other threads are busy in
# the runtime, under `sonde mem`:
#  - exit() in main, and _exit() in one thread, while 3 threads allocate tracked blocks
#    without pause (21 processes each): the ending thread finished the others' streams
#    while they were still writing into them (torn records, duplicated ones, a report that
#    failed in 3 runs of 4), and a thread starting at the exit left an empty stream that
#    made the whole report fail (2 runs in 40 of t014's exit-threads);
#  - 60 forks while 3 threads allocate 240 calls deep (the runtime unwinds with libunwind,
#    whose lock a fork could leave taken in the child: 2-8 children in 60 hung for ever).
# Same status and output as natively, consistent streams (rt2-sdtcheck), a readable report.
. "$(dirname "$0")/lib.sh"
report_ok() { "$SONDE" report "$1" >/dev/null 2>&1; }

for m in exit-race thread-exit; do
	want=5
	[ $m = thread-exit ] && want=6
	( timeout 60 "$W/rt2-heap" $m 20 >"n-$m.out" 2>/dev/null ); nrc=$?
	( timeout 60 "$SONDE" mem -q -o "p-$m" -- "$W/rt2-heap" $m 20 >"s-$m.out" 2>"s-$m.err" )
	rc=$?
	check "t019-$m-status ($rc, native $nrc)" [ "$rc" -eq "$nrc" -a "$rc" -eq "$want" ]
	check "t019-$m-stdout" cmp -s "n-$m.out" "s-$m.out"
	check "t019-$m-report" report_ok "p-$m"
	c=$("$W/rt2-sdtcheck" "p-$m")
	# 21 processes of 4 threads: 84 streams, none empty or torn, each ended by END
	check "t019-$m-streams ($c)" [ "${c%% *}" = files=84 ]
	check "t019-$m-records" \
		grep -qE ' empty=0 corrupt=0 .* free_unmatched=0 alloc_live=0 end=84( |$)' <<<"$c"
done

want="rt2-heap: fork-storm 60 children, 0 hung, 0 failed"
( timeout 120 "$SONDE" mem -q --max-depth 250 -o p-fork -- "$W/rt2-heap" fork-storm 60 \
	>s-fork.out 2>s-fork.err )
rc=$?
check "t019-fork-storm-status ($rc)" [ "$rc" -eq 0 ]
check "t019-fork-storm-answer ($(cat s-fork.out))" [ "$(cat s-fork.out)" = "$want" ]
check "t019-fork-storm-report" report_ok p-fork
