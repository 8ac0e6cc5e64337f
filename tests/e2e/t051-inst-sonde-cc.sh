#!/usr/bin/env bash
# t051-inst-sonde-cc: the sonde-cc wrapper builds the way a compiler does (-c, -o, several
# sources, link-only, compile and link at once, -shared), instruments what it compiles,
# links the no-op stubs with an rpath and no sanitizer runtime, and passes the rest through.
. "$(dirname "$0")/lib.sh"

command -v clang >/dev/null || { skip t051-sonde-cc "clang is not installed"; exit 0; }
CCW=$SONDE_BUILD/sonde-cc
[ -x "$CCW" ] || { fail t051-build "$CCW missing (make build-tests)"; exit 0; }

cat >a.c <<'EOC'
#include <stdio.h>
int sum(int n);
int main(void) { printf("sum=%d\n", sum(100)); return 0; }
EOC
cat >b.c <<'EOC'
int table[100];
int sum(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		table[i] = i;
	for (int i = 0; i < n; i++)
		s += table[i];
	return s;
}
EOC
want="sum=$((99 * 100 / 2))"

instrumented() { nm "$1" | grep -q ' U __sanitizer_cov_load'; }
has_debug() { readelf -S "$1" | grep -q '\.debug_info'; }
needs_stub() { readelf -d "$1" | grep -q 'NEEDED.*\[libsonde-inst\.so\]'; }
has_rpath() { readelf -d "$1" | grep -E 'R(UN)?PATH' | grep -q "\[$SONDE_BUILD\]"; }
no_sanitizer_rt() { ! nm "$1" 2>/dev/null | grep -q -E '__(ubsan|asan|sanitizer_cov_trace_pc_guard_init)'; }

# --sonde-help explains itself; the compiler's own options pass through.
out=$("$CCW" --sonde-help); rc=$?
check t051-sonde-help [ $rc -eq 0 ]
case "$out" in *libsonde-inst.so*"--source inst"*) pass t051-sonde-help-text ;;
*) fail t051-sonde-help-text "$out" ;; esac
check t051-version-passthrough [ "$("$CCW" --version)" = "$(clang --version)" ]
# --help alone is sonde-cc's own text, saying where the compiler's is (clang's alone
# until 2026-11-28); with other arguments it is the compiler's
"$CCW" --help >help.out 2>&1
check t051-help-own grep -q 'libsonde-inst.so' help.out
check t051-help-points-to-compiler grep -q "The compiler's own options: clang --help" help.out
"$CCW" --help -v >help2.out 2>&1
check t051-help-passthrough grep -q -i 'clang' help2.out

# Compile only, one source and several.
check t051-compile-o "$CCW" -O2 -c b.c -o b1.o
check t051-compile-only-is-instrumented instrumented b1.o
check t051-compile-adds-g has_debug b1.o
rm -f a.o b.o
check t051-compile-two-sources "$CCW" -O2 -c a.c b.c
check t051-both-objects-made [ -f a.o -a -f b.o ]
check t051-second-object-instrumented instrumented b.o

# Link only: the stubs and their rpath, no coverage flag, no sanitizer runtime.
show=$("$CCW" --sonde-show a.o b.o -o prog)
case "$show" in *-fsanitize-coverage*) fail t051-link-only-no-coverage-flag "$show" ;;
*) pass t051-link-only-no-coverage-flag ;; esac
check t051-link-only "$CCW" a.o b.o -o prog
check t051-link-needs-stub needs_stub prog
check t051-link-rpath has_rpath prog
check t051-link-no-sanitizer-runtime no_sanitizer_rt prog
check t051-link-only-runs [ "$(./prog)" = "$want" ]

# Compile and link in one command.
check t051-compile-and-link "$CCW" -O2 a.c b.c -o prog2
check t051-one-step-instrumented instrumented prog2
check t051-one-step-needs-stub needs_stub prog2
check t051-one-step-no-sanitizer-runtime no_sanitizer_rt prog2
check t051-one-step-runs [ "$(./prog2)" = "$want" ]

# A shared library built by sonde-cc, used by a program built by sonde-cc.
check t051-shared "$CCW" -O2 -shared -fPIC b.c -o libb.so
check t051-shared-instrumented instrumented libb.so
check t051-shared-needs-stub needs_stub libb.so
check t051-shared-link "$CCW" -O2 a.c -L. -lb -Wl,-rpath,"$PWD" -o prog3
check t051-shared-runs [ "$(./prog3)" = "$want" ]

# Preprocessing is untouched; compiler errors keep their status; -static is refused.
check t051-preprocess-passthrough [ "$("$CCW" -E b.c)" = "$(clang -E b.c)" ]
echo 'int main(void) { return undeclared; }' >bad.c
"$CCW" bad.c -o bad 2>bad.err
check t051-error-status [ $? -ne 0 ]
"$CCW" -static a.c b.c -o st 2>st.err
rc=$?
check t051-static-refused [ $rc -eq 2 ]
check t051-static-message grep -q '^sonde-cc: cannot link -static' st.err

