#!/usr/bin/env bash
# t401-comm-pairs-inst: two ping-pongs at once (threads 1-2 on one line, 3-4 on another),
# sampled by the inst source.  The constructed pairs hold >= 90% of the true-sharing
# volume; every matrix is square, symmetric, zero on the diagonal, all = true + false;
# the core matrices hold no more than the thread matrices; the summary names the source,
# period, samples, traps and the watchpoints' fate; pairs.csv names the code on each side,
# objects.csv the variable; `sonde report` shows the same recording again.
#
# 2 cores: the four workers time-share the CPUs.  The ping-pongs are lock-step (a thread
# waits for its partner with sched_yield), so the lines that move, and between whom, do
# not depend on the scheduling; only the core matrix does (same-CPU pairs are dropped).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t40-comm-lib.bash"
comm_build t401-build || exit 0

"$SONDE" comm --source inst --period 1009 -o rec -- "$T/cb-inst" pairs 20000 >out 2>summary
check t401-status [ $? -eq 0 ]
d=rec/comm
for f in matrix-{all,true,false}-{thread,core}.csv objects.csv pairs.csv; do
	check "t401-file-$f" [ -s "$d/$f" ]
done
check t401-threads-square [ "$(head -1 $d/matrix-all-thread.csv)" = "thread,0,1,2,3,4" ]
check t401-invariants-thread mat_invariants rec thread
check t401-invariants-core mat_invariants rec core
all=$(mat_sum $d/matrix-all-thread.csv)
check t401-volume [ "$all" -gt 0 ]
# The pairs hold the communication (true + false).  How it splits between true and false
# depends on which of the partner's two stores (data word, token) the board holds (see
# below), and varies from run to run: 24-79% true in four runs, and none at all in one
# (a clean-clone CI run, where the true-sharing matrix was empty: 0/0 in the pairs).
share=$(mat_share $d/matrix-all-thread.csv "1-2 3-4")
check t401-pairs-hold-communication float_between "$share" 0.90 1
echo "share of pairs 1-2, 3-4 in all communication: $share (all: $all; true sharing: $(mat_sum $d/matrix-true-thread.csv))"
# each pair's own cells are both there (neither ping-pong is missed)
check t401-pair-12 [ "$(mat_cell $d/matrix-all-thread.csv 1 2)" -gt 0 ]
check t401-pair-34 [ "$(mat_cell $d/matrix-all-thread.csv 3 4)" -gt 0 ]
# (No true/false split is asserted here: the partner stores the data word and the token,
# both on the line, and the board keeps whichever store was sampled; a reader spinning on
# the token that meets the data word's store counts false sharing, as ComDetective does.
# t403 checks the split on a workload built for it.)
check t401-core-le-thread [ "$(mat_sum $d/matrix-all-core.csv)" -le "$all" ]
# the database's totals are the CSV's
check t401-total-meta [ "$(comm_meta rec total_all)" -eq $((all / 2)) ]

check t401-summary-source grep -q 'source inst, period 1009 accesses' summary
check t401-summary-samples grep -Eq '; [1-9][0-9]* samples, [0-9]+ traps' summary
check t401-summary-watch grep -q '^  watchpoints: ' summary
check t401-summary-unit grep -q 'estimated cache-line transfers' summary
check t401-summary-heat grep -q '^     0 |' summary
# Hardware breakpoints never fire on this kind of VM: traps must be what really happened.
# With no trap, the summary says why (none fired, or watchpoints unavailable).
traps=$(comm_meta rec traps)
watch=$(comm_meta rec watch)
echo "traps: $traps; watch: $watch"
if [ "$traps" -eq 0 ]; then
	case "$watch" in *"none trapped"* | *unavailable* | *"no watchpoint armed"* | *"none needed"*) pass t401-no-trap-explained ;;
	*) fail t401-no-trap-explained "$watch" ;; esac
else
	check t401-trap-events [ "$(comm_meta rec events)" -gt 0 ]
fi

top=$(sed -n 2p $d/pairs.csv)
case "$top" in 1,2,*volley*volley* | 3,4,*volley*volley*) pass t401-pairs-code ;;
*) fail t401-pairs-code "$top" ;; esac
check t401-objects-named grep -q '^shared,static,' $d/objects.csv

"$SONDE" report rec >again 2>&1
check t401-report-again grep -q 'source inst, period 1009' again
cp $d/matrix-all-thread.csv before.csv
"$SONDE" report --format csv rec >csv.out 2>&1
check t401-report-csv cmp -s csv.out before.csv

