#!/usr/bin/env bash
# t414-comm-clock-timer: which timer the clock source samples with (src/rt/source-clock.c,
# SONDE_CLOCK_TIMER).  comm on real debug registers (the hw watch backend) keeps breakpoint
# events open in its threads, which makes every context switch schedule a perf clock event
# out and in; it samples with a POSIX CPU-time timer per thread instead (auto, the
# default).  What a user can check:
#  - comm --source clock on a gcc build, hw backend: the process notes clock_event=posix-timer,
#    profile.db's meta says it, the scaling line says samples come at most one a tick, and
#    there are samples (commbench fs: 4 workers computing, ~0.5 s of CPU time);
#  - the same with SONDE_CLOCK_TIMER=perf, with --no-watch (no breakpoint at all), and under
#    `sonde mem` (no watchpoints): the inherited perf event, as before;
#  - SONDE_CLOCK_TIMER=posix gives the timers to any tool (sonde mem), with samples.
# Without trapping debug registers (backend other than hw) comm keeps the perf event: the
# hw-only checks SKIP then.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t40-comm-lib.bash"
comm_build_gcc || { fail t414-build "gcc could not build commbench"; exit 0; }
W="fs 2000000 50"

# clock_event of the recording DIR's process(es): one word per .proc
proc_event() { sed -n 's/^clock_event=//p' "$1"/*.proc | sort -u | tr '\n' ' ' | sed 's/ $//'; }

"$SONDE" comm --source clock -o auto -- "$T/cb-gcc" $W >/dev/null 2>summary
check t414-status [ $? -eq 0 ]
if [ "$(comm_meta auto watch_backend)" = hw ]; then
	check t414-auto-posix [ "$(proc_event auto)" = posix-timer ]
	check t414-auto-meta [ "$(comm_meta auto clock_event)" = posix-timer ]
	check t414-auto-scaling grep -q 'POSIX CPU-time timers.*at most one sample a tick' <(flat summary)
	check t414-auto-samples [ "$(comm_meta auto samples)" -gt 0 ]
	check t414-auto-invariants mat_invariants auto thread
else
	skip t414-auto "the debug registers do not trap here (backend '$(comm_meta auto watch_backend)')"
	check t414-auto-perf [ "$(proc_event auto)" != posix-timer ]
fi

SONDE_CLOCK_TIMER=perf "$SONDE" comm --source clock -o perf -- "$T/cb-gcc" $W >/dev/null 2>summary2
check t414-perf-status [ $? -eq 0 ]
check t414-perf-event [ "$(proc_event perf)" != posix-timer ]
# the meta says the perf event's kind as the .proc does (until 2026-11-29 the meta had
# posix-timer alone: the usability review found the doc's clock_event missing)
check t414-perf-meta [ "$(comm_meta perf clock_event)" = "$(proc_event perf)" ]
check t414-perf-scaling bash -c '! grep -q POSIX summary2'

"$SONDE" comm --source clock --no-watch -o nowatch -- "$T/cb-gcc" $W >/dev/null 2>/dev/null
check t414-nowatch-status [ $? -eq 0 ]
check t414-nowatch-event [ "$(proc_event nowatch)" != posix-timer ]

"$SONDE" mem -q --source clock -o mem -- "$T/cb-gcc" $W >/dev/null 2>/dev/null
check t414-mem-status [ $? -eq 0 ]
check t414-mem-event [ "$(proc_event mem)" != posix-timer ]

SONDE_CLOCK_TIMER=posix "$SONDE" mem -q --source clock -o memp -- "$T/cb-gcc" $W >/dev/null 2>/dev/null
check t414-mem-posix-status [ $? -eq 0 ]
check t414-mem-posix-event [ "$(proc_event memp)" = posix-timer ]
check t414-mem-posix-samples [ "$(comm_meta memp samples)" -gt 0 ]
# mem writes the scaling line itself, from the processes' clock_event (db_scaling)
check t414-mem-posix-scaling grep -q 'POSIX CPU-time timers.*at most one sample a tick' \
	<<<"$(comm_meta memp scaling)"
check t414-mem-perf-scaling grep -q '^one sample per [0-9]* ns of CPU time' \
	<<<"$(comm_meta mem scaling)"

# No timer to be had (ulimit -i 1: the user's pending-signal limit, of which every POSIX
# timer holds a slot, so at most one of commbench's 5 threads gets one): the program
# runs to its end, the .proc counts the threads left unsampled, and the user is told
# after the run what to do (before: 0 samples, no word of it)
if [ "$(comm_meta auto watch_backend)" = hw ]; then
	(ulimit -i 1 && "$SONDE" comm --source clock -o lim -- "$T/cb-gcc" $W >/dev/null 2>summary3)
	check t414-limit-status [ $? -eq 0 ]
	nf=$(sed -n 's/^clock_timer_failed=//p' lim/*.proc | head -1)
	check "t414-limit-counted-${nf:-0}" [ "${nf:-0}" -ge 4 ]
	check t414-limit-said grep -q "thread(s) went unsampled.*ulimit -i" summary3
fi
