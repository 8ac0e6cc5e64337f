#!/usr/bin/env bash
# t405-comm-threads: threads are numbered in creation order with main = 0, whatever their
# number: a thread created by a constructor before main is thread 1 and communicates
# with main; 3,000 short-lived threads (at most 50 alive) give a 3001 x 3001 matrix whose
# volume is between threads that ran together (all of it, sampled or exact), and a heat map
# that still fits 80 columns.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t40-comm-lib.bash"
comm_build t405-build || exit 0

COMMBENCH_EARLY=100000 "$SONDE" comm --source inst --period 101 -o early -- \
	"$T/cb-inst" early 100000 >/dev/null 2>early.txt
check t405-early-status [ $? -eq 0 ]
check t405-early-two-threads [ "$(head -1 early/comm/matrix-all-thread.csv)" = "thread,0,1" ]
check t405-early-main-and-1 [ "$(mat_cell early/comm/matrix-all-thread.csv 0 1)" -gt 0 ]
check t405-early-invariants mat_invariants early thread

"$SONDE" comm --source inst --period 101 -o many -- "$T/cb-inst" many 2000 3000 >/dev/null 2>many.txt
check t405-many-status [ $? -eq 0 ]
check t405-many-threads [ "$(comm_meta many threads)" -eq 3001 ]
check t405-many-square mat_square many/comm/matrix-all-thread.csv
check t405-many-volume [ "$(comm_meta many total_all)" -gt 0 ]
# the top pairs are threads of the same batch of 50 (alive together), never main
awk -F, 'NR > 1 { a = $1; b = $2; if (a == 0 || int((a - 1) / 50) != int((b - 1) / 50)) bad++ }
	 END { exit bad > 0 }' many/comm/pairs.csv
check t405-many-pairs-same-batch [ $? -eq 0 ]
# and none of the volume is between threads of different batches, nor with main: a batch
# is joined before the next starts, and a thread's publications are no communication of
# one started after it ended (detect.h, comm_gone_before).  Before, one sampled store of
# a thread stayed on the board until its writer's next store samples, which an ended
# thread never takes: 1.1% of the volume (19,190) across batches here, and in the
# usability review of 2026-11-29 a thread's publication counted by threads created
# hundreds of joins after it ended.  The exact detector knows each line's last writer:
# a batch's first stores read what the batch before left (118 transfers of 128,350 in
# `many 200 3000`), a hand-over it counts and the samples do not; it never goes beyond
# the batch before.
cross() { awk -F, 'NR > 1 { for (c = 2; c <= NF; c++) if ($c != 0) { b = c - 2
	if ($1 == 0 || b == 0 || int(($1 - 1) / 50) != int((b - 1) / 50)) x += $c } }
	END { print x + 0 }' "$1/comm/matrix-all-thread.csv"; }
check "t405-many-no-cross-batch ($(cross many))" [ "$(cross many)" = 0 ]
"$SONDE" comm --exact -o manyx -- "$T/cb-inst" many 200 3000 >/dev/null 2>&1
check t405-many-exact-status [ $? -eq 0 ]
check t405-many-exact-volume [ "$(comm_meta manyx total_all)" -gt 0 ]
far() { awk -F, 'NR > 1 { for (c = 2; c <= NF; c++) if ($c != 0) { b = c - 2
	d = int(($1 - 1) / 50) - int((b - 1) / 50); if ($1 && b && (d > 1 || d < -1)) x += $c } }
	END { print x + 0 }' "$1/comm/matrix-all-thread.csv"; }
# a batch boundary hands the line over once or twice (the new batch's first load, then its
# store; the line's fetched set starts afresh at each new writer): at most 3 a boundary,
# 59 boundaries here (a bar of 1% of the volume failed 4 runs in 7 under load, where the
# batches' own volume fell to ~10,000 and the 118 did not)
check "t405-many-exact-cross-batch-small ($(cross manyx))" [ "$(cross manyx)" -le $((3 * 59)) ]
check "t405-many-exact-no-far-batch ($(far manyx))" [ "$(far manyx)" = 0 ]
check t405-many-aggregated grep -q 'threads aggregated by' many.txt
check t405-many-80-columns sh -c "sed -n '/thread 0 top-left/,/^\$/p' many.txt | awk 'length(\$0) > 80 { exit 1 }'"
# the HTML page aggregates too: at most 64 x 64 cells a map, and they add up to the matrix
"$SONDE" report many --html many.html >/dev/null 2>&1
check t405-many-html test -s many.html
cells=$(python3 - <<'PY'
import re
page = open("many.html").read()
m = re.search(r'<svg[^>]*id="thread-all".*?</svg>', page, re.S)
v = [float(x) for x in re.findall(r'<rect class="cell"[^>]*data-v="([^"]*)"', m.group(0))] if m else []
print(len(v), "%.0f" % sum(v))
PY
)
n=${cells% *}
check "t405-many-html-cells ($n)" [ "${n:-0}" -ge 1 -a "${n:-0}" -le 4096 ]
check t405-many-html-sum [ "${cells#* }" = "$(mat_sum many/comm/matrix-all-thread.csv)" ]
