#!/usr/bin/env bash
# bench/analyze.sh - `sonde analyze` against `perf report` on the same perf.data (~500k
# samples recorded with callchains), like for like and against perf's default report:
#   flat:    perf report --stdio --no-children -g none --sort comm,dso,sym -i FILE
#            (a flat profile by process, module and function, as sonde analyze prints)
#   default: perf report --stdio -i FILE
#            (perf's default: children columns and a call graph under every entry)
#   sonde:   sonde analyze FILE
#
# The file is recorded once here (perf record -e cpu-clock -c PERIOD -g) on a small workload
# of its own (below: deep and varied call chains through many functions, libc's qsort and
# memcpy, and read(2) for kernel samples), for as long as the sample rate this machine
# allows needs to reach the target.  Then the three reports run in turn, ROUNDS times (the
# order rotating each round), each under GNU time; every round gives, for each perf report,
# its ratio over sonde analyze of elapsed time, of CPU time (user + system: what other load
# on the machine disturbs less) and of peak memory (max RSS); the medians are printed.
# Prints; never fails on numbers.
#   bench/analyze.sh [ROUNDS] [SAMPLES]     (defaults 5 and 500000)
#   SONDE_BENCH_PERFDATA=FILE bench/analyze.sh    (reuse a recording instead)
#   SONDE_BENCH_SAVE=FILE bench/analyze.sh        (keep the recording made here)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${SONDE_BUILD:-$top/build}
pairs=${1:-5}
want=${2:-500000}
sonde=$B/sonde
# the accounting templates, wherever the binary was built
export SONDE_TOPDOWN_DIR=${SONDE_TOPDOWN_DIR:-$top/data/topdown}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$sonde" ] || { echo "bench-analyze: $sonde not built" >&2; exit 1; }
if ! command -v perf >/dev/null || [ ! -x /usr/bin/time ]; then
	echo "bench-analyze: skipped (needs perf and GNU time)"
	exit 0
fi
. "$top/bench/lib.sh"

cat >"$work/deep.c" <<'C'
/* Two threads; each step recurses 4..19 frames deep through four mutually recursive
 * functions (in one of 4 patterns), then runs one of 16 leaves (arithmetic, qsort with a
 * callback, memcpy, read): about a thousand distinct call paths, like a real program. */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;
static double stop_at;
static int devzero;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

#define LEAF(n) __attribute__((noinline)) static uint64_t leaf##n(uint64_t x) \
	{ for (int i = 0; i < 3000 + 500 * n; i++) x = x * 6364136223846793005ull + n; return x; }
LEAF(0) LEAF(1) LEAF(2) LEAF(3) LEAF(4) LEAF(5) LEAF(6) LEAF(7) LEAF(8) LEAF(9) LEAF(10)

static int cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

__attribute__((noinline)) static uint64_t sorter(uint64_t x)
{
	uint32_t v[512];
	for (int i = 0; i < 512; i++)
		v[i] = (uint32_t)(x = x * 6364136223846793005ull + 1442695040888963407ull) >> 7;
	qsort(v, 512, sizeof(v[0]), cmp);
	return v[x & 511];
}

__attribute__((noinline)) static uint64_t copier(uint64_t x)
{
	static __thread char a[1 << 16], b[1 << 16];
	for (int i = 0; i < 8; i++) {
		memcpy(a, b, sizeof(a));
		b[i] = (char)x;
	}
	return (uint64_t)a[x & 0xffff];
}

__attribute__((noinline)) static uint64_t reader(uint64_t x)
{
	static __thread char buf[1 << 16];
	for (int i = 0; i < 4; i++)
		if (read(devzero, buf, sizeof(buf)) < 0)
			x++;
	return x + (uint64_t)buf[x & 0xffff];
}

static uint64_t (*const leaves[16])(uint64_t) = {
	leaf0, leaf1, leaf2, leaf3, leaf4, leaf5, leaf6, leaf7, leaf8, leaf9, leaf10,
	sorter, sorter, copier, copier, reader,
};

static uint64_t r0(int d, uint64_t x), r1(int d, uint64_t x), r2(int d, uint64_t x),
	r3(int d, uint64_t x);
static uint64_t (*const rs[4])(int, uint64_t) = { r0, r1, r2, r3 };
#define REC(n) __attribute__((noinline)) static uint64_t r##n(int d, uint64_t x) \
	{ uint64_t v = d ? rs[(d + (x >> 60)) & 3](d - 1, x) : leaves[(x >> 40) & 15](x); \
	  sink += v; return v ^ n; }
REC(0) REC(1) REC(2) REC(3)

static void *run(void *arg)
{
	uint64_t x = (uintptr_t)arg * 0x9e3779b97f4a7c15ull + 1;
	while (now() < stop_at) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		sink += rs[x >> 62](4 + (int)((x >> 33) % 16), x);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	devzero = open("/dev/zero", O_RDONLY);
	stop_at = now() + (argc > 1 ? atof(argv[1]) : 1.0);
	pthread_create(&t, NULL, run, (void *)1);
	run((void *)2);
	pthread_join(t, NULL);
	return 0;
}
C
if ! gcc -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -pthread \
	-o "$work/deep" "$work/deep.c" 2>"$work/cc.err"; then
	echo "bench-analyze: cannot build the workload: $(head -1 "$work/cc.err")"
	exit 0
fi

