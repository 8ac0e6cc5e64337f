#!/usr/bin/env bash
# t302: on a file recorded here (perf record -e cpu-clock,task-clock -g, pipe mode, -s) the
# hottest function and its share are those `perf report` gives for the same file; the
# --function view resolves source lines and the inlined frame (lines known from the source).
. "$(dirname "$0")/lib.sh"
if ! command -v perf >/dev/null; then
	skip t302-analyze-hotspots "perf is not installed"
	exit 0
fi
cat >w.c <<'C'
#include <stdio.h>
static inline __attribute__((always_inline)) double kernel_step(double x)
{
	return x * 1.0000001 + 0.5; /* LINE_INLINE */
}
__attribute__((noinline)) double hot_loop(long n)
{
	double s = 0;
	for (long i = 0; i < n; i++) {
		double x = (double)i;
		for (int k = 0; k < 40; k++)
			x = kernel_step(x); /* LINE_CALL */
		s += x;
	}
	return s;
}
__attribute__((noinline)) double cold_loop(long n)
{
	double s = 0;
	for (long i = 0; i < n; i++)
		s += (double)i * 0.25;
	return s;
}
int main(void)
{
	printf("%f %f\n", hot_loop(6000000), cold_loop(30000000));
	return 0;
}
C
gcc -O2 -g -o w w.c
line_inline=$(grep -n LINE_INLINE w.c | cut -d: -f1)
line_call=$(grep -n LINE_CALL w.c | cut -d: -f1)
if ! perf record -q -e cpu-clock,task-clock -g -s -o - ./w >pipe.data 2>perf.err || [ ! -s pipe.data ]; then
	skip t302-analyze-hotspots "perf record failed: $(head -1 perf.err)"
	exit 0
fi

# perf's hottest symbol and share for the first event (cpu-clock), self time.
perf report -i pipe.data --no-children --stdio --sort sym 2>/dev/null |
	awk '/^# Samples:/ { n++ } n == 1 && /%/ && !/^#/ { print; exit }' >perf.top
p_share=$(awk '{ sub(/%/, "", $1); print $1 }' perf.top)
p_sym=$(awk '{ print $NF }' perf.top)

"$SONDE" analyze --event cpu-clock pipe.data >out.txt 2>err.txt
rc=$?
check t302-analyze-runs [ "$rc" -eq 0 ]
s_line=$(awk '/^Hot functions/ { getline; getline; print; exit }' out.txt)
s_share=$(echo "$s_line" | awk '{ sub(/%/, "", $1); print $1 }')
s_sym=$(echo "$s_line" | awk '{ print $(NF - 2) }')
if [ "$s_sym" = "$p_sym" ] && [ "$s_sym" = hot_loop ]; then
	pass t302-top-function-as-perf
else
	fail t302-top-function-as-perf "sonde '$s_sym', perf '$p_sym'"
fi
# Both are the function's share of the event's total period, printed with 2 decimals.
if [ -n "$p_share" ] && float_between "$s_share" "$(awk -v p="$p_share" 'BEGIN { print p - 0.011 }')" "$(awk -v p="$p_share" 'BEGIN { print p + 0.011 }')"; then
	pass t302-top-share-as-perf
else
	fail t302-top-share-as-perf "sonde $s_share%, perf $p_share%"
fi

# The function view: the hottest source line is the inlined body, called from LINE_CALL.
"$SONDE" analyze --function hot_loop pipe.data >fn.txt 2>err.txt
hot=$(awk '/^Source lines/ { on = 1; next } on && NF { print }' fn.txt | sort -k1,1nr | head -1)
if echo "$hot" | grep -q "w.c:$line_inline  (inlined kernel_step, called at line $line_call)"; then
	pass t302-source-line-inlined
else
	fail t302-source-line-inlined "hottest line: '$hot' (want w.c:$line_inline inlined at $line_call)"
fi
# Basic blocks: the inner loop is a block that branches to itself.
if grep -qE '^BB ([0-9]+) .* -> BB \1( |$)' fn.txt; then
	pass t302-basic-block-loop
else
	fail t302-basic-block-loop "no self-looping basic block in: $(grep '^BB' fn.txt | head -5 | tr '\n' ' ')"
fi
# An unknown function: status 1, one line.
"$SONDE" analyze --function no_such_function pipe.data >/dev/null 2>err.txt
rc=$?
if [ "$rc" -eq 1 ] && grep -q "^sonde: no samples in a function named 'no_such_function'" err.txt; then
	pass t302-unknown-function-error
else
	fail t302-unknown-function-error "rc=$rc: $(cat err.txt)"
fi

# read from another directory, the recording's /proc/self/cwd/example-snb does not
# resolve: its functions read [unknown], and a note says which file and what to do (it
# said nothing: the usability review of 2026-11-27); from its own directory, no such note
( cd / && "$SONDE" analyze "$SONDE_TOP/tests/fixtures/perfdata/example-snb.perf.data" ) >away.txt 2>&1
check t302-unread-module-note grep -q "^# note: cannot read /proc/self/cwd/example-snb: its functions read \[unknown\]" away.txt
( cd "$SONDE_TOP/tests/fixtures/perfdata" && "$SONDE" analyze example-snb.perf.data ) >home.txt 2>&1
check t302-no-note-at-home sh -c "! grep -q '^# note: cannot read' home.txt"
