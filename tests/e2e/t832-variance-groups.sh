#!/usr/bin/env bash
# t832-variance-groups: instances that fall in groups 2x or more apart, which explain most
# of their variance, are said (functions.csv's groups, a note under the table), with the
# verdict left as it is: multigrid levels and problem sizes vary by design (the trial of
# 2026-11-28: HPGMG-FV's smooth, levels 8x apart, "investigate" and nothing more).
# vlevels (tests/workloads/variance/vlevels.c): `level` on 2^17, 2^13 or 2^9 elements at
# random, so 3 groups 16x apart by construction (less the fixed cost of a call: the
# smallest level's 2^9 elements are few), each about a third of the instances (8x apart,
# a loaded machine's slow small-level instances bridged the gap to the next in 1 run of
# 7: two groups); `spread`
# a continuous 1x-4x of one amount (no 2x gap but at a stray instance: no groups);
# `same` one amount (no groups).  Bars: 3 groups for level, its means 5x-40x apart
# (16x by construction; the bars leave room for a loaded machine's cache interference,
# which CPU time still carries, and for the call's fixed cost at 2^9), each group 10% of
# the instances or more (a third, drawn at random: 30 instances or more give under 1 in
# 1000 of a group under 10%); none for spread and same.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"
var_build t832-build vlevels.c vlevels || exit 0
"$SONDE" variance -o v -- ./vlevels >out 2>err
check t832-status [ $? -eq 0 ]
check t832-output grep -qx "vlevels: .*" out
col() { var_col v/variance/functions.csv "$1" "main > $1" cpu-time "$2"; }
n=$(col level instances)
g=$(col level groups)
echo "    level: $n instances, groups $g"
check t832-level-instances [ "${n:-0}" -ge 30 ]
check t832-level-groups python3 - "$g" <<'PY'
import sys
f = sys.argv[1].split(";")
groups = [tuple(map(float, x.split(":"))) for x in f if ":" in x]
explained = [float(x) for x in f if ":" not in x]
# groups under 4x apart are one level split: a pair of suites of 2026-11-30 read the
# smallest level as two groups, 22 and 52 us (its instances after the 2^17 level's find
# the caches cold, under load the more), beside 463 us and 7.7 ms
levels = []
for m, sh in groups:
    if levels and m / levels[-1][2] < 4:
        levels[-1] = (levels[-1][0], levels[-1][1] + sh, m)
    else:
        levels.append((m, sh, m))
ok = len(levels) == 3 and len(groups) <= 4 and len(explained) == 1 and explained[0] >= 0.75
ok = ok and all(5 <= b[0] / a[2] <= 40 or 5 <= b[0] / a[0] <= 40 for a, b in zip(levels, levels[1:]))
ok = ok and all(s >= 0.10 for _, s, _ in levels)
sys.exit(not ok)
PY
check t832-spread-none [ -z "$(col spread groups)" ]
check t832-same-none [ -z "$(col same groups)" ]
check t832-note grep -q "note: level (main > level): its instances fall in [34] groups 2x or more apart, of means" <(flat err)
check t832-note-only-level bash -c '[ "$(grep -c "^note: .*its instances fall in" err)" -eq 1 ]'
# the verdict stays FVSampler's: the program knows whether its calls differ by design
check t832-verdict-kept grep -q '^1 *level .*investigate' err
"$SONDE" report v >rep 2>&1
# --top hides no row unsaid (the usability review of 2026-11-28: --top 2 dropped 8 rows)
"$SONDE" report --top 1 v >top1 2>&1
check t832-top-more grep -qxF "  ... 2 more, ranked lower (--top N, or functions.csv)" top1
check t832-report-note grep -q "note: level (main > level): its instances fall in [34] groups" <(flat rep)
"$SONDE" report --html page.html v >/dev/null 2>&1
check t832-page-note grep -q "level (main &gt; level): its instances fall in [34] groups\|level (main > level): its instances fall in [34] groups" page.html
# a stripped program: no share can be counted, and the verdict says so, not "0.0% of the
# time" (the usability review of 2026-11-28)
cp vlevels vlevels-stripped && strip vlevels-stripped
"$SONDE" variance -o vs -- ./vlevels-stripped >/dev/null 2>errs
check t832-stripped-status [ $? -eq 0 ]
check t832-stripped-unknown grep -q "share of the time is unknown: the program has no function symbols" errs
check t832-stripped-no-zero bash -c '! grep -q "but 0.0% of the time" errs'
var_verdicts t832-stripped-verdicts vs/variance/functions.csv
