#!/usr/bin/env bash
# t411-comm-compare: `sonde comm --compare N` runs both detectors on the same run of a
# sonde-cc program: the exact one on every access (the report, DIR/comm/) and the sampled
# one on every Nth access of each thread (DIR/comm/sampled/), so the two are compared
# without run-to-run variance.  On the lock-step ring (tests/workloads/comm/commbench.c):
# the exact edges hold their known 2N transfers as under --exact alone (t402's bounds: the
# sampled detector riding along changes nothing), the sampled matrices keep the invariants
# (square, symmetric, zero diagonal, all = true + false), and their cosine similarity with
# the exact ones is >= 0.9 (the issue's criterion), the value the summary prints.
# N = 20,000 rounds give ~100 sampled events (at N = 5,000, ~30 events, the cosine came
# out 0.87 to 0.97).  On the free-running fs mix the two false-sharing shares are printed,
# not asserted (what moves there depends on the scheduler: see doc/sonde-comm.md, "Sampled
# vs exact in one run").
# 2 cores: the ring waits with sched_yield, so the same lines move whatever the load, and
# its wait is unseen by the detectors (commbench.c), so each thread makes the same accesses
# too (a loaded machine's longer, uneven waits weighted the sampled edges by them).
# What is left is the sampled detector's own randomness (its windows and picks, --seed):
# the cosine of one run was 0.957 to 0.998 in 18 runs (doc/sonde-comm.md; 0.87 to 1.00,
# under 0.9 once in 40, before the two biases below were mended).  So the criterion holds
# for the median of three runs, and no single run falls under 0.8.  A bias by place in
# the ring (fixed sampling windows locked onto its 4 accesses a round; TryArmWP's pick
# favouring the lowest line) gave thread 1's edges 2x the others' and still a cosine of
# 0.94-0.97: the 200,000-round run checks the sampled edges are even (t402's check).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t40-comm-lib.bash"
comm_build t411-build || exit 0
N=20000
between() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
lo=$((2 * N - 2 * N / 100)) hi=$((2 * N + N / 5))	# t402's, same reasons

"$SONDE" comm --compare 1009 -o ring -- "$T/cb-inst" ring $N >out 2>summary
check t411-status [ $? -eq 0 ]
for f in matrix-{all,true,false}-{thread,core}.csv; do
	check "t411-sampled-$f" [ -s ring/comm/sampled/$f ]
