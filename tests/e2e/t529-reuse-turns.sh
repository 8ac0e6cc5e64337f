#!/usr/bin/env bash
# t529-reuse-turns: two threads updating one buffer by turns (`rbench turns N W`: each turn
# W loads and their W stores) read as many invalidations sampled as they have
# (doc/sonde-reuse.md, "How it works": a sample on a word another slot watches is armed).
# By construction every load is reused by its own store (distance 0) and every store but
# the last turn's ends with the other thread's store; `-e` prints those counts, and
# --exact must give them exactly.  Until 2026-11-28 a sample on a watched word took no slot:
# here the loads whose word waited for the other thread's store, and sampled runs at
# period 1009 read 40-42% invalidations against 50% (seeds 1-3; with 4 slots 49%), the
# review's `buf[i] += c` by turns 65% against 48.5%.  The turns are strict, so a run's
# samples depend on its seed and period alone, not on the machine's load.  Bar: 0.04 of the
# accesses, about 3 standard errors of a share estimated from ~1000 outcomes (measured:
# 0.4988 and 0.5007 against 0.5000 and 0.4999).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t50-reuse-lib.bash"
reuse_build t529-build || exit 0

args=(turns 4000 64)
exp=$("$T/rb" "${args[@]}" -e)
want_r=$(echo "$exp" | awk -F, '$1 == "reuse0" { print $2 }')
want_i=$(echo "$exp" | awk -F, '$1 == "invalidation" { print $2 }')
acc=$((4 * 4000 * 64))
"$SONDE" reuse -q --exact -o ex -- "$T/rb" "${args[@]}" >/dev/null 2>&1
check t529-exact-status [ $? -eq 0 ]
got_r=$(awk -F, '$1 == "reuse" && $2 == 0 { print $4 }' ex/reuse/histogram.csv)
got_i=$(awk -F, '$1 == "invalidation" { print $4 }' ex/reuse/histogram.csv)
echo "exact: reuses at 0 $got_r (want $want_r), invalidations $got_i (want $want_i)"
check t529-exact-reuse0 [ "${got_r:-x}" = "$want_r" ]
check t529-exact-invalidations [ "${got_i:-x}" = "$want_i" ]

near() {	# near FRACTION COUNT: FRACTION within 0.04 of COUNT / accesses
	awk -v f="$1" -v c="$2" -v a="$acc" 'BEGIN { d = f - c / a; exit !(f != "" && d < 0.04 && d > -0.04) }'
}
for run in "1009 32" "1009 4" "1013 32"; do
	set -- $run
	d=t529-p$1-s$2
	"$SONDE" reuse -q --period "$1" --seed 1 --slots "$2" -o "$d" -- "$T/rb" "${args[@]}" \
		>/dev/null 2>&1
	r=$(awk -F, '$1 == "reuse" && $2 == 0 { print $5 }' "$d/reuse/histogram.csv" 2>/dev/null)
	i=$(reuse_frac "$d/reuse/histogram.csv" invalidation 2>/dev/null)
	echo "sampled, period $1, $2 slots: reuses at 0 ${r:-none}, invalidations ${i:-none} of the accesses ($(reuse_meta "$d" watch 2>/dev/null))"
	check "t529-sampled-reuse0-p$1-s$2" near "$r" "$want_r"
	check "t529-sampled-invalidations-p$1-s$2" near "$i" "$want_i"
done
