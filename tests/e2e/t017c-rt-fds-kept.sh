#!/usr/bin/env bash
# t017c-rt-fds-kept: the runtime's descriptors are not the program's to close or reuse
# (src/rt/interpose.c, the registry in core.c).
#  - a program that closes everything above 2 (close_range, closefrom, or close() one by
#    one from its limit down) is still sampled afterwards: rt-fdstorm's after-* modes close
#    first, then run 4 threads for 0.5 s of wall time at the default period (the process's
#    one inherited clock event).  Before the fix that close took the event with it: 0
#    samples in the threads made after it (all 3 modes, old build, 2026-11-26 03:17 UTC,
#    load average about 6); 43 to 47 with it (03:31 UTC, load about 4).  Asserted: the
#    worker threads' samples (every thread but the first, so nothing taken before the
#    close counts) are > 0;
#  - close() of a runtime descriptor fails as if it were not open: after-down's count of
#    successful closes above 2 is the native run's (the old build's was one more: 700);
#  - dup2 of the program's pipe onto the runtime's numbers (rt-fdstorm dup, default period:
#    the inherited event's 700 is among them): the program's numbers are its pipe after
#    the workers ended (fstat, in the workload), its 64 bytes come back, and the runtime
#    counts the descriptor it lost (.proc fds_lost >= 1; the old build had closed 700 in
#    the close_range before, so it had none to lose).
. "$(dirname "$0")/lib.sh"

for m in after-range after-from after-down; do
	( timeout 60 "$SONDE" mem -q -o "$m" -- "$W/rt-fdstorm" 0.5 "$m" >"$m.out" 2>"$m.err" )
	rc=$?
	n=$(sqlite3 "$m/profile.db" "select coalesce(sum(samples), 0) from threads
		where thread_index > 0" 2>/dev/null)
	check "t017c-$m-status ($rc)" [ "$rc" -eq 0 ]
	# the case is the process's one inherited event (per-thread events, on kernels
	# before 6.1 or with SONDE_CLOCK_INHERIT=0, are opened after the close anyway)
	if grep -q '^clock_event=inherited$' "$m"/*.proc; then
		check "t017c-$m-sampled-after-close (${n:-none} samples)" [ "${n:-0}" -gt 0 ]
	else
		skip "t017c-$m-sampled-after-close" "the clock event is not the inherited one here ($(sed -n 's/^clock_event=//p' "$m"/*.proc))"
	fi
done

# the native count: whatever the test's own environment left open above 2
( timeout 60 "$W/rt-fdstorm" 0.1 after-down >native-down.out 2>&1 )
check "t017c-close-ebadf ($(cat after-down.out) / native $(cat native-down.out))" \
	cmp -s native-down.out after-down.out

( timeout 60 "$SONDE" mem -q -o dup -- "$W/rt-fdstorm" 0.4 dup >dup.out 2>dup.err )
rc=$?
check "t017c-dup-status ($rc: $(head -c 200 dup.out))" [ "$rc" -eq 0 ]
check t017c-dup-pipe-intact grep -q "pipe intact" dup.out
lost=$(sed -n 's/^fds_lost=//p' dup/*.proc 2>/dev/null | head -1)
check "t017c-dup-fds-lost (${lost:-none})" [ "${lost:-0}" -ge 1 ]
# and the user is told, with the profile (meta fds_lost, a warning on stderr)
check t017c-dup-fds-lost-meta [ "$(sqlite3 dup/profile.db "select value from meta where key = 'fds_lost'")" = "$lost" ]
check t017c-dup-fds-lost-warned grep -q "^sonde: warning: the program dup2'd onto $lost of the runtime's descriptors" dup.err
