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
#                             the default; VARIANCE_BENCH_ONLY=memory runs part 4 alone,
#                             VARIANCE_BENCH_ONLY=delivery part 5 alone,
#                             VARIANCE_BENCH_ONLY=syscalls part 6 alone,
#                             VARIANCE_BENCH_ONLY=xline part 7 alone,
#                             VARIANCE_BENCH_ONLY=time parts 2-3 alone,
#                             VARIANCE_BENCH_ONLY=parts part 8 alone;
#                             VARIANCE_BENCH_BEFORE=DIR: parts 2-3 for DIR's build too,
#                             in the same rounds: native, before, after)
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
# VARIANCE_BENCH_BEFORE=DIR: another build directory's sonde, run in parts 2-3 in the same
# rounds (native, before, after in turn), its figures printed beside
before= versions=a
if [ -n "${VARIANCE_BENCH_BEFORE:-}" ]; then
	before=$(cd "$VARIANCE_BENCH_BEFORE" 2>/dev/null && pwd)
	[ -x "$before/sonde" ] || { echo "bench: variance: VARIANCE_BENCH_BEFORE=$VARIANCE_BENCH_BEFORE: no sonde build there" >&2; exit 2; }
	versions="b a"
fi
# 8. VARIANCE_BENCH_ONLY=parts: where the run time goes (doc/sonde-variance.md "Costs"):
# the program's CPU time (user + sys) under `sonde variance` with parts of the work taken
# away, against native, in the same rounds (PAIRS), medians of the ratios.  gcc build of
# 'mix' (where debug registers trap): samples only (SONDE_WATCH=soft: no backend for a
# plain build, so no entry is armed), the entries armed at once as before the gate
# (SONDE_VARIANCE_GATE=0), and the default; the --sonde-calls build of 'calls' and 'mix':
# the runtime with no sample (a period of 1000 s: start, exit, and the callbacks' and
# hooks' own cost), and the default.
if [ "$only" = parts ]; then
	parts() {	# BIN MODE ITERS NAME:ENV... (ENV: one VAR=VALUE or -p PERIOD, or "-")
		local bin=$1 mode=$2 it=$3 c name e i
		shift 3
		for c in "$@"; do : >"pr.${c%%:*}"; done
		: >pi
		: >pn
		for i in $(seq "$PAIRS"); do
			VWORK_ITERS=$it bench_time n ./$bin "$mode" 0
			awk '{ print $2 + $3 }' n >>pn
			for c in "$@"; do
				name=${c%%:*} e=${c#*:}
				local opt=() envs=()
				case $e in -) ;; -p*) opt=(-p "${e#-p}") ;; *) envs=("$e") ;; esac
				rm -rf "pd.$name"
				env "${envs[@]}" VWORK_ITERS=$it "$SONDE" variance -q -o "pd.$name" "${opt[@]}" \
					-- /usr/bin/time -f "$BENCH_TIMEFMT" -o p ./$bin "$mode" 0 >/dev/null 2>&1
				awk 'NR == FNR { n = $2 + $3; next } { if (n > 0) print ($2 + $3) / n }' n p >>"pr.$name"
				echo "$name $(sqlite3 "pd.$name/profile.db" "select value from meta where key = 'returns'" 2>/dev/null || echo 0)" >>pi
			done
		done
		echo "bench: variance, where the time goes on '$mode' built by $([ "$bin" = vgcc ] && echo "gcc -O2" || echo "sonde-cc --sonde-calls") ($it rounds, $PAIRS rounds; native CPU time median $(median <pn) s; $(date -u +%H:%M) UTC, load $(cut -d' ' -f1 /proc/loadavg))"
		for c in "$@"; do
			name=${c%%:*}
			echo "  $name: CPU time ratio median $(median <"pr.$name")x, instances a run median $(awk -v k="$name" '$1 == k { print $2 }' pi | median)"
		done
	}
	case " $builds " in
	*" vgcc "*) parts vgcc mix $((300 * ${VARIANCE_BENCH_SCALE:-4} * 12)) \
		samples-only:SONDE_WATCH=soft entries-at-once:SONDE_VARIANCE_GATE=0 default:- ;;
	esac
	parts vcalls calls $((60 * ${VARIANCE_BENCH_SCALE:-4})) no-sample:-p1000000000000 default:-
	parts vcalls mix $((300 * ${VARIANCE_BENCH_SCALE:-4})) no-sample:-p1000000000000 default:-
	exit 0
