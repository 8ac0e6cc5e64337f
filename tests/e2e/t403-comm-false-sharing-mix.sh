#!/usr/bin/env bash
# t403-comm-false-sharing-mix: ComDetective's false-sharing microbenchmark.  Four workers
# each write, with probability F, their own 8-byte slot of one common line (false sharing)
# and otherwise word 0 of another line they all write (true sharing).  The sampled false-
# sharing fraction follows the exact detector's on the same program within 25 points (F =
# 20 and 80), and rises with F; all the volume is on that object.  The oracle is the exact
# detector, not F: F is the mix of stores, and on 2 cores the threads run in bursts, so the
# mix of cache-line transfers differs from it and from run to run (exact, measured at F =
# 80: 0.50 to 0.83; sampled with software watchpoints 0.58 to 0.62): the sampled and exact
# runs are two runs, hence 25 points, not the 15 the spec asks of one run.
#
# 2 cores: the workers yield every 64 iterations, so their stores interleave even when
# they share a CPU (thread matrices are defined by who wrote last, not by which core).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t40-comm-lib.bash"
comm_build t403-build || exit 0

fs_share() { awk -v f="$(mat_sum $1/comm/matrix-false-thread.csv)" -v a="$(mat_sum $1/comm/matrix-all-thread.csv)" 'BEGIN { printf "%.4f\n", a ? f / a : -1 }'; }

for F in 20 80; do
	"$SONDE" comm -q --source inst --period 1009 -o s$F -- "$T/cb-inst" fs 400000 $F
	check t403-status-$F [ $? -eq 0 ]
	"$SONDE" comm -q --exact -o x$F -- "$T/cb-inst" fs 400000 $F
	s=$(fs_share s$F) x=$(fs_share x$F)
	echo "F=$F%: sampled false-sharing share $s, exact $x"
	check t403-sampled-vs-exact-$F float_between "$s" "$(awk -v w=$x 'BEGIN { print w - 0.25 }')" "$(awk -v w=$x 'BEGIN { print w + 0.25 }')"
	check t403-invariants-$F mat_invariants s$F thread
	check t403-object-$F grep -q '^shared,static,' s$F/comm/objects.csv
done
check t403-rises float_between "$(fs_share s20)" 0 "$(fs_share s80)"
check t403-exact-rises float_between "$(fs_share x20)" 0 "$(fs_share x80)"
