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
#      recording's counters), and the whole run's extra time per measured instance;
#      measured instances per second per busy thread.
#   bench/variance.sh        (VWORK_ITERS=... changes the amount of work)
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
builds="vcalls"
if "$SONDE" info 2>/dev/null | grep -q "their traps fire" && command -v gcc >/dev/null &&
	gcc -O2 -g -fno-omit-frame-pointer -pthread "$src" -o vgcc 2>/dev/null; then
	builds="vcalls vgcc"
fi

echo "bench: variance call hooks without sonde (sonde-cc with vs without --sonde-calls, calls workload)"
: >r
for i in $(seq "$PAIRS"); do
	VWORK_ITERS=40 bench_time a ./vplain calls 0
	VWORK_ITERS=40 bench_time b ./vcalls calls 0
	bench_ratio a b | cut -d' ' -f1 >>r
done
echo "  time ratio median $(median <r)x"

for bin in $builds; do
for w in calls:60 mix:300; do
	mode=${w%%:*} it=${w#*:}
	[ "$bin" = vgcc ] && it=$((it * 12))	# gcc -O2 runs the rounds 10-18x faster (no hooks)
	: >rt
	: >rm
	: >ev
	for i in $(seq "$PAIRS"); do
		VWORK_ITERS=$it bench_time n ./$bin "$mode" 0
		rm -rf "d$i"
		# The program's own time and peak memory, under the runtime (not the CLI's
		# analysis afterwards): /usr/bin/time runs inside the recording.
		VWORK_ITERS=$it "$SONDE" variance -q -o "d$i" -- /usr/bin/time -f "$BENCH_TIMEFMT" \
			-o p ./$bin "$mode" 0 >/dev/null 2>&1
		read -r t m < <(bench_ratio n p)
		echo "$t" >>rt
		echo "$m" >>rm
		read -r ne _ <n
		read -r pe _ <p
		db=d$i/profile.db
		q() { sqlite3 "$db" "select value from meta where key = '$1'" 2>/dev/null || echo 0; }
		echo "$ne $pe $(q samples) $(q entries) $(q returns) $(q handler_ns)" >>ev
	done
	backend=$(sqlite3 d1/profile.db "select value from meta where key = 'watch_backend'" 2>/dev/null)
	echo "bench: variance on '$mode' built by $([ "$bin" = vgcc ] && echo "gcc -O2" || echo "sonde-cc --sonde-calls"), backend ${backend:-?} ($it rounds, default period, $PAIRS alternating pairs)"
	echo "  time ratio median $(median <rt)x, peak memory ratio median $(median <rm)x"
	awk '{ s += $3; e += $4; r += $5; h += $6; d += ($2 - $1); w += $2 }
	     END { ev = s + e + r;
		   printf "  per event (sample, entry trap or return trap): %.1f us in the tool'\''s handlers (%d samples, %d entries, %d returns)\n", ev ? h / ev / 1e3 : 0, s, e, r;
		   printf "  extra run time per measured instance: %.1f us; %.0f instances per second (one busy thread)\n", r ? d * 1e6 / r : 0, w ? r / w : 0 }' ev
done
done
