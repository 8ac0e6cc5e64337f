#!/usr/bin/env bash
# t827-variance-report-notes: what the variance report says about its own run (the
# usability review of 2026-11-28): the sample period on the selection line and in the
# HTML page's header, as every tool states it; and for a stripped program, whose functions
# are named by address and whose time shares cannot be counted (every one read 0% with no
# word why), a "symbols:" line saying so, absent for the same program unstripped.
. "$(dirname "$0")/lib.sh"
command -v gcc >/dev/null || { skip t827 "gcc is not installed"; exit 0; }
cat >w.c <<'EOC'
#include <stdio.h>
static volatile double sink;
__attribute__((noinline)) static void work(int n)
{
	double s = 0;
	for (int i = 0; i < n * 200000; i++)
		s += i * 0.5;
	sink = s;
}
int main(void)
{
	for (int r = 0; r < 2000; r++)
		work(1 + r % 3);
	puts("done");
	return 0;
}
EOC
gcc -O2 -g -fno-omit-frame-pointer w.c -o w || { fail t827-build "gcc could not build w.c"; exit 0; }
strip -o w-stripped w || { fail t827-strip "strip failed"; exit 0; }
"$SONDE" variance -o plain -p 2000000 -- ./w >/dev/null 2>plain.txt
check t827-plain-status [ $? -eq 0 ]
"$SONDE" variance -o stripped -p 2000000 -- ./w-stripped >/dev/null 2>stripped.txt
check t827-stripped-status [ $? -eq 0 ]
flat plain.txt >plain.flat
flat stripped.txt >stripped.flat
check t827-period-stated grep -q "selection: clock samples [0-9]* (period 2000000 ns)" plain.flat
check t827-stripped-said grep -q "symbols: no function symbols were read from .*w-stripped (stripped?)" stripped.flat
check t827-plain-not-said bash -c '! grep -q "no function symbols" plain.flat'
check t827-stripped-no-openmp-guess bash -c '! grep -q "unpicked:" stripped.flat'
"$SONDE" report plain --html p.html >/dev/null 2>&1
check t827-html-period grep -q "clock, period 2000000 ns" p.html
