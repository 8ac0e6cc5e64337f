#!/usr/bin/env bash
# t510-reuse-cachegrind: --exact --spatial's miss ratio at 32 KiB (a fully associative LRU
# cache of 64-byte lines) against valgrind's cachegrind simulating a 32 KiB 8-way D1 on
# the same sonde-cc program, on two workloads: a sweep of 64 KiB (every line missed once
# per pass: 1/8 of the word accesses) and RIBench on one thread (phases of 8 to 128 KiB).
# Compared as misses (ratio x accesses): cachegrind also counts the callbacks' stack
# pushes as data references (hits), which would dilute a ratio, and the loader's and
# libc's start-up misses (a few thousand), which sonde-cc does not instrument.  Tolerance:
# cachegrind's misses within +-10% of the prediction (measured: +6% and +4%).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t50-reuse-lib.bash"
command -v valgrind >/dev/null || { skip t510 "valgrind is not installed"; exit 0; }
reuse_build t510-build || exit 0

n=0
for args in "sweep 8000 50" "ribench -t 1 -o 2"; do
	n=$((n + 1))
	"$SONDE" reuse -q --exact --spatial -o rec$n -- "$T/rb" $args >/dev/null 2>&1
	ratio=$(csv_get rec$n/reuse/missratio.csv bytes 32768 miss_ratio)
	acc=$(reuse_meta rec$n accesses)
	valgrind --tool=cachegrind --cache-sim=yes --D1=32768,8,64 --LL=8388608,16,64 \
		--cachegrind-out-file=/dev/null "$T/rb" $args >/dev/null 2>cg$n
	cg=$(awk '/D1  misses:/ { gsub(",", "", $4); print $4 }' cg$n)
	pred=$(awk -v r="$ratio" -v a="$acc" 'BEGIN { printf "%.0f\n", r * a }')
	echo "workload $n ($args): sonde predicts $pred misses, cachegrind simulates $cg"
	check "t510-misses-$n" float_between "$cg" "$(awk -v p=$pred 'BEGIN{print 0.9 * p}')" "$(awk -v p=$pred 'BEGIN{print 1.1 * p}')"
done
