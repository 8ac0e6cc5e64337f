#!/usr/bin/env bash
# bench/variance.sh - sonde variance's costs (issue 9); prints, never fails on numbers.
#   1. the call hooks of `sonde-cc --sonde-calls`, without sonde: the same program built
#      with and without them (both sonde-cc), alternating runs, median ratio;
#   2. time and peak memory of the program under `sonde variance` (default period; the
#      program alone, timed inside the recording) against the same binary run natively, on two bundled workloads of fixed work: `calls` (a call-heavy
#      loop of tiny functions) and `mix` (1-10 unit functions), 5 alternating pairs, medians;
#      each for the --sonde-calls build (call hooks, soft breakpoints) and, where debug
#      registers trap, for a plain gcc build (hardware breakpoints and watchpoints);
#   3. cost per sample and per trap: the tool's own handler time per event (from the
#      recording's counters: wall time, which a loaded machine inflates, and thread CPU
#      time, which it does not), and the whole run's extra time per measured instance;
#      measured instances per second per busy thread;
#   4. where the extra peak memory goes (load-independent): bench/memory.sh's variance
#      cases (peak RSS alone, with libsonde.so preloaded and the runtime off, and under
#      `sonde variance`, medians of PAIRS; then the resident memory at exit by mapping).
#   bench/variance.sh        (VARIANCE_BENCH_SCALE=N: N times the rounds, default 4: runs
#                             of 0.5-1.7 s, where GNU time's 10 ms steps are 0.6-2% of a
#                             ratio, not the 2-7% of runs 4 times shorter;
#                             VARIANCE_BENCH_PERIOD=NS: parts 2-3 at that period, not
#                             the default; VARIANCE_BENCH_ONLY=memory runs part 4 alone)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
SONDE_BUILD=${SONDE_BUILD:-$top/build}
SONDE=$SONDE_BUILD/sonde
. "$top/bench/lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
command -v clang >/dev/null || { echo "bench: variance skipped: clang is not installed"; exit 0; }
src=$top/tests/workloads/variance/vwork.c
"$SONDE_BUILD/sonde-cc" --sonde-calls -O2 -pthread "$src" -o vcalls || exit 0
"$SONDE_BUILD/sonde-cc" -O2 -pthread "$src" -o vplain || exit 0
PAIRS=${PAIRS:-5}
plabel=${VARIANCE_BENCH_PERIOD:+period $VARIANCE_BENCH_PERIOD ns}
plabel=${plabel:-default period}
builds="vcalls"
if "$SONDE" info 2>/dev/null | grep -q "their traps fire" && command -v gcc >/dev/null &&
	gcc -O2 -g -fno-omit-frame-pointer -pthread "$src" -o vgcc 2>/dev/null; then
	builds="vcalls vgcc"
fi

only=${VARIANCE_BENCH_ONLY:-}
[ "$only" = memory ] || {
echo "bench: variance call hooks without sonde (sonde-cc with vs without --sonde-calls, calls workload)"
: >r
for i in $(seq "$PAIRS"); do
	VWORK_ITERS=$((40 * ${VARIANCE_BENCH_SCALE:-4})) bench_time a ./vplain calls 0
	VWORK_ITERS=$((40 * ${VARIANCE_BENCH_SCALE:-4})) bench_time b ./vcalls calls 0
	bench_ratio a b | cut -d' ' -f1 >>r
done
echo "  time ratio median $(median <r)x"

for bin in $builds; do
for w in calls:60 mix:300; do
	mode=${w%%:*} it=$((${w#*:} * ${VARIANCE_BENCH_SCALE:-4}))
	[ "$bin" = vgcc ] && it=$((it * 12))	# gcc -O2 runs the rounds 10-18x faster (no hooks)
	: >rt
	: >rm
	: >rc
	: >ev
	for i in $(seq "$PAIRS"); do
		VWORK_ITERS=$it bench_time n ./$bin "$mode" 0
		rm -rf "d$i"
		# The program's own time and peak memory, under the runtime (not the CLI's
		# analysis afterwards): /usr/bin/time runs inside the recording.
		VWORK_ITERS=$it "$SONDE" variance -q -o "d$i" ${VARIANCE_BENCH_PERIOD:+-p "$VARIANCE_BENCH_PERIOD"} \
			-- /usr/bin/time -f "$BENCH_TIMEFMT" \
			-o p ./$bin "$mode" 0 >/dev/null 2>&1
		read -r t m < <(bench_ratio n p)
		echo "$t" >>rt
		echo "$m" >>rm
		# CPU time (user + sys), which waiting for a busy machine's cores does not add to
		awk 'NR == FNR { n = $2 + $3; next } { if (n > 0) print ($2 + $3) / n }' n p >>rc
		read -r ne _ <n
		read -r pe _ <p
		db=d$i/profile.db
		q() { sqlite3 "$db" "select value from meta where key = '$1'" 2>/dev/null || echo 0; }
		echo "$ne $pe $(q samples) $(q entries) $(q returns) $(q handler_ns) $(q handler_cpu_ns)" >>ev
	done
	# the program's own backend (its .proc): the recording-wide meta row may be
	# /usr/bin/time's, which runs under the runtime too (hw, no hooks)
	backend=$(grep -l "^exe=.*/$bin\$" d1/*.proc 2>/dev/null | head -1 | xargs -r sed -n 's/^watch=//p')
	echo "bench: variance on '$mode' built by $([ "$bin" = vgcc ] && echo "gcc -O2" || echo "sonde-cc --sonde-calls"), backend ${backend:-?} ($it rounds, $plabel, $PAIRS alternating pairs)"
	echo "  time ratio median $(median <rt)x, CPU time ratio median $(median <rc)x, peak memory ratio median $(median <rm)x"
	# handler_cpu_ns is absent where the runtime did not measure it: not a 0
	awk '{ s += $3; e += $4; r += $5; h += $6; c += $7; d += ($2 - $1); w += $2; if (NF < 7) nc = 1 }
	     END { ev = s + e + r;
		   cpu = nc ? "their CPU time not measured" : sprintf("%.1f us of their CPU time", ev ? c / ev / 1e3 : 0);
		   printf "  per event (sample, entry trap or return trap): %.1f us in the tool'\''s handlers, %s (%d samples, %d entries, %d returns)\n", ev ? h / ev / 1e3 : 0, cpu, s, e, r;
		   printf "  extra run time per measured instance: %.1f us; %.0f instances per second (one busy thread)\n", r ? d * 1e6 / r : 0, w ? r / w : 0 }' ev
done
done
}

# 4. Where the extra peak memory goes: bench/memory.sh, the same breakdown for every tool
# (PAIRS runs each; its variance cases are this script's workloads, the gcc build where
# debug registers trap).
PAIRS=$PAIRS SONDE_BUILD=$SONDE_BUILD "$top/bench/memory.sh" variance
exit 0
