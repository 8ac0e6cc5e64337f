#!/usr/bin/env bash
# bench/reuse-same.sh - does a change to `sonde reuse --exact` keep its results?  Runs the
# rbench workloads (and t514's manypairs, t516's widepairs, bench/reuse-window.sh's far
# farcode: code in two 16 MB windows) under --exact with this build
# and with the build in REUSE_BENCH_BEFORE, and compares histogram.csv, missratio.csv and
# pairs.csv byte for byte.  Private caches (words and, for the sweep, lines).  Not
# --shared: two threads in one stack interleave differently from run to run, and one
# build against itself differs there.  ribench's threads share nothing, so the
# interleaving does not change their results; pingpong's and readshare's could (an
# invalidation depends on which store comes first): a difference is printed, not hidden.
# The two build directories' paths must have the same length: the runtime's path is in
# the environment, whose strings sit on the program's stack before argv's, so a longer one
# moves the argument strings, which the program reads byte by byte (ribench's -r), across
# word boundaries (it changes a few short reuses: seen with /tmp/e-before-build against
# /work/wt-e/build).  Both run without address randomization (setarch -R) where it can:
# the sweep's lines under --spatial depend on where its array starts within a line, and
# the same build gave two different results over 6 runs with it.  Prints one line a
# workload and file; exit status 1 when one differs.
#   REUSE_BENCH_BEFORE=DIR bench/reuse-same.sh
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${SONDE_BUILD:-$top/build}
before=${REUSE_BENCH_BEFORE:-}
# (`make bench` runs every script: without a build to compare with, this one says so)
[ -n "$before" ] || { echo "bench: reuse-same compares two builds: REUSE_BENCH_BEFORE=DIR names the other; nothing to do"; exit 0; }
[ -x "$before/sonde" ] || { echo "bench: $before/sonde missing" >&2; exit 2; }
command -v clang >/dev/null || { echo "bench: clang missing (sonde-cc needs it)" >&2; exit 2; }
[ "${#B}" = "${#before}" ] || { echo "bench: $B and $before: paths of different lengths (see above)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
W=$top/tests/workloads/reuse
"$B/sonde-cc" -O2 -g -pthread "$W/rbench.c" -o "$work/rb" &&
	"$B/sonde-cc" -O2 -g "$W/manypairs.c" -o "$work/mp" &&
	"$B/sonde-cc" -O2 -g "$W/widepairs.c" -o "$work/wp" &&
	"$B/sonde-cc" -O2 -g -fPIC -shared -DFARCODE_LIB "$W/farcode.c" -o "$work/libfarcode.so" &&
	"$B/sonde-cc" -O2 -g "$W/farcode.c" -L"$work" -lfarcode -Wl,-rpath,"$work" -o "$work/far" ||
	{ echo "bench: sonde-cc could not build the workloads" >&2; exit 2; }
norand=()
setarch -R true 2>/dev/null && norand=(setarch -R)
echo "bench: $B against $before, $(date -u '+%F %T UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)${norand:+, setarch -R}"
bad=0
n=0
# one FLAGS -- PROGRAM ARGS: both builds, the three files compared
one() {
	local flags=() name
	while [ "$1" != -- ]; do flags+=("$1"); shift; done
	shift
	name="${flags[*]} $(basename "$1") ${*:2}"
	n=$((n + 1))
	rm -rf "$work/a" "$work/b"
	"${norand[@]}" "$B/sonde" reuse -q --exact "${flags[@]}" -o "$work/a" -- "$@" >/dev/null 2>&1
	"${norand[@]}" "$before/sonde" reuse -q --exact "${flags[@]}" -o "$work/b" -- "$@" >/dev/null 2>&1
	for f in histogram missratio pairs; do
		if [ ! -s "$work/a/reuse/$f.csv" ] || [ ! -s "$work/b/reuse/$f.csv" ]; then
			r="missing"
			bad=1
		elif cmp -s "$work/a/reuse/$f.csv" "$work/b/reuse/$f.csv"; then
			r="identical ($(wc -l <"$work/a/reuse/$f.csv") lines)"
		else
			r="DIFFER"
			bad=1
		fi
		printf '  %-40s %-10s %s\n' "$name" "$f.csv" "$r"
	done
}
cd "$work" || exit 2
one -- ./rb ribench -t 1 -o 6
one -- ./rb ribench -t 2 -o 6
one -- ./rb ribench -t 2 -o 6 -r 50,40,40,10,3
one -- ./rb sweep 1000 300
one --spatial -- ./rb sweep 1000 300
one -- ./rb pingpong 20000
one -- ./rb readshare 1000 20 2
one -- ./mp 5000
one -- ./wp 200
one -- ./far 1000 20
[ "$bad" = 0 ] && echo "bench: all $n workloads identical" || echo "bench: some differ (above)"
exit "$bad"
