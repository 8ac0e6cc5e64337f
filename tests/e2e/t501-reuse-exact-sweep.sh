#!/usr/bin/env bash
# t501-reuse-exact-sweep: --exact on a sweep of N = 1000 words, R = 10 times, built with
# sonde-cc.  Every reuse is at distance N-1 (time and reuse rows: one bin, [512, 1024),
# with (R-1) N reuses), the first pass is cold, nothing is invalidated; the miss ratio is 1
# for a cache smaller than N words and the cold share for any larger one; pairs.csv names
# the sweep's line; -q prints nothing; `sonde report` shows it again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t50-reuse-lib.bash"
reuse_build t501-build || exit 0
N=1000 R=10

"$SONDE" reuse -q --exact -o rec -- "$T/rb" sweep $N $R >out 2>summary
check t501-status [ $? -eq 0 ]
# -q: no summary; warnings still come (rbench's code holds an atomic, in a mode not run
# here: the inst source's blind spot is said whatever the mode, t070)
check t501-quiet bash -c '! grep -v "^sonde: warning: " summary | grep -q .'
h=rec/reuse/histogram.csv
check t501-header [ "$(head -1 $h)" = "kind,lo,hi,count,fraction" ]
check t501-files [ -s rec/reuse/missratio.csv -a -s rec/reuse/pairs.csv ]
check t501-miss-header [ "$(head -1 rec/reuse/missratio.csv)" = "bytes,miss_ratio,miss_lo,miss_hi" ]
want=$(( (R - 1) * N ))
check t501-reuse-bin [ "$(csv_get $h kind reuse lo)" = 512 ]
check t501-reuse-count [ "$(awk -F, '$1 == "reuse" && $2 == 512 { print $4 }' $h)" = "$want" ]
check t501-time-count [ "$(awk -F, '$1 == "time" && $2 == 512 { print $4 }' $h)" = "$want" ]
# main's start-up accesses in instrumented code other than the sweep: a few at most
other=$(awk -F, '($1 == "reuse") && $2 != 512 { s += $4 } END { print s + 0 }' $h)
check t501-one-bin [ "$other" -le 10 ]
check t501-no-invalidation [ "$(csv_get $h kind invalidation count)" = 0 ]
cold=$(csv_get $h kind cold count)
check t501-cold float_between "$cold" $N $((N + 10))
m4=$(csv_get rec/reuse/missratio.csv bytes 4096 miss_ratio)	# 512 words < N
m8=$(csv_get rec/reuse/missratio.csv bytes 8192 miss_ratio)	# 1024 words > N
check t501-miss-small float_between "$m4" 0.999 1
share=$(awk -v c="$cold" -v r="$want" 'BEGIN { printf "%.6f", c / (c + r) }')
check t501-miss-large float_between "$m8" "$(awk -v s=$share 'BEGIN{print s - 0.001}')" "$(awk -v s=$share 'BEGIN{print s + 0.001}')"
check t501-pair-line grep -q "sweep (rbench.c:" rec/reuse/pairs.csv
# the sweep's pair: every distance N - 1, so its median bin [median_lo, median_hi) holds
# N - 1 (until 2026-11-29 one column, the bin's lower end, read as the median: 512)
check t501-pairs-header [ "$(head -1 rec/reuse/pairs.csv | cut -d, -f5-)" = \
	"reuses,long_reuses,median_lo,median_hi" ]
check t501-pair-median-bin awk -F, -v d=$((N - 1)) 'NR > 1 && $2 ~ /^sweep / {
	n++; if (!($(NF - 1) <= d && d < $NF)) bad++ } END { exit !(n > 0 && !bad) }' \
	rec/reuse/pairs.csv
