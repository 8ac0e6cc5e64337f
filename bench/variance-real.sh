#!/usr/bin/env bash
# bench/variance-real.sh - sonde variance at its default period on OpenMP programs it was
# not written with (issue 9, "Performance": a real program; doc/sonde-variance.md "Costs"):
# LULESH 2.0 (LLNL, C++ + OpenMP) and NPB 3.4's OpenMP kernels, built by gcc with frame
# pointers (-O2 -g -fno-omit-frame-pointer -fopenmp: variance walks frame pointers), run
# with debug registers (the hw watch backend).  Their binaries are not in this repository:
#   LULESH_BIN=/path/to/lulesh2.0 NPB_OMP_BIN=/path/to/NPB3.4-OMP/bin bench/variance-real.sh
# (defaults: /work/ext/lulesh/lulesh2.0 and /work/ext/npbomp/bin).  LLVM's runtime (libomp,
# whose regions are timed through OMPT): LULESH's five .cc files built by
# `clang++ -O2 -g -fno-omit-frame-pointer -fopenmp -DUSE_MPI=0`, LULESH_BIN=that binary.  LULESH_ARGS (-s 30 -i 50),
# VARIANCE_REAL_NPB (is.A: the kernels run, by their bin/ names), VARIANCE_REAL_PAIRS (5),
# OMP_NUM_THREADS (2), OMP_WAIT_POLICY (passive, below).  A program that is missing is skipped, and says so.
# Per program: VARIANCE_REAL_PAIRS alternating pairs (native first in odd pairs, profiled
# first in even ones), the program's own run timed by GNU time inside the recording (not
# sonde's analysis afterwards); medians of the time (elapsed) and CPU time (user + sys)
# ratios, and the load; then, from the last profiled run: samples, picks, instances per
# second per thread, context switches, the handlers' CPU time, and the table's first rows.
# VARIANCE_REAL_B='VAR=value ...': a third run in each pair, profiled with that environment
# as well (a variant, for example SONDE_VARIANCE_CLOSE=0 for the slots' events kept open),
# its ratios to the same native run printed beside the default's, and the system time
# (the context switches' cost) of native, default and variant.  With the variant
# SONDE_LIBDIR=<another build> it is that build's runtime (a before/after in the same pairs).
# Each profiled run's picks, entries armed that fired, missed picks and instances, medians
# over the pairs, for the default and the variant.
# Never fails on numbers.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
SONDE_BUILD=${SONDE_BUILD:-$top/build}
SONDE=$SONDE_BUILD/sonde
LULESH_BIN=${LULESH_BIN:-/work/ext/lulesh/lulesh2.0}
LULESH_ARGS=${LULESH_ARGS:--s 30 -i 50}
NPB_OMP_BIN=${NPB_OMP_BIN:-/work/ext/npbomp/bin}
npb=${VARIANCE_REAL_NPB:-is.A}
pairs=${VARIANCE_REAL_PAIRS:-5}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
# passive unless asked otherwise: libgomp's default spins at its barriers, and on a shared
# 2-core machine a spinning thread burns CPU time waiting for a descheduled partner
# (LULESH native: 2.7 to 16.5 s of CPU time in 5 runs at load 10-15, 13:27 UTC); the
# ratios then measure the co-runners, not sonde
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
. "$top/bench/lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
command -v sqlite3 >/dev/null || { echo "bench: variance-real skipped: sqlite3 not found"; exit 0; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
meta() { sqlite3 "$1/profile.db" "select value from meta where key = '$2'" 2>/dev/null; }

# picks DIR: one profiled run's "picks entries missed instances instances/s/thread long
# bursts", long: the instances longer than 8 sample periods (the patience before 858ac62; a
# pick made inside one gave it up before its frame returned); bursts: the entries caught by
# bursts (rt-variance.c, arm_burst; 0 where the runtime has none)
picks() {
	local w t
	w=$(meta "$1" wall_ns) t=$(meta "$1" threads)
	echo "$(meta "$1" picks) $(meta "$1" entries) $(meta "$1" missed) $(meta "$1" returns)" \
		"$(awk -v w="$w" -v t="$t" -v r="$(meta "$1" returns)" 'BEGIN { print (w > 0 && t > 0 ? r / (w / 1e9) / t : 0) }')" \
		"$(sqlite3 "$1/profile.db" "select count(*) from var_instances where time > 8 * $(meta "$1" period)" 2>/dev/null)" \
		"$(b=$(meta "$1" burst_entries); echo "${b:-0}")"
}
# pickline LABEL FILE: medians of picks' lines
pickline() {
	echo "  $1, medians of $(wc -l <"$2") runs: $(cut -d' ' -f1 "$2" | median) picks," \
		"$(cut -d' ' -f2 "$2" | median) entries, $(cut -d' ' -f3 "$2" | median) missed" \
		"($(awk '$1 > 0 { print 100 * $3 / $1 }' "$2" | median)% of the picks)," \
		"$(cut -d' ' -f4 "$2" | median) instances ($(cut -d' ' -f5 "$2" | median) a second per thread;" \
		"runs: $(cut -d' ' -f4 "$2" | tr '\n' ' ' | sed 's/ $//')), of which longer than 8 periods" \
		"$(cut -d' ' -f6 "$2" | median) (runs: $(cut -d' ' -f6 "$2" | tr '\n' ' ' | sed 's/ $//')), by bursts" \
		"$(cut -d' ' -f7 "$2" | median)"
}

# one NAME CMD...: the pairs and the summary of one program
one() {
	local name=$1 i
	shift
	: >rt
	: >rc
	: >rtb
	: >rcb
	: >sys
	: >mt
	: >mtb
	local l0 t0
	l0=$(load) t0=$(date -u +%H:%M)
	for i in $(seq "$pairs"); do
		if [ $((i % 2)) -eq 1 ]; then
			bench_time n "$@"
		fi
		rm -rf prof
		"$SONDE" variance -q -o prof -- /usr/bin/time -f "$BENCH_TIMEFMT" -o p "$@" \
			>/dev/null 2>prof.err || { echo "  $name: sonde variance failed: $(tail -1 prof.err)"; return; }
		if [ -n "${VARIANCE_REAL_B:-}" ]; then
			rm -rf profb
			# shellcheck disable=SC2086
			env $VARIANCE_REAL_B "$SONDE" variance -q -o profb -- \
				/usr/bin/time -f "$BENCH_TIMEFMT" -o pb "$@" >/dev/null 2>profb.err ||
				{ echo "  $name: sonde variance ($VARIANCE_REAL_B) failed: $(tail -1 profb.err)"; return; }
		fi
		if [ $((i % 2)) -eq 0 ]; then
			bench_time n "$@"
		fi
		picks prof >>mt
		[ -n "${VARIANCE_REAL_B:-}" ] && picks profb >>mtb
		if [ -n "${VARIANCE_REAL_B:-}" ]; then
			awk 'NR == FNR { ne = $1; next } { print (ne > 0 ? $1 / ne : "nan") }' n pb >>rtb
			awk 'NR == FNR { nc = $2 + $3; next } { print (nc > 0 ? ($2 + $3) / nc : "nan") }' n pb >>rcb
			echo "$(cut -d' ' -f3 n) $(cut -d' ' -f3 p) $(cut -d' ' -f3 pb)" >>sys
		fi
		awk 'NR == FNR { ne = $1; nc = $2 + $3; next }
		     { print (ne > 0 ? $1 / ne : "nan") }' n p >>rt
		awk 'NR == FNR { ne = $1; nc = $2 + $3; next }
		     { print (nc > 0 ? ($2 + $3) / nc : "nan") }' n p >>rc
		echo "  pair $i: native $(awk '{ printf "%.2f s, CPU %.2f s", $1, $2 + $3 }' n)," \
			"profiled $(awk '{ printf "%.2f s, CPU %.2f s", $1, $2 + $3 }' p)${VARIANCE_REAL_B:+, variant $(awk '{ printf "%.2f s, CPU %.2f s", $1, $2 + $3 }' pb)}"
	done
	echo "bench: variance on $name ($pairs pairs, OMP_NUM_THREADS=$OMP_NUM_THREADS OMP_WAIT_POLICY=$OMP_WAIT_POLICY," \
		"$t0-$(date -u +%H:%M) UTC, load $l0 -> $(load)):"
	echo "  time ratio median $(median <rt)x, CPU time (user + sys) ratio median $(median <rc)x"
	if [ -n "${VARIANCE_REAL_B:-}" ]; then
		echo "  with $VARIANCE_REAL_B: time ratio median $(median <rtb)x, CPU time ratio median $(median <rcb)x"
		echo "  system time medians: native $(cut -d' ' -f1 sys | median) s," \
			"default $(cut -d' ' -f2 sys | median) s, $VARIANCE_REAL_B $(cut -d' ' -f3 sys | median) s"
	fi
	pickline "default" mt
	[ -n "${VARIANCE_REAL_B:-}" ] && pickline "$VARIANCE_REAL_B" mtb
	local w samples picks ret thr sw hcpu
	w=$(meta prof wall_ns) samples=$(meta prof samples) picks=$(meta prof picks)
	ret=$(meta prof returns) thr=$(meta prof threads) sw=$(meta prof switches)
	hcpu=$(meta prof handler_cpu_ns)
	awk -v w="$w" -v s="$samples" -v p="$picks" -v r="$ret" -v t="$thr" -v sw="$sw" \
		-v h="$hcpu" -v cpu="$(awk '{ print $2 + $3 }' p)" 'BEGIN {
		printf "  last run: %d samples, %d picks, %d instances (%.1f a second per thread of %d, %.1f per CPU second), %d context switches, handlers %.1f%% of CPU time (%.1f us per sample + instance)\n",
			s, p, r, (w > 0 && t > 0 ? r / (w / 1e9) / t : 0), t, (cpu > 0 ? r / cpu : 0),
			sw, (cpu > 0 ? 100 * h / 1e9 / cpu : 0), (s + r > 0 ? h / 1e3 / (s + r) : 0) }'
	local si se sc
	si=$(meta prof samples_idle) se=$(meta prof samples_entry) sc=$(meta prof slot_closes)
	[ -n "$si" ] && awk -v s="$samples" -v i="$si" -v e="$se" -v c="$sc" 'BEGIN {
		printf "  the samples found both slots idle at %.0f%%, an entry waiting (nothing pending) at %.0f%%; %d idle slots closed\n",
			(s > 0 ? 100 * i / s : 0), (s > 0 ? 100 * e / s : 0), c }'
	"$SONDE" report prof 2>/dev/null | awk '/^ *#  function/ { on = 1 } on && !NF { exit } on' |
		head -9 | cut -c1-200 | sed 's/^/    /'
}

if [ -x "$LULESH_BIN" ]; then
	# shellcheck disable=SC2086
	one "LULESH 2.0 $LULESH_ARGS" "$LULESH_BIN" $LULESH_ARGS
else
	echo "bench: variance-real: LULESH skipped: no $LULESH_BIN (LULESH_BIN=)"
fi
for k in $npb; do
	if [ -x "$NPB_OMP_BIN/$k" ]; then
		one "NPB-OMP $k" "$NPB_OMP_BIN/$k"
	else
		echo "bench: variance-real: NPB $k skipped: no $NPB_OMP_BIN/$k (NPB_OMP_BIN=)"
	fi
done
