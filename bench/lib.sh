# bench/lib.sh - sourced by bench/*.sh: shared helpers for side-by-side measurements.
#   median            reads numbers on stdin, prints their median ("nan" for none)
#   bench_pair OUT NATIVE_CMD -- PROFILED_PREFIX   (see below)
# Every bench script prints its figures and never fails on numbers.
median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print a[(NR+1)/2]; else printf "%.4f\n", (a[NR/2]+a[NR/2+1])/2}'; }

# GNU time's format for "elapsed user sys maxrss_kb"
BENCH_TIMEFMT='%e %U %S %M'

# bench_time OUT CMD...: run CMD under GNU time, its figures ("elapsed user sys maxrss_kb")
# in OUT; CMD's stdout is discarded.
bench_time() { local out=$1; shift; /usr/bin/time -f "$BENCH_TIMEFMT" -o "$out" "$@" >/dev/null; }

# bench_ratio A B: prints B/A's time and memory ratios ("t m") of two bench_time files.
bench_ratio() {
	local ne nu ns nm se su ss sm
	read -r ne nu ns nm <"$1"
	read -r se su ss sm <"$2"
	awk -v ne="$ne" -v se="$se" -v nm="$nm" -v sm="$sm" \
		'BEGIN { printf "%s %s\n", (ne > 0 ? se / ne : "nan"), (nm > 0 ? sm / nm : "nan") }'
}
