#!/usr/bin/env bash
# t814-variance-prologue: the gate's slot when the sample falls in a prologue, after
# `push %rbp` and before `mov %rsp,%rbp` (tests/workloads/variance/vprol.c, plain gcc,
# debug registers).  pro_loop runs its loop there, in its entry's 64-byte line, so a pick
# of it waits behind a gate on its return slot, the word above RSP (gate_slot); RBP + 8 is
# its caller drive's slot, which returns once at the end: a gate there never fires
# (without the prologue case: 0 instances of pro_loop, 19 of 20 gates replaced), and an
# entry armed at once would slow the loop ~13x (doc/sonde-variance.md, Costs).  Its twin
# pad_loop runs the same loop after a whole prologue, out of its entry's line.
# Bounds: pro_loop measured, and gates fired, at least once per 20 samples and 3 times
# (50-60 of its 300 calls measured at idle; a sample picks it in about a third of the
# samples); at most a quarter of the gates replaced (a gate on the right slot fires ~1 ms
# later, at pro_loop's return).  Per sample, not a count: the clock source delivered
# 48-155 samples of the run's 0.94 s of CPU time at load 17-20 (16 runs, 2026-11-26
# 16:45-16:50 UTC, this build and 9dcc77d's alike), and instances and fired gates were
# 0.11-0.24 of them (6-40); the fixed bars, 20 instances and 10 gates, failed in 5 of
# those 16 runs.  Without the prologue case: 0 instances, 19 of 20 gates replaced.  Its mean
# within 0.8-1.25x of its twin's, measured alternately in the same run (1.00x-1.01x here;
# the same bound as t813's twins), and within 0.67-1.5x of the program's own clock of its
# calls in the same run; at most 1 instance over 3x the twin's mean; the program's CPU time
# within 1.5x of a native run (t813's bounds and reasons); its time share at least 15% (a
# third by construction; 0% when a sample's path lacked drive, the prologue's caller).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"

command -v objdump >/dev/null || { skip t814 "objdump is not installed (the layout is checked with it)"; exit 0; }
var_gcc_src t814 vprol.c vprol -O2 -g -fno-omit-frame-pointer -pthread || exit 0

# The layout the test is about: pro_loop's loop (its backward branch's target) in its
# entry's line and before its `mov %rsp,%rbp`; pad_loop's past its line.
objdump -d --no-show-raw-insn vprol >dis.txt
layout() {	# the loop's offset and the mov's (-1: none), in hex (mawk has no strtonum)
	awk -v f="<$1>:" '$2 == f { on = 1; next } on && /^$/ { exit }
		on && $2 ~ /^j/ && (i = index($4, "+0x")) { t = substr($4, i + 3); sub(/>.*/, "", t) }
		on && $2 == "mov" && $3 == "%rsp,%rbp" && !m { m = $1; sub(/:/, "", m) }
		on && !s { s = $1; sub(/:/, "", s) }
		END { print (t ? t : 0), (m ? m : 0), s }' dis.txt
}
read -r lp mp s0 < <(layout pro_loop)
lp=$((16#$lp)) mp=$((16#$mp - 16#$s0))
check "t814-layout-pro-loop-at-$lp-in-line-before-mov-at-$mp" [ "$lp" -gt 0 -a "$lp" -lt 64 -a "$mp" -gt "$lp" ]
read -r lq mq s0 < <(layout pad_loop)
lq=$((16#$lq))
check "t814-layout-pad-loop-at-$lq-past-line" [ "$lq" -ge 64 ]

./vprol 2>nat.txt
"$SONDE" variance -q -o rec -- ./vprol >out.txt 2>err.txt
check t814-run [ $? -eq 0 ]
F=rec/variance/functions.csv I=rec/variance/instances.csv
meta() { sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = '$1'"; }
echo "    meta: $(sqlite3 rec/profile.db "SELECT group_concat(key || '=' || value, ' ') FROM meta
	WHERE key IN ('samples', 'picks', 'entries', 'missed', 'gated', 'gates_fired', 'gates_expired', 'deferred', 'deferred_armed', 'deferred_expired', 'yielded')" 2>&1)"

ni=$(var_col $F pro_loop "main > drive > pro_loop" cpu-time instances)
ns=$(meta samples)
check "t814-pro-loop-instances-${ni:-0}-of-${ns:-0}-samples" \
	[ "${ni:-0}" -ge 3 -a $((20 * ${ni:-0})) -ge "${ns:-0}" ]
g=$(meta gated) gf=$(meta gates_fired) ge=$(meta gates_expired)
check "t814-gates-fired-${gf:-none}-of-${g:-none}-of-${ns:-0}-samples" \
	[ "${gf:-0}" -ge 3 -a $((20 * ${gf:-0})) -ge "${ns:-0}" ]
check "t814-gates-replaced-${ge:-none}-of-${g:-none}" [ -n "$ge" -a $((4 * ${ge:-0})) -le "${g:-0}" ]
# the right function's instances: every row of instances.csv is one of the three leaves
# under drive, each in its context
bad=$(awk -F, 'NR > 1 && !($1 ~ /^(pro_loop|pad_loop|fill)$/ && $2 == "main > drive > " $1) { n++ }
	END { print n + 0 }' $I)
check "t814-wrong-instances-$bad" [ "$bad" -eq 0 ]

mi=$(var_col $F pro_loop "main > drive > pro_loop" cpu-time mean)
mp=$(var_col $F pad_loop "main > drive > pad_loop" cpu-time mean)
r=$(awk -v a="${mi:-0}" -v b="${mp:-0}" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 99) }')
check "t814-mean-over-twin-$r" float_between "$r" 0.8 1.25
mc=$(awk '$1 == "mean" && $2 == "pro_loop" { print $3 * 1e6 }' err.txt)
r=$(awk -v a="${mi:-0}" -v b="${mc:-0}" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 99) }')
check "t814-mean-over-own-clock-$r" float_between "$r" 0.667 1.5
hit=$(awk -F, -v m="${mp:-0}" 'NR > 1 && $1 == "pro_loop" && $7 > 3 * m { n++ } END { print n + 0 }' $I)
check "t814-slowed-$hit-of-${ni:-0}" [ "$hit" -le 1 ]
cn=$(awk '/^cpu / { print $2 }' nat.txt)
cs=$(awk '/^cpu / { print $2 }' err.txt)
r=$(awk -v a="${cs:-0}" -v b="${cn:-0}" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 99) }')
check "t814-cpu-$cs-over-native-$cn-$r" float_between "$r" 0 1.5
sh=$(var_col $F pro_loop "main > drive > pro_loop" cpu-time share)
check "t814-share-${sh:-none}" float_between "${sh:-0}" 0.15 1

# the report's line says what became of the gates, from the same counters
"$SONDE" report rec 2>/dev/null >rep.txt
sonde_line=$(flat rep.txt | grep -o "of the entries armed: .*")
check "t814-report-gate-line" grep -q "^of the entries armed: $g behind the gate (armed at the return of the code in their line: $gf fired, $ge replaced)" <<<"$sonde_line"
