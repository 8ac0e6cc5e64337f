#!/usr/bin/env bash
# t822-variance-omp-local: an OpenMP library loaded RTLD_LOCAL (as Python loads extension
# modules, some with their own libgomp; tests/workloads/variance/vplug.c): its libgomp is
# not in the global scope, where the wrappers of rt-omp.c looked for the real functions,
# and found none: the program aborted at its first region, under every tool (found in
# review, 2026-11-27; this test failed so on the build before the fix: exit 134 under mem
# and variance, 02:26 UTC).  Now the real function is looked up in the caller's own scope.
#  - native, `sonde mem` and `sonde variance`: exit 0 and the same output;
#  - variance times the plugin's region: every call with SONDE_VARIANCE_REGIONS=1000000,
#    exactly 2 threads x 40 rounds.
. "$(dirname "$0")/lib.sh"

command -v gcc >/dev/null || { skip t822 "gcc is not installed"; exit 0; }
src=$SONDE_TOP/tests/workloads/variance/vplug.c
if ! gcc -O1 -g -fno-omit-frame-pointer -DPLUGIN -fopenmp -shared -fPIC "$src" -o vplug.so 2>build.err ||
	! gcc -O1 -g -fno-omit-frame-pointer "$src" -o vplug -ldl 2>>build.err; then
	skip t822 "gcc -fopenmp -shared could not build vplug: $(head -c 200 build.err)"
	exit 0
fi
check t822-no-openmp-in-main sh -c '! ldd ./vplug | grep -q gomp'
./vplug 40 >native.txt 2>&1
check t822-native [ $? -eq 0 ]
OMP_NUM_THREADS=2 "$SONDE" mem -q -o m -- ./vplug 40 >mem.txt 2>mem.err
check "t822-mem-status-$?" [ $? -eq 0 ]
check t822-mem-same-output cmp -s native.txt mem.txt
SONDE_VARIANCE_REGIONS=1000000 OMP_NUM_THREADS=2 "$SONDE" variance -q -o v -p 1000000 -- ./vplug 40 >var.txt 2>var.err
check "t822-variance-status" [ $? -eq 0 ]
check t822-variance-same-output cmp -s native.txt var.txt
n=$(sqlite3 v/profile.db "SELECT value FROM meta WHERE key = 'omp_regions'")
check "t822-variance-regions-timed-${n:-none}" [ "${n:-0}" -eq 80 ]
