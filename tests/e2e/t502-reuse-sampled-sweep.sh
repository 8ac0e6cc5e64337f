#!/usr/bin/env bash
# t502-reuse-sampled-sweep: the sampled mode (inst source, soft watchpoints) on a sweep of
# 1000 words: the uses it watches are reused at time distance 999, so at least 90% of the
# reuse rows' mass lies in [512, 1024) (the rest: uses whose neighbours' estimates mix in
# start-up accesses); nothing is invalidated; the summary says how many uses it watched.
# Software watchpoints watch 32 uses at once by default (debug registers: 4): on a sweep of
# 100,000 words each use waits 99,999 accesses for its reuse while ~99 samples arrive, so
# the outcomes grow with the slots (16x from 2 to 32 by construction).  A 16-byte load that
# overlaps a watched word without starting there is a use of its own first word, not a
# reuse of the watched one, as --exact counts it (`rbench wide`: every reuse at time
# distance N - 2; until 2026-11-27 the sampled mode put 99% of them at 0).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t50-reuse-lib.bash"
reuse_build t502-build || exit 0

"$SONDE" reuse --source inst --period 1009 -o rec -- "$T/rb" sweep 1000 300 >out 2>summary
check t502-status [ $? -eq 0 ]
h=rec/reuse/histogram.csv
check t502-time-bin [ "$(awk -F, '$1 == "time" { s += $4; if ($2 == 512) b += $4 } END { printf "%d\n", s ? 100 * b / s : 0 }' $h)" -ge 90 ]
check t502-reuse-bin [ "$(awk -F, '$1 == "reuse" { s += $4; if ($2 == 512) b += $4 } END { printf "%d\n", s ? 100 * b / s : 0 }' $h)" -ge 90 ]
check t502-no-invalidation [ "$(reuse_meta rec outcomes_invalidation)" = 0 ]
check t502-outcomes [ "$(reuse_meta rec outcomes)" -gt 50 ]
check t502-summary-watched grep -q "uses watched" summary
check t502-summary-estimated grep -q "estimated (Shen model" <(flat summary)
check t502-slots-default [ "$(reuse_meta rec slots)" = 32 ]
check t502-summary-slots grep -q "uses watched, up to 32 at once" summary
# the JSON carries what the summary and the CSVs do (the usability review of 2026-11-28:
# no pairs, no period, no uses watched, no conclusion; reuse bins as strings alone)
"$SONDE" report rec --format json >rec.json 2>/dev/null
check t502-json-complete python3 - "$(reuse_meta rec armed)" <<'PY'
import csv, json, sys
d = json.load(open("rec.json"))
pairs = list(csv.DictReader(open("rec/reuse/pairs.csv")))
assert [(p["use"], p["reuse"], p["object"]) for p in d["pairs"]] == \
       [(p["use"], p["reuse"], p["object"]) for p in pairs], d["pairs"]
rows = [(int(r["lo"]), int(r["hi"])) for r in csv.DictReader(open("rec/reuse/histogram.csv"))
        if r["kind"] == "reuse"]
assert [(b["lo"], b["hi"]) for b in d["reuse"] if b["lo"] is not None] == rows, d["reuse"]
assert d["period"] == 1009 and d["uses_watched"] == float(sys.argv[1]) and d["outcomes"] > 0, d
assert d["what_it_means"].startswith("the data it touches"), d["what_it_means"]
PY
"$SONDE" reuse -q --source inst --period 1009 --slots 2 -o two -- "$T/rb" sweep 100000 20 >out 2>&1
"$SONDE" reuse -q --source inst --period 1009 -o all -- "$T/rb" sweep 100000 20 >out 2>&1
two=$(reuse_meta two outcomes) all=$(reuse_meta all outcomes)
echo "outcomes on the long sweep: $two with --slots 2, $all with the default 32"
# (the bar at 6x, not the 16x of the construction, for the reservoir's random replacements
# and the first window's free slots; 18x read in a review)
more_outcomes() { [ "${two:-0}" -gt 0 ] && [ "${all:-0}" -ge $((6 * two)) ]; }
check t502-slots-two [ "$(reuse_meta two slots)" = 2 ]
check t502-slots-more-outcomes more_outcomes
# The pairs' data object: the sweep's array, named by its calloc line (the reuse records
# have no time; an object is looked up as of its allocation, not of the process start,
# when every heap address would be "untracked").
line=$(grep -n 'volatile uint64_t \*const a = calloc' "$SONDE_TOP/tests/workloads/reuse/rbench.c" | cut -d: -f1)
obj=$(awk -F, 'NR == 2 { print $4 }' rec/reuse/pairs.csv)
case $obj in
*"(rbench.c:$line)") [ -n "$line" ] && pass t502-pair-object ;;
*) fail t502-pair-object "object '$obj', want the calloc at rbench.c:${line:-?}" ;;
esac

