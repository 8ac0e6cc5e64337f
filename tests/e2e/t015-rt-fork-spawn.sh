#!/usr/bin/env bash
# t015-rt-fork-spawn: children made every way leave the program as it was: fork from a
# program whose threads keep creating threads (each child starts threads of its own),
# vfork + a failing exec + _exit (the child's _exit used to stop the parent's sampling and
# allocation tracking for good, through the memory they share), posix_spawn, system() and
# popen().  Same output and status as natively; the parent's profile still has the block
# allocated after the vforks.
. "$(dirname "$0")/lib.sh"
report_ok() { "$SONDE" report "$1" >/dev/null 2>&1; }

for m in fork-mt vfork-fail spawn; do
	( timeout 60 "$W/rt-proc" "$m" >"n-$m.out" 2>/dev/null ); nrc=$?
	( timeout 60 "$SONDE" mem -q -o "p-$m" -- "$W/rt-proc" "$m" >"s-$m.out" 2>"s-$m.err" )
	rc=$?
	check "t015-$m-status ($rc, native $nrc)" [ "$rc" -eq "$nrc" -a "$rc" -eq 0 ]
	check "t015-$m-stdout" cmp -s <(sort "n-$m.out") <(sort "s-$m.out")
	check "t015-$m-report" report_ok "p-$m"
done

# The block after_vfork() allocates is tracked and sampled (no samples, no row, before).
line=$(grep -n 'uint64_t \*a = malloc(ELEMS' "$SONDE_TOP/tests/workloads/rt-proc.c" | head -1 | cut -d: -f1)
n=$(csv_get p-vfork-fail/mem/objects.csv object "after_vfork (rt-proc.c:$line)" samples)
check "t015-vfork-parent-sampled (${n:-no row})" [ "${n:-0}" -gt 0 ]
