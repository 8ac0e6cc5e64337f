#!/usr/bin/env bash
# t400-comm-cli: sonde comm's command line: usage errors exit 2 with one line, --help
# exits 0, `sonde --help` lists the tool, the program's exit status passes through, and
# --exact on a program not built by sonde-cc is refused by the runtime with the reason.
. "$(dirname "$0")/lib.sh"

expect_usage() {
	local name=$1; shift
	"$SONDE" comm "$@" >out 2>err
	local rc=$?
	check "$name-status" [ $rc -eq 2 ]
	check "$name-message" grep -q '^sonde: ' err
	check "$name-hint" grep -q "try 'sonde comm --help'" err
}
expect_usage t400-unknown-option --no-such-option -- true
expect_usage t400-period-zero --period 0 -- true
expect_usage t400-no-program
expect_usage t400-dregs-3 --dregs 3 -- true
expect_usage t400-board-0 --board 0 -- true
# decimal digits only: strtoul alone took these (the first wrapped to 1 slot)
expect_usage t400-board-negative-wraps --board -18446744073709551615 -- true
expect_usage t400-board-minus-1 --board -1 -- true
expect_usage t400-board-plus --board +8 -- true
expect_usage t400-board-space --board " 8" -- true
expect_usage t400-board-hex --board 0x10 -- true
expect_usage t400-dregs-plus --dregs +2 -- true
expect_usage t400-compare-negative --compare -1009 -- true
expect_usage t400-exact-clock --exact --source clock -- true
expect_usage t400-exact-period --exact --period 10 -- true
# --period (launch.c's parse_u64, shared by every recording tool): decimal digits only;
# strtoull's base 0 took '+5', ' 5', hex and octal (010 was a period of 8)
for tool in comm mem reuse variance; do
	for p in +5 " 5" 0x10 010x -5 5k ""; do
		"$SONDE" $tool --period "$p" -- true >out 2>err
		check "t400-period-$tool-'$p'-status" [ $? -eq 2 ]
		check "t400-period-$tool-'$p'-says" grep -q -- "^sonde: .*--period" err
	done
done
# the other numbers parse_u64 reads, on one tool each (the parser is shared): the same
# forms refused, the message naming the option
for o in --seed --top --min-object --max-depth; do
	for p in +5 0x10 -5 ""; do
		"$SONDE" mem $o "$p" -- true >out 2>err
		check "t400-$o-'$p'-status" [ $? -eq 2 ]
		check "t400-$o-'$p'-says" grep -q -- "^sonde: $o wants .*(decimal digits)" err
	done
done
# leading zeros are decimal (010 is 10, not octal 8): the recording says which period
"$SONDE" comm -q -o p010 --source clock --period 0100000 -- true >/dev/null 2>&1
check t400-period-010-decimal grep -q '^period=100000$' p010/*.proc
# the runtime's own reading of SONDE_PERIOD (set by hand: doc/sonde.md) is decimal too
mkdir envp
SONDE_DIR=$PWD/envp SONDE_TOOL=comm SONDE_SOURCE=clock SONDE_PERIOD=0100000 \
	LD_PRELOAD="$SONDE_BUILD/libsonde.so" /bin/sleep 0.01
check t400-env-period-010-decimal grep -q '^period=100000$' envp/*.proc
# a clock period under the least (10 us, the kernel's for its CPU clock) is raised to it,
# and the recording says what was asked (the header read "period 1 ns": the usability
# review of 2026-11-27)
"$SONDE" comm -o p1 --source clock --period 1 -- true >/dev/null 2>p1.err
check t400-period-1-raised grep -q '^period=10000$' p1/*.proc
check t400-period-1-asked grep -q '^period_asked=1$' p1/*.proc
check t400-period-1-said grep -q "^sonde: warning: --period 1 is under the clock source's least, 10000 ns" p1.err
check t400-period-zero-says grep -q -- '--period' <(
	"$SONDE" comm --period 0 -- true 2>&1)

"$SONDE" comm --help >help.out 2>&1
check t400-help-status [ $? -eq 0 ]
check t400-help-exact grep -q -- '--exact' help.out
check t400-help-board grep -q -- '--board' help.out
"$SONDE" --help >all.out 2>&1
check t400-listed grep -q '^ *comm ' all.out

# The program's status passes through; a program that does nothing has an empty matrix.
"$SONDE" comm -o rec --source clock -- sh -c 'exit 7' >/dev/null 2>summary
check t400-exit-status [ $? -eq 7 ]
check t400-empty-said grep -q 'no communication: the program ran one thread' summary
check t400-report-dispatch sh -c "'$SONDE' report rec 2>&1 | grep -q '^sonde comm: '"
# the header names the program as it was run, arguments too (the exe alone before), each
# quoted as a shell reads it back (the usability review of 2026-11-29, L7)
"$SONDE" report rec 2>&1 | head -1 >h.txt
check t400-report-header-args grep -q "^sonde comm: sh -c 'exit 7'$" h.txt
# --quiet: the tables alone (the header was printed all the same: the trial of 2026-11-27)
"$SONDE" report rec --quiet >q.txt 2>&1
check t400-report-quiet-no-header [ "$(grep -c -E '^sonde comm: |^  source ' q.txt)" -eq 0 ]
check t400-report-quiet-tables grep -q "communication" q.txt

# --exact on a program not built by sonde-cc: the runtime refuses with the reason (it used
# to fall back to the clock source at --exact's period, 1 ns), the program runs, its status
# passes through, and the command says nothing was recorded.
"$SONDE" comm --exact -o plain -- sh -c 'exit 5' >/dev/null 2>err
check t400-exact-plain-status [ $? -eq 5 ]
check t400-exact-plain-why grep -q "this program was not built by sonde-cc" err
check t400-exact-plain-nothing grep -q "nothing was recorded" err
