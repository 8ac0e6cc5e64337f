#!/usr/bin/env bash
# bench/vsensor.sh - sonde vsensor's numbers (issue 11); prints, never fails on numbers.
#   1. overhead, measured: instrumented vs original, 4 ranks, fixed iterations (~1 s),
#      VS_BENCH_PAIRS (5) pairs run back to back with the order alternating; per workload
#      the median of the pairs' wall-time ratios (the programs' own timers), the ratio of
#      the best runs (the paper's best-of-N) and the median ratio of CPU time (user+sys
#      of the whole job), with the load average around them (target <= 1.01x);
#   2. overhead, computed: the CPU cost of one timed sense (tests/workloads/vsensor/
#      sense-cost.c, CPU time, barely moved by other users' load) x the senses per second
#      each rank timed in the runs of 1;
#   3. overhead in instructions: valgrind callgrind counts of the original and the
#      instrumented program, 1 rank, fixed iterations (deterministic: no load noise);
#   4. data written per rank per second (target <= 1 KB/s);
#   5. analysis time of a generated 10,000-line C program (target <= 10 s);
#   6. detection: precision/recall of (rank, slice, kind) cells for the injected
#      slowdowns, and the false-positive rate of clean runs, on cg, ft and stencil.
#   bench/vsensor.sh [--no-detect | --detect-only]; VS_BENCH_KEEP=DIR keeps the detection
#   runs (DIR/<case>-<workload>-<n>, with a file "truth") to score them again
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
SONDE_TOP=$top
SONDE_BUILD=${SONDE_BUILD:-$top/build}
SONDE=$SONDE_BUILD/sonde
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
skip() { echo "bench: vsensor skipped: $2"; exit 0; }
fail() { echo "bench: vsensor: $1 $2"; exit 0; }
. "$top/bench/lib.sh"
. "$top/tests/workloads/vsensor/vs-test.sh"
vs_setup bench-vsensor
M="mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -np 4"

