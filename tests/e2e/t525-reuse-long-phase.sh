#!/usr/bin/env bash
# t525-reuse-long-phase: a phase of long reuses after a phase of short ones is weighted as
# often as it happens (doc/sonde-reuse.md, "How it works": the arming weight).  `rbench
# phases 512 16000 2000000 5`: 512 words swept 16000 times (reuses at distance 511, shorter
# than the period: every sample finds a slot free), then 2,000,000 words swept 5 times
# (distance 1,999,999, 500 samples at period 4001: the 32 slots stay taken and a sample is
# armed only with the chance the reservoir gives it), about half the reuses each (-e;
# --exact must agree).  Until 2026-11-28 the outcomes were weighted for their survival
# alone, and the long phase counted as its armed samples: check S 0.64-0.86 on seeds 1-10,
# 0.67-0.73 on the three this test runs, with --slots 4 (the debug registers' number)
# 0.52-0.61 (the long reuses 1-10% of the sampled reuses against 49%), a sampled run 0.10-0.23
# of the accesses beyond 2^20 words against 0.44 (the usability review's badpair: L1 and L2
# miss ratios 35-45% against 51.8%).  Weighted by the inverse of the chance that the
# sample was armed as well: check S 0.90-1.00 on seeds 1-15, 0.89-0.99 with --slots 4 on
# seeds 1-6, sampled runs 0.36-0.46 on seeds 1-15.  The bars (0.88, 0.85, 0.33-0.55) are
# that spread: the long phase's outcomes weigh much (about 70 stand for its 2500 samples
# at seed 1), so its share has a sampling error of about 0.05.
# One thread: the outcome depends on the seed alone, not on the machine's load.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t50-reuse-lib.bash"
reuse_build t525-build || exit 0

args=(phases 512 16000 2000000 5)
"$SONDE" reuse -q --exact -o ex -- "$T/rb" "${args[@]}" >/dev/null 2>&1
check t525-exact-status [ $? -eq 0 ]
want=$("$T/rb" "${args[@]}" -e | awk -F, '$1 == 1048576 { print $3 }')
got=$(awk -F, '$1 == "reuse" && $2 == 1048576 { print $4 }' ex/reuse/histogram.csv)
exact_long() { [ -n "$want" ] && [ "${got%.*}" = "$want" ]; }
check t525-exact-long exact_long
reuse_check_seeds t525 0.88 "${args[@]}"
# the debug registers' 4 slots (--check-sampling watches in software: any number)
for seed in 1 2 3; do
	d=t525-s4c$seed
	"$SONDE" reuse -q --check-sampling --slots 4 --period 4001 --seed "$seed" -o "$d" -- \
		"$T/rb" "${args[@]}" >/dev/null 2>&1
	s=$([ -f "$d/profile.db" ] && reuse_meta "$d" check_s)
	echo "--slots 4, seed $seed: check S ${s:-none}"
	check "t525-slots4-seed$seed" float_between "${s:-0}" 0.85 1
done
# a sampled run: the long reuses' share of the accesses (0.44 in --exact)
"$SONDE" reuse -q --source inst --period 4001 --seed 1 -o rec -- "$T/rb" "${args[@]}" \
	>/dev/null 2>&1
share=$(awk -F, '$1 == "reuse" && $2 >= 1048576 { s += $5 } END { print s + 0 }' \
	rec/reuse/histogram.csv)
echo "sampled run: $share of the accesses at 2^20 words or more"
check t525-sampled-long float_between "${share:-0}" 0.33 0.55
