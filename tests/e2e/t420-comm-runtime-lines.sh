#!/usr/bin/env bash
# t420-comm-runtime-lines: where the top pair's code on both sides is the OpenMP runtime's
# (libgomp handing regions to its team), "What to do" says there is nothing of the
# program's to pad, not the padding remedy for the stack line libgomp uses (the trial of
# 2026-11-28: PENNANT under the clock source read "false sharing in [stack of thread 3]",
# pad it, from 84 samples all in libgomp).  omp-handoff (tests/workloads/comm/) keeps its
# data private and padded, so the lines that move are libgomp's.  Few samples find them
# (clock source, 2 cores): a run whose top pair is not libgomp's on both sides, or that
# finds nothing, is a SKIP.
. "$(dirname "$0")/lib.sh"
gcc -O2 -g -fopenmp "$SONDE_TOP/tests/workloads/comm/omp-handoff.c" -o oh 2>build.err ||
	{ skip t420 "gcc -fopenmp could not build omp-handoff: $(head -c 200 build.err)"; exit 0; }
for try in 1 2 3; do
	rm -rf d
	"$SONDE" comm -o d -- ./oh 60000 >out 2>err
	check "t420-status-$try" [ $? -eq 0 ]
	top=$(sed -n 2p d/comm/pairs.csv)
	case "$top" in *libgomp*libgomp*) break ;; esac
done
echo "top pair: $top"
case "$top" in
*libgomp*libgomp*)
	flat err >err.flat
	check t420-nothing-to-pad grep -q "What to do: nothing to pad in .*: the code on both sides of the top pair is the OpenMP runtime's (\[libgomp" err.flat
	check t420-no-padding-remedy bash -c '! grep -q "pad or align each thread" err.flat'
	;;
*) skip t420-runtime-lines "no run's top pair was libgomp's on both sides (${top:-none})" ;;
esac
