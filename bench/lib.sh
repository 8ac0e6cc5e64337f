# bench/lib.sh - sourced by bench/*.sh: shared helpers for side-by-side measurements.
#   median            reads numbers on stdin, prints their median ("nan" for none)
#   bench_pair OUT NATIVE_CMD -- PROFILED_PREFIX   (see below)
#   bench_scratch NAME  a temporary working directory, and gcc or a skip (see below)
# Every bench script prints its figures and never fails on numbers.
median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print a[(NR+1)/2]; else printf "%.4f\n", (a[NR/2]+a[NR/2+1])/2}'; }
# min_med_max: "min / median / max" (3 decimals) of the numbers on stdin, blank lines and
# "-" left out; "-" when none
min_med_max() {
	sort -g | awk 'NF && $1 != "-" { a[++n] = $1 } END { if (!n) { print "-"; exit }
		m = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		printf "%.3f / %.3f / %.3f\n", a[1], m, a[n] }'
}

# bench_scratch NAME: a fresh temporary directory, $T, removed at exit and made the working
# directory; where gcc is not installed, says that NAME is skipped and exits the script (0).
bench_scratch() {
	T=$(mktemp -d)
	trap 'rm -rf "$T"' EXIT
	cd "$T" || exit 1
	command -v gcc >/dev/null || { echo "bench: $1 skipped: gcc is not installed"; exit 0; }
}

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

# bench_others OUT DIR CMD...: run CMD (its output kept as it is), a sonde vsensor job
# writing to DIR, then write to OUT the share of the machine's CPUs that other processes
# used while it ran: /proc/stat's busy jiffies (steal included) less the job's own CPU
# time, over its wall time x the CPUs.  The job's CPU time is what its ranks' main
# threads recorded in DIR/rank-*.rec (read with $SONDE vsensor records; the CPU-share
# pseudo-sensor's seconds: mpirun's
# ranks are not its waited-for children, so CMD's rusage misses them) plus CMD's own
# user+sys time (CMD may be a shell function).  Other threads of the ranks (an injected
# busy thread, MPI's progress thread) count as others.
bench_others() {
	local out=$1 dir=$2 a b t0 t1 TIMEFORMAT='%U %S'
	shift 2
	a=$(awk 'NR == 1 { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat)
	t0=$(date +%s.%N)
	{ time "$@" 2>&4; } 4>&2 2>"$out.cpu"
	t1=$(date +%s.%N)
	b=$(awk 'NR == 1 { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat)
	"${SONDE:-sonde}" vsensor records "$dir" >"$out.rec" 2>/dev/null
	python3 - "$dir" "$out.cpu" "$a" "$b" "$t0" "$t1" "$(getconf CLK_TCK)" "$(nproc)" "$out.rec" >"$out" <<'PY'
import csv, os, sys
d, cpuf, a, b, t0, t1, hz, n, recf = sys.argv[1:]
own = sum(float(x) for x in open(cpuf).read().split()[-2:])
ids = {}
try:
    for r in csv.DictReader(open(os.path.join(d, "sensors.csv"))):
        ids.setdefault(r["rank"], []).append(r["sensor"])
except OSError:
    pass
for r in csv.DictReader(open(recf)):
    names, s = ids.get(r["rank"], []), int(r["sensor"])
    if 0 <= s < len(names) and names[s] == "(cpu share)":
        own += float(r["seconds"])
o = ((int(b) - int(a)) / int(hz) - own) / ((float(t1) - float(t0)) * int(n))
print("%.0f%%" % (100 * max(o, 0)))
PY
}

# rbench_or_skip NAME OUT: rbench (tests/workloads/reuse/rbench.c) built by
# $SONDE_BUILD's sonde-cc into OUT; where it cannot be (no clang), says that NAME is
# skipped and exits the script (0)
rbench_or_skip() {
	command -v clang >/dev/null ||
		{ echo "bench: $1 skipped: clang is not installed (sonde-cc needs it)"; exit 0; }
	"$SONDE_BUILD/sonde-cc" -O2 -g -pthread "$top/tests/workloads/reuse/rbench.c" -o "$2" ||
		{ echo "bench: $1 skipped: sonde-cc could not build rbench"; exit 0; }
}

# rbench_build OUT: the reuse benchmarks' workload (tests/workloads/reuse/rbench.c) built
# by this build's sonde-cc into OUT; exits the script with a message where it cannot be
rbench_build() {
	command -v clang >/dev/null || { echo "bench: clang missing (sonde-cc needs it)" >&2; exit 1; }
	"$B/sonde-cc" -O2 -g -pthread "$top/tests/workloads/reuse/rbench.c" -o "$1" ||
		{ echo "bench: sonde-cc could not build rbench" >&2; exit 1; }
}
