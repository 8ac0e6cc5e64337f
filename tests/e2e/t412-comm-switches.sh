#!/usr/bin/env bash
# t412-comm-switches: every recording notes the program's context switches (meta.switches,
# switches_per_s), and the watchpoint tools' summaries print them, with the warning that a
# thread holding debug-register events pays at each switch only when the tool held some.
#  - switch-bp (tests/workloads/comm/switch-bp.c) hands a turn between two threads N
#    times each through a futex, both on CPU 0 (SWITCH_BP_CPU=0): each of the 2N-1
#    hand-overs moves that CPU from one thread to the other, at least one switch (on two
#    CPUs a wait could find the turn already back and not block: 2,417 for N = 3,000 once
#    under sonde mem), and a thread blocks at most once a turn (2N), plus preemptions;
#    2,000 of those are allowed for a loaded machine (a 0.1-1 s run, a tick every 4 ms).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t40-comm-lib.bash"
gcc -O2 -pthread "$SONDE_TOP/tests/workloads/comm/switch-bp.c" -o "$T/sbp" ||
	{ fail t412-build "gcc could not build switch-bp"; exit 0; }
N=3000

SWITCH_BP_CPU=0 "$SONDE" comm --source clock -o rec -- "$T/sbp" none $N >out 2>summary
check t412-status [ $? -eq 0 ]
check t412-output grep -q '^none: ' out
sw=$(comm_meta rec switches)
check t412-switches-low [ "${sw:-0}" -ge $((2 * N - 1)) ]
check t412-switches-high [ "${sw:-0}" -le $((2 * N + 2000)) ]
check t412-rate [ "$(comm_meta rec switches_per_s)" -gt 0 ]
line=$(header_value "context switches:" summary)	# (folded to 80 columns)
check t412-line test -n "$line"
check t412-line-count grep -q "($sw in all)" <<<"$line"
# The warning goes with events held: with none armed there is nothing to pay for.
if [ "$(comm_meta rec arms)" -gt 0 ] && [ "$(comm_meta rec watch_backend)" = hw ] &&
	[ "$(comm_meta rec switches_per_s)" -ge 1000 ]; then
	check t412-warn grep -q 'debug-register events' <<<"$line"
else
	check t412-no-warn bash -c '! grep -q debug-register <<<"$1"' _ "$line"
fi

# commbench's pairs spin on sched_yield (a switch each) and share lines: comm arms
# watchpoints there when the debug registers trap (t406 runs the same).
if comm_build_gcc; then
	"$SONDE" comm --source clock -o rec4 -- "$T/cb-gcc" pairs 20000 >/dev/null 2>summary4
	check t412-pairs-status [ $? -eq 0 ]
	line=$(header_value "context switches:" summary4)
	if [ "$(comm_meta rec4 arms)" -gt 0 ] && [ "$(comm_meta rec4 watch_backend)" = hw ] &&
		[ "$(comm_meta rec4 switches_per_s)" -ge 1000 ]; then
		check t412-pairs-warn grep -q 'debug-register events.*--no-watch to compare' <<<"$line"
	else
		skip t412-pairs-warn "no watchpoint armed on hw debug registers in this run ($(comm_meta rec4 arms) arms, backend '$(comm_meta rec4 watch_backend)')"
	fi
else
	fail t412-pairs-build "gcc could not build commbench"
fi

# The HTML page's summary has the same sentence.
"$SONDE" report rec --html page.html >/dev/null 2>&1
check t412-html grep -q "context switches</th><td>[0-9]* a second ($(comm_meta rec switches) in all)" page.html

# --no-watch starts no watchpoint engine: the rate is still there, the backend is not.
SWITCH_BP_CPU=0 "$SONDE" comm --source clock --no-watch -o rec2 -- "$T/sbp" none $N >/dev/null 2>summary2
check t412-nowatch-status [ $? -eq 0 ]
check t412-nowatch-no-backend [ -z "$(comm_meta rec2 watch_backend)" ]
check t412-nowatch-line grep -q '^  context switches: [0-9]* a second ([0-9]* in all)$' summary2

# sonde mem notes them too (no line in its summary: it arms nothing).
SWITCH_BP_CPU=0 "$SONDE" mem -o rec3 -- "$T/sbp" none $N >/dev/null 2>/dev/null
check t412-mem-status [ $? -eq 0 ]
sw=$(comm_meta rec3 switches)
check t412-mem-switches [ "${sw:-0}" -ge $((2 * N - 1)) -a "${sw:-0}" -le $((2 * N + 2000)) ]
