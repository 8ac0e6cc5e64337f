#!/usr/bin/env bash
# t017b-rt-fds-storm: whatever the program does to its descriptors, the unwinder in the
# sample handlers (libunwind, under `sonde mem` and `sonde variance`) neither kills it with
# a SIGPIPE nor reads or writes its files.  rt-fdstorm, in rounds: close every descriptor
# above 2 (close_range ascending, or close one by one descending), its pipe on 3 and 4 with
# 64 bytes in it, then sets of fresh sampled threads with a close_range of everything above
# 4 between them (in dup mode the pipe's ends are then dup2'd onto the numbers the runtime
# had), then the 64 bytes read back.  Every run must exit 0 with the pipe intact.
# Before libunwind's pipe was taken away (ctx.c), on the 2-core development VM, this test
# failed in 8 runs of 8: every dup run found the pipe damaged (libunwind read a byte of it
# and wrote one into it), and in 1 of the 8 a range or down run died of SIGPIPE (exit 141:
# two threads reopening libunwind's pipe at once).  Periods: 0.2 ms (an event per thread:
# fresh threads are sampled after every close; the runs must have taken samples, or the
# handlers' unwinds were never tried) and the default 0.9 ms (one inherited event, closed
# with the rest by the first close_range: no samples after it, a run that must not crash).
. "$(dirname "$0")/lib.sh"

( timeout 60 "$W/rt-fdstorm" 0.3 >native.out 2>&1 )
rc=$?
check "t017b-native ($rc)" [ "$rc" -eq 0 ]

# storm TOOL PERIOD RUNS: RUNS runs of rt-fdstorm under TOOL, the modes in turn, each
# from the first round; one check for all of them, naming the first run that failed and
# what it printed.
storm() {
	local tool=$1 period=$2 runs=$3 ok=0 first="" rc i m n q least=""
	local modes=(range down dup)
	for i in $(seq 1 "$runs"); do
		m=${modes[i % 3]}
		( timeout 60 "$SONDE" "$tool" -q -p "$period" -o "$tool-$period-$i" -- \
			"$W/rt-fdstorm" 0.4 "$m" >"$tool-$i.out" 2>"$tool-$i.err" )
		rc=$?
		if [ "$rc" -eq 0 ] && grep -q "pipe intact" "$tool-$i.out"; then
			ok=$((ok + 1))
			# samples taken (each unwinds in its handler): mem counts the threads'
			# signals, variance its samples
			if [ "$tool" = mem ]; then q="select sum(signals) from threads"
			else q="select value from meta where key = 'samples'"; fi
			n=$(sqlite3 "$tool-$period-$i/profile.db" "$q" 2>/dev/null)
			[ -z "$least" ] || [ "${n:-0}" -lt "$least" ] && least=${n:-0}
		elif [ -z "$first" ]; then
			first="run $i ($m): exit $rc: $(head -c 200 "$tool-$i.out" "$tool-$i.err" | tr '\n' ' ')"
		fi
	done
	check "t017b-$tool-$period-all-exit-0 ($ok of $runs)" [ "$ok" -eq "$runs" ]
	if [ -n "$first" ]; then echo "  $first"; fi
	# 0.2 ms: at least 15 samples in every run (286-356 here at load 10, counted in
	# thread CPU time; but variance's fewest read 38 once at load 8, a full suite beside
	# another, and 50 failed that): enough to say the runs were sampled, which is what
	# this checks (the close_range runs lose the inherited event by design)
	if [ "$period" -eq 200000 ]; then
		check "t017b-$tool-$period-sampled (fewest $least)" [ "${least:-0}" -ge 15 ]
	fi
	# the fix is in force: libunwind checks addresses without a pipe; variance walks
	# frame pointers and never sets libunwind up (RT_TOOL_FP_CONTEXT): no pipe either
	if [ "$tool" = variance ]; then
		check "t017b-$tool-$period-no-unwinder" grep -q '^unwind_check=none ' \
			"$tool-$period-1"/*.proc
	else
		check "t017b-$tool-$period-no-pipe" grep -q '^unwind_check=process_vm_readv$' \
			"$tool-$period-1"/*.proc
	fi
}

storm mem 200000 9
storm mem 900000 3
storm variance 200000 6

# A program that calls libunwind itself: libunwind's read and close are bound for all of
# it, so its other files (/proc/self/maps, read behind unw_get_proc_name) must still be
# read and closed.  Before that was passed through, under sonde mem 0 of 50 names were
# found and 50 descriptors leaked.
( timeout 60 "$SONDE" mem -q -o own -- "$W/rt-ownunwind" >own.out 2>&1 )
rc=$?
check "t017b-own-libunwind-works ($rc: $(head -c 100 own.out))" [ "$rc" -eq 0 ]

# A program linked to LLVM's libunwind (libunwind.so.1, earlier in the link map than the
# runtime's libunwind.so.8): the runtime's own libunwind is still the one bound.  Before it
# was found by its code, the first file named libunwind.so* was taken, and the check kept
# its pipe.
llvm=$(ls /usr/lib/x86_64-linux-gnu/libunwind.so.1 2>/dev/null | head -1)
if [ -n "$llvm" ] && echo 'int main(void){return 0;}' >m.c && cc m.c -Wl,--no-as-needed "$llvm" -o llvmu 2>/dev/null; then
	( timeout 60 "$SONDE" mem -q -o llvm -- ./llvmu >/dev/null 2>&1 )
	check "t017b-llvm-libunwind-no-pipe" grep -q '^unwind_check=process_vm_readv$' llvm/*.proc
else
	skip "t017b-llvm-libunwind-no-pipe" "no LLVM libunwind.so.1 on this machine"
fi
