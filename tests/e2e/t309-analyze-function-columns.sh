#!/usr/bin/env bash
# t309: `sonde analyze --function` carries the cycle-accounting columns on every basic block
# (its "(block N)" row), instruction and source line, as GOoDA's asm and source views do,
# --depth levels deep, in % of the row's own cycles (or cycle samples with --cycles).
# Expected values come from the bundled example's construction (tools/make-analyze-example.c:
# chase's load 13a0 has 10 cycle samples, 140 llc_miss, 10 l2_hit, 6 snoop_none, 2 snoop_miss;
# the next instruction 13a3 470 cycles, 10 stlb_hit, 20 dtlb walk; the branch 13a7 20 cycles;
# stall cycles 2/430/8; classify's jnz 13d5 has 180 br_misp and 6 baclears in the block
# [13cf, 13d7) of 35+25+10 cycles and 5 l2_hit) and GOoDA's formula
# trunc(samples x penalty x period x multiplex / (2000000 x 5)).
. "$(dirname "$0")/lib.sh"
fx=$SONDE_TOP/tests/fixtures/perfdata
mkdir ex && cp "$fx/example-snb" "$fx/example-snb.perf.data" ex/ && cd ex || exit 1

g() { awk -v s="$1" -v p="$2" -v P="$3" -v m="$4" 'BEGIN { printf "%d\n", int(s * p * P * m / (2000000 * 5)) }'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f%%\n", 100 * a / b }'; }
# field LABEL PATTERN FILE: the value under column LABEL (of the "samples cycles ..." header
# that precedes it) in the first row matching PATTERN.
field() {
	awk -v lab="$1" -v pat="$2" '
		$1 == "samples" && $2 == "cycles" { delete h; for (i = 1; i <= NF; i++) h[$i] = i; next }
		$0 ~ pat && (lab in h) { print $h[lab]; exit }' "$3"
}
expect() {	# NAME GOT WANT
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '$2', want '$3'"; fi
}

load_insn=$(( $(g 140 250 20000 5.5) + $(g 10 6 200000 5.5) + $(g 6 30 50000 5.5) + $(g 2 75 20000 5.5) ))
dtlb=$(( $(g 10 7 100000 5.5) + $(g 20 1 2000000 5.5) ))
load_bb=$((load_insn + dtlb))

"$SONDE" analyze --depth 2 --function chase example-snb.perf.data >chase.txt 2>err.txt
check t309-function-runs [ $? -eq 0 ]
expect t309-block-cycles "$(field cycles '[(]block 2[)]' chase.txt)" 500
expect t309-block-stalled "$(field stalled '[(]block 2[)]' chase.txt)" "$(pct $((2 + 430 + 8)) 500)"
expect t309-block-load-latency "$(field load_lat '[(]block 2[)]' chase.txt)" "$(pct $load_bb 500)"
expect t309-insn-load-latency "$(field load_lat ' 13a0  mov' chase.txt)" "$(pct $load_insn 10)"
expect t309-insn-skid-target "$(field load_lat ' 13a3  sub' chase.txt)" "$(pct $dtlb 470)"
expect t309-insn-cycles "$(field cycles ' 13a3  sub' chase.txt)" 470
# source lines: line 30 is the load alone, line 29 the sub and the branch
expect t309-line-load-latency "$(field load_lat '  [.]/example-snb.c:30$' chase.txt)" "$(pct $load_insn 10)"
expect t309-line-cycles "$(field cycles '  [.]/example-snb.c:29$' chase.txt)" 490
# an empty row has no shares: "-"
expect t309-empty-row-dash "$(field stalled ' 1390  mov' chase.txt)" "-"

# --cycles: cycle samples instead of %
"$SONDE" analyze --depth 2 --cycles --function chase example-snb.perf.data >cyc.txt 2>&1
expect t309-cycles-mode-block "$(field load_lat '[(]block 2[)]' cyc.txt)" "$load_bb"
expect t309-cycles-mode-insn "$(field load_lat ' 13a0  mov' cyc.txt)" "$load_insn"

# --depth 3 reaches the leaves: llc_miss alone on the block
"$SONDE" analyze --depth 3 --function chase example-snb.perf.data >d3.txt 2>&1
expect t309-depth3-leaf "$(field llc_miss '[(]block 2[)]' d3.txt)" "$(pct "$(g 140 250 20000 5.5)" 500)"
# --depth 1 (default): only the top level
"$SONDE" analyze --function chase example-snb.perf.data >d1.txt 2>&1
hdr=$(awk '$1 == "samples" && $2 == "cycles" { print; exit }' d1.txt | tr -s ' ' | sed 's/^ //')
expect t309-depth1-header "$hdr" "samples cycles stalled unstalled address instruction line"

# classify: the mispredictions are charged to the branch's block, not to its targets
"$SONDE" analyze --depth 2 --function classify example-snb.perf.data >cl.txt 2>&1
bm=$(( $(g 180 6 200000 5.5) + $(g 6 6 100000 5.5) ))
expect t309-branch-block "$(field br_misp '[(]block 4[)]' cl.txt)" "$(pct $bm $((35 + 25 + 10)))"
expect t309-branch-block-load "$(field load_lat '[(]block 4[)]' cl.txt)" "$(pct "$(g 5 6 200000 5.5)" 70)"
expect t309-branch-target-block "$(field br_misp '[(]block 3[)]' cl.txt)" "0.0%"

# the block header line keeps its shape (t302 and users grep it)
check t309-block-header grep -qE '^BB 2  \[13a0, 13a9\)  500 samples  -> BB 2 BB 3  cycles 500$' chase.txt

# without a template: no accounting columns, the plain view
"$SONDE" analyze --topdown-dir "$T/none" --function chase example-snb.perf.data >plain.txt 2>&1
if grep -qE '^ +10 +13a0  mov' plain.txt && ! grep -q '(block' plain.txt; then
	pass t309-no-template-plain
else
	fail t309-no-template-plain "$(grep 13a0 plain.txt)"
fi