# Software watchpoints (this sonde-cc build) that trapped nothing: the summary does not
# blame debug registers that never fire in some VMs (it did until 2026-11-28: the trial of
# RSBench).  Private data only: the few lines armed (another thread's stack or locals
# published nearby) are rarely touched again; where a run arms none, or one traps, there
# is nothing to check.
"$SONDE" comm --source inst --period 1009 -o priv -- "$T/cb-inst" private 2000 >/dev/null 2>&1
pa=$(comm_meta priv arms)
pt=$(comm_meta priv traps)
if [ "${pa:-0}" -gt 0 ] && [ "${pt:-1}" -eq 0 ]; then
	pw=$(comm_meta priv watch)
	case "$pw" in
	*"software watchpoint"*"none trapped"*) case "$pw" in *"debug registers"*) fail t401-soft-no-trap-says "$pw" ;; *) pass t401-soft-no-trap-says ;; esac ;;
	*) fail t401-soft-no-trap-says "$pw" ;;
	esac
else
	skip t401-soft-no-trap-says "this run armed $pa watchpoints and counted $pt traps"
fi

# No --source: a sonde-cc build takes inst where the CPU has no PMU, as reuse does (it ran
# on the clock before 2026-11-28: sample-scaled cells); with a PMU, hw
"$SONDE" comm -q --period 1009 -o auto -- "$T/cb-inst" pairs 2000 >/dev/null 2>&1
src=$(sqlite3 auto/profile.db "SELECT value FROM meta WHERE key = 'source'" 2>/dev/null)
# (a CPU PMU that cannot sample memory, or perf_event_paranoid, falls back to inst: either
# is right there)
want=inst
[ -d /sys/bus/event_source/devices/cpu ] && want="hw or inst"
check "t401-default-source-${src:-none}-is-${want// /-}" bash -c \
	"[ '$src' = inst ] || { [ '$want' != inst ] && [ '$src' = hw ]; }"
# -s clock on this sonde-cc build: most ticks land in the access callbacks and give no
# sample; the header says how many of the signals gave one, and why (the usability review
# of 2026-11-29: 119 samples of ~1,500 ticks, said as "119 samples")
"$SONDE" comm -s clock -o clk -- "$T/cb-inst" fs 3000000 50 >/dev/null 2>clk.txt
check t401-clock-status [ $? -eq 0 ]
ns=$(comm_meta clk samples) sigs=$(comm_meta clk sample_signals)
echo "    clock on a sonde-cc build: $ns samples of ${sigs:-?} signals"
if [ -n "$sigs" ] && [ $(( (sigs - ns) * 10 )) -ge "$sigs" ]; then
	check t401-clock-signals-said grep -q "; $ns samples of $sigs timer signals (" <(flat clk.txt)
	check t401-clock-inst-advised grep -q "callbacks, which are not sampled: --source inst samples it by access" <(flat clk.txt)
else
	check t401-clock-samples-plain grep -q "; $ns samples, " <(flat clk.txt)
fi

# a run of one or two events gives no true/false split in its headline (view.c,
# COMM_SPLIT_EVENTS: the trial of 2026-11-29, F3, read "false sharing 100.0%" from one
# pair of accesses): a long period over a short ring takes 0 to a few, at random; the
# periods are tried in turn until a run has 1 or 2 (judged on that run's own count), and
# a run of 3 or more is checked to keep its split
few=0
for p in 100003 50021 200003 30011 150001 70001; do
	"$SONDE" comm -f --source inst --period $p -o few -- "$T/cb-inst" ring 20000 >/dev/null 2>few.txt
	ev=$(comm_meta few events)
	flat few.txt >few.flat
	if [ "${ev:-0}" -ge 1 ] && [ "${ev:-0}" -le 2 ]; then
		check "t401-few-$ev-no-split" grep -q "communication: [0-9]* between \([0-9]* of \)\?[0-9]* threads (from $ev events\? *: too few for a true/false split)" few.flat
		check "t401-few-$ev-no-percent" sh -c '! grep -q "communication: .*(true sharing" few.flat'
		few=1
		break
	elif [ "${ev:-0}" -ge 3 ]; then
		check "t401-some-$ev-split" grep -q "communication: [0-9]* (true sharing [0-9.]*%, false sharing" few.flat
	fi
done
[ $few = 1 ] || skip t401-few "no run of the six took 1 or 2 events"
