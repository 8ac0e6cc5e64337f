#!/usr/bin/env bash
# t047-openmp-clang-cxx-regions: clang names every parallel region's outlined function
# ".omp_outlined." (t044), and sonde names it after the function that holds the region.
# That function was taken to be the last one declared before the region's line; in C++
# that is wrong after a lambda or a local class: tests/workloads/omp-names.cc has a
# region in main after a lambda with its own region, and main's region read
# "main::$_0::operator()(long) const [clone .omp_outlined._debug__]", the lambda's name,
# in sonde mem and sonde variance alike.  sonde now takes the function whose code carries
# the last line at or before the region's (the runtime call that forks it, at the
# pragma's line).  Checked for the three regions of omp-names.cc: in a member function
# defined in its class body, in a lambda ("main::$_0": clang's own name for the lambda's
# class, which perf and gdb print too), and in main.
. "$(dirname "$0")/lib.sh"
command -v clang >/dev/null || { skip t047 "clang is not installed (sonde-cc needs it)"; exit 0; }
src=$SONDE_TOP/tests/workloads/omp-names.cc
if ! "$SONDE_BUILD/sonde-cc" -O1 -fopenmp "$src" -o names 2>build.err; then
	skip t047 "sonde-cc -fopenmp failed (libomp-dev?): $(head -c 200 build.err)"
	exit 0
fi
member='^physics::Solver::step\(long\) \[clone \.omp_outlined\.'
lambda='^main::[^ ]+::operator\(\)\(long\) const \[clone \.omp_outlined\.'
inmain='^main\.omp_outlined\.'
# the function of code.csv's rows at the line of the loop marked `marker` in the source
fn_at() {
	local line
	line=$(grep -n "$1" "$src" | cut -d: -f1)
	awk -F, -v l="$line" 'NR > 1 && $3 == l { print $1 }' rec/mem/code.csv | sort -u
}
"$SONDE" mem -s inst -o rec -- ./names 5 >/dev/null 2>err.txt
check t047-mem-run [ $? -eq 0 ]
for part in "member:the member function's loop" "lambda:the lambda's loop" "inmain:main's loop"; do
	name=${part%%:*}
	re=${!name}
	got=$(fn_at "${part#*:}")
	if [ -n "$got" ] && [ "$(grep -cvE "$re" <<<"$got")" -eq 0 ]; then
		pass "t047-mem-$name"
	else
		fail "t047-mem-$name" "'$got' does not match /$re/"
	fi
done
# GCC names the same regions itself ("[clone ._omp_fn.0]", "main::{lambda(long)#1}"): the
# Makefile's g++ build, sampled by the clock, has the three among its code rows
"$SONDE" mem -o gcc -- "$W/omp-names" 100 >/dev/null 2>gcc.txt
check t047-gcc-run [ $? -eq 0 ]
for re in '^physics::Solver::step\(long\) \[clone \._omp_fn\.[0-9]+\]$' \
	'^main::\{lambda\(long\)#1\}::operator\(\)\(long\) const \[clone \._omp_fn\.[0-9]+\]$' \
	'^main\._omp_fn\.[0-9]+$'; do
	n=$(sqlite3 gcc/profile.db "SELECT DISTINCT function FROM code" | grep -cE "$re")
	check "t047-gcc-$n-rows-/$re/" [ "$n" -eq 1 ]
done
# sonde variance: one row per region, named alike (the outlined function itself, where
# mem names the body inlined into it)
if "$SONDE" info 2>/dev/null | grep -q "their traps fire"; then
	how=names
elif "$SONDE_BUILD/sonde-cc" --sonde-calls -O1 -fopenmp "$src" -o names-calls 2>build.err; then
	how=names-calls
else
	skip t047-variance "debug registers do not trap and sonde-cc --sonde-calls failed"
	exit 0
fi
OMP_WAIT_POLICY=passive "$SONDE" variance -o var -p 1000000 -- "./$how" 200 >/dev/null 2>err.txt
check t047-variance-run [ $? -eq 0 ]
rows=$(awk -F, 'NR > 1 && $3 == "cpu-time" && $1 ~ /omp_outlined/ { print $1 }' var/variance/functions.csv)
for part in member lambda inmain; do
	n=$(grep -cE "${!part}" <<<"$rows")
	check "t047-variance-$part-one-row-$n" [ "$n" -eq 1 ]
done
check "t047-variance-three-region-rows" [ "$(wc -l <<<"$rows")" -eq 3 ]
