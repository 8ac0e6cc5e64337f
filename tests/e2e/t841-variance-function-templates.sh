#!/usr/bin/env bash
# t841-variance-function-templates: `sonde variance --function` takes a C++ name as a user
# writes it: a bare name stands for that function in any class or namespace, a class
# template's name without its arguments for every instantiation, a full one for itself
# (the trial of 2026-11-29, F4: "--function fasten_main" on miniBUDE, whose nm -C lists 8
# OmpBude<N>::fasten_main, was "no function"; only "OmpBude<8ul>::fasten_main" ran).  By
# construction: Grid<float>::work and Grid<double>::work, each ~3 M additions, called 30
# times each, most of the run (sonde-cc's call hooks: debug registers do not trap
# everywhere).  And a function asked for that no sample found says so (F3: nothing
# timed, and not a word).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"
command -v clang++ >/dev/null || { skip t841 "clang++ is not installed (sonde-cc needs it)"; exit 0; }
cat >ft.cc <<'C'
#include <cstdio>
static volatile unsigned long sink;
template <class T> struct Grid {
	__attribute__((noinline)) T work(int n)
	{
		T x = static_cast<T>(sink);
		for (int i = 0; i < n; i++)
			x = x * static_cast<T>(0.999) + static_cast<T>(1);
		return x;
	}
};
__attribute__((noinline)) void never_sampled(void) { sink = sink + 1; }
int main()
{
	Grid<float> f;
	Grid<double> d;
	double s = 0;
	never_sampled();
	for (int r = 0; r < 30; r++)
		s += f.work(3000000) + d.work(3000000);
	printf("ft %d\n", s > 0);
	return 0;
}
C
"$SONDE_BUILD/sonde-cc" --sonde-calls-only -O1 ft.cc -o ft 2>cc.err || { fail t841-build "$(head -3 cc.err)"; exit 0; }
# WANT NAME: the instantiations a --function NAME run times (instances above 0)
for spec in "both:work" "both:Grid::work" "double:Grid<double>::work"; do
	want=${spec%%:*} name=${spec#*:}
	d=run-$want-${name//[^a-z]/}
	"$SONDE" variance -q -o "$d" --function "$name" -- ./ft >out 2>err
	check "t841-$name-status" [ $? -eq 0 ]
	F=$d/variance/functions.csv
	nf=$(awk -F, 'NR > 1 && $1 ~ /^Grid<float>::work/ && $3 == "cpu-time" { s += $4 } END { print s + 0 }' $F 2>/dev/null)
	nd=$(awk -F, 'NR > 1 && $1 ~ /^Grid<double>::work/ && $3 == "cpu-time" { s += $4 } END { print s + 0 }' $F 2>/dev/null)
	echo "    --function $name: Grid<float>::work $nf instances, Grid<double>::work $nd"
	if [ "$want" = both ]; then
		check "t841-$name-both-timed" [ "${nf:-0}" -gt 0 -a "${nd:-0}" -gt 0 ]
	else
		check "t841-$name-double-only" [ "${nf:-0}" -eq 0 -a "${nd:-0}" -gt 0 ]
	fi
done
# a bare name that is no function: still a usage error, the program not run
"$SONDE" variance -o bad --function wor -- ./ft >o1 2>e1
check t841-prefix-not-taken [ $? -eq 2 ]
# asked for, never sampled (called once, a few instructions): said in the only: line
"$SONDE" variance -o ns --function never_sampled -- ./ft >/dev/null 2>ns.err
check t841-never-status [ $? -eq 0 ]
flat ns.err >ns.flat
if [ "$(sqlite3 ns/profile.db "SELECT value FROM meta WHERE key = 'picks'")" = 0 ]; then
	check t841-never-said grep -q "only: never_sampled (--function: .*; none was picked: no sample found one on a thread's stack, so none was timed" ns.flat
else
	skip t841-never-said "a sample found never_sampled on the stack: the note is for none"
fi
# function templates (a return type before the name) in an anonymous namespace, ABI tags:
# the bare name is found (the code review of 2026-11-29: "double (anonymous
# namespace)::work<double>(int)" was no function 'work'); resolved before the run
if command -v g++ >/dev/null; then
	cat >ft2.cc <<'C'
#include <cstdio>
#include <string>
namespace {
template <class T> __attribute__((noinline)) T work(int n)
{
	T x = 0;
	for (int i = 0; i < n; i++)
		x = x * static_cast<T>(0.999) + static_cast<T>(1);
	return x;
}
}
__attribute__((noinline)) std::string label(int n) { return std::to_string(n); }
int main()
{
	double t = 0;
	for (int r = 0; r < 3; r++)
		t += work<float>(1000) + work<double>(1000);
	printf("%g %s\n", t, label(3).c_str());
	return 0;
}
C
	g++ -O1 -g ft2.cc -o ft2 2>g.err || { fail t841-gxx-build "$(head -3 g.err)"; exit 0; }
	for name in work label; do
		"$SONDE" variance -q -o g-$name --function $name -- ./ft2 >/dev/null 2>g-$name.err
		check "t841-gxx-$name-resolved" [ $? -eq 0 ]
	done
fi