pairs=${VS_BENCH_PAIRS:-5}
# run_timed OUT CMD...: the program's own seconds and the job's user+sys CPU seconds
run_timed() {
	local out=$1 t
	shift
	t=$( { TIMEFORMAT='%U %S'; time "$@" >prog.out 2>/dev/null; } 2>&1 | tail -1)
	echo "$(cut -d' ' -f1 prog.out) $t" | awk '{ print $1, $2 + $3 }' >"$out"
}
if [ "${1:-}" != --detect-only ]; then
echo "bench: vsensor overhead (4 ranks on $(nproc) cores, fixed iterations, $pairs pairs, order alternating; load average $(cut -d' ' -f1-3 /proc/loadavg))"
echo "  workload  wall: median of pair ratios (range) | best-of-$pairs ratio | CPU: median ratio"
for w in cg:4000 ft:700 stencil:5000; do	# about 1 s each on an idle machine (10-30x that at load 10)
	n=${w%%:*} it=${w#*:}
	mpicc -O2 -o "orig-$n" "$VSW/$n.c" -lm -pthread
	vs_build "$n"
	: >pairs-$n
	for i in $(seq "$pairs"); do
		if [ $((i % 2)) = 1 ]; then
			run_timed o.t env VS_PIN=1 $M "./orig-$n" 100 "$it"
			run_timed v.t env SONDE_DIR=$T/d-$n-$i SONDE_VS_LIVE=0 VS_PIN=1 $M "./$n" 100 "$it"
		else
			run_timed v.t env SONDE_DIR=$T/d-$n-$i SONDE_VS_LIVE=0 VS_PIN=1 $M "./$n" 100 "$it"
			run_timed o.t env VS_PIN=1 $M "./orig-$n" 100 "$it"
		fi
		echo "$(cat o.t) $(cat v.t)" >>pairs-$n	# orig wall, orig cpu, vs wall, vs cpu
	done
	wr=$(awk '$1 > 0 { print $3 / $1 }' pairs-$n | median)
	lo=$(awk '$1 > 0 { print $3 / $1 }' pairs-$n | sort -g | head -1)
	hi=$(awk '$1 > 0 { print $3 / $1 }' pairs-$n | sort -g | tail -1)
	best=$(awk 'NR == 1 || $1 < o { o = $1 } NR == 1 || $3 < v { v = $3 } END { if (o > 0) print v / o }' pairs-$n)
	cr=$(awk '$2 > 0 { print $4 / $2 }' pairs-$n | median)
	printf "  %-8s  %.3fx (%.2f-%.2f) | %.3fx | %.3fx\n" "$n" "$wr" "$lo" "$hi" "$best" "$cr"
done
echo "  load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

echo "bench: vsensor overhead computed (CPU cost of a timed sense x senses per second per rank)"
if mpicc -O2 -I"$top/src" -o sense-cost "$VSW/sense-cost.c" "$SONDE_BUILD/libsonde-vsensor.a" -lm 2>sc.err &&
	read -r cost state < <(SONDE_DIR=$T/d-sc SONDE_VS_LIVE=0 mpirun --allow-run-as-root -np 1 ./sense-cost 2>/dev/null); then
	echo "  one sense: ${cost} ns of CPU (median of 7 rounds of 10^6, sensor $state at the end)"
	for n in cg ft stencil; do
		secs=$(awk '{ s += $3 } END { print s / NR }' pairs-$n)
		rate=$(awk -F, -v p="$pairs" -v s="$secs" 'NR > 1 && $7 == "no" && $2 !~ /^\(/ { n += $6 } END { print n / 4 / p / s }' "$T"/d-$n-*/sensors.csv 2>/dev/null)
		awk -v n="$n" -v r="$rate" -v c="$cost" 'BEGIN { printf "  %-8s %.0f senses/s per rank: %.4fx\n", n, r, 1 + r * c / 1e9 }'
	done
else
	echo "  sense-cost did not build or run: $(head -c 200 sc.err)"
fi

echo "bench: vsensor overhead in instructions (valgrind callgrind, 1 rank, fixed iterations: no load noise)"
if command -v valgrind >/dev/null; then
	for w in cg:400 ft:100 stencil:500; do
		n=${w%%:*} it=${w#*:}
		for p in "orig-$n" "$n"; do
			SONDE_DIR=$T/d-ir-$p SONDE_VS_LIVE=0 mpirun --allow-run-as-root -np 1 valgrind \
				--tool=callgrind --callgrind-out-file=/dev/null "./$p" 100 "$it" \
				>/dev/null 2>"ir-$p.err"
		done
		o=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "ir-orig-$n.err")
		v=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "ir-$n.err")
		awk -v n="$n" -v o="${o:-0}" -v v="${v:-0}" 'BEGIN { if (o > 0 && v > 0)
			printf "  %-8s %d -> %d instructions: %.4fx (init and finish included)\n", n, o, v, v / o
			else printf "  %-8s callgrind gave no count\n", n }'
	done
else
	echo "  valgrind not installed (tools/deps.sh installs it)"
fi

