#!/usr/bin/env bash
# bench/reuse-window.sh - `sonde reuse --exact`'s cost when a thread's accesses alternate
# between code more than 16 MB apart (the engine keeps code addresses per 16 MB window,
# doc/sonde-reuse.md): tests/workloads/reuse/farcode.c with its load in a shared library
# (far) against the same program with the load in it (near).  Instructions per access
# under valgrind's callgrind (deterministic: no load to name), each whole run divided by
# its accesses, and the difference.  Prints; never fails on numbers.
#   bench/reuse-window.sh [WORDS PASSES]   (default 1000 400: 800 000 accesses)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${SONDE_BUILD:-$top/build}
words=${1:-1000} passes=${2:-400}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v clang >/dev/null || { echo "bench: clang missing (sonde-cc needs it)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "bench: valgrind missing" >&2; exit 1; }
src=$top/tests/workloads/reuse/farcode.c
cd "$work" || exit 1
"$B/sonde-cc" -O2 -g -fPIC -shared -DFARCODE_LIB "$src" -o libfarcode.so &&
	"$B/sonde-cc" -O2 -g "$src" -L. -lfarcode -Wl,-rpath,"$work" -o far &&
	"$B/sonde-cc" -O2 -g -DFARCODE_NEAR "$src" -o near ||
	{ echo "bench: sonde-cc could not build farcode" >&2; exit 1; }
for p in near far; do
	"$B/sonde" reuse -q --exact -o r$p -- valgrind --tool=callgrind --callgrind-out-file=$p.cg \
		./$p "$words" "$passes" >/dev/null 2>&1
	i=$(callgrind_annotate $p.cg 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
	a=$(sqlite3 r$p/profile.db "select value from meta where key = 'accesses'")
	eval "i_$p=\$i a_$p=\$a"
	printf '%s: %s instructions, %s accesses, %.1f an access\n' $p "$i" "$a" "$(awk -v i="$i" -v a="$a" 'BEGIN { print i / a }')"
done
awk -v n="$i_near" -v f="$i_far" -v a="$a_far" 'BEGIN { printf "two code windows cost %.1f instructions an access more than one\n", (f - n) / a }'
