#!/usr/bin/env bash
# bench/memory.sh - the runtime's fixed memory on each tool's small bundled program, and
# where it goes, by mapping.  For each case: the program's peak RSS (VmHWM) alone, with
# libsonde.so preloaded and the runtime off (no SONDE_* variables), and under the tool
# (medians of PAIRS runs each, alternating), then its resident memory at exit by mapping
# (/proc/PID/smaps, copied by a small preloaded destructor), profiled less native: per
# file, [heap], [stack] and [anon] (the runtime's own mmaps are anonymous), and the
# anonymous mappings grouped by their size (each size is one kind of runtime memory:
# see the legend printed at the end), and the runs' minor page faults (the runtime's own
# libraries are mapped 16 KB a mapping, src/rt/libtrim.c: each granule they use is a fault
# of its own).  Beside the peak RSS, the private part of the resident memory at exit
# (RssAnon): the trimming lowers the peak RSS by file pages not mapped, which stay in the
# page cache, so a peak RSS fall is not all memory the machine gets back.  The dumper adds its own ~20 KB to every run alike;
# it skips the sonde CLI, which inherits LD_PRELOAD.  Peak memory does not depend on the
# machine's load, but which of libc's pages are resident does (+-100 KB from run to run).
# Targets of peak memory: mem <= 1.10x or + 8 MiB under 80 MiB (issue 7), comm <= 1.15x
# (issue 8), reuse <= 1.5x (issue 10), variance <= 1.10x (issue 9).  Prints; never fails
# on numbers.
#   bench/memory.sh [CASE...]   (cases: mem comm comm-clock reuse variance-calls variance-mix;
#                                 a tool's name picks its cases; default all; PAIRS=5;
#                                 MEMORY_BENCH_BEFORE=DIR: another build directory's
#                                 profiled run joins every round, e.g. a copy of build/
#                                 made before a change: before and after side by side;
#                                 MEMORY_BENCH_SETARCH=1: every run under `setarch -R`,
#                                 without address randomization, so that libc's place, and
#                                 which of its pages fault-around maps, is the same in each
#                                 run of a row: the rows' libc noise goes;
#                                 case "real": MEMORY_BENCH_REAL="/path/prog args" under
#                                 MEMORY_BENCH_TOOL, default "comm")
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${SONDE_BUILD:-$top/build}" && pwd) || exit 1
export LC_ALL=C	# join and sort agree on the order
PAIRS=${PAIRS:-5}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$top/bench/lib.sh"
[ -x "$B/sonde" ] || { echo "bench: $B/sonde not built" >&2; exit 1; }
before=
if [ -n "${MEMORY_BENCH_BEFORE:-}" ]; then
	before=$(cd "$MEMORY_BENCH_BEFORE" 2>/dev/null && pwd)
	[ -x "$before/sonde" ] || { echo "bench-memory: MEMORY_BENCH_BEFORE=$MEMORY_BENCH_BEFORE: no sonde build there" >&2; exit 2; }
fi
cd "$T" || exit 1

cat >dump.c <<'EOF_C'
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>
#include <unistd.h>
static void cp(const char *src, int out)
{
	char buf[65536];
	ssize_t n;
	int fd = open(src, O_RDONLY);
	if (fd < 0)
		return;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	close(fd);
}
__attribute__((destructor)) static void dump(void)
{
	const char *f = getenv("VBENCH_SMAPS");
	if (!f || !strcmp(program_invocation_short_name, "sonde"))
		return;
	int out = open(f, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		return;
	cp("/proc/self/status", out);
	struct rusage ru;
	char line[64];
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		int n = snprintf(line, sizeof(line), "MinFlt:\t%ld\n", ru.ru_minflt);
		if (write(out, line, (size_t)n) != n)
			n = 0;
	}
	cp("/proc/self/smaps", out);
	close(out);
}
EOF_C
gcc -shared -fPIC -O2 dump.c -o dump.so || exit 1

