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

# bench_others OUT CMD...: run CMD (its output kept as it is), then write to OUT the share
# of the machine's CPUs that other processes used while it ran: /proc/stat's busy
# jiffies (steal included) less CMD's own user+sys time (its waited-for children
# included; CMD may be a shell function), over its wall time x the CPUs.  Whatever else this script runs meanwhile
# (an injected co-runner) counts as "others".
bench_others() {
	local out=$1 a b t0 t1 TIMEFORMAT='%U %S'
	shift
	a=$(awk 'NR == 1 { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat)
	t0=$(date +%s.%N)
	# bash's time: CMD may be a shell function; its own stderr goes on to ours
	{ time "$@" 2>&4; } 4>&2 2>"$out.cpu"
	t1=$(date +%s.%N)
	b=$(awk 'NR == 1 { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat)
	awk -v a="$a" -v b="$b" -v t0="$t0" -v t1="$t1" -v hz="$(getconf CLK_TCK)" -v n="$(nproc)" \
		'END { o = ((b - a) / hz - $1 - $2) / ((t1 - t0) * n); printf "%.0f%%\n", 100 * (o < 0 ? 0 : o) }' \
		"$out.cpu" >"$out"
}
