#!/usr/bin/env bash
# t807-variance-doc-example: doc/sonde-variance.md's worked example, run as written (its
# "$ ..." lines, the workload copied to the same relative path), and its claims checked on
# the real output: saw and bimodal rank before flat, their CVs in t801's ranges (t801
# states the tolerances), flat called steady or at least ranked last of the three, the
# guidance line, the timeline printed with a sparkline and its CSV.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"
doc=$SONDE_TOP/doc/sonde-variance.md
command -v clang >/dev/null || { skip t807-doc "clang is not installed (sonde-cc needs it)"; exit 0; }
run_doc_example t807 "$doc" tests/workloads/variance/vwork.c
F=mix-out/variance/functions.csv
rs=$(var_col $F saw "main > saw" cpu-time rank) rb=$(var_col $F bimodal "main > bimodal" cpu-time rank)
rf=$(var_col $F flat "main > flat" cpu-time rank)
check "t807-saw-$rs-before-flat-$rf" [ "${rs:-99}" -lt "${rf:-0}" ]
check "t807-bimodal-$rb-before-flat-$rf" [ "${rb:-99}" -lt "${rf:-0}" ]
cv=$(var_col $F saw "main > saw" cpu-time cv)
check "t807-saw-cv-$cv" float_between "${cv:-9}" 0.30 0.85
cv=$(var_col $F bimodal "main > bimodal" cpu-time cv)
check "t807-bimodal-cv-$cv" float_between "${cv:-9}" 0.50 1.25
check t807-guidance-line grep -q "guidance (FVSampler): investigate iff" err2
check t807-table-has-flat grep -q "main > flat " err2
check t807-timeline-header grep -q "^main > saw  (.* instances in order" out3
check t807-timeline-sparkline grep -q "[▁▂▃▄▅▆▇█]" out3
# the slowest instance shows as a full bar, whatever group it falls in (a bar is its
# group's largest; a mean hid a peak: the usability review of 2026-11-28)
check t807-timeline-peak-shown grep -q "█" <(sed -n 2p out3)
check t807-timeline-csv [ "$(wc -l <mix-out/variance/timeline.csv)" -ge 2 ]
# The same timeline as an SVG figure: well-formed XML, one series per context of saw, with
# one point per instance of the CSV (each point a circle with its value on hover).
svg=mix-out/variance/timeline.svg
check t807-timeline-svg-says-where grep -q "^SVG: mix-out/variance/timeline.svg" out3
check t807-timeline-svg-xml python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$svg"
pts=$(python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
print(sum(len(p.get("points").split()) for p in r.iter("{http://www.w3.org/2000/svg}polyline")))' "$svg" 2>/dev/null)
rows=$(awk -F, 'NR > 1' mix-out/variance/timeline.csv | wc -l)
check "t807-timeline-svg-points-$pts-of-$rows" [ "${pts:-0}" -eq "$rows" ]
# --format json: one object with the tool, source, period and each metric's unit, the rows
# under "functions" (a bare array of rows before, no unit: the usability review of
# 2026-11-28)
"$SONDE" report --format json mix-out >j.json 2>/dev/null
check t807-json python3 -c '
import json, sys
d = json.load(open("j.json"))
assert d["tool"] == "variance" and d["source"] and d["period"] > 0, d
assert d["units"]["time"] == "ns" and d["units"]["cpu-time"] == "ns", d["units"]
f = d["functions"]
assert f and all(r["metric"] in d["units"] for r in f), f[:1]
assert {"saw", "flat", "bimodal"} <= {r["function"] for r in f}
'
