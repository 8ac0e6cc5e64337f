#!/usr/bin/env bash
# t023-watch-tools-no-traps: where the debug registers do not trap (a VM whose hypervisor
# does not pass them through), variance, reuse and comm say so before a plain program runs,
# with what the run loses, and the summary's arm-failure line names that cause, not a list
# of every cause (a session's VM: variance ran to its end, then said "no watchpoint backend
# (debug registers that could not be opened at start, taken by ... or not offered ...)").
# Where they trap, none of this is said.  Which branch runs is this machine's (sonde info).
. "$(dirname "$0")/lib.sh"
cat >tw.c <<'C'
#include <stdio.h>
static volatile double a[4096];
__attribute__((noinline)) static void work(int n)
{
	for (int r = 0; r < 200; r++)
		for (int i = 0; i < n; i++)
			a[i] += 0.5;
}
int main(void)
{
	for (int k = 0; k < 60; k++)
		work(4096);
	printf("tw: %.1f\n", a[1]);
	return 3;
}
C
gcc -O1 -g tw.c -o tw || { fail t023-build gcc; exit 0; }
if "$SONDE" info 2>/dev/null | grep -q "^debug registers .*their traps fire"; then
	traps=1
else
	traps=0
fi
warned() { grep -q "^sonde: warning: .*do not trap here.*in \./tw, which sonde-cc did not build" "$1"; }
for tool in variance reuse comm; do
	"$SONDE" "$tool" -o "o-$tool" -- ./tw >"out-$tool" 2>"err-$tool"
	st=$?
	check "t023-$tool-status" [ "$st" -eq 3 ]
	check "t023-$tool-output" grep -qx "tw: 6000.0" "out-$tool"
	if [ $traps = 1 ]; then
		check "t023-$tool-traps-no-warning" bash -c "! grep -q 'do not trap' err-$tool"
	else
		check "t023-$tool-warned" warned "err-$tool"
		# said before the run: the warning is the first line on stderr
		check "t023-$tool-warned-first" bash -c "head -n 1 err-$tool | grep -q '^sonde: warning: .*do not trap here'"
		# the arm failures, where there were any, name the cause found at start
		if grep -q "arm failures:" "err-$tool"; then
			check "t023-$tool-arm-cause" grep -q "no watchpoint backend in this program: debug registers do not trap on this machine" <(flat "err-$tool")
			"$SONDE" report "o-$tool" >"rep-$tool" 2>&1
			check "t023-$tool-report-cause" grep -q "no watchpoint backend in this program: debug registers do not trap on this machine" <(flat "rep-$tool")
		fi
	fi
done
# with no instance, the summary names that cause, not functions called once, and draws no
# empty table (the usability review of 2026-11-28)
if [ $traps = 0 ]; then
	check t023-variance-no-instance-cause grep -q "no instance was measured: nothing could time an instance in this program (no watchpoint backend" <(flat err-variance)
	check t023-variance-no-empty-table bash -c '! grep -q "per instance:" err-variance'
	check t023-variance-remedy grep -qF "rebuild it with 'sonde-cc --sonde-calls-only'" <(flat err-variance)
	# reuse's "What it means" says nothing was observed, not "only reuse times were
	# measured" (the trial of 2026-11-29: the header and the meaning disagreed)
	check t023-reuse-meaning grep -q "nothing was observed: no watchpoint can be armed in this program" <(flat err-reuse)
	check t023-reuse-no-times-claim bash -c '! grep -q "only reuse times were measured" err-reuse'
	# the page: the arm failures its watchpoints row points at, no empty chart or table
	# (the usability review of 2026-11-29, L1)
	if grep -q "arm failures:" err-reuse; then
		"$SONDE" report o-reuse --html reuse.html >/dev/null 2>&1
		check t023-reuse-page-arm-failures grep -q "arm failures</th>" reuse.html
		check t023-reuse-page-no-empty-chart grep -q "No histogram: nothing was observed" reuse.html
		check t023-reuse-page-no-empty-pairs grep -q "No reuse pair: no reuse was observed." reuse.html
	else
		skip t023-reuse-page "no arm-failures line in reuse's summary here (the page's row follows it)"
	fi
fi
# comm --no-watch asked for no watchpoints: nothing to warn of
"$SONDE" comm --no-watch -o nw -- ./tw >/dev/null 2>err-nw
check t023-no-watch-quiet bash -c "! grep -q 'do not trap' err-nw"
# mem uses no watchpoints
"$SONDE" mem -o m -- ./tw >/dev/null 2>err-mem
check t023-mem-quiet bash -c "! grep -q 'do not trap' err-mem"
# a sonde-cc build has its callbacks: no warning
if command -v clang >/dev/null; then
	"$SONDE_BUILD/sonde-cc" -O1 -g tw.c -o twcc || fail t023-sonde-cc "sonde-cc could not build tw.c"
	"$SONDE" reuse -o rcc -- ./twcc >/dev/null 2>err-cc
	check t023-sonde-cc-quiet bash -c "! grep -q 'do not trap' err-cc"
	# variance starts an instance at a call: a sonde-cc build without --sonde-calls has
	# no breakpoint where the registers do not trap, and is told so before it runs and
	# after (before 2026-11-29: no word before, and "a function called once" after)
	"$SONDE" variance -o vcc -- ./twcc >/dev/null 2>err-vcc
	if [ $traps = 1 ]; then
		check t023-variance-cc-traps-no-warning bash -c "! grep -q 'do not trap' err-vcc"
	else
		check t023-variance-cc-warned grep -q "^sonde: warning: the debug registers do not trap here.*: in \./twcc, which sonde-cc built without --sonde-calls" err-vcc
		check t023-variance-cc-no-instance-cause grep -qF "no instance was measured: the program was built by sonde-cc without --sonde-calls" <(flat err-vcc)
	fi
	"$SONDE_BUILD/sonde-cc" --sonde-calls -O1 -g tw.c -o twcalls ||
		fail t023-sonde-cc-calls "sonde-cc --sonde-calls could not build tw.c"
	"$SONDE" variance -o vcalls -- ./twcalls >/dev/null 2>err-vcalls
	check t023-variance-calls-quiet bash -c "! grep -q 'do not trap' err-vcalls"
else
	skip t023-sonde-cc-quiet "clang is not installed (sonde-cc needs it)"
fi
