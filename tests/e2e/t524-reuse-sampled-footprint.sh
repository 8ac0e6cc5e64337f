#!/usr/bin/env bash
# t524-reuse-sampled-footprint: the sampled mode's footprint (Chao1 over the 4 KiB pages of
# the inst source's probes, one access drawn at random in each sampling window: "Footprint"
# in doc/sonde-reuse.md) on plain repeated sweeps, whose truth is the array: `rbench sweep
# 3000000 10` touches 3,000,000 words and makes 30,000,003 accesses (a cold share of 0.10).
# Until 2026-11-28 the pages came from the samples themselves, a fixed period apart: at the
# default period each pass sampled pages a few on from the last, 50 of 2947 pages were
# sampled twice, and Chao1 read 30,000,003 words (capped at the accesses: cold 100%); at
# period 100003 on `sweep 1000000 20` (10 windows a pass, nearly) the samples sat on 22
# pages and read 11,392 words (0.011x).  With the probes: 2.8-3.5 million words, cold
# 0.094-0.118, in 20 runs unseeded; 0.60-1.63 million on the second in 25 (about 200
# probes, 5-11 pages of them sampled twice: Chao1's f1^2 / 2 f2 moves by a third with f2's
# sampling error).  The bars: a factor 1.5 on the first (Chao1 reads ~1.07x by
# construction, since a pass probes a page at most once, and its spread is ~6%), 2 on the
# second, the cold share 0.07-0.15.  --seed 1-3: one thread, so the probes fall on the
# same accesses at any load.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t50-reuse-lib.bash"
reuse_build t524-build || exit 0

for seed in 1 2 3; do
	"$SONDE" reuse -q --source inst --seed "$seed" -o s$seed -- "$T/rb" sweep 3000000 10 >/dev/null 2>&1
	check t524-sweep-status-seed$seed [ $? -eq 0 ]
	fp=$(reuse_meta s$seed footprint)
	cold=$(reuse_frac s$seed/reuse/histogram.csv cold)
	echo "sweep 3000000 10, seed $seed: footprint ${fp:-none} words (pages sampled $(reuse_meta s$seed pages_sampled), once $(reuse_meta s$seed pages_once), twice $(reuse_meta s$seed pages_twice)), cold ${cold:-none}"
	check t524-sweep-footprint-seed$seed float_between "${fp:-0}" 2000000 4500000
	check t524-sweep-cold-seed$seed float_between "${cold:-0}" 0.07 0.15

	"$SONDE" reuse -q --source inst --seed "$seed" --period 100003 -o a$seed -- \
		"$T/rb" sweep 1000000 20 >/dev/null 2>&1
	check t524-alias-status-seed$seed [ $? -eq 0 ]
	fp=$(reuse_meta a$seed footprint)
	echo "sweep 1000000 20 at period 100003, seed $seed: footprint ${fp:-none} words (pages sampled $(reuse_meta a$seed pages_sampled), twice $(reuse_meta a$seed pages_twice))"
	check t524-alias-footprint-seed$seed float_between "${fp:-0}" 500000 2000000
done

# --check-sampling's sampled mode draws its own probes (check_begin, rt-reuse.c): its
# footprint (meta check_footprint) against the exact one of the same run, 1,000,003 words
# (0.99-1.12x on seeds 1-3; the bar a factor 1.5, as above)
"$SONDE" reuse -q --check-sampling --seed 1 -o chk -- "$T/rb" sweep 1000000 10 >/dev/null 2>&1
check t524-check-status [ $? -eq 0 ]
fp=$(reuse_meta chk check_footprint) ex=$(reuse_meta chk footprint)
echo "--check-sampling on sweep 1000000 10: sampled footprint ${fp:-none}, exact ${ex:-none}"
check t524-check-exact [ "${ex:-0}" = 1000003 ]
check t524-check-footprint float_between "${fp:-0}" 666000 1500000
