#!/usr/bin/env bash
# bench/clock-starved.sh - threads that POSIX CPU-time timers hardly see (doc/sonde-comm.md,
# "Threads that run between ticks"): commbench pairs 20000 (four threads handing lines over
# through sched_yield) under `sonde comm --source clock`, pinned to one CPU beside a busy
# loop pinned there too, with the default timers (POSIX, where debug registers trap) and
# with SONDE_CLOCK_TIMER=perf.  Prints each run's samples, clock event and the starved
# threads' meta (the note after the recording).  Each run takes ~30 s: each yield hands
# the CPU to the loop until the next tick.  Never fails on numbers.
#   bench/clock-starved.sh
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
SONDE_BUILD=${SONDE_BUILD:-$top/build}
bench_scratch clock-starved
gcc -std=gnu11 -O2 -g -fno-omit-frame-pointer -pthread "$top/tests/workloads/comm/commbench.c" -o cb || exit 0
cpu=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')
echo "bench: clock-starved: on CPU $cpu beside a busy loop, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
for timer in auto perf; do
	taskset -c "$cpu" sh -c 'while :; do :; done' &
	loop=$!
	rm -rf rec
	SONDE_CLOCK_TIMER=$timer taskset -c "$cpu" "$SONDE_BUILD/sonde" comm --source clock -q -o rec -- ./cb pairs 20000 >/dev/null 2>err.txt
	kill $loop
	meta() { sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = '$1'"; }
	echo "  SONDE_CLOCK_TIMER=$timer: samples $(meta samples), clock event $(meta clock_event), starved threads $(meta clock_timer_starved) of $(meta clock_timer_threads): $(meta clock_timer_starved_signals) signal(s) for $(meta clock_timer_starved_cpu_ns) ns of CPU time"
done
