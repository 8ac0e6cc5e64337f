#!/usr/bin/env bash
# t507-reuse-clock: with the clock source there is no count of a thread's accesses.  A
# sonde-cc program (soft watchpoints) still gets outcomes, recorded as reuse times: the
# histogram has time_ns rows and no time or reuse rows, and the report says plainly that
# distances need the inst source or a PMU.  A plain gcc program on a machine whose debug
# registers do not fire gets the watchpoints' failure explained instead.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t50-reuse-lib.bash"
reuse_build t507-build || exit 0

"$SONDE" reuse --source clock -o rec -- "$T/rb" sweep 1000 3000 >out 2>summary
check t507-status [ $? -eq 0 ]
h=rec/reuse/histogram.csv
check t507-no-distance [ -z "$(awk -F, '$1 == "reuse" || $1 == "time"' $h)" ]
check t507-says-why grep -q "distances need" <(flat summary)
# the header names the program as it was run, its arguments too (the exe alone before)
check t507-header-args grep -q "^sonde reuse: .*rb sweep 1000 3000$" summary
# the program is a sonde-cc build: the advice is its --source inst, and without --source
# reuse takes that source (it took the clock and advised a sonde-cc build: the trial of
# 2026-11-27 on SimpleMOC)
check t507-says-inst grep -q "this program was built by sonde-cc, run it with --source inst" <(flat summary)
# the signals that gave no sample are said beside the samples (the usability review of
# 2026-11-29: "samples 96" of 3165 signals), where they are a tenth or more
ns=$(reuse_meta rec samples) sigs=$(reuse_meta rec sample_signals)
if [ -n "$sigs" ] && [ "$sigs" -gt "$ns" ] && [ $((10 * (sigs - ns))) -ge "$sigs" ]; then
	check "t507-signals-said-$ns-of-$sigs" grep -q "samples $ns of $sigs timer signals (" <(flat summary)
else
	check "t507-signals-unsaid-$ns-of-$sigs" bash -c '! grep -q "timer signals (" summary'
fi
# no count of accesses: JSON null, not the samples (the usability review of 2026-11-29)
"$SONDE" report rec --format json >recj.json 2>/dev/null
check t507-json-accesses-null python3 -c '
import json, sys; sys.exit(json.load(open("recj.json"))["accesses"] is not None)'
"$SONDE" reuse -q -o auto -- "$T/rb" sweep 1000 300 >/dev/null 2>&1
check "t507-auto-source-$(reuse_meta auto source)" [ "$(reuse_meta auto source)" = inst ]
if [ "$(reuse_meta rec outcomes)" -gt 0 ]; then
	check t507-time-ns [ -n "$(awk -F, '$1 == "time_ns"' $h)" ]
	# the JSON gives the same rows (it held the invalidation and cold bins alone before:
	# the trial of 2026-11-27 on SimpleMOC)
	"$SONDE" report rec --format json >rec.json 2>/dev/null
	check t507-json-time-ns python3 -c '
import csv, json, sys
d = json.load(open("rec.json"))
rows = sorted((float(r["lo"]), float(r["count"])) for r in csv.DictReader(open(sys.argv[1]))
              if r["kind"] == "time_ns")
got = sorted((float(b["lo"]), float(b["count"])) for b in d["time"])
sys.exit(not (d["time_unit"] == "ns" and rows and got == rows))' "$h"
	# under 100 outcomes the shares' uncertainty is said beneath the histogram (95%:
	# 1.96 sd of a share of one half, in points), else not
	n=$(reuse_meta rec outcomes)
	if [ "$n" -lt 100 ]; then
		pts=$(awk -v n="$n" 'BEGIN { printf "%.0f", 100 * 1.96 * sqrt(0.25 / n) }')
		check "t507-few-outcomes-said-$n" grep -q "only $n outcomes\? behind these shares: each is uncertain by up to $pts points (95%)" <(flat summary)
	else
		check "t507-many-outcomes-unsaid-$n" bash -c '! grep -q "behind these shares" summary'
	fi
else
	skip t507-time-ns "no outcome in this run (clock samples land mostly outside the sweep)"
fi

