#!/usr/bin/env bash
# bench/vsensor.sh - sonde vsensor's numbers (issue 11); prints, never fails on numbers.
#   1. overhead: instrumented vs original, 4 ranks, best of 3 each, fixed iterations
#      (target <= 1.01x);
#   2. data written per rank per second (target <= 1 KB/s);
#   3. analysis time of a generated 10,000-line C program (target <= 10 s);
#   4. detection: precision/recall of (rank, slice, kind) cells for the injected
#      slowdowns, and the false-positive rate of clean runs, on cg, ft and stencil.
#   bench/vsensor.sh [--no-detect]
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
. "$top/tests/workloads/vsensor/vs-test.sh"
vs_setup bench-vsensor
M="mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -np 4"

echo "bench: vsensor overhead (4 ranks, fixed iterations, 5 alternating pairs, median ratio)"
for w in cg:1000 ft:200 stencil:1500; do
	n=${w%%:*} it=${w#*:}
	mpicc -O2 -o "orig-$n" "$VSW/$n.c" -lm -pthread
	vs_build "$n"
	: >ratios
	for i in 1 2 3 4 5; do
		o=$(VS_PIN=1 $M "./orig-$n" 100 "$it" 2>/dev/null | cut -d' ' -f1)
		v=$(SONDE_DIR=$T/d-$n-$i VS_PIN=1 $M "./$n" 100 "$it" 2>/dev/null | cut -d' ' -f1)
		awk -v o="$o" -v v="$v" 'BEGIN { if (o > 0) print v / o }' >>ratios
	done
	sort -g ratios | awk -v n="$n" '{ a[NR] = $1 } END { printf "  %-8s ratios %s .. %s, median %.3fx\n", n, a[1], a[NR], a[(NR + 1) / 2] }'
done

echo "bench: vsensor data written (8 s runs, 4 ranks)"
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

[ "${1:-}" = --no-detect ] && exit 0
echo "bench: vsensor detection (4 ranks on $(nproc) cores, window 2-5 s of 8 s, job at nice -10)"
mpicc -O2 -shared -fPIC "$VSW/pmpi-delay.c" -o libpmpi-delay.so
for n in cg ft stencil; do
	SONDE_DIR=$T/c-$n vs_run -np 4 "./$n" 8 >/dev/null 2>&1
	echo "  $n clean:          $("$SONDE" vsensor score --truth none "c-$n")"
	SONDE_DIR=$T/b-$n vs_run -np 4 -x VS_INJECT=busy:1:2:5:4 "./$n" 8 >/dev/null 2>&1
	echo "  $n busy rank 1:    $("$SONDE" vsensor score --truth compute:1,3:2:5 "b-$n")  (truth: ranks 1 and 3 share its core)"
	SONDE_DIR=$T/t-$n vs_run -np 4 -x VS_INJECT=throttle:2:2:5:5 "./$n" 8 >/dev/null 2>&1
	echo "  $n throttle rank 2: $("$SONDE" vsensor score --truth compute:2:2:5 "t-$n")"
	SONDE_DIR=$T/p-$n vs_run -np 4 -x LD_PRELOAD=$T/libpmpi-delay.so -x VS_DELAY=2:5:3000 "./$n" 8 >/dev/null 2>&1
	echo "  $n PMPI delay:     $("$SONDE" vsensor score --truth network:0-3:2:5 "p-$n")"
done
