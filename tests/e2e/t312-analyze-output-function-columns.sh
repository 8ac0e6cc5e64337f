#!/usr/bin/env bash
# t312: -o's per-function files carry the cycle accounting (in cycle samples, every branch by
# its path): functions/N.asm.csv per instruction, N.bb.csv per basic block, N.src.csv per
# line; index.html's embedded details hold the same, and its assembly pane renders the
# cycles and branch columns with the block totals on the BB rows.  Expected values from the
# bundled example's construction (see t309) and GOoDA's formula.
. "$(dirname "$0")/lib.sh"
fx=$SONDE_TOP/tests/fixtures/perfdata
mkdir ex && cp "$fx/example-snb" "$fx/example-snb.perf.data" ex/ && cd ex || exit 1

g() { awk -v s="$1" -v p="$2" -v P="$3" -v m="$4" 'BEGIN { printf "%d\n", int(s * p * P * m / (2000000 * 5)) }'; }
expect() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '$2', want '$3'"; fi; }
load_insn=$(( $(g 140 250 20000 5.5) + $(g 10 6 200000 5.5) + $(g 6 30 50000 5.5) + $(g 2 75 20000 5.5) ))
dtlb=$(( $(g 10 7 100000 5.5) + $(g 20 1 2000000 5.5) ))
bm=$(( $(g 180 6 200000 5.5) + $(g 6 6 100000 5.5) ))

"$SONDE" analyze -o rep example-snb.perf.data >/dev/null 2>err.txt
check t312-written [ -s rep/functions/1.bb.csv ]
f=rep/functions
# rank 1 is chase, 2 classify (t307 checks the ranking)
expect t312-bb-range "$(csv_get $f/1.bb.csv bb 2 start)-$(csv_get $f/1.bb.csv bb 2 end)" 0x13a0-0x13a9
expect t312-bb-successors "$(csv_get $f/1.bb.csv bb 2 successors)" "2 3"
expect t312-bb-cycles "$(csv_get $f/1.bb.csv bb 2 cycles)" 500
expect t312-bb-load-latency "$(csv_get $f/1.bb.csv bb 2 stalled/load_latency)" $((load_insn + dtlb))
expect t312-bb-stalled "$(csv_get $f/1.bb.csv bb 2 stalled)" $((2 + 430 + 8))
expect t312-bb-samples "$(csv_get $f/1.bb.csv bb 2 samples:mem_load_uops_retired.llc_miss:pp)" 140
expect t312-asm-load-latency "$(csv_get $f/1.asm.csv address 0x13a0 stalled/load_latency)" $load_insn
expect t312-asm-llc-miss "$(csv_get $f/1.asm.csv address 0x13a0 stalled/load_latency/llc_miss)" "$(g 140 250 20000 5.5)"
expect t312-asm-cycles "$(csv_get $f/1.asm.csv address 0x13a3 cycles)" 470
expect t312-src-line30 "$(csv_get $f/1.src.csv line 30 stalled/load_latency)" $load_insn
expect t312-src-line29 "$(csv_get $f/1.src.csv line 29 cycles)" 490
expect t312-bb-branch "$(csv_get $f/2.bb.csv bb 4 stalled/branch_misprediction)" $bm

if ! command -v python3 >/dev/null; then
	skip t312-html-data "python3 is not installed"
else
	python3 - rep/index.html $((load_insn + dtlb)) $load_insn >py.txt 2>&1 <<'PY'
import json, re, sys
h = open(sys.argv[1]).read()
d = json.loads(re.search(r'<script id="data" type="application/json">\n(.*?)</script>', h, re.S).group(1))
k = d["accounting"]["nodes"].index("stalled/load_latency")
c = next(x for x in d["details"] if x["name"] == "chase")
bb = c["bbs"][2]
insn = next(a for a in c["asm"] if a[1] == "13a0")
ok = bb[:4] == ["13a0", "13a9", 500, [2, 3]] and bb[4] == 500 and bb[5][k] == int(sys.argv[2]) \
	and insn[6] == 10 and insn[7][k] == int(sys.argv[3])
print("ok" if ok else "bad: bb %s insn %s" % (bb, insn))
PY
	if [ "$(cat py.txt)" = ok ]; then pass t312-html-data; else fail t312-html-data "$(head -c 400 py.txt)"; fi
fi

chromium_find t312-html-pane || exit 0
chromium "file://$T/ex/rep/index.html" --dump-dom >dom.html
# the open pane (chase): cycles and the top branches in the header, BB 2's totals row
pane=$(sed -n 's/.*\(<div class="pane" id="pane-[0-9]*">.*\)/\1/p' dom.html)
if printf '%s' "$pane" | grep -q '<th>samples</th><th>cycles</th><th title="stalled">stalled</th>' &&
	printf '%s' "$pane" | grep -q '<td colspan="2" class="name">BB 2</td><td>500</td><td>500</td><td>88.0%</td>'; then
	pass t312-html-pane
else
	fail t312-html-pane "$(printf '%s' "$pane" | head -c 600)"
fi