"$SONDE" reuse -q --source inst --period 1009 -o wide -- "$T/rb" wide 4096 100 >/dev/null 2>&1
wide_bin() { awk -F, -v lo="$1" '$1 == "time" && $2 == lo { print $5 }' wide/reuse/histogram.csv; }
check t502-wide-no-time-0 [ -z "$(wide_bin 0)" ]
check t502-wide-at-n float_between "$(wide_bin 2048)" 0.95 1
# every access of the sweep is a 16-byte load (all but main's few start-up ones): the
# share the summary warns of (model.c, wide_share; the usability review of 2026-11-29, M1)
ws=$(reuse_meta wide wide_share)
check "t502-wide-share-${ws:-none}" float_between "${ws:-0}" 0.99 1
"$SONDE" report wide >wide.txt 2>&1
check t502-wide-said grep -q "wide accesses: [0-9.]*% of the accesses were wider than an element" <(flat wide.txt)
# --exact counts them all: the same share, of every access
"$SONDE" reuse -q --exact -o widex -- "$T/rb" wide 4096 100 >/dev/null 2>&1
wx=$(reuse_meta widex wide_share)
check "t502-wide-share-exact-${wx:-none}" float_between "${wx:-0}" 0.99 1
# and a sweep of 8-byte loads has none: no row, no line
check t502-sweep-no-wide [ -z "$(reuse_meta rec wide_share 2>/dev/null)" ]
# --spatial: 64-byte lines; of the 8 loads that start in a line in a sweep, 7 reuse it at
# once (time 0: 7/8 by construction, --exact's 0.875) and the 8th's overlap into the next
# line is none of its reuse (without the rule: 0.998 at 0)
"$SONDE" reuse -q --spatial --source inst --period 1009 -o wsp -- "$T/rb" wide 4096 100 >/dev/null 2>&1
check t502-wide-spatial-time-0 float_between "$(awk -F, '$1 == "time" && $2 == 0 { print $5 }' wsp/reuse/histogram.csv)" 0.80 0.95

# A footprint too low for the histogram: ten samples of a sweep of 4x this machine's L2
# (ten probes, about ten pages, so Chao1 reads ~55 pages while the sweep has 4x L2 / 4 KiB;
# until the inst source's probes, fixed windows pinned to a few pages read so on any
# sweep).  The summary must not leave "fits in" standing beside reuses beyond L2: it says
# the footprint is too low to trust (the usability review of 2026-11-28: "fits in the 1
# MiB L2" beside L2's 100%).
# (the unified cache of level 2, by its level file: index2 is not always it)
l2=$(for d in /sys/devices/system/cpu/cpu0/cache/index*; do
	[ "$(cat $d/level 2>/dev/null)" = 2 ] && [ "$(cat $d/type 2>/dev/null)" != Instruction ] &&
		awk '/K$/ { print $0 * 1024 } /M$/ { print $0 * 1048576 }' $d/size; done | head -1)
if [ "${l2:-0}" -ge 262144 ]; then
	n=$((l2 / 2)) p=$((l2 / 4))	# 4x L2 in 8-byte words, 5 passes: 10 samples
	"$SONDE" reuse --source inst --period $p -o few -- "$T/rb" sweep $n 5 >/dev/null 2>few.txt
	fb=$(awk -v f="$(reuse_meta few footprint)" -v e="$(reuse_meta few element)" 'BEGIN { printf "%.0f", f * e }')
	if [ "$fb" -le "$l2" ]; then
		check "t502-low-footprint-distrusted ($fb bytes, L2 $l2)" grep -q \
			"Yet [0-9.]*% of the accesses reuse beyond L2's size: the footprint, estimated from the [0-9]* pages of 4 KiB sampled, is too low to trust" <(flat few.txt)
	else
		skip t502-low-footprint-distrusted "ten samples read a footprint of $fb bytes, over L2 ($l2)"
	fi
else
	skip t502-low-footprint-distrusted "this machine's L2 (${l2:-unknown}) is under the ~220 KB ten probes read"
fi

# A handful of outcomes: their number and the shares' uncertainty are said under the
# histogram (the usability review of 2026-11-29: 5 outcomes drawn as 20% / 60% / 20%, no
# word of their number): a sweep of 3,000,000 accesses at one sample per 200003, ~15
# outcomes (each sample's reuse comes 999 accesses later: always seen with the inst
# source's software watchpoints); 95%: 1.96 sd of a share of one half, in points.
"$SONDE" reuse --source inst --period 200003 --seed 1 -o fewout -- "$T/rb" sweep 1000 3000 \
	>/dev/null 2>fewout.txt
n=$(reuse_meta fewout outcomes)
if [ "${n:-0}" -gt 0 ] && [ "$n" -lt 100 ]; then
	pts=$(awk -v n="$n" 'BEGIN { printf "%.0f", 100 * 1.96 * sqrt(0.25 / n) }')
	check "t502-few-outcomes-said-$n" grep -q "only $n outcomes\? behind these shares: each is uncertain by up to $pts points (95%)" <(flat fewout.txt)
else
	fail t502-few-outcomes-said "outcomes: ${n:-none}, wanted 1-99 (15 expected)"
fi
# the JSON has no count of accesses from the clock, and the inst source's here
"$SONDE" report fewout --format json >fewout.json 2>/dev/null
check t502-json-accesses-counted python3 -c '
import json, sys; sys.exit(not json.load(open("fewout.json"))["accesses"] > 0)'