"$SONDE" report rec >again 2>&1
check t501-report grep -q "Miss ratio of a fully associative LRU cache" again
check t501-report-meaning grep -q "What it means" again
# --exact's curve carries no uncertainty mark; a sampled run's marks the sizes within a
# factor 2 of the sweep's reuses (1000 words: 8000 bytes; the 4 and 8 KiB rows) and no
# size 4x away (32 KiB: every reuse hits there, at 16 and 64 KiB too)
check t501-exact-no-mark bash -c '! grep -q "^  ~: " again'
"$SONDE" reuse -q --period 401 --seed 1 -o sam -- "$T/rb" sweep $N 100 >/dev/null 2>&1
"$SONDE" report sam >sam.txt 2>&1
check t501-sampled-mark grep -qE '^  8 KiB +[# ]+ +[0-9.]+%  ~ [0-9.]+%-[0-9.]+%$' sam.txt
check t501-sampled-mark-said grep -q "^  ~: 10% of the accesses or more reuse within a factor 2" sam.txt
# the page draws the marked range's ends beside the curve (the text alone gave them until
# 2026-11-29), and the exact run's page, with no range, draws the curve alone
"$SONDE" report sam --html sam.html >/dev/null 2>&1
check t501-page-range-drawn grep -q '<g class="series" data-series="2">' sam.html
"$SONDE" report rec --html rec.html >/dev/null 2>&1
check t501-page-exact-curve-alone bash -c '! grep -q "<g class=\"series\" data-series=\"1\">" rec.html'
check t501-sampled-no-mark-far grep -qE '^  32 KiB( \(L1\))? +[# ]+ +[0-9.]+%$' sam.txt
# all it touches does not fit in L2, but its reuses do: the summary says so after "does not
# fit" (the trial of 2026-11-28: miniBUDE's kernel led by "does not fit in the 1 MiB L2"
# beside an L2 miss ratio of 0.4%, all first touches).  512 words swept 2000 times, then
# twice L2's size (read from this machine, meta l2) swept once: reuses at 511 words only.
l2=$(sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = 'l2'")
if [ -n "$l2" ] && [ "${l2%.*}" -gt 0 ]; then
	big=$(( ${l2%.*} * 2 / 8 ))
	"$SONDE" reuse -q --exact -o once -- "$T/rb" phases 512 2000 "$big" 1 >/dev/null 2>&1
	"$SONDE" report once >once.txt 2>&1
	check t501-once-does-not-fit grep -q "does not fit in the" <(flat once.txt)
	check t501-once-reuses-within grep -q "Yet its reuses come back within L1's size: L1's misses are first touches" <(flat once.txt)
else
	skip t501-once "no L2 size known on this machine (meta l2)"
fi

# A cache size between two powers of 2 (this machine's L1, meta l1, where it is one: 48 KiB
# = 6144 words) cuts a bin of the histogram: a sweep of 7/8 of its words, every reuse under
# it, fits in it.  The even spread over the bin read 50.1% (the usability review of
# 2026-11-29), then a range (|, miss_lo the first touches' 1/R, miss_hi all); since the
# review of that day (M4) --exact counts the reuses beyond the machine's own sizes, so the
# miss ratio at L1 is the first touches' share itself, bounds equal, no range said (t531
# holds both sides of L1).
l1=$(sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = 'l1'")
l1=${l1%.*}
if [ -n "$l1" ] && [ "${l1:-0}" -gt 0 ] && [ $(( (l1 / 8) & (l1 / 8 - 1) )) -ne 0 ]; then
	n=$(( l1 / 8 * 7 / 8 ))
	"$SONDE" reuse -q --exact -o cut -- "$T/rb" sweep $n 10 >/dev/null 2>&1
	"$SONDE" report cut >cut.txt 2>&1
	row=$(awk -F, -v b="$l1" '$1 == b' cut/reuse/missratio.csv)
	echo "    L1 $l1 bytes, a sweep of $n words: missratio.csv $row"
	IFS=, read -r _ mr mlo mhi <<<"${row:-,,,}"
	check t501-cut-counted float_between "${mr:-9}" 0.09 0.11
	check t501-cut-bounds-equal [ "$mlo" = "$mr" -a "$mhi" = "$mr" ]
	check t501-cut-unmarked grep -qE "^  [0-9.]+ KiB \(L1\) +[# ]+ +[0-9.]+%$" cut.txt
	flat cut.txt >cut.flat
	check t501-cut-unsaid sh -c '! grep -q "the size cuts a power-of-2 bin" cut.flat'
else
	skip t501-cut "this machine's L1 (${l1:-unknown} bytes) is a power of 2: no size cuts a bin (u-reuse-shen tests the bounds)"
fi
