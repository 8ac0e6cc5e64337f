#!/usr/bin/env bash
# t314: --function finds a Fortran procedure by its source name, as the other tools name it
# (sonde mem's `vranlc` is NPB's `vranlc_` in the symbol table): gfortran's external
# `name_` and a module procedure's `__module_MOD_name`.  The symbols are made by a C
# program (asm labels: no Fortran compiler needed), whose functions take the time.  A
# function of the name itself comes first: `init` is the C function init, not the busier
# init_ (review, 2026-11-27: the first form took init_).
. "$(dirname "$0")/lib.sh"
if ! command -v perf >/dev/null || ! command -v gcc >/dev/null; then
	skip t314-analyze-fortran "needs perf and gcc"
	exit 0
fi
cat >f.c <<'C'
#include <stdio.h>
__attribute__((noinline)) double spin(long n) __asm__("spin_");
__attribute__((noinline)) double twist(long n) __asm__("__hot_MOD_twist");
__attribute__((noinline)) double init_(long n);
__attribute__((noinline)) double init(long n);
double spin(long n)
{
	double s = 0;
	for (long i = 0; i < n; i++)
		s = s * 1.0000001 + (double)i;
	return s;
}
double twist(long n)
{
	double s = 1;
	for (long i = 0; i < n; i++)
		s = s * 0.9999999 + 0.5;
	return s;
}
/* a C function `init` and a Fortran-like `init_` with more samples: `init` is init */
double init_(long n)
{
	double s = 2;
	for (long i = 0; i < n; i++)
		s = s * 0.9999998 + 0.25;
	return s;
}
double init(long n)
{
	double s = 3;
	for (long i = 0; i < n; i++)
		s = s * 0.9999997 + 0.125;
	return s;
}
int main(void)
{
	printf("%f %f %f %f\n", spin(60000000), twist(60000000), init_(60000000), init(20000000));
	return 0;
}
C
gcc -O1 -g -o f f.c
if ! perf record -q -e cpu-clock -o perf.data ./f >/dev/null 2>perf.err || [ ! -s perf.data ]; then
	skip t314-analyze-fortran "perf record failed: $(head -1 perf.err)"
	exit 0
fi
# (query=the function shown; a module procedure shows as gdb names it, mod::name)
for q in spin=spin_ twist=hot::twist spin_=spin_ init=init init_=init_ hot::twist=hot::twist; do
	"$SONDE" analyze --function "${q%%=*}" perf.data >fn.txt 2>err.txt
	rc=$?
	if [ "$rc" -eq 0 ] && grep -qF "Function ${q#*=} " fn.txt; then
		pass "t314-function-${q%%=*}-is-${q#*=}"
	else
		fail "t314-function-${q%%=*}-is-${q#*=}" "rc=$rc: $(head -c 300 err.txt) $(grep -m1 '^Function' fn.txt)"
	fi
done
# a name that is only a prefix or a suffix is not one of them (exit 1 with the not-found
# error: another error exits 1 too)
not_found() { [ "$1" -eq 1 ] && grep -q "no samples in a function named '$2'" err.txt; }
"$SONDE" analyze --function spi perf.data >/dev/null 2>err.txt
check t314-no-prefix-match not_found $? spi
"$SONDE" analyze --function wist perf.data >/dev/null 2>err.txt
check t314-no-suffix-match not_found $? wist
# options after the file, as perf takes them (the helper's trial: "unexpected argument
# '--function'" before 2026-11-27)
"$SONDE" analyze perf.data --function twist >fn.txt 2>err.txt
check t314-option-after-file grep -q "^Function hot::twist " fn.txt