fi
# 7. VARIANCE_BENCH_ONLY=xline: what an armed execute breakpoint costs the code near it
# (doc/sonde-variance.md "Costs"; rt-variance.c gate_slot): a loop at the start of a
# 64-byte aligned function (a load, an add and a store a round, as vwork's spin), timed by
# the thread's CPU clock with no breakpoint, then with an X breakpoint armed (never
# reached) at an offset from the function: in the loop's line, at its last byte, in the
# next line, in the line before.  Median of 5 rounds of the ratio armed / not armed.
if [ "$only" = xline ]; then
	command -v gcc >/dev/null || { echo "bench: variance xline skipped: gcc is not installed"; exit 0; }
	cat >xline.c <<'EOF_C'
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

static double cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* the loop ends before byte 0x30; the line's rest is padding, never executed */
__attribute__((noinline, aligned(128))) void loop(long n)
{
	for (long i = 0; i < n; i++)
		sink += (uint64_t)i;
}

int main(int argc, char **argv)
{
	long off = strtol(argv[1], NULL, 0), n = 20000000;
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof(a);
	a.bp_type = HW_BREAKPOINT_X;
	a.bp_addr = (uintptr_t)loop + off;
	a.bp_len = sizeof(long);
	a.sample_period = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	double t0 = cpu();
	loop(n);
	double t1 = cpu();
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return 1;
	double t2 = cpu();
	loop(n);
	double t3 = cpu();
	uint64_t c = 1;
	if (read(fd, &c, sizeof(c)) != sizeof(c) || c)
		return 1;	/* the breakpoint was reached: not what is measured */
	printf("%.3f\n", (t3 - t2) / (t1 - t0));
	return 0;
}
EOF_C
	gcc -O2 xline.c -o xline || exit 0
	./xline 0x3f >/dev/null || { echo "bench: variance xline skipped: no execute breakpoint here"; exit 0; }
	echo "bench: variance, an armed execute breakpoint near a loop (the loop in bytes 0x00-0x2f of a 128-byte aligned function; $(date -u +%H:%M) UTC, load $(cut -d' ' -f1 /proc/loadavg))"
	for o in 0x3f 0x40 0x7f -0x40; do
		for i in 1 2 3 4 5; do ./xline "$o"; done >xr
		echo "  breakpoint at loop $o: time of the loop armed / not armed, median $(median <xr)x"
	done
	exit 0
fi
# 6. VARIANCE_BENCH_ONLY=syscalls: the system calls and signals of the program (not the
# launcher) under `sonde variance` on the gcc build of 'mix', per measured instance
# (strace -ff; the calibration's traps at start included), doc/sonde-variance.md
# "Kernel work per measured instance".
if [ "$only" = syscalls ]; then
	case " $builds " in *" vgcc "*) ;; *) echo "bench: variance syscalls skipped: debug registers do not trap here"; exit 0 ;; esac
	command -v strace >/dev/null || { echo "bench: variance syscalls skipped: strace is not installed"; exit 0; }
	rm -rf st st.* s
	VWORK_ITERS=7200 strace -ff -o st "$SONDE" variance -q -o s -- ./vgcc mix 0 >/dev/null 2>&1
	f=$(grep -l 'execve("./vgcc"' st.* | head -1)
	r=$(sqlite3 s/profile.db "select value from meta where key = 'returns'" 2>/dev/null)
	[ -n "$f" ] && [ "${r:-0}" -gt 0 ] || { echo "bench: variance syscalls: no program trace or no instance"; exit 0; }
	echo "bench: variance system calls per measured instance, 'mix' built by gcc -O2 (7200 rounds, $r instances; $(date -u +%H:%M) UTC)"
	for k in PERF_EVENT_IOC_MODIFY_ATTRIBUTES PERF_EVENT_IOC_DISABLE PERF_EVENT_IOC_ENABLE \
		'^read(' 'clock_gettime(CLOCK_THREAD_CPUTIME_ID' process_vm_readv '--- SIGTRAP' '--- SIGRT'; do
		n=$(grep -c -- "$k" "$f")
		awk -v k="$k" -v n="$n" -v r="$r" 'BEGIN { printf "  %-42s %.2f\n", k, n / r }'
	done
	exit 0
