#!/usr/bin/env bash
# bench/variance-short.sh - how well `sonde variance` measures short instances on debug
# registers, where each instance's two traps (~15 us with attr.sigtrap, ~28 us with the
# engine's real-time signal) are subtracted (doc/sonde-variance.md, "Below the
# resolution").  tests/workloads/variance/vshort.c runs leaves of 2, 5, 10, 20 and 50 us
# of CPU work and times its own calls; the truth is its CPU time per call run natively
# just before each recording (same loop count, VSHORT_PER_US, in the same load).  Cases:
#   - gcc -O1 build, traps by attr.sigtrap (the default: `gcc`), by the real-time signal
#     (SONDE_WATCH_SIGTRAP=0: `gcc-rtsig`); the sonde-cc --sonde-calls build (`hooks`:
#     call hooks, no trap; what is subtracted is the clock reads' own cost) and the
#     --sonde-calls-only build (`hooks-only`: the hooks without the access callbacks);
#     where the debug registers do not trap, the hook cases only;
#   - with BEFORE=DIR (another build directory): `before`, the gcc case by DIR's sonde,
#     in the same rounds (side by side);
#   - alone, then beside BUSY co-runners (CPU-bound loops, default 2: one per core here).
# Per function and case, over RUNS runs: the truth, the mean CPU time per instance, the
# mean's error (us; the average over the runs of mean - truth), the 10th/50th/90th
# percentiles of the instances' own errors (instance - truth, all runs), the fraction
# clamped at 0, and how many runs called the function below the resolution (the
# verdict's "below"); per case the cost subtracted and the resolution the report states.
# Prints, never fails.
#   bench/variance-short.sh     (RUNS=N, default 3; SECS per run, default 3; BUSY=N;
#                                BEFORE=DIR; CASES="gcc gcc-rtsig hooks hooks-only")
# VARIANCE_SHORT_ONLY=calib: the calibration alone, CALIB_RUNS (default 20) short runs of
# each build (this one and BEFORE's, in turn), alone and beside BUSY loops: the spread of
# the cost each run subtracted (thread CPU time, attr.sigtrap delivery), and how many runs
# read it over the least by more than 1 us, or off the median either way.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
SONDE_BUILD=${SONDE_BUILD:-$top/build}
SONDE=$SONDE_BUILD/sonde
T=$(mktemp -d)
busy_pids=""
cleanup() { [ -n "$busy_pids" ] && kill $busy_pids 2>/dev/null; rm -rf "$T"; }
# the co-runners of a loaded round: start BUSY of them, or stop them
busy_start() { for i in $(seq "$BUSY"); do ./spin & busy_pids="$busy_pids $!"; done; }
busy_stop() {
	[ -n "$busy_pids" ] || return 0
	kill $busy_pids 2>/dev/null
	wait $busy_pids 2>/dev/null
	busy_pids=""
}
trap cleanup EXIT
cd "$T" || exit 1
RUNS=${RUNS:-3}
SECS=${SECS:-3}
BUSY=${BUSY:-2}
src=$top/tests/workloads/variance/vshort.c
command -v gcc >/dev/null || { echo "bench: variance-short skipped: gcc is not installed"; exit 0; }
gcc -O1 -g -fno-omit-frame-pointer "$src" -o vshort || exit 0
cases=${CASES:-gcc gcc-rtsig hooks hooks-only}
# where the debug registers do not trap, the hook builds alone (their instances need no
# trap; the soft path subtracts its clock reads' cost: rt-variance.c, read_cost_calibrate)
if ! "$SONDE" info 2>/dev/null | grep -q "their traps fire"; then
	echo "bench: variance-short: the debug registers do not trap here: the hook builds only"
	cases=$(echo " $cases " | sed 's/ gcc-rtsig / /; s/ gcc / /; s/ before / /')
	BEFORE=
fi
for h in hooks hooks-only; do
	case " $cases " in *" $h "*)
		flag=--sonde-calls
		[ $h = hooks-only ] && flag=--sonde-calls-only
		command -v clang >/dev/null && "$SONDE_BUILD/sonde-cc" $flag -O1 "$src" -o v$h 2>/dev/null ||
			cases=$(echo " $cases " | sed "s/ $h / /") ;;
	esac
done
[ -n "$(echo $cases)" ] || { echo "bench: variance-short skipped: no case to run"; exit 0; }
[ -n "${BEFORE:-}" ] && cases="before $cases"
printf 'int main(void) { volatile unsigned long x = 0; for (;;) x++; }\n' >spin.c
gcc -O1 spin.c -o spin || exit 0
PER_US=$(./vshort 0.2 | awk '$2 == "loop" { print $3 }')
if [ "${VARIANCE_SHORT_ONLY:-}" = calib ]; then
	builds="now"
	[ -n "${BEFORE:-}" ] && builds="before now"
	echo "bench: variance-short calibration: the cost subtracted, ${CALIB_RUNS:-20} runs of each build ($(date -u '+%Y-%m-%d %H:%M') UTC, load $(cut -d' ' -f1-3 /proc/loadavg))"
	for load in alone busy; do
		if [ $load = busy ]; then
			busy_start
			sleep 0.5
		fi
		for b in $builds; do : >"cal.$b"; done
		for r in $(seq "${CALIB_RUNS:-20}"); do
			for b in $builds; do
				s=$SONDE
				[ $b = before ] && s=$BEFORE/sonde
				rm -rf c
				VSHORT_PER_US=$PER_US "$s" variance -q -o c -- ./vshort 0.02 >/dev/null 2>&1
				sqlite3 c/profile.db "SELECT value FROM meta WHERE key = 'trap_cpu_ns'" >>"cal.$b" 2>/dev/null
			done
		done
		busy_stop
		for b in $builds; do
			sort -g "cal.$b" | awk -v b=$b -v l=$load '{ a[NR] = $1 / 1e3 } END {
				printf "  %-6s %-5s %2d runs: min %.2f, p10 %.2f, median %.2f, p90 %.2f, max %.2f us; over min + 1 us: %d\n",
					b, l, NR, a[1], a[int(NR * 0.1) + 1], a[int((NR + 1) / 2)], a[NR - int(NR * 0.1)], a[NR],
					0 }' >line
			over=$(sort -g "cal.$b" | awk 'NR == 1 { m = $1 } $1 > m + 1000 { n++ } END { print n + 0 }')
			# either way off the median: a cost read low (rounds the thread lost its
			# CPU in) leaves the traps in every instance, as one read high takes too much
			off=$(sort -g "cal.$b" | awk '{ a[NR] = $1 } END { m = a[int((NR + 1) / 2)]
				for (i = 1; i <= NR; i++) if (a[i] > m + 1000 || a[i] < m - 1000) n++; print n + 0 }')
			sed "s/over min + 1 us: 0/over min + 1 us: $over, more than 1 us off the median: $off/" line
		done
	done
	exit 0