# case NAME: sets prog (a command line) and tool (sonde's arguments before --), builds
case_setup() {
	local W=$top/tests/workloads
	case $1 in
	mem)	# the look-ahead's worst case, the smallest of bench/mem.sh's programs
		gcc -O2 -g -fno-omit-frame-pointer -pthread "$W/cost-compute.c" -o cc-gcc || return 1
		prog="./cc-gcc" tool="mem" ;;
	comm)	# bench/comm.sh's commbench fs, inst source (4 threads)
		"$B/sonde-cc" -std=gnu11 -O2 -g -pthread "$W/comm/commbench.c" -o cb-inst || return 1
		prog="./cb-inst fs 12000000 50" tool="comm --source inst" ;;
	comm-clock)	# the same program built by gcc, under the clock source (the default
		# where there is no PMU): the look-ahead's decoder is the difference
		gcc -std=gnu11 -O2 -g -fno-omit-frame-pointer -pthread "$W/comm/commbench.c" \
			-o cb-gcc || return 1
		prog="./cb-gcc fs 12000000 50" tool="comm" ;;
	reuse)	# bench/reuse.sh's RIBench, sampled at the default period (2 threads); the
		# source is inst (reuse's default for a sonde-cc build since 2026-11-27; the
		# clock before, which loaded libZydis)
		"$B/sonde-cc" -O2 -g -pthread "$W/reuse/rbench.c" -o rb || return 1
		prog="./rb ribench -t 2 -o 300" tool="reuse" ;;
	variance-*)	# bench/variance.sh's workload, gcc build where debug registers trap
		local mode=${1#variance-} it=60
		[ "$mode" = mix ] && it=300
		if "$B/sonde" info 2>/dev/null | grep -q "their traps fire" &&
			gcc -O2 -g -fno-omit-frame-pointer -pthread "$W/variance/vwork.c" -o vgcc 2>/dev/null; then
			prog="env VWORK_ITERS=$((it * 12)) ./vgcc $mode 0"
		else
			"$B/sonde-cc" --sonde-calls -O2 -pthread "$W/variance/vwork.c" -o vcalls || return 1
			prog="env VWORK_ITERS=$it ./vcalls $mode 0"
		fi
		tool="variance" ;;
	real)	# a program of your own (NPB CG: doc/sonde-comm.md)
		[ -n "${MEMORY_BENCH_REAL:-}" ] ||
			{ echo "bench: memory: case 'real' needs MEMORY_BENCH_REAL" >&2; return 1; }
		prog=$MEMORY_BENCH_REAL tool=${MEMORY_BENCH_TOOL:-comm} ;;
	*)	echo "bench: memory: no case '$1'" >&2; return 1 ;;
	esac
}

hwm() { awk '/^VmHWM:/ { print $2 }' "$1"; }
minflt() { awk '/^MinFlt:/ { print $2 }' "$1"; }
# private memory at exit (anonymous: heap, stacks, arenas, written pages of files); the
# rest of the peak RSS is file pages, shared with the page cache (and other processes)
rssanon() { awk '/^RssAnon:/ { print $2 }' "$1"; }
# run1 SMAPS LIST CMD...: one run, its dump written to SMAPS; its peak RSS appended to LIST
# only if it exited 0 and wrote the dump (a failed run must not count a round before's)
failed=0
norand=
[ "${MEMORY_BENCH_SETARCH:-0}" = 1 ] && norand="setarch -R"
run1() {
	local f=$1 l=$2
	shift 2
	rm -f "$f"
	# shellcheck disable=SC2086
	if VBENCH_SMAPS=$T/$f $norand "$@" >/dev/null 2>&1 && [ -s "$f" ]; then
		hwm "$f" >>"$l"
		minflt "$f" >>"$l.flt"
		rssanon "$f" >>"$l.anon"
	else
		failed=$((failed + 1))
	fi
}
# by_file SMAPS: "name kb" per mapped file (basename) or [anon]/[heap]/[stack]..., summed
by_file() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { n = NF >= 6 ? $6 : "[anon]"; sub(/.*\//, "", n); next }
	     /^Rss:/ { r[n] += $2 } END { for (k in r) print k, r[k] }' "$1" | sort
}
# by_anon_size SMAPS: "sizeKB count rssKB" of the anonymous mappings, grouped by size
by_anon_size() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { a = NF < 6; next }
	     a && /^Size:/ { s = $2 } a && /^Rss:/ { n[s]++; r[s] += $2 }
	     END { for (k in n) print k, n[k], r[k] }' "$1" | sort -k1,1
}
# diff_line "A" "B": "name +kb, ..." of B - A ("name kb" lines), largest first, and the total
diff_line() {
	join -a1 -a2 -e0 -o 0,1.2,2.2 "$1" "$2" |
		awk '{ d = $3 - $2; t += d; if (d) printf "%d %s\n", d, $1 }
		     END { printf "%d total\n", t }' | sort -k1,1nr |
		awk '$2 == "total" { tot = $1; next } { l = l sprintf("%s %+d, ", $2, $1) }
		     END { sub(/, $/, "", l); printf "total %+d: %s\n", tot, l }'
}

