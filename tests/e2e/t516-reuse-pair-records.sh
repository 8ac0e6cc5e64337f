#!/usr/bin/env bash
# t516-reuse-pair-records: what --exact writes for a code pair evicted from its thread's
# slots is bounded by the bins the pair used, not the whole histogram.  widepairs: 1023
# pairs by construction (more than the 512 slots), each reused exactly N - 1 times at one
# distance, cycled in order; at worst every reuse evicts a pair, whose record then holds
# one nonzero bin.  Before, every eviction wrote the fixed 424-byte PAIR record (all 48
# bins): 86 MB for N = 200, and 350-490 MB for miniFE 30^3.  Bar: at most 48 bytes per
# reuse (a one-bin record is 40) plus 1 MiB for the rest (counters, the pairs' last
# records, maps): fails at 424 bytes a reuse.  And the slots grow when the pairs thrash
# them (rt-reuse.c: after as many evictions as slots, 4 times larger: 512, 2048, 8192
# slots, which hold the 1023 pairs): at most 512 + 2048 + 8192 evictions and the 1023
# last records, each 40 bytes, ~470 KB: under 1 MiB with the rest.  Fixed 512 slots
# evict at every reuse: 8 MB.
. "$(dirname "$0")/lib.sh"
command -v clang >/dev/null || { skip t516 "clang is not installed (sonde-cc needs it)"; exit 0; }
"$SONDE_BUILD/sonde-cc" -O2 -g "$SONDE_TOP/tests/workloads/reuse/widepairs.c" -o wp ||
	{ fail t516-build "sonde-cc could not build widepairs"; exit 0; }
N=200
R=$((1023 * (N - 1)))	# reuses by construction

"$SONDE" reuse -q --exact -o rec -- ./wp $N >out 2>err
check t516-status [ $? -eq 0 ]
check t516-output grep -q "^widepairs: 0$" out
bytes=$(cat rec/*.sdt | wc -c)
check "t516-recording-$bytes-bytes-for-$R-reuses" [ "$bytes" -le $((48 * R + (1 << 20))) ]
check "t516-slots-grow-$bytes-bytes" [ "$bytes" -lt $((1 << 20)) ]
# the counts survive the compact records: every reuse in the histogram's one bin, and the
# pairs (1023 code pairs on one source line: pairs.csv merges them by line) sum to them
check "t516-histogram" grep -q "^reuse,512,1024,$R," rec/reuse/histogram.csv
sum=$(awk -F, 'NR > 1 { s += $(NF - 3) } END { print s + 0 }' rec/reuse/pairs.csv)	# reuses
check "t516-pairs-sum-$sum" [ "$sum" -eq "$R" ]
