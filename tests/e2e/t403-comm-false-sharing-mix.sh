#!/usr/bin/env bash
# t403-comm-false-sharing-mix: ComDetective's false-sharing microbenchmark.  Four workers
# each write, with probability F, their own 8-byte slot of one common line (false sharing)
# and otherwise word 0 of another line they all write (true sharing).  The sampled false-
# sharing fraction rises with F (F = 20 and 80), and so does the exact detector's; all the
# volume is on that object.  Neither is compared with F itself, nor with each other: F is
# the mix of stores, and on 2 time-shared cores the threads run in bursts, so the mix of
# cache-line transfers differs from it and from run to run (exact, measured: 0.18 to 0.46 at
# F = 20, 0.50 to 0.83 at F = 80; sampled with software watchpoints 0.43-0.45 and
# 0.58-0.62), and a sampled run and an exact run are two runs.  A same-run comparison needs
# both detectors in one run (not built yet).
#
# 2 cores: the workers yield every 64 iterations, so their stores interleave even when
# they share a CPU (thread matrices are defined by who wrote last, not by which core).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t40-comm-lib.bash"
comm_build t403-build || exit 0

fs_share() { awk -v f="$(mat_sum $1/comm/matrix-false-thread.csv)" -v a="$(mat_sum $1/comm/matrix-all-thread.csv)" 'BEGIN { printf "%.4f\n", a ? f / a : -1 }'; }

# The sampled run is made again once when it saw one kind only: a CI clone beside a make
# check (2026-11-27 11:20 UTC) read a share of 1.0000 at F=80% (exact 0.8144), its few
# events under that load all false sharing.
for F in 20 80; do
	for try in 1 2; do
		rm -rf s$F
		"$SONDE" comm -q --source inst --period 1009 -o s$F -- "$T/cb-inst" fs 400000 $F
		st=$?
		float_between "$(fs_share s$F)" 0.02 0.98 && break
		echo "F=$F%: run $try saw a sampled share of $(fs_share s$F)"
	done
	check t403-status-$F [ $st -eq 0 ]
	"$SONDE" comm -q --exact -o x$F -- "$T/cb-inst" fs 400000 $F
	s=$(fs_share s$F) x=$(fs_share x$F)
	echo "F=$F%: sampled false-sharing share $s, exact $x"
	check "t403-sampled-share-$F ($s)" float_between "$s" 0.02 0.98
	check t403-invariants-$F mat_invariants s$F thread
	check t403-object-$F grep -q '^shared,static,' s$F/comm/objects.csv
done
check t403-rises float_between "$(fs_share s20)" 0 "$(fs_share s80)"
check t403-exact-rises float_between "$(fs_share x20)" 0 "$(fs_share x80)"