cases=${*:-mem comm comm-clock reuse variance}
cases=$(for c in $cases; do [ "$c" = variance ] && echo variance-calls variance-mix || echo "$c"; done)
echo "bench: memory, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), $PAIRS runs each${norand:+, under $norand}"
for c in $cases; do
	case_setup "$c" || continue
	: >hn; : >ho; : >hp; : >hb; : >hn.flt; : >ho.flt; : >hp.flt; : >hb.flt
	: >hn.anon; : >ho.anon; : >hp.anon; : >hb.anon
	for i in $(seq "$PAIRS"); do
		# shellcheck disable=SC2086
		run1 sn hn env LD_PRELOAD=$T/dump.so $prog
		# shellcheck disable=SC2086
		run1 so ho env LD_PRELOAD=$B/libsonde.so:$T/dump.so $prog
		rm -rf p
		# shellcheck disable=SC2086
		run1 sp hp env LD_PRELOAD=$T/dump.so "$B/sonde" $tool -q -o p -- $prog
		[ -n "$before" ] || continue
		rm -rf p
		# shellcheck disable=SC2086
		run1 sb hb env LD_PRELOAD=$T/dump.so "$before/sonde" $tool -q -o p -- $prog
	done
	[ "$failed" -eq 0 ] || echo "  $failed run(s) failed or wrote no dump: left out of the medians"
	failed=0
	if [ ! -s hn ] || [ ! -s hp ]; then
		echo "$c: every native or profiled run failed: no figure"
		continue
	fi
	n=$(median <hn) o=$(median <ho) p=$(median <hp)
	echo "$c: sonde $tool -- $prog"
	awk -v n="$n" -v o="$o" -v p="$p" 'BEGIN { printf "  peak RSS (KB, median): alone %d, +libsonde.so (runtime off) %d, profiled %d: %.2fx (+%d KB; off %.2fx, +%d KB)\n", n, o, p, p / n, p - n, o / n, o - n }'
	[ -n "$before" ] && awk -v n="$n" -v b="$(median <hb)" 'BEGIN { printf "  before (%s): profiled %d: %.2fx (+%d KB)\n", ENVIRON["MEMORY_BENCH_BEFORE"], b, b / n, b - n }'
	# peak RSS counts file pages that stay in the page cache when unmapped: the private
	# part is what the machine's memory (and a cgroup's charge, beside the page cache) pays
	echo "  private memory at exit (RssAnon KB, median): alone $(median <hn.anon), runtime off $(median <ho.anon), profiled $(median <hp.anon)${before:+, before $(median <hb.anon)}"
	# each granule the runtime's trimmed libraries use is a fault of its own (src/rt/libtrim.c)
	echo "  minor page faults (median): alone $(median <hn.flt), runtime off $(median <ho.flt), profiled $(median <hp.flt)${before:+, before $(median <hb.flt)}"
	# the last run's smaps at exit, profiled (and runtime off) less native
	by_file sn >fn; by_file so >fo; by_file sp >fp
	echo "  resident at exit by mapping, runtime off - native: $(diff_line fn fo)"
	echo "  resident at exit by mapping, profiled - native: $(diff_line fn fp)"
	[ -n "$before" ] && by_file sb >fb && echo "  resident at exit by mapping, before - native: $(diff_line fn fb)"
	by_anon_size sn | awk '{ print $1 "KB", $3 }' | sort >an
	by_anon_size sp | awk '{ print $1 "KB", $3 }' | sort >ap
	echo "  anonymous mappings by size, profiled - native (resident KB): $(diff_line an ap)"
	echo "  anonymous mappings of the profiled run (size KB x count: resident KB): $(by_anon_size sp |
		awk '{ printf "%s%dx%d:%d", s, $1, $2, $3; s = ", " }')"
done
# The sonde command's own peak RSS (what every recording command and every rank's sonde
# process maps before the program starts): libclang is loaded by vsensor's analysis alone
# since 2026-11-27 (doc/sonde-vsensor.md)
cli_rss() { /usr/bin/time -f %M "$1/sonde" --version 2>&1 >/dev/null | tail -1; }
echo "sonde --version, peak RSS: $(cli_rss "$B") KB${before:+; before: $(cli_rss "$before") KB}"
echo "(the runtime's anonymous mappings: per thread a 64 MB arena (reserved, touched as used),"
echo " a 256 KB stream buffer (its file's name first; 16 KB used, doubling at each flush from"
echo " the 4th on), a 256 KB alternate signal stack, thread records in slots of a few hundred"
echo " bytes cut from shared pages (src/rt/thread.c); libsonde.so's .bss and .lbss follow its file mapping; adjacent mappings"
echo " of one kind merge, and threads that ended before exit have unmapped theirs.  The"
echo " runtime's own libraries (libsonde.so, libZydis, libgcc_s, libunwind) are mapped 16 KB"
echo " a mapping (src/rt/libtrim.c), except under variance: by file their pages add up as before.  doc/architecture.md,"
echo " \"The runtime's fixed memory\")"
exit 0