fi
# 5. VARIANCE_BENCH_ONLY=delivery: the debug registers' trap delivery, attr.sigtrap against
# the watch engine's own signal (SONDE_WATCH_SIGTRAP=0), on the gcc build of 'mix': native,
# sigtrap, signal in turn, PAIRS rounds; the medians of each round's ratios to its native
# run, and of the signal run's extra CPU time over the sigtrap run's per measured instance.
if [ "$only" = delivery ]; then
	case " $builds " in *" vgcc "*) ;; *) echo "bench: variance delivery skipped: debug registers do not trap here"; exit 0 ;; esac
	it=$((300 * ${VARIANCE_BENCH_SCALE:-4} * 12))
	: >dl
	for i in $(seq "$PAIRS"); do
		VWORK_ITERS=$it bench_time n ./vgcc mix 0
		for d in 1 0; do
			rm -rf "e$d"
			SONDE_WATCH_SIGTRAP=$d VWORK_ITERS=$it "$SONDE" variance -q -o "e$d" \
				${VARIANCE_BENCH_PERIOD:+-p "$VARIANCE_BENCH_PERIOD"} -- \
				/usr/bin/time -f "$BENCH_TIMEFMT" -o "p$d" ./vgcc mix 0 >/dev/null 2>&1
		done
		r=$(sqlite3 e1/profile.db "select value from meta where key = 'returns'" 2>/dev/null)
		r0=$(sqlite3 e0/profile.db "select value from meta where key = 'returns'" 2>/dev/null)
		# the runtime's own calibration of one trap (lower quartile of 17, at start)
		c1=$(sqlite3 e1/profile.db "select value from meta where key = 'trap_cpu_ns'" 2>/dev/null)
		c0=$(sqlite3 e0/profile.db "select value from meta where key = 'trap_cpu_ns'" 2>/dev/null)
		read -r ne nu ns _ <n
		read -r se su ss _ <p1
		read -r oe ou os _ <p0
		echo "$ne 0 $se $oe $nu $ns $su $ss $ou $os ${r:-0} ${r0:-0} ${c1:-0} ${c0:-0}" |
			awk '{ n = $5 + $6; print $3 / $1, $4 / $1, ($7 + $8) / n, ($9 + $10) / n,
			       ($11 && $12) ? (($9 + $10) / $12 - ($7 + $8) / $11) * 1e6 : 0, $11, $12,
			       $13 / 1e3, $14 / 1e3 }' >>dl
	done
	echo "bench: variance trap delivery on 'mix' built by gcc -O2 ($it rounds, $plabel, $PAIRS rounds of native, sigtrap, signal; $(date -u +%H:%M) UTC, load $(cut -d' ' -f1 /proc/loadavg))"
	echo "  time ratio median: sigtrap $(cut -d' ' -f1 dl | median)x, signal $(cut -d' ' -f2 dl | median)x"
	echo "  CPU time ratio median: sigtrap $(cut -d' ' -f3 dl | median)x, signal $(cut -d' ' -f4 dl | median)x"
	echo "  signal less sigtrap, CPU time per measured instance: median $(cut -d' ' -f5 dl | median) us ($(cut -d' ' -f6 dl | median) and $(cut -d' ' -f7 dl | median) instances a run, medians)"
	echo "  one trap's CPU time as the runtime calibrates it at start (report's traps: line), median: sigtrap $(cut -d' ' -f8 dl | median) us, signal $(cut -d' ' -f9 dl | median) us"
	exit 0
