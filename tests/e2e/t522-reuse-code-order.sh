#!/usr/bin/env bash
# t522-reuse-code-order: a short window in straight code takes its distance from the sites
# between the use and the reuse in code order (reuse_code_rd, doc/sonde-reuse.md "Code
# order").  `rbench pairs 3000 50`: each step loads a[i], increments b[i % 8] (a load and a
# store of one word) and stores a[i], so a quarter of the reuses are a[i]'s store at time
# distance 2 and reuse distance 1, exactly (--exact must say so), where Shen's mean over the
# program's time distances says 1.75, the next bin.  Until 2026-11-27 the check read S
# 0.738-0.749 on seeds 1-5 (that quarter one bin up); now 0.986-0.995 (the bar, 0.95,
# leaves room for the other reuses' sampling).  `rbench shift 30000 40` is a review's
# counterexample, which the count of sites between use and reuse let through: a counter
# bumped every 8th step stands between a load and the next step's store, so its 2 sites
# match the time distance but the window skips them (check 0.549-0.550 on seeds 1-3 with
# that rule; 0.886-0.888 with the checks of straight code, as without the rule: the bar,
# 0.80, is the model's own error on this loop).  `rbench shift 30000 40 60`, the counter
# bumped on 60% of the steps at random, is a second review's: within a factor of 2 of the
# use site's frequency, it passed the check of like frequency as it stood (0.929-0.934);
# within 25% it does not (0.980-0.983; the bar, 0.96).  One thread: the outcome depends on
# the seed alone.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t50-reuse-lib.bash"
reuse_build t522-build || exit 0

args=(pairs 3000 50)
"$SONDE" reuse -q --exact -o ex -- "$T/rb" "${args[@]}" >/dev/null 2>&1
check t522-exact-status [ $? -eq 0 ]
exact_bin() { awk -F, -v lo="$2" '$1 == "reuse" && $2 == lo { print $5 }' "$1/reuse/histogram.csv"; }
check t522-exact-quarter-at-1 float_between "$(exact_bin ex 1)" 0.24 0.26
reuse_check_seeds t522 0.95 "${args[@]}"
# a sampled run: the quarter at distance 1 (0.25 of the accesses in --exact; 0.20-0.30 for
# the sample's error on the shares; 0 before, all in [2, 4))
"$SONDE" reuse -q --source inst --period 4001 -o rec -- "$T/rb" "${args[@]}" >/dev/null 2>&1
share=$(exact_bin rec 1)
echo "sampled run: ${share:-none} of the accesses in [1, 2)"
check t522-sampled-bin float_between "${share:-0}" 0.20 0.30
reuse_check_seeds t522-shift 0.80 shift 30000 40
reuse_check_seeds t522-shift-60 0.96 shift 30000 40 60