# SONDE_CC picks the compiler.
SONDE_CC=clang-14 "$CCW" --sonde-show a.c >show.out
check t051-sonde-cc-env grep -q '^clang-14 ' show.out

# C++ sources: clang (the C driver) would link them without the C++ library (miniFE's
# `sonde-cc ... main.cpp ...` failed with undefined std:: symbols), so the default driver
# is clang++ for them; not for C sources with them (clang++ would compile those as C++),
# and SONDE_CC still wins.
if command -v clang++ >/dev/null; then
	cat >c.cc <<'EOC'
#include <iostream>
#include <vector>
int main() { std::vector<int> v(100); int s = 0; for (int i = 0; i < 100; i++) v[i] = i;
	for (int x : v) s += x; std::cout << "sum=" << s << std::endl; return 0; }
EOC
	check t051-cxx-link env -u SONDE_CC "$CCW" -O2 c.cc -o prog4
	check t051-cxx-instrumented instrumented prog4
	check t051-cxx-runs [ "$(./prog4)" = "$want" ]
	check t051-cxx-driver grep -q '^clang++ ' <(env -u SONDE_CC "$CCW" --sonde-show -c c.cc)
	check t051-mixed-driver grep -q '^clang ' <(env -u SONDE_CC "$CCW" --sonde-show c.cc b.c)
	check t051-cxx-sonde-cc-env grep -q '^clang-14 ' <(SONDE_CC=clang-14 "$CCW" --sonde-show c.cc)
else
	skip t051-cxx "clang++ is not installed"
fi

# a missing or unusable SONDE_CC: one "sonde-cc:" line and a shell's status (bash's own
# "sonde-cc: line 157: /nonexistent/cc: No such file or directory" before)
SONDE_CC=/nonexistent/cc "$CCW" -c b.c >out 2>err; rc=$?
check "t051-cc-missing-status ($rc)" [ "$rc" -eq 127 ]
check t051-cc-missing-msg grep -qx "sonde-cc: cannot run the compiler '/nonexistent/cc' (SONDE_CC): not found" err
SONDE_CC=/etc/passwd "$CCW" -c b.c >out 2>err; rc=$?
check "t051-cc-not-exec-status ($rc)" [ "$rc" -eq 126 ]
check t051-cc-not-exec-one-line [ "$(wc -l <err)" -eq 1 ]

# Vectors wider than 16 bytes: clang's callbacks exist for 1 to 16 bytes, so a loop that
# -mavx2 vectorizes with 32-byte vectors would make accesses no callback sees; sonde-cc
# asks for 128-bit vectors (x86-64), and the -mavx2 object then has no 32-byte memory
# operand and as many callbacks as the plain one.  A wider width of the user's is kept,
# said once.
if [ "$(uname -m)" = x86_64 ]; then
	cat >v.c <<'EOC'
double a[1024], b[1024];
void step(void) { for (int i = 0; i < 1024; i++) a[i] += 2.0 * b[i]; }
EOC
	calls() { objdump -dr "$1" | grep -c 'R_X86_64_PLT32.*__sanitizer_cov_\(load\|store\)'; }
	ymm_mem() { objdump -d "$1" | grep -c 'ymm.*(%\|(%.*ymm'; }
	check t051-avx2-build "$CCW" -O2 -mavx2 -c v.c -o v-avx2.o
	check t051-plain-build "$CCW" -O2 -c v.c -o v-plain.o
	check "t051-avx2-no-32-byte-access-$(ymm_mem v-avx2.o)" [ "$(ymm_mem v-avx2.o)" -eq 0 ]
	check "t051-avx2-callbacks-$(calls v-avx2.o)-as-plain-$(calls v-plain.o)" \
		[ "$(calls v-avx2.o)" -eq "$(calls v-plain.o)" -a "$(calls v-plain.o)" -gt 0 ]
	"$CCW" -O2 -mavx2 -mprefer-vector-width=256 -c v.c -o v-256.o 2>vw.err
	check t051-user-width-kept [ "$(ymm_mem v-256.o)" -gt 0 ]
	check t051-user-width-warned grep -q "^sonde-cc: warning: -mprefer-vector-width=256: accesses wider than 16 bytes are not seen" vw.err
else
	skip t051-vector-width "not x86-64"
fi

# -x LANG given by the user: the stub library after it is not read as that language
# (`sonde-cc -x c++ x.c` compiled libsonde-inst.so as C++: the trial of PARSEC, 2026-11-27)
if command -v clang++ >/dev/null; then
	printf 'int a[4];\nint main(int c, char **v) { a[c & 3] = c; return a[(c + 3) & 3]; }\n' >xl.c
	check t051-x-lang-links "$CCW" -O2 -x c++ xl.c -o xl
	check t051-x-lang-runs ./xl
	check t051-x-lang-instrumented instrumented xl
else
	skip t051-x-lang "clang++ is not installed"
