#!/usr/bin/env bash
# t078-mem-fork-heap: a forked child reads a block its parent allocated before fork() (the
# parent only waits): the child inherits the block with the address space, and its samples
# are named by the parent's allocation site, not [anonymous memory] (the usability review
# of 2026-11-29: 28-41% of a run read as anonymous).  The block's allocation is counted
# once (the parent's).  Bars: the block holds most samples (the child's reads are nearly
# all the run's accesses: over 0.6, against the ~0.9 a quiet run gives, for the parent's
# init loop and a loaded machine), anonymous memory under 0.05.
. "$(dirname "$0")/lib.sh"
src=$SONDE_TOP/tests/workloads/fork-heap.c
line=$(grep -n "FORK-HEAP-BLOCK" "$src" | cut -d: -f1)
"$SONDE" mem -q -o rec -- "$W/fork-heap" 400 >out 2>err
check t078-status [ $? -eq 0 ]
check t078-output grep -q "^fork-heap: parent done$" out
o=rec/mem/objects.csv
name="main (fork-heap.c:$line)"
share=$(csv_get $o object "$name" share)
anon=$(csv_get $o object "[anonymous memory]" share)
echo "    $name: share ${share:-none}; [anonymous memory]: ${anon:-none}"
check "t078-block-named (${share:-none})" float_between "${share:-0}" 0.6 1
check "t078-not-anonymous (${anon:-0})" float_between "${anon:-0}" 0 0.05
check t078-counted-once [ "$(csv_get $o object "$name" allocs)" = 1 ]
# one row in the database's allocations too: the parent's (the child's inherited copy is
# not a block of its own: the code review of 2026-11-29)
rows=$(sqlite3 rec/profile.db "SELECT COUNT(*) FROM allocations a JOIN objects o ON
	o.id = a.object WHERE o.name = '$name'" 2>/dev/null)
check "t078-one-allocation-row-${rows:-none}" [ "${rows:-0}" = 1 ]
