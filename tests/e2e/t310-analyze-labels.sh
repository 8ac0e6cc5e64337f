#!/usr/bin/env bash
# t310: the terminal's accounting column labels are unique and each names one branch: spelt
# out in the "# columns:" line, or the branch's own name; together they are exactly the
# branches -o writes (full paths in functions.csv).  Labels that would read the same get
# their parents in front (a template made here with two walk_cycles leaves).
. "$(dirname "$0")/lib.sh"
fx=$SONDE_TOP/tests/fixtures/perfdata
mkdir ex && cp "$fx/example-snb" "$fx/example-snb.perf.data" ex/ && cd ex || exit 1

"$SONDE" analyze --depth 4 example-snb.perf.data >d3.txt 2>err.txt
check t310-runs [ $? -eq 0 ]
# labels: the header fields between "cycles" and "function"
awk '/^Hot functions/ { getline; on = 0
	for (i = 1; i <= NF; i++) { if ($i == "function") on = 0; if (on) print $i; if ($i == "cycles") on = 1 }
	exit }' d3.txt >labels.txt
n=$(wc -l <labels.txt)
u=$(sort -u labels.txt | wc -l)
if [ "$n" -ge 15 ] && [ "$n" -eq "$u" ]; then
	pass "t310-labels-unique ($n)"
else
	fail t310-labels-unique "$n labels, $u distinct: $(sort labels.txt | uniq -d | tr '\n' ' ')"
fi
# the legend: "label = path" pairs
sed -n 's/^# columns: //p' d3.txt | sed 's/, /\n/g' | awk -F' = ' 'NF == 2 { print $1, $2 }' >legend.txt
"$SONDE" analyze -o rep example-snb.perf.data >/dev/null 2>&1
head -1 rep/functions.csv | tr , '\n' | awk 'f; $0 == "cycles" { f = 1 }' | sort >want.txt
# resolve each label: the legend, else the one csv path whose last component it is
while read -r lab; do
	p=$(awk -v l="$lab" '$1 == l { print $2; exit }' legend.txt)
	if [ -z "$p" ]; then
		p=$(awk -F/ -v l="$lab" '$NF == l' want.txt)
		[ "$(printf '%s\n' "$p" | grep -c .)" -eq 1 ] || p="?$lab"
	fi
	echo "$p"
done <labels.txt | sort >got.txt
if cmp -s got.txt want.txt; then
	pass t310-labels-name-branches
else
	fail t310-labels-name-branches "$(diff got.txt want.txt | grep '^[<>]' | tr '\n' ' ')"
fi
# the two names that the 9-character cut made ambiguous now differ
grep '^Hot functions' -A1 d3.txt | tail -1 >head.txt
if grep -qw ins_starv head.txt && grep -qw ins_lat head.txt && ! grep -qw instructi head.txt &&
	grep -qw llc_hit_snp_none head.txt && grep -qw llc_hit_snp_hitm head.txt; then
	pass t310-ambiguous-names-split
else
	fail t310-ambiguous-names-split "$(cat head.txt)"
fi

# a template whose leaves share a name: stalled/{dtlb,itlb}/walk_cycles
mkdir td
cat >td/twins.txt <<'TPL'
arch twins
title two walk_cycles leaves
event cycles cpu_clk_unhalted.thread_p
event stall_cycles uops_retired.stall_cycles
event dtlb_walk dtlb_load_misses.walk_duration
event itlb_walk itlb_misses.walk_duration
cycles cycles
node stalled 1 stall_cycles
node stalled/dtlb
node stalled/dtlb/walk_cycles 1 dtlb_walk
node stalled/itlb
node stalled/itlb/walk_cycles 1 itlb_walk
TPL
"$SONDE" analyze --topdown-dir td --arch twins --depth 3 example-snb.perf.data >tw.txt 2>&1
hdr=$(awk '/^Hot functions/ { getline; print; exit }' tw.txt | tr -s ' ' | sed 's/^ //')
if [ "$hdr" = "share samples cycles stalled dtlb dtlb/walk_cyc itlb itlb/walk_cyc function module [process]" ]; then
	pass t310-twin-leaves-prefixed
else
	fail t310-twin-leaves-prefixed "$hdr"
fi
grep -q '^# columns: dtlb/walk_cyc = stalled/dtlb/walk_cycles, itlb/walk_cyc = stalled/itlb/walk_cycles$' tw.txt &&
	pass t310-twin-legend || fail t310-twin-legend "$(grep '^# columns' tw.txt)"
# values by construction: chase has 20 dtlb walk samples, interpret 8 itlb walk samples
# (period 2000000, multiplex 5.5, penalty 1): trunc(n x 5.5 / 5) of 500 and 200 cycles
col() {
	awk -v lab="$1" -v fn="$2" '/^Hot functions/ { getline; for (i = 1; i <= NF; i++) h[$i] = i; on = 1; next }
		on && / \[example-snb\]$/ && $(NF - 2) == fn { print $h[lab]; exit }' tw.txt
}
dw=$(col dtlb/walk_cyc chase) iw=$(col itlb/walk_cyc interpret)
if [ "$dw" = "$(awk 'BEGIN { printf "%.1f%%", 100 * int(20 * 5.5 / 5) / 500 }')" ] &&
	[ "$iw" = "$(awk 'BEGIN { printf "%.1f%%", 100 * int(8 * 5.5 / 5) / 200 }')" ]; then
	pass t310-twin-values
else
	fail t310-twin-values "chase dtlb/walk_cyc '$dw', interpret itlb/walk_cyc '$iw'"
fi