fi
# a Fortran source is refused with the reason and what to do, not compiled by gfortran
# without the coverage flags, -O2 or -fopenmp (the trial of 2026-11-28: exit 0, a serial
# unoptimised object that the inst source could not see)
printf 'program p\nend program p\n' >ft.f90
"$SONDE_BUILD/sonde-cc" -O2 -fopenmp -c ft.f90 -o ft.o 2>ft.err
rc=$?
check t051-fortran-status-2 [ "$rc" -eq 2 ]
check t051-fortran-no-object [ ! -e ft.o ]
check t051-fortran-says grep -q "^sonde-cc: 'ft.f90' is Fortran, which clang cannot instrument" ft.err
"$SONDE_BUILD/sonde-cc" -x f95 -c ft.f90 -o ft2.o 2>/dev/null
rc=$?
check t051-fortran-x-status-2 [ "$rc" -eq 2 ]
check t051-fortran-x-no-object [ ! -e ft2.o ]

# C++ objects linked with the default driver (clang, the C one): the C++ library added as
# clang++ would (the trial of 2026-11-28: PENNANT's objects, "DSO missing from command
# line"); a C-only link gets none.  f is C++ (std::vector), main C.
if command -v clang++ >/dev/null; then
	printf '#include <vector>\nextern "C" int f(int n) { std::vector<int> v(n);\n  for (int i = 0; i < n; i++) v[i] = i; return v[n - 1]; }\n' >cx.cc
	printf '#include <stdio.h>\nint f(int);\nint main(void) { printf("%%d\\n", f(10)); return 0; }\n' >cm.c
	"$SONDE_BUILD/sonde-cc" -O2 -c cx.cc -o cx.o && "$SONDE_BUILD/sonde-cc" -O2 -c cm.c -o cm.o
	"$SONDE_BUILD/sonde-cc" cm.o cx.o -o cxm 2>cxm.err
	check t051-cxx-objects-link [ $? -eq 0 ]
	check t051-cxx-objects-run [ "$(./cxm 2>/dev/null)" = 9 ]
	check t051-cxx-objects-lstdcxx grep -q -- "-lstdc++" <("$SONDE_BUILD/sonde-cc" --sonde-show cm.o cx.o -o cxm)
	check t051-c-objects-no-lstdcxx sh -c '! "$0" --sonde-show cm.o -o c1 | grep -q -- -lstdc++' \
		"$SONDE_BUILD/sonde-cc"
	# the user's own choice of C++ library (or none) is left alone
	check t051-cxx-objects-libcxx-alone sh -c '! "$0" --sonde-show -stdlib=libc++ cm.o cx.o -o c2 |
		grep -q -- -lstdc++' "$SONDE_BUILD/sonde-cc"
else
	skip t051-cxx-objects-link "clang++ is not installed"
fi

# A copy loop and a fill loop stay loops the callbacks see: clang's loop idiom pass made
# them calls of memcpy and memset (STREAM's Copy kernel unseen by --source inst: the trial
# of 2026-11-29).  Checked on the code: plain clang -O2 calls memcpy/memset (the premise),
# sonde-cc -O2 calls neither and instruments both loops.
cat >idiom.c <<'EOC'
void copy(double *restrict a, const double *restrict b, long n)
{
	for (long i = 0; i < n; i++)
		a[i] = b[i];
}
void fill(double *a, long n)
{
	for (long i = 0; i < n; i++)
		a[i] = 0;
}
EOC
clang -O2 -c idiom.c -o idiom-plain.o
check t051-idiom-premise-clang-calls-memcpy sh -c 'nm idiom-plain.o | grep -q " U memcpy" &&
	nm idiom-plain.o | grep -q " U memset"'
"$CCW" -O2 -c idiom.c -o idiom.o
check t051-idiom-no-memcpy-memset sh -c '! nm idiom.o | grep -q -E " U mem(cpy|set)"'
check t051-idiom-loops-instrumented sh -c 'nm idiom.o | grep -q " U __sanitizer_cov_load" &&
	nm idiom.o | grep -q " U __sanitizer_cov_store"'
# Adjacent stores merged into a memset (clang's memcpyopt): su3_bench zeroes 3x3 complex
# matrices element by element, and at -O3 got vector stores and no callback (the trial of
# 2026-11-29, F2).  Premise: the coverage flags and -disable-loop-idiom-all alone leave
# zero() no store callback; sonde-cc's build has some.
cat >merge.c <<'EOC'
typedef struct { float re, im; } cplx;
typedef struct { cplx e[3][3]; } su3;
void zero(su3 *a, long n)
{
	for (long i = 0; i < n; i++)
		for (int j = 0; j < 3; j++)
			for (int k = 0; k < 3; k++) {
				a[i].e[j][k].re = 0;
				a[i].e[j][k].im = 0;
			}
}
EOC
clang -O3 -fsanitize-coverage=edge,trace-loads,trace-stores -mllvm -disable-loop-idiom-all \
	-c merge.c -o merge-plain.o
if nm merge-plain.o | grep -q " U __sanitizer_cov_store"; then
	skip t051-merge "this clang merges no stores of zero() into a memset: nothing to show"
else
	"$CCW" -O3 -c merge.c -o merge.o
	check t051-merge-stores-instrumented sh -c 'nm merge.o | grep -q " U __sanitizer_cov_store"'
fi
