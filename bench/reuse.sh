#!/usr/bin/env bash
# bench/reuse.sh - cost of `sonde reuse` on RIBench (2 threads, built with sonde-cc),
# measured side by side in one run: the sonde-cc program alone (its callbacks are no-ops),
# then sampled (inst source, period 4001 and the default 10007) and --exact, alternating,
# each pair giving a ratio; medians printed.  Targets (issue 10): sampled <= 1.5x the
# sonde-cc program's own run, --exact <= 5x (10x cheaper than the Pin-based tool's 49x),
# memory <= 1.5x.  Elapsed-time ratios on a loaded machine mostly measure the load (a
# process with more CPU to do waits longer for it), so the CPU-time (user + sys) ratios
# are printed too.  Prints; never fails on numbers.
#   bench/reuse.sh [PAIRS]     (default 5)
#   bench/reuse.sh callgrind   instructions per access of --exact and of sampled mode
#                              (period 10007) against the program's own (valgrind's callgrind,
#                              one thread: the steady state, a run of -o 6 minus one of -o 2),
#                              the whole -o 6 runs' totals, and the functions --exact runs
#   bench/reuse.sh cachesim    the same runs under --cache-sim=yes: instructions, loads and
#                              stores per access
# REUSE_BENCH_BEFORE=DIR adds, in every round (in callgrind and cachesim: once), --exact and sampled (period 10007) run by
# another build's sonde (DIR: its build directory, e.g. a copy of build/ made before a
# change): before and after side by side, under the same load.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${SONDE_BUILD:-$top/build}
pairs=${1:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$top/bench/lib.sh"
rbench_build "$work/rb"
if [ "${1:-}" = callgrind ] || [ "${1:-}" = cachesim ]; then
	command -v valgrind >/dev/null || { echo "bench: valgrind missing" >&2; exit 1; }
	before=${REUSE_BENCH_BEFORE:-}
	[ -z "$before" ] || [ -x "$before/sonde" ] || { echo "bench: $before/sonde missing" >&2; exit 1; }
	cgopt=()
	[ "$1" = callgrind ] || cgopt=(--cache-sim=yes)
	echo "bench: reuse.sh $1; $(date -u '+%F %T UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
	# tot EVENT FILE: an event's count over the whole run (Ir; with --cache-sim also Dr, Dw)
	tot() { callgrind_annotate --show="$1" "$2" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'; }
	acc() { sqlite3 "$1/profile.db" "select value from meta where key = 'accesses'"; }
	quiet() { "$@" 2>&1 >/dev/null | grep -v -e "this program was not built by sonde-cc" -e "only software watchpoints can" >&2; }
	cd "$work" || exit 1
	for o in 2 6; do
		valgrind --tool=callgrind "${cgopt[@]}" --log-file=n$o.log --callgrind-out-file=n$o.cg \
			./rb ribench -t 1 -o $o >/dev/null
	done
	# run SONDE TAG ARGS...: `sonde reuse ARGS` on -o 2 and -o 6 under callgrind (TAG2.cg, TAG6.cg)
	run() {
		local s=$1 tag=$2 o
		shift 2
		for o in 2 6; do
			quiet "$s" reuse -q "$@" -o $tag$o -- valgrind --tool=callgrind "${cgopt[@]}" \
				--log-file=$tag$o.log --callgrind-out-file=$tag$o.cg ./rb ribench -t 1 -o $o
		done
	}
	run "$B/sonde" e --exact
	run "$B/sonde" s --source inst
	[ -z "$before" ] || { run "$before/sonde" be --exact; run "$before/sonde" bs --source inst; }
	# every figure an access: -o 6 minus -o 2 over the accesses --exact counted between them
	# (the steady state: start-up and the recording's end cancel out; the program is the same
	# in every run, so are its accesses)
	da=$(( $(acc e6) - $(acc e2) ))
	per() { awk -v x="$(tot "$1" "${2}6.cg")" -v y="$(tot "$1" "${2}2.cg")" -v n="$da" 'BEGIN { printf "%.1f", (x - y) / n }'; }
	mil() { awk -v x="$(tot Ir "${1}6.cg")" 'BEGIN { printf "%.1fM", x / 1e6 }'; }
	if [ "$1" = callgrind ]; then
		echo "instructions per access (rbench ribench -t 1, -o 6 minus -o 2: $da accesses): program $(per Ir n), under --exact $(per Ir e)"
		echo "  sampled (inst, period 10007) $(per Ir s); whole -o 6 runs: program $(mil n), --exact $(mil e), sampled $(mil s)"
		[ -z "$before" ] ||
			echo "  before ($before): --exact $(per Ir be), sampled $(per Ir bs); whole -o 6 runs: --exact $(mil be), sampled $(mil bs)"
		echo "functions (self, -o 6; share of all instructions):"
		callgrind_annotate e6.cg 2>/dev/null | awk '/file:function/ { on = 1; next } on == 1 && /^-/ { on = 2; next }
			on == 2 && (/^-/ || /^$/) { exit } on == 2 && match($0, /\( *[0-9.]+%\) +[^ ]+/) { print "  " substr($0, RSTART, RLENGTH) }' |
			sed "s|$top/||" | head -10
	else
		line() { printf '  %-30s instructions %s, loads %s, stores %s\n' "$2" "$(per Ir "$1")" "$(per Dr "$1")" "$(per Dw "$1")"; }
		echo "per access (callgrind --cache-sim=yes, rbench ribench -t 1, -o 6 minus -o 2: $da accesses):"
		line n program
		line e --exact
		line s "sampled (inst, period 10007)"
		[ -z "$before" ] || { line be "--exact, before"; line bs "sampled, before"; echo "  (before: $before)"; }
	fi
	echo "bench: done $(date -u '+%F %T UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
	exit 0
fi

# -o 300: the program alone runs ~0.5-1 s on the 2-core VM (-o 40 ran 0.05-0.12 s, too
# short to time against process start-up and the recording's own start and end)
args="ribench -t 2 -o 300"

# cpu_ratio A B: B's user + sys CPU time over A's (two bench_time files)
cpu_ratio() {
	local ne nu ns nm se su ss sm
	read -r ne nu ns nm <"$1"
	read -r se su ss sm <"$2"
	awk -v a="$nu" -v b="$ns" -v c="$su" -v d="$ss" 'BEGIN { n = a + b; printf "%s\n", (n > 0 ? (c + d) / n : "nan") }'
}

before=${REUSE_BENCH_BEFORE:-}
[ -z "$before" ] || [ -x "$before/sonde" ] || { echo "bench: $before/sonde missing" >&2; exit 1; }
echo "bench: rbench $args, $pairs alternating rounds (native sonde-cc run, sampled p4001, sampled p10007, sampled --spatial, --exact${before:+, --exact and sampled p10007 of $before}); $(date -u '+%F %T UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
# The runtime is preloaded into /usr/bin/time too, where --exact and --spatial refuse to start (not a
# sonde-cc program) and says so before the exec: that line is filtered out.
quiet() { "$@" 2>&1 >/dev/null | grep -v -e "this program was not built by sonde-cc" -e "only software watchpoints can" >&2; }
: >"$work/r"
for i in $(seq 1 "$pairs"); do
	bench_time "$work/n" "$work/rb" $args
	rm -rf "$work/a" "$work/b" "$work/c" "$work/d" "$work/e" "$work/f"
	quiet "$B/sonde" reuse -q --source inst --period 4001 -o "$work/a" -- /usr/bin/time -f "$BENCH_TIMEFMT" -o "$work/s1" "$work/rb" $args
	quiet "$B/sonde" reuse -q --source inst -o "$work/b" -- /usr/bin/time -f "$BENCH_TIMEFMT" -o "$work/s2" "$work/rb" $args
	quiet "$B/sonde" reuse -q --exact -o "$work/c" -- /usr/bin/time -f "$BENCH_TIMEFMT" -o "$work/s3" "$work/rb" $args
	quiet "$B/sonde" reuse -q --spatial --source inst -o "$work/e" -- /usr/bin/time -f "$BENCH_TIMEFMT" -o "$work/s5" "$work/rb" $args
	cp "$work/s3" "$work/s4"
	cp "$work/s2" "$work/s6"
	if [ -n "$before" ]; then
		quiet "$before/sonde" reuse -q --exact -o "$work/d" -- /usr/bin/time -f "$BENCH_TIMEFMT" -o "$work/s4" "$work/rb" $args
		quiet "$before/sonde" reuse -q --source inst -o "$work/f" -- /usr/bin/time -f "$BENCH_TIMEFMT" -o "$work/s6" "$work/rb" $args
	fi
	echo "$(bench_ratio "$work/n" "$work/s1") $(bench_ratio "$work/n" "$work/s2") $(bench_ratio "$work/n" "$work/s3") $(cpu_ratio "$work/n" "$work/s1") $(cpu_ratio "$work/n" "$work/s2") $(cpu_ratio "$work/n" "$work/s3") $(bench_ratio "$work/n" "$work/s4") $(cpu_ratio "$work/n" "$work/s4") $(bench_ratio "$work/n" "$work/s5") $(cpu_ratio "$work/n" "$work/s5") $(bench_ratio "$work/n" "$work/s6") $(cpu_ratio "$work/n" "$work/s6")" >>"$work/r"
	printf '  round %d: native %ss, p4001 %ss, p10007 %ss, exact %ss%s\n' "$i" "$(cut -d' ' -f1 "$work/n")" \
		"$(cut -d' ' -f1 "$work/s1")" "$(cut -d' ' -f1 "$work/s2")" "$(cut -d' ' -f1 "$work/s3")" \
		"${before:+, exact before $(cut -d' ' -f1 "$work/s4")s, p10007 before $(cut -d' ' -f1 "$work/s6")s}"
done
col() { awk -v c="$1" '{ print $c }' "$work/r" | median; }
printf 'sonde reuse sampled (inst, period 4001)  time %s  cpu %s  memory %s  (targets <= 1.5, <= 1.5)\n' "$(col 1)" "$(col 7)" "$(col 2)"
printf 'sonde reuse sampled (inst, period 10007) time %s  cpu %s  memory %s\n' "$(col 3)" "$(col 8)" "$(col 4)"
printf 'sonde reuse sampled --spatial (p10007)   time %s  cpu %s  memory %s\n' "$(col 13)" "$(col 15)" "$(col 14)"
printf 'sonde reuse --exact                      time %s  cpu %s  memory %s  (target <= 5)\n' "$(col 5)" "$(col 9)" "$(col 6)"
[ -z "$before" ] || {
	printf 'sonde reuse --exact, before (%s) time %s  cpu %s  memory %s\n' "$before" "$(col 10)" "$(col 12)" "$(col 11)"
	printf 'sonde reuse sampled p10007, before (%s) time %s  cpu %s  memory %s\n' "$before" "$(col 16)" "$(col 18)" "$(col 17)"
}
echo "bench: done $(date -u '+%F %T UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
