#!/usr/bin/env bash
# t305: C++ names are demangled in the hot-spot tables (as perf report shows them) and in the
# inline frames of the --function view; --function finds a C++ function by its demangled
# name, by that name without parameters, and by its mangled name.
. "$(dirname "$0")/lib.sh"
if ! command -v perf >/dev/null || ! command -v g++ >/dev/null; then
	skip t305-analyze-cxx "needs perf and g++"
	exit 0
fi
if [ ! -e /usr/lib/x86_64-linux-gnu/libstdc++.so.6 ] && ! ldconfig -p | grep -q 'libstdc++.so.6 '; then
	skip t305-analyze-cxx "no libstdc++.so.6 to demangle with"
	exit 0
fi
cat >w.cc <<'C'
#include <cstdio>
namespace ns {
struct Hot {
	double k;
	static inline __attribute__((always_inline)) double step(double x, double k)
	{
		return x * k + 0.5; // LINE_STEP
	}
	__attribute__((noinline)) double spin(long n)
	{
		double s = 0;
		for (long i = 0; i < n; i++) {
			double x = (double)i;
			for (int j = 0; j < 40; j++)
				x = step(x, k);
			s += x;
		}
		return s;
	}
};
}
int main()
{
	ns::Hot h{1.0000001};
	std::printf("%f\n", h.spin(5000000));
	return 0;
}
C
g++ -O2 -g -o w w.cc
if ! perf record -q -e cpu-clock -o perf.data ./w >/dev/null 2>perf.err || [ ! -s perf.data ]; then
	skip t305-analyze-cxx "perf record failed: $(head -1 perf.err)"
	exit 0
fi
want='ns::Hot::spin(long)'
mangled=$(nm w | awk '/ _ZN2ns3Hot4spinEl$/ { print $3 }')

p_sym=$(perf report -i perf.data --no-children --stdio --sort sym 2>/dev/null |
	awk '!/^#/ && /%/ { sub(/^ *[0-9.]+% +\[\.\] /, ""); sub(/ +$/, ""); print; exit }')
"$SONDE" analyze perf.data >out.txt 2>err.txt
# the name is after the last two-space gap once "  module  [process]" is cut
s_sym=$(awk '/^Hot functions/ { getline; getline; sub(/ +w +\[w\]$/, ""); n = split($0, a, "  "); print a[n]; exit }' out.txt)
# perf shows C++ names without their parameters
if [ "$s_sym" = "$want" ] && [ "$p_sym" = "${want%%(*}" ]; then
	pass t305-hot-function-demangled
else
	fail t305-hot-function-demangled "sonde '$s_sym', perf '$p_sym', want '$want'"
fi

for q in "$want" ns::Hot::spin "$mangled"; do
	"$SONDE" analyze --function "$q" perf.data >fn.txt 2>err.txt
	rc=$?
	if [ "$rc" -eq 0 ] && grep -qF "$want" fn.txt; then
		pass "t305-function-by-name '$q'"
	else
		fail "t305-function-by-name '$q'" "rc=$rc: $(head -c 300 err.txt)"
	fi
done
# the inlined callee in the source view: its demangled (qualified) name
line_step=$(grep -n LINE_STEP w.cc | cut -d: -f1)
if grep -qF "w.cc:$line_step  (inlined ns::Hot::step(double, double)" fn.txt; then
	pass t305-inlined-demangled
else
	fail t305-inlined-demangled "$(grep -F "w.cc:$line_step" fn.txt | head -3 | tr '\n' ' ')"
fi
