#!/usr/bin/env bash
# bench/vsensor-rescore.sh - score kept detection runs again, with this build's rule and,
# when VS_RESCORE_OLD names another sonde binary (an older rule), with that one beside it:
#   VS_RESCORE_OLD=/path/to/old/sonde bench/vsensor-rescore.sh DIR...
# DIR holds the runs kept by VS_REAL_KEEP (bench/vsensor-real.sh) or VS_BENCH_KEEP
# (bench/vsensor.sh): one directory per run, each with its file "truth".  Prints per run
# "precision/recall (false-positive rate)", old -> new, then the means per program and case
# (c clean, b co-runner, t CPU quota, p PMPI delay).  Never fails on numbers.
# make bench: on demand (it reads kept runs; make bench leaves it out)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
SONDE=${SONDE_BUILD:-$top/build}/sonde
OLD=${VS_RESCORE_OLD:-}
score() { "$1" vsensor score --truth "$(cat "$2/truth")" "$2" | sed 's/.*precision=\([0-9.]*\) recall=\([0-9.]*\) fp_rate=\([0-9.]*\)/\1 \2 \3/'; }
for base in "$@"; do
	for d in "$base"/*/; do
		[ -f "$d/truth" ] || continue
		n=$(score "$SONDE" "$d")
		o=$([ -n "$OLD" ] && score "$OLD" "$d" || echo "- - -")
		echo "$(basename "$d") $(cat "$d/truth") $o $n"
	done
done | awk -v two="${OLD:+1}" '{ split($1, a, "-"); key = a[1] "-" a[2]
	if (!two) printf "  %-14s %-26s %.2f/%.2f (FP %.1f%%)\n", $1, $2, $6, $7, 100 * $8
	else printf "  %-14s %-26s %.2f/%.2f (FP %.1f%%) -> %.2f/%.2f (FP %.1f%%)\n", $1, $2, $3, $4, 100 * $5, $6, $7, 100 * $8
	if (!(key in n)) keys[++nk] = key
	n[key]++; for (i = 3; i <= 8; i++) s[key, i] += $i }
	END { print "  means per program and case" (two ? " (old -> new)" : "") ":"
	for (j = 1; j <= nk; j++) { k = keys[j]
		if (!two) printf "    %-12s %d runs: %.2f/%.2f (FP %.1f%%)\n", k, n[k], s[k, 6] / n[k], s[k, 7] / n[k], 100 * s[k, 8] / n[k]
		else printf "    %-12s %d runs: %.2f/%.2f (FP %.1f%%) -> %.2f/%.2f (FP %.1f%%)\n", k, n[k], s[k, 3] / n[k], s[k, 4] / n[k], 100 * s[k, 5] / n[k], s[k, 6] / n[k], s[k, 7] / n[k], 100 * s[k, 8] / n[k] } }'
