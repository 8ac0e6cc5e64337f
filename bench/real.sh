#!/usr/bin/env bash
# bench/real.sh - every tool's cost on a real program the project did not write (the
# issues' "and on a real program"), measured side by side: each round runs the program
# natively, under `perf record` with the clock source's own event and period, and under
# each tool at its defaults, in turn; medians of the rounds' ratios.  GNU time runs inside
# each (the program's own time and peak RSS, not the analysis afterwards).  Prints; never
# fails on numbers.  The program is not bundled: build it yourself (doc/benchmarks.md says
# how for LULESH and XSBench) and name it:
#   BENCH_REAL="/path/lulesh2.0 -s 30 -i 100 -q" bench/real.sh [ROUNDS]   (default 3)
#   BENCH_REAL_TOOLS="mem comm comm--no-watch variance reuse"   (the rows; that is the default)
#     a row is TOOL[--OPTION][:VAR=VALUE[,VAR=VALUE]]: "mem:SONDE_CLOCK_INHERIT=0" runs
#     `sonde mem` with that variable set (doc/benchmarks.md uses it to split comm's cost)
# The environment passes through (OMP_NUM_THREADS, OMP_WAIT_POLICY, ...).
# Columns: time and CPU (user + system) ratios, the system time added per voluntary
# context switch of the native run (where a perf event or an armed debug register is paid:
# doc/benchmarks.md; "-" under 1,000 switches), the peak-memory ratio, and the native
# run's switches per second.
# `perf record -e cpu-clock -c 900000` takes the same timer samples as sonde's clock source
# and nothing else (no data address, no call path, no watchpoint): the floor of sampling
# with that timer on this machine, not a comparison of outputs.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${SONDE_BUILD:-$top/build}
rounds=${1:-3}
. "$top/bench/lib.sh"
if [ -z "${BENCH_REAL:-}" ]; then
	echo "bench-real: skipped (set BENCH_REAL to a real program's command line; doc/benchmarks.md)"
	exit 0
fi
read -r -a cmd <<<"$BENCH_REAL"
if ! command -v "${cmd[0]}" >/dev/null; then
	echo "bench-real: skipped (BENCH_REAL names '${cmd[0]}', which is not an executable)"
	exit 0
fi
tools=${BENCH_REAL_TOOLS:-mem comm comm--no-watch variance reuse}
rows="native"
if command -v perf >/dev/null && perf record -q -o /dev/null -e cpu-clock -c 900000 -- true >/dev/null 2>&1; then
	rows="$rows perf-record"
else
	echo "bench-real: perf record cannot sample here: its row is left out"
fi
rows="$rows $tools"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fmt="$BENCH_TIMEFMT %w"

# run ROW OUT: one run of the program under ROW, its GNU time figures in OUT
run() {
	local row=$1 out=$2 tool opt=
	case $row in
	native) /usr/bin/time -f "$fmt" -o "$out" "${cmd[@]}" >/dev/null 2>"$work/err" ;;
	perf-record)
		perf record -q -e cpu-clock -c 900000 -o "$work/perf.data" -- \
			/usr/bin/time -f "$fmt" -o "$out" "${cmd[@]}" >/dev/null 2>"$work/err" ;;
	*)
		local spec=${row%%:*} envs=
		[ "$spec" != "$row" ] && envs=${row#*:}
		tool=${spec%%--*}
		[ "$tool" != "$spec" ] && opt=--${spec#*--}
		rm -rf "$work/d"
		env ${envs//,/ } "$B/sonde" "$tool" -q $opt -o "$work/d" -- \
			/usr/bin/time -f "$fmt" -o "$out" "${cmd[@]}" >/dev/null 2>"$work/err" ;;
	esac
	[ -s "$out" ] || { echo "bench-real: $row did not run: $(head -c 200 "$work/err")"; return 1; }
	# GNU time writes "Command exited with non-zero status N" first when it does
	sed -i '/^Command/d' "$out"
}

echo "bench: real program under each tool, $rounds alternating rounds (medians); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  program: $BENCH_REAL${OMP_NUM_THREADS:+ (OMP_NUM_THREADS=$OMP_NUM_THREADS}${OMP_WAIT_POLICY:+ OMP_WAIT_POLICY=$OMP_WAIT_POLICY}${OMP_NUM_THREADS:+)}"
for i in $(seq 1 "$rounds"); do
	for r in $rows; do
		run "$r" "$work/$r.t" || continue
		read -r e u s m w <"$work/$r.t"
		echo "$r $e $u $s $m $w" >>"$work/all"
		if [ "$r" = native ]; then
			read -r ne nu ns nm nw <"$work/native.t"
		else
			awk -v r="$r" -v e="$e" -v u="$u" -v s="$s" -v m="$m" -v ne="$ne" -v nu="$nu" \
				-v ns="$ns" -v nm="$nm" -v nw="$nw" 'BEGIN {
				printf "%s %.4f %.4f %s %.4f\n", r, e / ne, (nu + ns > 0 ? (u + s) / (nu + ns) : 0),
					(nw >= 1000 ? sprintf("%.1f", (s - ns) * 1e6 / nw) : "-"), m / nm }' >>"$work/ratios"
		fi
	done
done
[ -s "$work/all" ] || exit 0
col() { awk -v r="$1" -v k="$2" '$1 == r { print $k }' "$work/$3" | median; }
printf '  %-28s %7s %7s %9s %7s   %s\n' row time cpu "sys/switch" memory "native: time, switches/s, peak RSS"
printf '  %-28s %7s %7s %9s %7s   %ss, %.0f/s, %s KB\n' native 1 1 - 1 "$(col native 2 all)" \
	"$(awk '$1 == "native" { print $6 / ($2 > 0 ? $2 : 1) }' "$work/all" | median)" "$(col native 5 all)"
for r in $rows; do
	[ "$r" = native ] && continue
	grep -q "^$r " "$work/ratios" 2>/dev/null || continue
	sw=$(awk -v r="$r" '$1 == r && $4 != "-" { print $4 }' "$work/ratios" | median)
	[ "$sw" = nan ] && sw=- || sw=${sw}us
	printf '  %-28s %6sx %6sx %9s %6sx\n' "$r" "$(col "$r" 2 ratios)" "$(col "$r" 3 ratios)" \
		"$sw" "$(col "$r" 5 ratios)"
done
