#!/usr/bin/env bash
# bench/ompt-cost.sh - what answering LLVM libomp's tool interface costs a tool that only
# wants the threads' OpenMP numbers (src/rt/ompt.c: under comm, mem and reuse libsonde.so
# registers one callback, the implicit task's; doc/sonde-comm.md, "OpenMP thread
# numbers"): a libomp program under `sonde TOOL`, alternating pairs with OMP_TOOL=disabled
# (libomp then asks for no tool: the run without the callback) and without, medians of
# the runs' time and CPU time (the program's own run under GNU time inside the recording).
# The program: LULESH built by clang (`clang++ -O2 -g -fno-omit-frame-pointer -fopenmp
# -DUSE_MPI=0` of its five .cc files; bench/variance-real.sh), else tests/workloads/
# variance/vregion.c built by clang here.
#   [OMPT_COST_TOOL=comm] [OMPT_COST_PAIRS=5] [LULESH_BIN=...] [LULESH_ARGS="-s 30 -i 30"] bench/ompt-cost.sh
# Never fails on numbers.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
SONDE_BUILD=${SONDE_BUILD:-$top/build}
SONDE=$SONDE_BUILD/sonde
tool=${OMPT_COST_TOOL:-comm}
pairs=${OMPT_COST_PAIRS:-5}
bin=${LULESH_BIN:-/work/ext/lulesh-clang/lulesh2.0}
bench_scratch ompt-cost
if [ -x "$bin" ] && ldd "$bin" | grep -q libomp; then
	name="LULESH ${LULESH_ARGS:--s 30 -i 30}"
	set -- "$bin" ${LULESH_ARGS:--s 30 -i 30}
else
	command -v clang >/dev/null || { echo "bench: ompt-cost skipped: no libomp LULESH and no clang"; exit 0; }
	clang -O1 -g -fopenmp "$top/tests/workloads/variance/vregion.c" -o vregion -lm || exit 0
	name="vregion 2000 20000"
	set -- ./vregion 2000 20000
fi
echo "bench: ompt-cost: sonde $tool on $name, $pairs pairs, OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
export OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive
run() {	# OUT [ENV...]: one profiled run, its program's figures in OUT
	local out=$1
	shift
	env "$@" "$SONDE" "$tool" -q -o rec --force -- /usr/bin/time -f "$BENCH_TIMEFMT" -o "$out" "${prog[@]}" \
		>/dev/null 2>err.txt || { echo "  sonde $tool failed: $(tail -1 err.txt)"; exit 0; }
}
prog=("$@")
: >rt
: >rc
for i in $(seq "$pairs"); do
	if [ $((i % 2)) = 1 ]; then run a OMP_TOOL=disabled; run b; else run b; run a OMP_TOOL=disabled; fi
	read -r ae au as _ <a
	read -r be bu bs _ <b
	echo "  pair $i: without the callback $ae s, CPU $(awk -v u="$au" -v s="$as" 'BEGIN { print u + s }') s; with $be s, CPU $(awk -v u="$bu" -v s="$bs" 'BEGIN { print u + s }') s"
	awk -v a="$ae" -v b="$be" 'BEGIN { print b / a }' >>rt
	awk -v a="$au" -v b="$as" -v c="$bu" -v d="$bs" 'BEGIN { print (c + d) / (a + b) }' >>rc
done
echo "  with / without: time ratio median $(median <rt)x, CPU time ratio median $(median <rc)x"