done
check t411-meta-period [ "$(comm_meta ring compare_period)" = 1009 ]
check t411-meta-exact [ "$(comm_meta ring exact)" = 1 ]
check t411-exact-invariants mat_invariants ring thread
mkdir -p s && ln -sfn "$PWD/ring/comm/sampled" s/comm
check t411-sampled-invariants-thread mat_invariants s thread
check t411-sampled-invariants-core mat_invariants s core
for e in 1-2 2-3 3-4 4-1; do
	v=$(mat_cell ring/comm/matrix-all-thread.csv ${e%-*} ${e#*-})
	check "t411-exact-ring-edge-$e ($v)" between "$v" $lo $hi
done
check t411-sampled-volume [ "$(mat_sum ring/comm/sampled/matrix-all-thread.csv)" -gt 0 ]
# the database's sampled total is the CSV's (both triangles)
check t411-sampled-total [ "$(comm_meta ring sampled_total_all)" -eq \
	$(($(mat_sum ring/comm/sampled/matrix-all-thread.csv) / 2)) ]
# the summary's verdict follows its own rule on the two runs' figures, each judged apart
# (volume within 2x; false-sharing share within 20 points by the byte rule, and by the
# writers' bytes where that reading differs; the pattern at a cosine of 0.9 or more), in
# the terminal, the JSON and the page
read -r ea ef sa sf sc < <(for k in total_all total_false sampled_total_all \
	sampled_total_false sampled_total_false_covered; do comm_meta ring $k; done | tr '\n' ' ')
read -r vol split cov < <(awk -v ea="$ea" -v ef="$ef" -v sa="$sa" -v sf="$sf" -v sc="$sc" '
	function abs(x) { return x < 0 ? -x : x }
	BEGIN { r = sa / ea; e = 100 * ef / ea; s = sa ? 100 * sf / sa : 0
	c = sa ? 100 * (sf - sc) / sa : 0
	print (sa && r <= 2 && r >= 0.5) ? "true" : "false", (sa && abs(s - e) <= 20) ? "true" : "false",
	(s - c < 0.05) ? "null" : (abs(c - e) <= 20) ? "true" : "false" }')
cos=$(mat_cosine ring/comm/matrix-all-thread.csv ring/comm/sampled/matrix-all-thread.csv)
echo "    exact $ea ($ef false), sampled $sa ($sf false, $sc covered), cosine $cos:" \
	"volume $vol, split $split, covered $cov"
"$SONDE" report ring --format json >ring.json 2>/dev/null
check t411-verdict-json python3 - "$sa" "$vol" "$split" "$cov" "$cos" <<'PY'
import json, sys
sa, vol, split, cov, cos = sys.argv[1:]
d = json.load(open("ring.json"))
assert d["compare_period"] == 1009 and d["sampled_total_all"] == int(sa), d
assert json.dumps(d["compare_volume_agrees"]) == vol, d
assert json.dumps(d["compare_split_agrees"]) == split, d
assert json.dumps(d["compare_covered_agrees"]) == cov, d
# the pattern: from the CSVs' cosine, where it is not within rounding of the threshold
if abs(float(cos) - 0.9) > 0.005:
    assert d["compare_pattern_agrees"] == (float(cos) >= 0.9), (cos, d)
ok = [d[k] for k in ("compare_volume_agrees", "compare_split_agrees",
                     "compare_covered_agrees", "compare_pattern_agrees") if d[k] is not None]
v = d["compare_verdict"]
lead = "sampling %s with the exact count on this run in " % (
    "does not agree" if not any(ok) else "agrees")
assert v.startswith(lead), v
assert ("; not in " in v) == (any(ok) and not all(ok)), v
assert "volume (" in v, v
# each part stands in the half its boolean says: before "; not in " where it agrees
agree, _, disagree = v.partition("; not in ")
if not any(ok):
    agree, disagree = "", v
for key, part in (("compare_volume_agrees", "volume ("),
                  ("compare_split_agrees", "share by the byte rule ("),
                  ("compare_covered_agrees", "counting the writers' bytes ("),
                  ("compare_pattern_agrees", "thread pattern (")):
    if d[key] is None:
        assert part not in v, (key, v)
    else:
        assert (part in agree) == d[key] and (part in disagree) == (not d[key]), (key, v)
open("verdict.txt", "w").write(v)
esc = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}
open("verdict.html", "w").write("".join(esc.get(ch, ch) for ch in v))
PY
check t411-verdict-summary grep -qF "verdict: $(cat verdict.txt)." <(flat summary)
echo "    ring: cosine(exact, sampled) = $cos"
check "t411-ring-cosine-floor ($cos)" float_between "$cos" 0.8 1
coss=$cos
for r in 2 3; do
	"$SONDE" comm -q --compare 1009 -o ring$r -- "$T/cb-inst" ring $N
	for e in 1-2 2-3 3-4 4-1; do
		v=$(mat_cell ring$r/comm/matrix-all-thread.csv ${e%-*} ${e#*-})
		check "t411-exact-ring-edge-$e-run$r ($v)" between "$v" $lo $hi
	done
	c=$(mat_cosine ring$r/comm/matrix-all-thread.csv ring$r/comm/sampled/matrix-all-thread.csv)
	echo "    ring, run $r: cosine(exact, sampled) = $c"
	check "t411-ring-cosine-floor-run$r ($c)" float_between "$c" 0.8 1
	coss="$coss $c"
done
med=$(printf '%s\n' $coss | sort -g | sed -n 2p)
check "t411-ring-cosine-median ($coss)" float_between "$med" 0.9 1
# The same run at 200,000 rounds: the sampled edges even (t402's check, same reasons:
# a bias by place in the ring gives ~0.95 at the cosine), the exact ones 2N' each.
NR=200000
"$SONDE" comm -q --compare 1009 -o ring-long -- "$T/cb-inst" ring $NR
for e in 1-2 2-3 3-4 4-1; do
	v=$(mat_cell ring-long/comm/matrix-all-thread.csv ${e%-*} ${e#*-})
	check "t411-long-exact-ring-edge-$e ($v)" between "$v" $((2 * NR - 2 * NR / 100)) $((2 * NR + NR / 5))
done
e=$(ring_edges ring-long/comm/sampled/matrix-all-thread.csv)
c=$(mat_cosine ring-long/comm/matrix-all-thread.csv ring-long/comm/sampled/matrix-all-thread.csv)
echo "    ring, $NR rounds: sampled edges $e (x1009), cosine $c"
check "t411-long-sampled-ring-even ($e)" ring_even ring-long/comm/sampled/matrix-all-thread.csv 0.75 1.25
said=$(flat summary | sed -n 's/.*cosine similarity of the thread matrices: all \([0-9.]*\),.*/\1/p')
# the summary prints 3 decimals, the CSV check 4
check "t411-summary-cosine ($said)" float_between "$said" "$(awk -v c="$cos" 'BEGIN { print c - 0.0006 }')" \
	"$(awk -v c="$cos" 'BEGIN { print c + 0.0006 }')"

for mix in 20 80; do
	"$SONDE" comm -q --compare 1009 -o fs$mix -- "$T/cb-inst" fs 200000 $mix
	e=$(awk -v a="$(comm_meta fs$mix total_all)" -v f="$(comm_meta fs$mix total_false)" 'BEGIN { printf "%.3f", a ? f / a : 0 }')
	s=$(awk -v a="$(comm_meta fs$mix sampled_total_all)" -v f="$(comm_meta fs$mix sampled_total_false)" 'BEGIN { printf "%.3f", a ? f / a : 0 }')
	c=$(mat_cosine fs$mix/comm/matrix-all-thread.csv fs$mix/comm/sampled/matrix-all-thread.csv)
	echo "    fs $mix% false stores: false-sharing share exact $e, sampled $s; cosine $c"
done

# a sampled detector that finds nothing (a period past the run's accesses): the objects,
# lines and code are the exact run's, one transfer in 61 recorded (model.c, names_exact:
# the trial of 2026-11-29, F2, PENNANT's 545,681 exact transfers named nowhere); commbench
# fs writes `shared` alone (t424)
"$SONDE" comm --compare 1000000007 -o nosamp -- "$T/cb-inst" fs 100000 50 >/dev/null 2>ns.txt
check t411-nosamp-status [ $? -eq 0 ]
check t411-nosamp-no-events [ "$(comm_meta nosamp sampled_events)" = 0 ]
check t411-nosamp-names-exact [ "$(comm_meta nosamp names_exact)" = 1 ]
check t411-nosamp-object [ "$(awk -F, 'NR > 1' nosamp/comm/objects.csv | cut -d, -f1 | sort -u)" = shared ]
check t411-nosamp-said grep -q "Top objects (of 1 exact transfer in 61: estimated volumes)" ns.txt
# and where it finds some, they stay its own (the comparison is of its reading)
check t411-names-sampled [ "$(comm_meta ring names_exact)" = 0 ]

# comm draws each window around the period at random (rt_inst_jitter): its inst period is
# taken as given, not as the next prime, and nothing is said of it (RT_TOOL_RANDOM_WINDOWS;
# mem and reuse round: t062)
"$SONDE" comm -q --source inst --period 1000 -o p1000 -- "$T/cb-inst" ring 2000 >/dev/null 2>p1000.err
check t411-period-as-given grep -q '^period=1000$' p1000/*.proc
check t411-period-unsaid sh -c '! grep -q "next prime" p1000.err'

# usage errors
"$SONDE" comm --compare 1 -- true >/dev/null 2>err
check t411-period-1-usage [ $? -eq 2 ]
"$SONDE" comm --compare 1009 --source clock -- true >/dev/null 2>err
check t411-clock-usage [ $? -eq 2 ]

# the HTML page shows the comparison: the sampled thread map's cells are sampled/'s CSV
"$SONDE" report ring --html page.html >/dev/null 2>&1
check t411-html-compare-table grep -q 'id="compare-table"' page.html
check t411-html-verdict grep -qF "<p>Verdict: $(cat verdict.html).</p>" page.html
check t411-html-sampled-map python3 - <<'PY'
import csv, re
page = open("page.html").read()
rows = list(csv.reader(open("ring/comm/sampled/matrix-all-thread.csv")))
cells = [r[1:] for r in rows[1:]]
m = re.search(r'<svg[^>]*id="sampled-thread-all".*?</svg>', page, re.S)
rects = re.findall(r'<rect class="cell"([^>]*)>', m.group(0)) if m else []
assert len(rects) == len(cells) ** 2, (len(rects), len(cells))
for a in rects:
    r = int(re.search(r'data-row="(\d+)"', a).group(1)); c = int(re.search(r'data-col="(\d+)"', a).group(1))
    assert float(re.search(r'data-v="([^"]*)"', a).group(1)) == float(cells[r][c]), (r, c, a)
# the hover's unit: the sampled detector's estimates there, the exact transfers above (the
# code review of 2026-11-29: the sampled maps said the exact run's unit)
t = re.findall(r'<title>([^<]*)</title>', m.group(0))
assert t and all(x.endswith(" estimated cache-line transfers") for x in t), t[:2]
e = re.search(r'<svg[^>]*id="thread-all".*?</svg>', page, re.S)
t = re.findall(r'<title>([^<]*)</title>', e.group(0)) if e else []
assert t and all(x.endswith(": " + x.split(": ")[1].split(" ")[0] + " cache-line transfers") for x in t), t[:2]
PY

# Two threads: one thread pair in every matrix, whose cosine is 1 (or 0) whatever the
# volumes; the summary and the page say n/a for a kind where the exact and sampled
# matrices have fewer than two communicating pairs between them (the trial of RSBench on
# 2 threads read "false 1.000" with 0% false sharing exact and 89% sampled, until
# 2026-11-28), and a number where they have more (the ring above, 4 threads).
"$SONDE" comm --compare 1009 -o pp -- "$T/cb-inst" pingpong 20000 >/dev/null 2>ppsum
check t411-two-threads-status [ $? -eq 0 ]
# (main waits: the two workers are the one pair in the matrices, exact and sampled)
check t411-two-threads-one-pair python3 -c '
import csv, sys
pairs = set()
for f in ("pp/comm/matrix-all-thread.csv", "pp/comm/sampled/matrix-all-thread.csv"):
    rows = list(csv.reader(open(f)))
    for i, r in enumerate(rows[1:]):
        for j, v in enumerate(r[1:]):
            if i < j and float(v) > 0:
                pairs.add((i, j))
sys.exit(len(pairs) != 1)'
check t411-two-threads-cosine-na grep -q "cosine similarity of the thread matrices: all n/a, true n/a, false n/a (n/a: fewer than two" <(flat ppsum)
"$SONDE" report pp --html pp.html >/dev/null 2>&1
check t411-two-threads-page-na grep -q "Cosine similarity of the thread matrices: all n/a" pp.html
check t411-ring-cosine-number grep -q "cosine similarity of the thread matrices: all [01]\.[0-9]*," <(flat summary)
# the objects, cache lines and code come from the sampled detector (the exact counts carry
# no address or instruction): objects.csv was empty and pairs.csv had no code (the trial
# of 2026-11-28); the summary says whose they are
check t411-objects-named [ "$(awk -F, 'NR > 1' ring/comm/objects.csv | wc -l)" -gt 0 ]
check t411-pairs-code awk -F, 'NR > 1 && $6 != "" && $7 != "" { ok = 1 } END { exit !ok }' ring/comm/pairs.csv
check t411-lines-written [ "$(awk -F, 'NR > 1' ring/comm/lines.csv | wc -l)" -gt 0 ]
check t411-objects-said grep -q "^Top objects (the sampled detector's: estimated volumes)" summary
# the thread pairs' code columns are the sampled detector's too (the trial of 2026-11-28)
check t411-pairs-said grep -q "^Top thread pairs (exact volumes; code: the sampled detector's)" summary
# what to do follows the exact counts' larger kind, not the sampled objects' split (the
# review of 2026-11-28: the sampled split, the biased one, had taken over)
# The ring hands whole data lines on: true sharing by construction, as the exact count
# finds it (false 0); the sampled objects' split may read otherwise.
check t411-ring-exact-true [ "$(comm_meta ring total_false)" -eq 0 ]
check t411-what-to-do-exact-true grep -q "What to do: true sharing (" <(flat summary)

# A sampled detector that finds nothing still gets its comparison (the trial of 2026-11-28:
# RSBench and PENNANT lost it, the comparison's worst case, when no EVENT record was
# written): N = 10,000,000 on 2,000 ring rounds leaves each thread a sample or none.
"$SONDE" comm --compare 10000000 -o none -- "$T/cb-inst" ring 2000 >/dev/null 2>none.txt
check t411-none-status [ $? -eq 0 ]
check t411-none-compared grep -q "^Same run, both detectors (the sampled one on one access in 10000000" none.txt
check t411-none-period [ "$(comm_meta none compare_period)" = 10000000 ]
check t411-none-sampled-dir [ -s none/comm/sampled/matrix-all-thread.csv ]
check t411-none-verdict sh -c "tr '\n' ' ' <none.txt | tr -s ' ' | grep -q 'verdict: sampling does not agree'"
# a handful of sampled events (1 to 29): no verdict, "too few" (the trial of 2026-11-28:
# miniBUDE judged from one event); ring 4000 at 1009 gives about 12
"$SONDE" comm --compare 1009 -o few -- "$T/cb-inst" ring 4000 >/dev/null 2>few.txt
sev=$(comm_meta few sampled_events)
if [ "${sev:-0}" -ge 1 ] && [ "${sev:-0}" -lt 30 ]; then
	check "t411-few-no-verdict ($sev events)" grep -q "verdict: too few sampled events to judge sampling by ($sev, under 30)" <(flat few.txt)
else
	skip t411-few-no-verdict "this run's sampled detector found $sev events, not 1 to 29"
fi
# the lines' table and section name the sampled detector in a --compare run, as the
# objects' do (the trial of 2026-11-28: only the objects were labelled)
cmpdir=$(ls -d */ 2>/dev/null | while read d; do [ -f "$d/profile.db" ] && [ "$(sqlite3 "$d/profile.db" "SELECT value FROM meta WHERE key = 'compare_period'" 2>/dev/null)" != "" ] && [ "$(sqlite3 "$d/profile.db" "SELECT value FROM meta WHERE key = 'compare_period'")" != 0 ] && echo "${d%/}" && break; done)
if [ -n "$cmpdir" ]; then
	"$SONDE" report "$cmpdir" >cmp-lines.txt 2>&1
	check t411-lines-labelled grep -q "Top cache lines (the sampled detector's" cmp-lines.txt
	"$SONDE" report "$cmpdir" --html cmp-lines.html >/dev/null 2>&1
	check t411-lines-labelled-page grep -q "From the sampled detector (--compare)" cmp-lines.html
else
	fail t411-lines-labelled "no --compare recording found in the test's directory"
fi
