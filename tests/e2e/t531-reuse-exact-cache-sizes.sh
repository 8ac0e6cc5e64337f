#!/usr/bin/env bash
# t531-reuse-exact-cache-sizes: --exact counts the reuses at or beyond this machine's L1,
# L2 and L3 sizes (rt-reuse.c, exact_hit; SONDE_REUSE_CACHES from the CLI), so the miss
# ratio at each is counted, not read off the power-of-2 bins (the usability review of
# 2026-11-29, M4: a 48 KiB L1, 6144 words, cuts [4096, 8192); a sweep of 6000 words read
# "37.5%, between 0.1% and 75%" where every reuse came back within L1).  By construction,
# the sizes read from the machine (`sonde info --cache 1`: machine.c, as the CLI passes them):
#  - `rbench sweep N R` with N a little under L1's words: every reuse at N - 1 < L1, so
#    L1's miss ratio is the cold share alone, its bounds equal to it (no "between");
#  - N a little over: every reuse at N - 1 >= L1's words, so L1 misses them all (1 - a
#    handful of start-up accesses).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t50-reuse-lib.bash"
reuse_build t531-build || exit 0
l1=$("$SONDE" info --cache 1 2>/dev/null)
[ "${l1:-0}" -gt 0 ] 2>/dev/null || { skip t531 "this machine's L1 size is unknown"; exit 0; }
w=$((l1 / 8)) R=6
# a power of 2 is a bin's edge: the bins alone give it exactly, and nothing here could
# tell the count from them (u-reuse-shen tests the bounds)
if [ $(( w & (w - 1) )) -eq 0 ]; then
	skip t531 "this machine's L1 ($l1 bytes) is a power of 2: the bins give it exactly anyway"
	exit 0
fi
echo "    L1 $l1 bytes, $w words"
for run in "under $((w * 15 / 16))" "over $((w * 17 / 16))"; do
	set -- $run
	d=$1 N=$2
	"$SONDE" reuse -q --exact -o $d -- "$T/rb" sweep $N $R >/dev/null 2>err-$d
	check t531-$d-status [ $? -eq 0 ]
	m=$d/reuse/missratio.csv
	row=$(awk -F, -v b=$l1 '$1 == b { print $2, $3, $4 }' $m)
	set -- $row
	cold=$(csv_get $d/reuse/histogram.csv kind cold count)
	reuses=$(awk -F, '$1 == "reuse" { s += $4 } END { print s + 0 }' $d/reuse/histogram.csv)
	inv=$(csv_get $d/reuse/histogram.csv kind invalidation count)
	share=$(awk -v c=$cold -v r=$reuses -v i=$inv 'BEGIN { printf "%.6f", (c + i) / (c + r + i) }')
	echo "    $d: N $N, L1 row: miss $1 lo $2 hi $3; cold share $share"
	# counted: the bounds are the value (no bin spread); the row is there
	check "t531-$d-counted" [ -n "$1" -a "$1" = "$2" -a "$1" = "$3" ]
	if [ $d = under ]; then
		check "t531-under-cold-only" float_between "$1" "$(awk -v s=$share 'BEGIN { print s - 0.000001 }')" "$(awk -v s=$share 'BEGIN { print s + 0.000001 }')"
	else
		# all (R - 1) N sweep reuses miss; start-up's few accesses may hit
		check "t531-over-all-miss" float_between "$1" 0.999 1
	fi
done
# the summary says it without a range
"$SONDE" report under >rep 2>&1
flat rep >rep.flat
check t531-summary-no-range sh -c "! grep -q \"L1's size would miss [0-9.]*% of the accesses (between\" rep.flat"