fi
export VSHORT_PER_US=$PER_US

# one_run DIR CASE: the native truth, then a recording; appends to CASE.LOAD one line per
# function: "fn truth mean clamped below res" and to CASE.LOAD.inst the instances' errors
# ("fn err").
one_run() {
	local d=$1 c=$2 bin=./vshort s=$SONDE env=""
	case $c in
	gcc-rtsig) env="SONDE_WATCH_SIGTRAP=0" ;;
	hooks) bin=./vhooks ;;
	hooks-only) bin=./vhooks-only ;;
	before) s=$BEFORE/sonde ;;
	esac
	$bin "$SECS" >"$d.native"
	env $env "$s" variance -q -p 1000000 -o "$d" -- $bin "$SECS" >/dev/null 2>"$d.err"
	[ -f "$d/variance/functions.csv" ] || return
	awk -F, -v out="$d.native" -v sum="$c.$load" -v inst="$c.$load.inst" '
		BEGIN { while ((getline l < out) > 0) { split(l, a, " ");
			if (a[1] == "vshort" && a[3] == "calls") truth[a[2]] = a[6] } }
		FNR == 1 { file++ }
		file == 1 && FNR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		file == 1 && $h["metric"] == "cpu-time" && ($1 in truth) && $2 == "main > " $1 {
			printf "%s %s %s %s %s %s\n", $1, truth[$1], $h["mean"], $h["clamped"],
				$h["below"], ($h["resolution"] == "" ? 0 : $h["resolution"]) >> sum }
		file == 2 && FNR > 1 && ($1 in truth) && $2 == "main > " $1 {
			print $1, $7 - truth[$1] >> inst }' \
		"$d/variance/functions.csv" "$d/variance/instances.csv"
	sqlite3 "$d/profile.db" "SELECT value FROM meta WHERE key = 'trap_cpu_ns'" >>"$c.$load.cost" 2>/dev/null
}

report() {
	local c=$1 f
	printf '  %-5s %8s %8s %9s   %-26s %8s %8s\n' fn truth mean "mean err" "instance err p10/p50/p90" clamped "below"
	for f in w2 w5 w10 w20 w50; do
		sort -g -k2 "$c.$load.inst" | awk -v f=$f '$1 == f { e[++n] = $2 }
			END { if (n) printf "%s %s %s\n", e[int(n * 0.1) + 1], e[int(n * 0.5) + 1], e[int(n * 0.9) + 1]; else print "nan nan nan" }' >q
		awk -v f=$f -v q="$(cat q)" '$1 == f { n++; t += $2; m += $3; err += $3 - $2; cl += $4; b += $5 }
			END { if (!n) exit; split(q, p, " ")
				printf "  %-5s %8.2f %8.2f %+9.2f   %+7.2f %+7.2f %+7.2f     %7.1f%% %4d of %d\n",
				f, t / n / 1e3, m / n / 1e3, err / n / 1e3, p[1] / 1e3, p[2] / 1e3, p[3] / 1e3,
				cl / n * 100, b, n }' "$c.$load"
	done
	printf '  subtracted (us of CPU time, each run):'
	awk '{ printf " %.2f", $1 / 1e3 }' "$c.$load.cost"
	awk '$1 == "w2" { printf "; resolution stated: %.2f us", $6 / 1e3; exit }' "$c.$load"
	echo
}

echo "bench: variance-short: leaves of 2-50 us of CPU time under sonde variance (-p 1 ms, $SECS s a run, $RUNS runs a case, $PER_US loop iterations/us; $(date -u '+%Y-%m-%d %H:%M') UTC, load $(cut -d' ' -f1-3 /proc/loadavg))"
for load in alone busy; do
	if [ $load = busy ]; then
		busy_start
		sleep 0.5
	fi
	for c in $cases; do : >"$c.$load"; : >"$c.$load.inst"; : >"$c.$load.cost"; done
	for r in $(seq "$RUNS"); do
		for c in $cases; do one_run "r-$c-$load-$r" "$c"; done
	done
	busy_stop
	for c in $cases; do
		echo
		echo "  $c, $load$([ $load = busy ] && echo " (beside $BUSY CPU-bound loops)"), load now $(cut -d' ' -f1 /proc/loadavg); in us, errors = measured - the native run's CPU time per call"
		report "$c"
	done
done