# Where debug registers trap, a plain gcc build: the clock source's reuse times against
# the program's own time per sweep.  200000 words swept 2000 times: every reuse comes one
# sweep later (the user CPU time of a native run / 2000, best of 3: other jobs only add to
# it).  The weighted median of the time_ns rows must fall in a bin that reaches within 2x
# of it (bins are powers of 2; the trap's calibrated kernel time, ~28 us, is subtracted,
# and its spread, a few us, is small against a sweep of ~100 us).  Before the fixes it sat
# at 0-8 us: the sampled access itself was taken for its reuse, and a persistent watch
# went deaf after it.
if "$SONDE" info 2>/dev/null | grep -q "their traps fire" && command -v gcc >/dev/null; then
	gcc -O2 -g -fno-omit-frame-pointer -pthread "$SONDE_TOP/tests/workloads/reuse/rbench.c" -o rbg 2>/dev/null
	"$SONDE" reuse --source clock -o g -- ./rbg sweep 200000 2000 >/dev/null 2>gsummary
	check t507-gcc-status [ $? -eq 0 ]
	# no access count: the summary counts samples, not accesses, and the footprint is the
	# pages the samples touched (the sweep's 1.6 MB: hundreds of pages, each 512 words),
	# no longer capped at one word per sample (CoMD: "accesses 2854, footprint 22.3 KiB")
	check t507-gcc-says-samples grep -q "samples [0-9]* (no count of the program's accesses" <(flat gsummary)
	# the top pair's reuse side is the sweep's load line (s += a[i]), not the line of the
	# instruction after it, where the debug register's trap reports (the usability review
	# of 2026-11-28: the loop's next line); pairs.csv's code_reuse, read by its header
	load=$(grep -n 's += a\[i\];' "$SONDE_TOP/tests/workloads/reuse/rbench.c" | head -1 | cut -d: -f1)
	got=$(python3 -c 'import csv,sys; r = next(csv.DictReader(open(sys.argv[1]))); print(r["reuse"])' \
		g/reuse/pairs.csv 2>/dev/null)
	check "t507-gcc-reuse-line ($got, load at rbench.c:$load)" grep -q "(rbench.c:$load)" <<<"$got"
	# the debug registers' floor is said (doc/sonde-reuse.md, bench/reuse-clock-floor.sh)
	check t507-gcc-says-floor grep -q "Times under about 50 us are not resolved" <(flat gsummary)
	check t507-gcc-footprint-pages [ "$(reuse_meta g footprint)" -gt "$(reuse_meta g accesses)" ]
	# the footprint estimate (Chao1 on the pages sampled once and twice) is nearer the
	# sweep's 200,000 words than the pages seen (145-165 of its 391 pages, 36-42%, in three
	# runs: estimates of 163-263 thousand words).  It fails only where very few pages
	# were sampled twice (f2 < 14 of an expected ~29 at ~190 samples: about 1 run in 1000)
	seen=$(( $(reuse_meta g pages_sampled) * 512 )) est=$(reuse_meta g footprint)
	check "t507-gcc-footprint-estimate-$est-nearer-200000-than-seen-$seen" awk -v e="$est" \
		-v s="$seen" 'BEGIN { d = e - 200000; t = s - 200000; exit !(e >= s && d * d < t * t) }'
	check t507-gcc-footprint-says grep -q "footprint about .* or more of 4 KiB pages (.* pages\? sampled, [0-9]* of them once" <(flat gsummary)
	# a sweep of 5,860 pages against a few hundred samples: nearly every page sampled is
	# seen once, and Chao1 rests on a handful of repeats; the summary gives the pages seen
	# as the bound and says why (the trial of 2026-11-28: 1521 of 1522 once, Chao1 4.6 GB
	# for Phoenix's 2.3 GB input, called "a lower bound")
	"$SONDE" reuse --source clock -o big -- ./rbg sweep 3000000 20 >/dev/null 2>bsummary
	check t507-sparse-footprint-said grep -q "footprint at least .*, the [0-9]* pages of 4 KiB sampled ([0-9]* of them once: too few seen twice" <(flat bsummary)
	# the counts are in samples, as the summary says: the rows sum to the samples (the
	# trial of 2026-11-27 found them summing to more than the outcomes, unexplained)
	check t507-gcc-says-counts grep -q "Counts are in samples" <(flat gsummary)
	# --quiet: the histogram without the header (printed all the same before)
	"$SONDE" report g --quiet >gq.txt 2>&1
	check t507-quiet-no-header [ "$(grep -c -E '^sonde reuse: |^  source ' gq.txt)" -eq 0 ]
	check t507-quiet-histogram grep -q "^Reuse time (no access counts" gq.txt
	# debug registers: the bins under their floor are one row said as not resolved, and
	# the others in readable units (the usability review of 2026-11-28: 93% read at
	# [16384, 32768) ns for reuses 0.7 us apart); the CSV keeps every bin
	under=$(awk -F, '$1 == "time_ns" && $3 <= 65536 { n++ } END { print n + 0 }' g/reuse/histogram.csv)
	if [ "$under" -gt 0 ]; then
		check "t507-gcc-unresolved-row-of-$under-bins" grep -Eq "^  under 65.5 us \(not resolved\) +#* +[0-9.]+%$" gq.txt
	else
		check t507-gcc-no-unresolved-row bash -c '! grep -q "^  under .* (not resolved)" gq.txt'
	fi
	check t507-gcc-no-raw-ns-rows bash -c '! grep -Eq "^  \[[0-9]+, [0-9]+\)" gq.txt'
	check t507-gcc-readable-rows grep -Eq "^  \[[0-9.]+ (us|ms|s), [0-9.]+ (us|ms|s)\) " gq.txt
	rows=$(awk -F, 'NR > 1 { s += $4 } END { printf "%.0f", s }' g/reuse/histogram.csv)
	check "t507-gcc-counts-${rows}-samples-$(reuse_meta g accesses)" [ "$rows" = "$(reuse_meta g accesses)" ]
	u=$(for i in 1 2 3; do /usr/bin/time -f %U ./rbg sweep 200000 2000 2>&1 >/dev/null | tail -1; done | sort -g | head -1)
	want=$(awk -v u="$u" 'BEGIN { printf "%.0f\n", u * 1e9 / 2000 }')
	# The times are wall-clock, the native figure CPU time: where other jobs take the core
	# the sweep's reuses stretch (two suites side by side on 2 cores: [131072, 262144)
	# against 60 us, twice on 2026-11-27), so up to 2 more profiled runs are made until
	# one's median is within 2x (the claim is that the times are a sweep's, not 0-8 us).
	for try in 1 2 3; do
		if [ "$try" -gt 1 ]; then
			rm -rf g
			"$SONDE" reuse --source clock -o g -- ./rbg sweep 200000 2000 >/dev/null 2>/dev/null
		fi
		read -r lo hi < <(awk -F, '$1 == "time_ns" { n++; lo[n] = $2; hi[n] = $3; c[n] = $4; s += $4 }
			END { for (i = 1; i <= n; i++) { a += c[i]; if (a >= s / 2) { print lo[i], hi[i]; exit } } }' g/reuse/histogram.csv)
		awk -v lo="${lo:-0}" -v hi="${hi:-0}" -v w="$want" 'BEGIN { exit !(hi > w / 2 && lo < w * 2) }' && break
		echo "run $try: median bin [${lo:-0},${hi:-0}) against ${want} ns"
	done
	check "t507-gcc-median-bin-[${lo:-0},${hi:-0})-near-${want}ns-run-$try" \
		awk -v lo="${lo:-0}" -v hi="${hi:-0}" -v w="$want" 'BEGIN { exit !(hi > w / 2 && lo < w * 2) }'
	check "t507-gcc-one-outcome-per-use" [ "$(reuse_meta g outcomes)" -ge "$(( $(reuse_meta g armed) * 9 / 10 ))" ]
	# Invalidations measured, distances not: still no miss-ratio curve (missratio.csv holds
	# its header alone, the JSON's miss_ratio is empty), as the summary says.  Until
	# 2026-11-28 such a run wrote a flat curve of the invalidations' share (the trial of
	# HPCCG: 14 rows of 0.0093).  Two threads add to the same 8 words for 0.4 s of CPU
	# each; whether their stores meet a watched use depends on how the two interleave
	# (0-261 invalidations in 4 runs beside a make check): up to 3 runs, until one has some.
	cat >inv.c <<'EOF'
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
static volatile uint64_t w[8];
static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
static void *thr(void *arg)
{
	double end = cpu_now() + 0.4;
	uint64_t s = (uint64_t)(uintptr_t)arg;
	while (cpu_now() < end)
		for (int i = 0; i < 4096; i++)
			w[i & 7] += s + (uint64_t)i;
	return NULL;
}
int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, thr, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("inv: %llu\n", (unsigned long long)w[0]);
	return 0;
}
EOF
	gcc -O1 -g -pthread inv.c -o inv 2>/dev/null
	for try in 1 2 3; do
		rm -rf iv
		"$SONDE" reuse --source clock -o iv -- ./inv >/dev/null 2>isummary
		[ "$(reuse_meta iv invalidations)" -gt 0 ] && break
	done
	if [ "$(reuse_meta iv invalidations)" -gt 0 ]; then
		check "t507-inv-no-curve-$(reuse_meta iv invalidations)-inv" \
			[ "$(wc -l <iv/reuse/missratio.csv)" -eq 1 ]
		"$SONDE" report iv --format json >iv.json
		check t507-inv-no-curve-json python3 -c \
			'import json, sys; sys.exit(json.load(open("iv.json"))["miss_ratio"] != [])'
		check t507-inv-summary-says-none grep -q "no miss-ratio curve" <(flat isummary)
		# nor which reuses are long: pairs.csv's long_reuses and median_distance empty,
		# "-" in the summary, empty cells on the page (0 and 0 until 2026-11-28)
		check t507-inv-pairs-long-empty awk -F, 'NR > 1 { n++; if ($6 != "" || $7 != "") bad++ }
			END { exit !(n > 0 && !bad) }' iv/reuse/pairs.csv
		check t507-inv-summary-long-unknown grep -q "long ones unknown without distances" isummary
		"$SONDE" report iv --html iv.html
		check t507-inv-page-no-zero-median python3 -c '
import re, sys
d = open("iv.html").read()
m = re.search(r"id=\"reuse-pairs-table\".*?<tbody>(.*?)</tbody>", d, re.S)
rows = re.findall(r"<tr>(.*?)</tr>", m.group(1), re.S) if m else []
cells = [re.findall(r"<td[^>]*>(.*?)</td>", r, re.S) for r in rows]
sys.exit(not rows or any(c[5] != "" or c[6] != "" for c in cells))'
	else
		skip t507-inv-no-curve "3 runs, no other thread's store met a watched use"
	fi
else
	skip t507-gcc "debug registers do not trap here (or no gcc): the clock source has no watchpoints for a gcc build"
fi
