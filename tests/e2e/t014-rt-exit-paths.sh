#!/usr/bin/env bash
# t014-rt-exit-paths: every way a process ends gives the same output and status under
# `sonde mem` as natively, leaves a profile `sonde report` reads, and never hangs: exit()
# while threads run, _exit from a thread, pthread_exit in main, abort, SIGTERM, SIGKILL,
# stack overflow, a crash handler that chains to the handler it replaced (this hung for
# ever before init.c's fatal_handler took the default action when called that way), and
# SIGINT sent to the program while the launcher waits.
. "$(dirname "$0")/lib.sh"
report_ok() { "$SONDE" report "$1" >/dev/null 2>&1; }

run_mode() {	# run_mode MODE: native and profiled, compare status and stdout
	local m=$1
	( timeout 60 "$W/rt-life" "$m" >"n-$m.out" 2>/dev/null ); local nrc=$?
	( timeout 60 "$SONDE" mem -q -o "p-$m" -- "$W/rt-life" "$m" >"s-$m.out" 2>"s-$m.err" )
	local rc=$?
	check "t014-$m-status ($rc, native $nrc)" [ "$rc" -eq "$nrc" -a "$rc" -ne 124 ]
	check "t014-$m-stdout" cmp -s <(sort "n-$m.out") <(sort "s-$m.out")
	check "t014-$m-report" report_ok "p-$m"
}

for m in exit-threads thread-exit main-pthread abort sigterm sigkill overflow chain-segv; do
	run_mode "$m"
done
check t014-chain-segv-signo grep -q '^signo=11$' p-chain-segv/*.proc

# SIGINT to the program's process group, as ^C would send it (the launcher ignores it).
# env --default-signal undoes the SIG_IGN a non-interactive shell gives background jobs.
for m in sigint-wait sigint-catch; do
	setsid env --default-signal=INT "$SONDE" mem -q -o "p-$m" -- "$W/rt-life" "$m" \
		>"s-$m.out" 2>"s-$m.err" &
	pid=$!
	for i in $(seq 100); do grep -q start "s-$m.out" 2>/dev/null && break; sleep 0.1; done
	sleep 0.3
	kill -INT -- "-$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	want=130
	[ "$m" = sigint-catch ] && want=0
	check "t014-$m-status ($rc)" [ "$rc" -eq "$want" ]
	check "t014-$m-report" report_ok "p-$m"
done
check t014-sigint-catch-stdout grep -q '^rt-life: caught$' s-sigint-catch.out

# SIGTERM sent to the launcher alone (`kill $!` in a job script) is passed on to the
# program: it dies of it as natively, and the profile is built.  Before, sonde died alone:
# the program ran on, orphaned, and no profile.db was written.
"$SONDE" mem -q -o p-term-launcher -- "$W/rt-life" sigint-wait >s-tl.out 2>s-tl.err &
pid=$!
for i in $(seq 100); do grep -q start s-tl.out 2>/dev/null && break; sleep 0.1; done
child=$(pgrep -P "$pid" | head -1)
kill -TERM "$pid"
wait "$pid"
rc=$?
check "t014-term-launcher-status ($rc)" [ "$rc" -eq 143 ]
if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
	kill -KILL "$child"
	fail t014-term-launcher-program-ended "the program ($child) still runs"
else
	pass t014-term-launcher-program-ended
fi
check t014-term-launcher-db test -s p-term-launcher/profile.db

# SONDE_SIGNAL set by hand to a signal the program uses (SIGINT): the runtime refuses it
# (real-time signals only) and the program keeps its ^C.  Before, the runtime's handler
# took SIGINT, and ^C never reached the program: it ran on for ever.
# (no `timeout` in the group: it would send the ^C a second time)
SONDE_SIGNAL=2 setsid env --default-signal=INT "$SONDE" mem -q -o p-sig2 -- \
	"$W/rt-life" sigint-catch >s-sig2.out 2>s-sig2.err &
pid=$!
for i in $(seq 100); do grep -q start s-sig2.out 2>/dev/null && break; sleep 0.1; done
sleep 0.3
kill -INT -- "-$pid" 2>/dev/null
for i in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -KILL -- "-$pid" 2>/dev/null	# still there after 30 s: the ^C was lost
wait "$pid"
rc=$?
check "t014-sonde-signal-int-status ($rc)" [ "$rc" -eq 0 ]
check t014-sonde-signal-int-caught grep -q '^rt-life: caught$' s-sig2.out
