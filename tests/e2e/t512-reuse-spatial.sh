#!/usr/bin/env bash
# t512-reuse-spatial: --spatial counts 64-byte lines, sampled (software watchpoints on a
# whole line, sonde-cc programs) as well as with --exact.
# - A sweep of 1000 words: 7 of a line's 8 words are reused by the next access (time
#   distance 0), the 8th after the rest of the sweep (993 accesses): the sampled time
#   histogram matches --exact --spatial's with S >= 0.90 (the thesis's bar; 297 watched
#   uses here, so the 7/8 share moves by ~2 points from run to run), and its [0, 1) bin
#   holds 80-95% (7/8 = 87.5% by construction; the band is 3 binomial SDs and more).
# - False sharing (rbench pingpong -f: two threads take turns storing each its own word of
#   one line): by words a use is reused by the thread's own next store and never
#   invalidated; by lines every watched use ends in the other thread's store.
# - On a program not built by sonde-cc, sampled --spatial cannot watch a line: the
#   runtime says why and records nothing (the program still runs, its status passed).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t50-reuse-lib.bash"
reuse_build t512-build || exit 0

"$SONDE" reuse -q --exact --spatial -o ex -- "$T/rb" sweep 1000 300 >/dev/null 2>&1
check t512-exact-run [ $? -eq 0 ]
"$SONDE" reuse --spatial --source inst --period 1009 -o sa -- "$T/rb" sweep 1000 300 >/dev/null 2>summary
check t512-sampled-run [ $? -eq 0 ]
check t512-summary-says-lines grep -q "spatial reuse (elements: 64-byte lines)" <(flat summary)
reuse_rows ex/reuse/histogram.csv time >ex.rows
reuse_rows sa/reuse/histogram.csv time >sa.rows
s=$(reuse_s ex.rows sa.rows)
check "t512-sweep-s-$s" float_between "$s" 0.90 1
f0=$(awk -F, '$1 == "time" && $2 == 0 { print $5 }' sa/reuse/histogram.csv)
check "t512-sweep-next-word-${f0:-none}" float_between "${f0:-0}" 0.80 0.95
check t512-sweep-no-invalidation [ "$(reuse_meta sa outcomes_invalidation)" = 0 ]

N=2000
"$SONDE" reuse -q --source inst --period 101 -o fw -- "$T/rb" pingpong $N -f >/dev/null 2>&1
out=$(reuse_meta fw outcomes)
check "t512-words-outcomes-$out" [ "${out:-0}" -gt 0 ]
check t512-words-no-invalidation [ "$(reuse_meta fw outcomes_invalidation)" = 0 ]
"$SONDE" reuse -q --spatial --source inst --period 101 -o fl -- "$T/rb" pingpong $N -f >/dev/null 2>&1
out=$(reuse_meta fl outcomes)
check "t512-lines-outcomes-$out" [ "${out:-0}" -gt 0 ]
check t512-lines-all-invalidations [ "$(reuse_meta fl outcomes_invalidation)" = "$out" ]
"$SONDE" reuse -q --exact --spatial -o fx -- "$T/rb" pingpong $N -f >/dev/null 2>&1
check t512-exact-lines-invalidations [ "$(csv_get fx/reuse/histogram.csv kind invalidation count)" = $((2 * N - 1)) ]

"$SONDE" reuse --spatial -o plain -- sh -c 'exit 3' >/dev/null 2>err
check t512-plain-status-passed [ $? -eq 3 ]
check t512-plain-says-why grep -q "only software watchpoints can" err
check t512-plain-nothing-recorded grep -q "nothing was recorded" err

# --check-sampling with --spatial: 7 of a line's 8 reuses are at distance 0, exact by
# construction; the error factor is also given over the others (model.c, model_check: the
# usability review of 2026-11-29, M2, read 1.02 beside S = 0.88).  Both recomputed from
# outcomes.csv's reuses (their weight, estimate and exact distance): the geometric mean of
# |log2((estimate + 1) / (exact + 1))|, over all and over those at exact distance >= 1.
"$SONDE" reuse --spatial --check-sampling -o chk -- "$T/rb" sweep 30000 40 >/dev/null 2>chk.err
check t512-check-status [ $? -eq 0 ]
"$SONDE" report chk --format json >chk.json
cat >err.py <<'PY'
import csv, json, math, sys
rows = [r for r in csv.DictReader(open("chk/reuse/outcomes.csv"))
        if r["kind"] == "reuse" and r["exact_distance"] != "" and r["estimate"] != ""
        and float(r["estimate"]) >= 0]
def mean(rs):
    w = sum(float(r["weight"]) for r in rs)
    return sum(float(r["weight"]) * abs(math.log2((float(r["estimate"]) + 1) /
               (float(r["exact_distance"]) + 1))) for r in rs) / w if w else None
far = [r for r in rows if float(r["exact_distance"]) >= 1]
c = json.load(open("chk.json"))["sampling_check"]
a, f = mean(rows), mean(far)
print("    log2 error %s (recomputed %s), beyond 0: %s (recomputed %s), %d of %d reuses at >= 1"
      % (c["log2_error"], a, c["log2_error_far"], f, len(far), len(rows)))
ok = a is not None and f is not None and abs(c["log2_error"] - a) < 2e-3 and \
     abs(c["log2_error_far"] - f) < 2e-3 and len(far) < len(rows)
sys.exit(0 if ok else 1)
PY
check t512-check-error-far python3 err.py
# said in the text where it is larger by 0.01 or more
far=$(python3 -c 'import json; c = json.load(open("chk.json"))["sampling_check"]; print("yes" if 2 ** c["log2_error_far"] >= 2 ** c["log2_error"] + 0.01 else "no")')
if [ "$far" = yes ]; then
	check t512-check-error-far-said grep -q "over those at distance 1 or more (a reuse at distance 0 is exact by construction)" <(flat chk.err)
else
	flat chk.err >chk.flat
	check t512-check-error-far-unsaid sh -c '! grep -q "over those at distance 1 or more" chk.flat'
fi
