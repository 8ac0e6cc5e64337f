#!/usr/bin/env bash
# t802-variance-pages: exact page faults per instance (tests/workloads/variance/vwork.c):
# pages3() touches 3 fresh pages, pages7() 7, multiret() 1, 2 or 3 by its three return
# paths, rec(d) d + 1 (an instance with j rec frames in its context was entered with
# d = 4 - j, so 5 - j faults).  Exact: the runtime reads the thread's fault count at entry
# and return and subtracts the faults of its own handlers in between; none may differ.
# Fixed work (VWORK_ITERS rounds), not seconds: a loaded machine slows the run but
# gives it the same CPU time, so the same number of clock samples.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"

# pages_exact PREFIX FILE: pages3 and pages7 caught at least 5 times each in FILE
# (instances.csv), every instance with exactly 3 and 7 faults
pages_exact() {
	local f fn want n bad
	for f in pages3:3 pages7:7; do
		fn=${f%:*} want=${f#*:}
		n=$(var_count "$2" "f == \"$fn\"")
		bad=$(var_count "$2" "f == \"$fn\" && pf != $want")
		check "$1$fn-instances-$n" [ "$n" -ge 5 ]
		check "$1$fn-exactly-$want-faults-$bad-wrong" [ "$bad" -eq 0 ]
	done
}

var_build t802-build vwork.c vwork -pthread || exit 0
VWORK_ITERS=1500 "$SONDE" variance -q -o pg -p 1000000 -e page-faults -- ./vwork pages 0 >/dev/null 2>&1
check t802-run-pages [ $? -eq 0 ]
I=pg/variance/instances.csv
pages_exact t802- $I
n=$(var_count $I 'f == "multiret"')
bad=$(var_count $I 'f == "multiret" && (pf < 1 || pf > 3)')
check "t802-multiret-1-to-3-faults-$bad-wrong-of-$n" [ "$bad" -eq 0 ]
n=$(var_count $I 'f == "spin"')
bad=$(var_count $I 'f == "spin" && pf != 0')
check "t802-spin-no-faults-$bad-wrong-of-$n" [ "$bad" -eq 0 ]
check "t802-spin-instances-$n" [ "$n" -ge 5 ]

# pages3 and pages7 exact in a forked child too: the child maps none of its parent's file
# pages, and the runtime maps its resident part again there (libtrim.c, rt_trim_prefault
# in init.c's atfork_child).  This does NOT test that prefault: with rt_trim_prefault()
# removed from atfork_child it still passed (the review of 27836d5; rechecked 2026-11-26
# 14:57 UTC; not looked into why), and bench/variance-resident.sh pagesfork, which counts
# only faults outside the resident part, showed nothing either: no check covers it.
VWORK_ITERS=1500 "$SONDE" variance -q -o pf -p 1000000 -e page-faults -- ./vwork pagesfork 0 >/dev/null 2>&1
check t802-run-pagesfork [ $? -eq 0 ]
pages_exact t802-fork- pf/variance/instances.csv

VWORK_ITERS=4000 "$SONDE" variance -q -o rc -p 1000000 -e page-faults -- ./vwork recurse 0 >/dev/null 2>&1
check t802-run-recurse [ $? -eq 0 ]
I=rc/variance/instances.csv
read -r n bad levels < <(awk -F, 'NR > 1 && $1 == "rec" { j = gsub(/rec/, "rec", $2); n++; if ($8 != 5 - j) bad++; lv[j] = 1 }
	END { printf "%d %d %d\n", n, bad, length(lv) }' "$I")
check "t802-recursion-instances-$n" [ "$n" -ge 10 ]
check "t802-recursion-exact-faults-$bad-wrong" [ "$bad" -eq 0 ]
check "t802-recursion-levels-$levels" [ "$levels" -ge 3 ]

# Only a run that counts page faults keeps the runtime's pages mapped and the pages its
# start-up mapped in other objects (libc's stdio): without -e page-faults the runtime is
# trimmed as under any tool (src/rt/init.c, counts_faults; bench/memory.sh variance: peak
# RSS 1.19x -> 1.15x of the 1.5 MB program).
VWORK_ITERS=300 SONDE_DEBUG=1 "$SONDE" variance -q -o d0 -p 1000000 -- ./vwork pages 0 >/dev/null 2>d0.err
check t802-default-run [ $? -eq 0 ]
check t802-default-drops-start-up-pages grep -Eq "start-up's pages of other objects: [0-9]+ dropped" d0.err
VWORK_ITERS=300 SONDE_DEBUG=1 "$SONDE" variance -q -o d1 -p 1000000 -e page-faults -- ./vwork pages 0 >/dev/null 2>d1.err
check t802-faults-run [ $? -eq 0 ]
check t802-faults-keep-start-up-pages grep -q "start-up's pages of other objects: kept$" d1.err
