#!/usr/bin/env bash
# t307: the bundled `sonde analyze` example (tests/fixtures/perfdata/example-snb*).
#  1. tools/make-analyze-example.c remakes the checked-in perf.data byte for byte;
#  2. every command of doc/sonde-analyze.md's "Worked example" runs, and every output line
#     the doc quotes appears in the real output, in the same order (so the doc cannot drift);
#  3. the story by construction: chase, classify, interpret rank 1-3, each dominated by its
#     branch (load latency, branch misprediction, instruction starvation) with the values
#     GOoDA's formula gives for the sample counts the generator writes;
#  4. the skid: the precise LLC-miss samples and the cycles fall on different instructions
#     of the same basic block.
. "$(dirname "$0")/lib.sh"
fx=$SONDE_TOP/tests/fixtures/perfdata
doc=$SONDE_TOP/doc/sonde-analyze.md

# 1. reproducible
if ! cc -std=gnu11 -O2 -o mae "$SONDE_TOP/tools/make-analyze-example.c" -lelf -lZydis 2>cc.err; then
	fail t307-generator-builds "$(head -3 cc.err | tr '\n' ' ')"
	exit 0
fi
if ./mae "$fx/example-snb" regen.data && cmp -s regen.data "$fx/example-snb.perf.data"; then
	pass t307-fixture-reproducible
else
	fail t307-fixture-reproducible "the generator's output differs from $fx/example-snb.perf.data"
fi
size=$(stat -c %s "$fx/example-snb.perf.data")
check t307-fixture-small [ "$size" -lt 204800 ]

# The example runs where the binary is (its mmap names /proc/self/cwd/example-snb): a copy
# elsewhere proves the files travel together.
mkdir ex && cp "$fx/example-snb" "$fx/example-snb.perf.data" ex/ && cd ex || exit 1

# 2. the doc's worked example: "$ sonde ..." lines are run, the lines after them expected.
awk '/^## Worked example/ { w = 1; next } w && /^## / { exit } w' "$doc" >worked.md
norm() { sed -e 's/[[:space:]]\+/ /g' -e 's/^ //' -e 's/ $//'; }
ncmd=0 nlines=0 bad=0
run_block() {
	[ -n "$cmd" ] || return 0
	case $cmd in "sonde analyze "*) ;; *) cmd=""; return 0 ;; esac
	ncmd=$((ncmd + 1))
	local args=${cmd#sonde }
	# shellcheck disable=SC2086 # the doc's commands are plain words
	"$SONDE" $args >out.$ncmd 2>err.$ncmd
	local rc=$?
	printf '%s\n' "${expected[@]}" | grep -v '^\.\.\.$' | norm >want.$ncmd
	nlines=$((nlines + $(grep -c . want.$ncmd)))
	# each wanted line must appear, in order, in the real output
	local missing
	missing=$(norm <out.$ncmd | awk -v want=want.$ncmd '
		{ out[++n] = $0 }
		END { i = 1; while ((getline w < want) > 0) { if (w == "") continue
			while (i <= n && out[i] != w) i++
			if (i > n) { print w; exit } i++ } }')
	if [ "$rc" -ne 0 ] || [ -n "$missing" ]; then
		fail "t307-doc-command-$ncmd" "'$cmd' (rc=$rc): not in the output: $missing"
		bad=$((bad + 1))
	else
		pass "t307-doc-command-$ncmd"
	fi
	cmd=""
}
cmd="" infence=0 expected=()
while IFS= read -r line; do
	if [[ $line == '```'* ]]; then
		run_block
		infence=$((1 - infence)) expected=()
		continue
	fi
	[ "$infence" -eq 1 ] || continue
	if [[ $line == '$ '* ]]; then
		run_block
		cmd=${line#\$ } cmd=${cmd%%  #*} expected=()
	else
		expected+=("$line")
	fi
done <worked.md
# The doc must keep a real example: several commands and many quoted lines.
if [ "$ncmd" -ge 4 ] && [ "$nlines" -ge 25 ]; then
	pass t307-doc-example-present
else
	fail t307-doc-example-present "only $ncmd commands and $nlines quoted lines in the worked example"
fi

# 3. the story, from -o's CSV, against GOoDA's formula on the generator's counts:
# branch = trunc(samples x penalty x period x multiplex / (2000000 x 5)), per event.
"$SONDE" analyze -o rep example-snb.perf.data >/dev/null 2>err.o
check t307-report-written [ -s rep/functions.csv ]
g() { awk -v s="$1" -v p="$2" -v P="$3" -v m="$4" 'BEGIN { printf "%d\n", int(s * p * P * m / (2000000 * 5)) }'; }
ll=$(( $(g 140 250 20000 5.5) + $(g 10 6 200000 5.5) + $(g 6 30 50000 5.5) + $(g 2 75 20000 5.5) \
	+ $(g 10 7 100000 5.5) + $(g 20 1 2000000 5.5) ))
bm=$(( $(g 180 6 200000 5.5) + $(g 6 6 100000 5.5) ))
is=$(( $(g 66 55 50000 5.5) + $(g 20 8 100000 5.5) + $(g 8 1 2000000 5.5) ))
story_ok=1
branches="stalled/load_latency stalled/instruction_starvation stalled/bandwidth_saturation
	stalled/branch_misprediction stalled/store_resource_saturation stalled/instruction_latency"
for spec in "1 chase stalled/load_latency $ll" "2 classify stalled/branch_misprediction $bm" \
	"3 interpret stalled/instruction_starvation $is"; do
	set -- $spec
	name=$(csv_get rep/functions.csv rank "$1" function)
	val=$(csv_get rep/functions.csv rank "$1" "$3")
	top="" topv=-1
	for b in $branches; do
		v=$(csv_get rep/functions.csv rank "$1" "$b")
		if [ -n "$v" ] && [ "$v" -gt "$topv" ]; then top=$b topv=$v; fi
	done
	if [ "$name" != "$2" ] || [ "$val" != "$4" ] || [ "$top" != "$3" ]; then
		fail t307-story "rank $1: '$name' $3=$val (want $2, $4), largest branch $top"
		story_ok=0
	fi
done
[ "$story_ok" -eq 1 ] && pass t307-story

# 4. skid: in chase's hottest block, the precise LLC misses and the cycles are on different
# instructions of one block, and the LLC misses sit on a load (a mov from memory).
f=$(awk -F, 'NR > 1 && $2 == "chase" { print $1; exit }' rep/functions.csv)
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	{ c = $h["samples:cpu_clk_unhalted.thread_p"]; l = $h["samples:mem_load_uops_retired.llc_miss:pp"]
	  if (c > bc) { bc = c; ca = $2; cb = $1 } if (l > bl) { bl = l; la = $2; lb = $1; li = $0 } }
	END { print ca, cb, la, lb, (li ~ /"mov \(/) }' "rep/functions/$f.asm.csv" >skid.txt
read -r c_addr c_bb l_addr l_bb l_load <skid.txt
if [ -n "$c_addr" ] && [ "$c_addr" != "$l_addr" ] && [ "$c_bb" = "$l_bb" ] && [ "$l_load" = 1 ]; then
	pass t307-skid-pattern
else
	fail t307-skid-pattern "cycles at $c_addr (bb $c_bb), llc_miss at $l_addr (bb $l_bb, load=$l_load)"
fi