data=${SONDE_BENCH_PERFDATA:-}
if [ -z "$data" ]; then
	data=$work/deep.data
	period=20000
	# the kernel throttles high rates (perf_event_max_sample_rate): measure the rate first
	perf record -q -e cpu-clock -c $period -g -o "$work/cal.data" -- "$work/deep" 2 \
		>/dev/null 2>"$work/rec.err"
	n=$(perf report -i "$work/cal.data" --stats 2>/dev/null | awk '/^ *SAMPLE events:/ { print $3; exit }')
	if [ -z "$n" ] || [ "$n" -eq 0 ]; then
		echo "bench-analyze: skipped (perf record failed: $(head -1 "$work/rec.err"))"
		exit 0
	fi
	secs=$(awk -v n="$n" -v w="$want" 'BEGIN { s = 2 * w / n * 1.2; if (s > 300) s = 300; printf "%.1f", s }')
	echo "bench-analyze: recording ~$want samples: cpu-clock -c $period -g, ${secs}s (calibration: $n samples in 2s)"
	perf record -q -e cpu-clock -c $period -g -o "$data" -- "$work/deep" "$secs" \
		>/dev/null 2>"$work/rec.err"
	[ -n "${SONDE_BENCH_SAVE:-}" ] && cp "$data" "$SONDE_BENCH_SAVE"
fi
nsamples=$("$sonde" analyze --stats "$data" | awk '$1 == "SAMPLE" { print $2 }')
echo "bench-analyze: $data: ${nsamples:-?} samples, $(stat -c %s "$data") bytes; $pairs rounds"

flat=(perf report --stdio --no-children -g none --sort comm,dso,sym -i "$data")
full=(perf report --stdio -i "$data")
echo "bench-analyze: flat    = ${flat[*]}"
echo "bench-analyze: default = ${full[*]}"
echo "bench-analyze: sonde   = sonde analyze $data"

# Warm the page cache (and perf's build-id cache lookups) before timing.
"${flat[@]}" >/dev/null 2>&1
"$sonde" analyze "$data" >/dev/null 2>&1

# timed CMD...: "elapsed_s cpu_s max_rss_kb" of CMD (elapsed from the clock: GNU time's %e
# has 10 ms steps; cpu = user + system, which other load on the machine disturbs less)
timed() {
	local t0 t1
	t0=$(date +%s%N)
	/usr/bin/time -f '%U %S %M' -o "$work/rss" "$@" >/dev/null 2>>"$work/err"
	t1=$(date +%s%N)
	tail -1 "$work/rss" | awk -v a="$t0" -v b="$t1" \
		'{ printf "%.3f %.2f %s\n", (b - a) / 1e9, $1 + $2, $3 }'
}
# run WHICH: one report, timed
run() {
	case $1 in
	flat) timed "${flat[@]}" ;;
	full) timed "${full[@]}" ;;
	sonde) timed "$sonde" analyze "$data" ;;
	esac
}
: >"$work/rows"
for i in $(seq 1 "$pairs"); do
	# rotate the order so that no report always runs first (or after the same one)
	case $((i % 3)) in
	1) order="flat sonde full" ;;
	2) order="sonde full flat" ;;
	0) order="full flat sonde" ;;
	esac
	for w in $order; do
		read -r e c m < <(run "$w")
		eval "${w}_e=\$e ${w}_c=\$c ${w}_m=\$m"
	done
	# one row per round: the ratios of each perf report over sonde analyze, then the values
	awk -v fe="$flat_e" -v fc="$flat_c" -v fm="$flat_m" -v de="$full_e" -v dc="$full_c" \
		-v dm="$full_m" -v se="$sonde_e" -v sc="$sonde_c" -v sm="$sonde_m" '
		function r(a, b) { return b > 0 ? a / b : 0 }
		BEGIN { print r(fe, se), r(fc, sc), r(fm, sm), r(de, se), r(dc, sc), r(dm, sm),
			fe, fc, fm, de, dc, dm, se, sc, sm }' >>"$work/rows"
	printf '  round %d: flat %ss (cpu %ss) %sKB, default %ss (cpu %ss) %sKB, sonde %ss (cpu %ss) %sKB\n' \
		"$i" "$flat_e" "$flat_c" "$flat_m" "$full_e" "$full_c" "$full_m" "$sonde_e" "$sonde_c" "$sonde_m"
done
col() { awk -v k="$1" '{ print $k }' "$work/rows" | median; }
printf 'medians of %d rounds, %s, %s CPUs (%s):\n' "$pairs" "$(uname -m)" "$(nproc)" \
	"$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
printf '  %-36s %9s %9s %11s\n' "" elapsed cpu "peak RSS"
printf '  %-36s %8ss %8ss %8s KB\n' "sonde analyze" "$(col 13)" "$(col 14)" "$(col 15)"
printf '  %-36s %8ss %8ss %8s KB\n' "perf report flat" "$(col 7)" "$(col 8)" "$(col 9)"
printf '  %-36s %8ss %8ss %8s KB\n' "perf report default (call graph)" "$(col 10)" "$(col 11)" "$(col 12)"
# ratio = perf report's figure / sonde analyze's: above 1, sonde is faster or smaller
printf 'perf report flat / sonde analyze:     elapsed %.1fx, cpu %.1fx, peak memory %.1fx\n' \
	"$(col 1)" "$(col 2)" "$(col 3)"
printf 'perf report default / sonde analyze:  elapsed %.1fx, cpu %.1fx, peak memory %.1fx\n' \
	"$(col 4)" "$(col 5)" "$(col 6)"
exit 0
