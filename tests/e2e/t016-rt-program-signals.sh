#!/usr/bin/env bash
# t016-rt-program-signals: programs that do their own thing with signals are unchanged
# under `sonde mem`: their own 8 KiB alternate signal stacks (the runtime's handlers need
# more: samples taken on such a stack wrote below it, into the program's memory, until
# init.c kept the runtime's stack for them; the program still sees its own), siglongjmp
# out of a CPU-time timer's handler 300 times, threads that block every signal.
. "$(dirname "$0")/lib.sh"
report_ok() { "$SONDE" report "$1" >/dev/null 2>&1; }

for m in altstack longjmp blockall; do
	( timeout 60 "$W/rt-sig" "$m" >"n-$m.out" 2>/dev/null ); nrc=$?
	( timeout 60 "$SONDE" mem -q -o "p-$m" -- "$W/rt-sig" "$m" >"s-$m.out" 2>"s-$m.err" )
	rc=$?
	check "t016-$m-status ($rc, native $nrc)" [ "$rc" -eq "$nrc" -a "$rc" -eq 0 ]
	check "t016-$m-stdout" cmp -s "n-$m.out" "s-$m.out"
	check "t016-$m-report" report_ok "p-$m"
done
check t016-altstack-answer [ "$(cat s-altstack.out)" = "rt-sig: altstack canaries intact, usr1=3" ]
check t016-longjmp-answer [ "$(cat s-longjmp.out)" = "rt-sig: longjmp 300" ]
# 3 * 200 passes over 4096 elements valued 0..4095
check t016-blockall-answer [ "$(cat s-blockall.out)" = "rt-sig: blockall sum=$((3 * 200 * 4096 * 4095 / 2))" ]