echo "bench: vsensor data written (8 s runs, 4 ranks; every file of the run directory: an upper bound)"
for n in cg ft stencil; do
	rm -rf "d-rate-$n"
	SONDE_DIR=$T/d-rate-$n vs_run -np 4 "./$n" 8 >/dev/null 2>&1
	bytes=$(cat "d-rate-$n"/* | wc -c)
	secs=$(awk -F, 'NR == 1 { print (NF - 1) * ($3 - $2) }' "d-rate-$n/matrix-compute.csv")
	awk -v n="$n" -v b="$bytes" -v s="$secs" 'BEGIN { printf "  %-8s %d bytes in %.1f s: %.0f bytes/s per rank\n", n, b, s, b / s / 4 }'
done

echo "bench: vsensor analysis of a generated 10,000-line program"
awk 'BEGIN {
	print "#include <mpi.h>\nstatic double a[4096], b[4096];\nstatic int n = 1000;"
	for (f = 0; f < 620; f++) {	# 16 lines each
		printf "static double f%d(int m, double s)\n{\n\tdouble t = 0;\n", f
		printf "\tfor (int i = 0; i < m; i++) {\n\t\tfor (int j = 0; j < 8; j++)\n\t\t\tt += a[(i + j) %% 4096] * s;\n"
		printf "\t\tif (t > 1e9)\n\t\t\tt = 0;\n\t\tb[i %% 4096] = t;\n\t}\n"
		if (f > 0)
			printf "\tt += f%d(m, s);\n", f - 1
		printf "\tfor (int k = 0; k < n; k++)\n\t\ta[k] += 1e-9 * k;\n\treturn t;\n}\n\n"
	}
	print "int main(int argc, char **argv)\n{\n\tMPI_Init(&argc, &argv);\n\tfor (int it = 0; it < 10; it++)\n\t\tf619(100, 0.5);\n\tMPI_Finalize();\n\treturn 0;\n}"
}' >gen.c
lines=$(wc -l <gen.c)
s=$(date +%s.%N)
"$SONDE" vsensor list gen.c >gen.list
e=$(date +%s.%N)
awk -v l="$lines" -v s="$s" -v e="$e" -v c="$(tail -1 gen.list)" 'BEGIN { printf "  %d lines: %.2f s (%s)\n", l, e - s, c }'

fi
[ "${1:-}" = --no-detect ] && exit 0
for n in cg ft stencil; do [ -x "$n" ] || vs_build "$n"; done
export SONDE_VS_LIVE=0
echo "bench: vsensor detection (4 ranks on $(nproc) cores, window 2-5 s of 8 s, job at nice -10; load average $(cut -d' ' -f1-3 /proc/loadavg))"
mpicc -O2 -shared -fPIC "$VSW/pmpi-delay.c" -o libpmpi-delay.so
# "others": the share of the CPUs other processes took during each run (bench/lib.sh;
# the injected busy threads are the job's own)
for n in cg ft stencil; do
	SONDE_DIR=$T/c-$n bench_others oth "$T/c-$n" vs_run -np 4 "./$n" 8 >/dev/null 2>&1
	echo "  $n clean:          $("$SONDE" vsensor score --truth none "c-$n")  others $(cat oth)"
	SONDE_DIR=$T/b-$n bench_others oth "$T/b-$n" vs_run -np 4 -x VS_INJECT=busy:1:2:5:4 "./$n" 8 >/dev/null 2>&1
	echo "  $n busy rank 1:    $("$SONDE" vsensor score --truth compute:1,3:2:5 "b-$n")  (truth: ranks 1 and 3 share its core)  others $(cat oth)"
	SONDE_DIR=$T/t-$n bench_others oth "$T/t-$n" vs_run -np 4 -x VS_INJECT=throttle:2:2:5:5 "./$n" 8 >/dev/null 2>&1
	echo "  $n throttle rank 2: $("$SONDE" vsensor score --truth compute:2:2:5 "t-$n")  others $(cat oth)"
	SONDE_DIR=$T/p-$n bench_others oth "$T/p-$n" vs_run -np 4 -x LD_PRELOAD=$T/libpmpi-delay.so -x VS_DELAY=2:5:3000 "./$n" 8 >/dev/null 2>&1
	echo "  $n PMPI delay:     $("$SONDE" vsensor score --truth network:0-3:2:5 "p-$n")  others $(cat oth)"
	# VS_BENCH_KEEP=DIR: keep the runs, with their truth, to score a rule again on them
	if [ -n "${VS_BENCH_KEEP:-}" ]; then
		mkdir -p "$VS_BENCH_KEEP"
		echo none >"c-$n/truth"
		echo compute:1,3:2:5 >"b-$n/truth"
		echo compute:2:2:5 >"t-$n/truth"
		echo network:0-3:2:5 >"p-$n/truth"
		for d in c b t p; do
			i=1
			while [ -e "$VS_BENCH_KEEP/$d-$n-$i" ]; do i=$((i + 1)); done
			cp -r "$d-$n" "$VS_BENCH_KEEP/$d-$n-$i"
		done
	fi
done
echo "  load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