fi
[ "$only" = memory ] || {
[ "$only" = time ] || {
echo "bench: variance call hooks without sonde (sonde-cc with vs without --sonde-calls, calls workload)"
: >r
for i in $(seq "$PAIRS"); do
	VWORK_ITERS=$((40 * ${VARIANCE_BENCH_SCALE:-4})) bench_time a ./vplain calls 0
	VWORK_ITERS=$((40 * ${VARIANCE_BENCH_SCALE:-4})) bench_time b ./vcalls calls 0
	bench_ratio a b | cut -d' ' -f1 >>r
done
echo "  time ratio median $(median <r)x"
}

for bin in $builds; do
for w in calls:60 mix:300; do
	mode=${w%%:*} it=$((${w#*:} * ${VARIANCE_BENCH_SCALE:-4}))
	[ "$bin" = vgcc ] && it=$((it * 12))	# gcc -O2 runs the rounds 10-18x faster (no hooks)
	for v in $versions; do
		: >"rt$v"
		: >"rm$v"
		: >"rc$v"
		: >"ev$v"
	done
	for i in $(seq "$PAIRS"); do
		VWORK_ITERS=$it bench_time n ./$bin "$mode" 0
		# each round: native, then before (VARIANCE_BENCH_BEFORE) and after in turn
		for v in $versions; do
			s=$SONDE
			[ "$v" = b ] && s=$before/sonde
			rm -rf "d$v$i"
			# The program's own time and peak memory, under the runtime (not the
			# CLI's analysis afterwards): /usr/bin/time runs inside the recording.
			VWORK_ITERS=$it "$s" variance -q -o "d$v$i" ${VARIANCE_BENCH_PERIOD:+-p "$VARIANCE_BENCH_PERIOD"} \
				-- /usr/bin/time -f "$BENCH_TIMEFMT" \
				-o p ./$bin "$mode" 0 >/dev/null 2>&1
			read -r t m < <(bench_ratio n p)
			echo "$t" >>"rt$v"
			echo "$m" >>"rm$v"
			# CPU time (user + sys), which waiting for a busy machine's cores does
			# not add to
			awk 'NR == FNR { n = $2 + $3; next } { if (n > 0) print ($2 + $3) / n }' n p >>"rc$v"
			read -r ne _ <n
			read -r pe _ <p
			db=d$v$i/profile.db
			q() { sqlite3 "$db" "select value from meta where key = '$1'" 2>/dev/null || echo 0; }
			echo "$ne $pe $(q samples) $(q entries) $(q returns) $(q handler_ns) $(q handler_cpu_ns)" >>"ev$v"
		done
	done
	for v in $versions; do
	# the program's own backend (its .proc): the recording-wide meta row may be
	# /usr/bin/time's, which runs under the runtime too (hw, no hooks)
	proc=$(grep -l "^exe=.*/$bin\$" "d${v}1"/*.proc 2>/dev/null | head -1)
	backend=$([ -n "$proc" ] && sed -n 's/^watch=//p' "$proc")
	# hw traps: attr.sigtrap or the engine's own signal (not noted before the sigtrap delivery)
	delivery=$([ -n "$proc" ] && sed -n 's/^watch_delivery=//p' "$proc")
	label=
	[ -n "$before" ] && label=$([ "$v" = b ] && echo "before ($before): " || echo "after: ")
	echo "bench: variance on '$mode' built by $([ "$bin" = vgcc ] && echo "gcc -O2" || echo "sonde-cc --sonde-calls"), ${label}backend ${backend:-?}${delivery:+ ($delivery)} ($it rounds, $plabel, $PAIRS alternating pairs; $(date -u +%H:%M) UTC, load $(cut -d' ' -f1 /proc/loadavg))"
	echo "  time ratio median $(median <"rt$v")x, CPU time ratio median $(median <"rc$v")x, peak memory ratio median $(median <"rm$v")x"
	# handler_cpu_ns is absent where the runtime did not measure it: not a 0
	awk '{ s += $3; e += $4; r += $5; h += $6; c += $7; d += ($2 - $1); w += $2; if (NF < 7) nc = 1 }
	     END { ev = s + e + r;
		   cpu = nc ? "their CPU time not measured" : sprintf("%.1f us of their CPU time", ev ? c / ev / 1e3 : 0);
		   printf "  per event (sample, entry trap or return trap): %.1f us in the tool'\''s handlers, %s (%d samples, %d entries, %d returns)\n", ev ? h / ev / 1e3 : 0, cpu, s, e, r;
		   printf "  extra run time per measured instance: %.1f us; %.0f instances per second (one busy thread)\n", r ? d * 1e6 / r : 0, w ? r / w : 0 }' "ev$v"
	done
done
done
}

[ "$only" = time ] && exit 0
# 4. Where the extra peak memory goes: bench/memory.sh, the same breakdown for every tool
# (PAIRS runs each; its variance cases are this script's workloads, the gcc build where
# debug registers trap).
PAIRS=$PAIRS SONDE_BUILD=$SONDE_BUILD "$top/bench/memory.sh" variance
exit 0
