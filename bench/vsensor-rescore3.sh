#!/usr/bin/env bash
# bench/vsensor-rescore3.sh - score kept detection runs with three rules side by side: two
# other sonde binaries and this build's (the rule before, a rule under review, this one):
#   VS_RESCORE_OLD=/path/old/sonde VS_RESCORE_MID=/path/mid/sonde bench/vsensor-rescore3.sh SET...
# SET holds the runs kept by VS_REAL_KEEP (bench/vsensor-real.sh) or VS_BENCH_KEEP
# (bench/vsensor.sh): one directory per run, each with its file "truth".  Prints the means
# of precision/recall (false-positive rate of all cells) per set and case (c clean, b
# co-runner, t CPU quota, p PMPI delay), then over all sets per case; VS_RESCORE_RUNS=1
# prints every run first.  Never fails on numbers.
# make bench: on demand (it reads kept runs and two other sonde binaries; make bench leaves it out)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
SONDE=${SONDE_BUILD:-$top/build}/sonde
OLD=${VS_RESCORE_OLD:?the sonde binary of the older rule}
MID=${VS_RESCORE_MID:?the sonde binary of the rule under review}
score() { "$1" vsensor score --truth "$(cat "$2/truth")" "$2" | sed 's/.*precision=\([0-9.]*\) recall=\([0-9.]*\) fp_rate=\([0-9.]*\)/\1 \2 \3/'; }
for set in "$@"; do
	for d in "$set"/*/; do
		[ -f "$d/truth" ] || continue
		echo "$set $(basename "$d") $(score "$OLD" "$d") $(score "$MID" "$d") $(score "$SONDE" "$d")"
	done
done | awk -v runs="${VS_RESCORE_RUNS:-}" '
function pr(lbl, c, a, k) { printf "  %-34s %2d: %.2f/%.2f (FP %4.1f%%) | %.2f/%.2f (FP %4.1f%%) | %.2f/%.2f (FP %4.1f%%)\n", lbl, c,
	a[k, 3] / c, a[k, 4] / c, 100 * a[k, 5] / c, a[k, 6] / c, a[k, 7] / c, 100 * a[k, 8] / c, a[k, 9] / c, a[k, 10] / c, 100 * a[k, 11] / c }
{	split($2, p, "-"); k = $1 " " p[1] "-" p[2]; c = p[1]
	if (runs) { for (i = 3; i <= 11; i++) one[0, i] = $i; pr($1 " " $2, 1, one, 0) }
	if (!(k in n)) keys[++nk] = k
	if (!(c in N)) cs[++nc] = c
	n[k]++; N[c]++; for (i = 3; i <= 11; i++) { s[k, i] += $i; S[c, i] += $i } }
END {	print "  means per set and case (old | mid | this build):"
	for (j = 1; j <= nk; j++) pr(keys[j], n[keys[j]], s, keys[j])
	print "  means per case over all sets:"
	for (j = 1; j <= nc; j++) pr("all " cs[j], N[cs[j]], S, cs[j]) }'
