#!/usr/bin/env bash
# t045-mem-cxx-short-names: the summary's tables shorten long C++ names as every tool's do
# (ui/text.h, 'n' columns: template arguments and parameter lists as "<...>" and "(...)"
# past 60 characters), the CSV keeps them whole.  sonde mem printed them whole: on a
# LULESH profile its code and object columns were hundreds of characters wide while
# comm, reuse and variance cut the same names.  tests/workloads/omp-names.cc's function
# template has a demangled name of over 300 characters (a std::map's default arguments
# spelt out); it does a fifth of the program's loads, so it is in the code table.
. "$(dirname "$0")/lib.sh"
"$SONDE" mem -o rec -- "$W/omp-names" 100 >/dev/null 2>err.txt
check t045-run [ $? -eq 0 ]
# code.csv: function,file,line,... (the name is quoted: it has commas)
check t045-csv-keeps-the-whole-name \
	grep -q '^"double physics::accumulate_over_elements<.*std::map<std::__cxx11::basic_string<char' \
	rec/mem/code.csv
# the function column of the code table's row for it (after its location, omp-names.cc:N)
row=$(awk '/^Code/ { c = 1; next } /^$/ { c = 0 }
	c && /accumulate_over_elements/ { sub(/^.*omp-names\.cc:[0-9]+ +/, ""); print; exit }' err.txt)
check t045-code-table-short-name [ "$row" = "double physics::accumulate_over_elements<...>(...)" ]
check t045-no-whole-name-in-the-summary bash -c '! grep -q "std::map<" err.txt'
# an object named after a templated constructor: the mesh's field
check t045-object-short-name grep -Eq "heap +physics::Mesh<\.\.\.>::Mesh\(\.\.\.\) \(omp-names\.cc:" err.txt
# gfortran's module variables and procedures (`__mod_MOD_name`) read as gdb names them,
# `mod::name` (the trial of 2026-11-28 read `__definitions_module_MOD_dt`): made here by a
# C program's asm labels, no Fortran compiler needed
if command -v gcc >/dev/null; then
	cat >fm.c <<'EOF'
#include <stdio.h>
double dt[200000] __asm__("__defs_MOD_dt");
int main(void)
{
	double s = 0;
	for (long i = 0; i < 60000000; i++) {
		dt[i % 200000] += i;
		s += dt[(i * 7) % 200000];
	}
	printf("%f\n", s);
	return 0;
}
EOF
	gcc -O1 -g fm.c -o fm && "$SONDE" mem -q -o fmr -- ./fm >/dev/null 2>&1
	check t045-fortran-module-variable grep -q '^defs::dt,static,' fmr/mem/objects.csv
fi
# a library's variable names its library (libm's `__exp2f_data` read as the program's
# own: the trial of 2026-11-28); the program's own keep their bare names (fm's dt above)
if command -v gcc >/dev/null; then
	printf '#include <math.h>\n#include <stdio.h>\nint main(void) { double s = 0; for (long i = 0; i < 30000000; i++) s += exp2f((float)(i & 1023) / 100.0f); printf("%%f\\n", s); return 0; }\n' >lm.c
	if gcc -O1 lm.c -o lm -lm 2>/dev/null && "$SONDE" mem -q -o lmr -- ./lm >/dev/null 2>&1 &&
		grep -q ',static,' lmr/mem/objects.csv; then
		check t045-library-static-named bash -c "awk -F, '\$2 == \"static\"' lmr/mem/objects.csv | grep -q ' \[libm'"
		check t045-library-static-all-named bash -c "! awk -F, '\$2 == \"static\" && \$1 !~ / \\[lib/' lmr/mem/objects.csv | grep -q ."
	else
		skip t045-library-static-named "no sample in a static of libm here"
	fi
fi
# GCC gives a lambda's operator() no linkage name: inlined where std::function calls it,
# two lambdas both read `operator()` (the trial of 2026-11-28); qualified by their scopes
# now, the closure type unnamed: main::<lambda>::operator(), told apart by their lines
if command -v g++ >/dev/null; then
	cat >lam.cc <<'EOF'
#include <cstdio>
#include <functional>
#include <vector>
static double work(std::function<double(int)> f, int n) { double s = 0; for (int i = 0; i < n; i++) s += f(i); return s; }
int main() {
	std::vector<double> a(1 << 20, 1.0), b(1 << 20, 2.0);
	auto l1 = [&](int i) { return a[(i * 7) & ((1 << 20) - 1)] * 1.0001; };
	auto l2 = [&](int i) { return b[(i * 13) & ((1 << 20) - 1)] * 0.9999; };
	double s = 0;
	for (int r = 0; r < 30; r++) s += work(l1, 1 << 20) + work(l2, 1 << 20);
	printf("%f\n", s);
}
EOF
	if g++ -O2 -g lam.cc -o lam 2>/dev/null && "$SONDE" mem -q -o lamr -- ./lam >/dev/null 2>&1; then
		check t045-lambda-qualified grep -q '^main::<lambda>::operator(),.*lam.cc,[78],' lamr/mem/code.csv
		check t045-lambda-not-bare bash -c "! grep -q '^operator(),' lamr/mem/code.csv"
	else
		fail t045-lambda "g++ could not build lam.cc, or sonde mem failed on it"
	fi
fi
