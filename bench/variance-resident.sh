#!/usr/bin/env bash
# bench/variance-resident.sh - under `sonde variance`, does the program ever fault on
# libsonde.so's code or constants outside the part kept resident (src/rt/libtrim.c, the
# Makefile's RT_RESIDENT) once start-up is over?  Such a fault inside a measured instance
# would count in its page faults (t802 checks the counts, but only where a first use of
# the code falls inside an instance).  Every user page fault of the program is traced
# (perf's exceptions:page_fault_user tracepoint: root or perf_event_paranoid <= -1);
# those on libsonde.so's read-only segments outside the resident ranges are listed with
# the function that faulted, and counted before and after the last start-up trimming
# (the constructor's second pass).  Expected after it: none.  The runs count page faults
# (-e page-faults): without, nothing is kept resident (src/rt/init.c).  Prints; never
# fails on numbers.
#   bench/variance-resident.sh [MODE...]   (vwork modes; default mix pages pagesfork
#       jump threads; vwork built by gcc, measured on the debug registers, where their
#       traps fire, else or with VARIANCE_RESIDENT_BUILD=calls by sonde-cc --sonde-calls:
#       the call hooks).  VARIANCE_RESIDENT_OPTS: more options for `sonde variance`, e.g.
#       "-s inst -p 1000" (the inst source's accesses, on a sonde-cc build: with
#       VARIANCE_RESIDENT_BUILD=calls; VARIANCE_RESIDENT_UNWIND=0 for a build older than
#       rt_trim_keep_unwind, which kept no unwind tables)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${SONDE_BUILD:-$top/build}" && pwd) || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
[ -x "$B/sonde" ] || { echo "bench: $B/sonde not built" >&2; exit 1; }
if ! command -v perf >/dev/null ||
	! perf list 2>/dev/null | grep -q 'exceptions:page_fault_user'; then
	echo "bench: variance-resident: SKIP: no perf, or no exceptions:page_fault_user"
	exit 0
fi
cd "$T" || exit 1
W=$top/tests/workloads/variance
if [ "${VARIANCE_RESIDENT_BUILD:-}" != calls ] &&
	"$B/sonde" info 2>/dev/null | grep -q "their traps fire" &&
	gcc -O2 -g -fno-omit-frame-pointer -pthread "$W/vwork.c" -o vw 2>/dev/null; then
	build="gcc -O2 (debug registers)" it=3600
else
	"$B/sonde-cc" --sonde-calls -O2 -pthread "$W/vwork.c" -o vw || exit 1
	build="sonde-cc --sonde-calls (soft)" it=300
fi
# resident.py SO MODE <perf script's text: the faults outside the resident part
cat >resident.py <<'PY'
import re, subprocess, sys

so, mode, unwind = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
page = 4096
up = lambda a: (a + page - 1) & ~(page - 1)
# the resident ranges, as libtrim.c's resident_find computes them (offsets in the file)
phdrs = subprocess.run(["readelf", "-lW", so], capture_output=True, text=True).stdout
loads = [(int(m.group(1), 16), int(m.group(2), 16), m.group(3)) for m in re.finditer(
	r"^\s*LOAD\s+\S+\s+(0x[0-9a-f]+)\s+\S+\s+\S+\s+(0x[0-9a-f]+)\s+(.{3})", phdrs, re.M)]
eh = int(re.search(r"GNU_EH_FRAME\s+\S+\s+(0x[0-9a-f]+)", phdrs).group(1), 16)
end = int(subprocess.run(["nm", so], capture_output=True, text=True).stdout.split(
	" t rt_resident_end")[0].split()[-1], 16)
ro = [(v, up(v + s)) for v, s, f in loads if "W" not in f]
text = [r for (r, l) in zip(ro, loads) if "E" in l[2]][0]
rodata = [r for r in ro if r[0] > text[0]][0]
# an unwinder serving the paths (the inst source) keeps the unwind tables after .rodata too
resident = [ro[0], (text[0], up(end + 1)), (rodata[0], rodata[1] if unwind else up(eh))]

def sym(off):
	out = subprocess.run(["addr2line", "-f", "-e", so, hex(off)], capture_output=True,
			     text=True).stdout.split("\n")
	return out[0] if out and out[0] != "??" else "-"

base, pids, rows = {}, set(), []
for line in sys.stdin:
	m = re.search(r"PERF_RECORD_MMAP2 (\d+)/\d+: \[0x([0-9a-f]+)\(0x[0-9a-f]+\) @ "
		      r"0x([0-9a-f]+) .*r-xp (\S+)$", line)
	if m and m.group(4).endswith("/libsonde.so"):
		base[m.group(1)] = int(m.group(2), 16) - int(m.group(3), 16)
		continue
	m = re.search(r"^\s*(\S+)\s+(\d+)\s+address=0x([0-9a-f]+) ip=0x([0-9a-f]+)", line)
	if m and m.group(1) == "vw" and base:
		# a forked child has no mmap event of its own: its parent's addresses
		b = base.get(m.group(2), list(base.values())[-1])
		a, ip = int(m.group(3), 16) - b, int(m.group(4), 16) - b
		pids.add(m.group(2))
		rows.append((m.group(2), a, ip))
for pid in sorted(pids):
	mine = [(a, ip) for p, a, ip in rows if p == pid]
	trims = [i for i, (a, ip) in enumerate(mine) if 0 <= ip < text[1] and sym(ip) == "trim_object"]
	last = trims[-1] if trims else -1
	out = [(i, a, ip) for i, (a, ip) in enumerate(mine)
	       if any(lo <= a < hi for lo, hi in ro) and not any(lo <= a < hi for lo, hi in resident)]
	after = [(a, ip) for i, a, ip in out if i > last]
	print("%s, process %s: %d faults on libsonde.so's pages outside the resident part "
	      "(%d KB of code and constants kept), %d after start-up%s" % (
		mode, pid, len(out), sum(hi - lo for lo, hi in resident) // 1024, len(after),
		"" if trims else " (no trimming seen: start-up not told apart)"))
	for a, ip in after:
		print("  after start-up: page 0x%x, in %s (from %s)" % (a & ~(page - 1), sym(a),
		      sym(ip) if 0 <= ip < text[1] else "outside libsonde.so"))
PY
echo "bench: variance-resident, $(date -u '+%Y-%m-%d %H:%M UTC'), load" \
	"$(cut -d' ' -f1-3 /proc/loadavg), vwork built by $build" \
	"${VARIANCE_RESIDENT_OPTS:+, options $VARIANCE_RESIDENT_OPTS}"
[ $# -gt 0 ] || set -- mix pages pagesfork jump threads
# the inst source's paths are unwound by libgcc_s (src/rt/init.c, unwinders_init): the
# runtime then keeps libsonde.so's unwind tables resident too (rt_trim_keep_unwind)
case " ${VARIANCE_RESIDENT_OPTS:-} " in
*" -s inst "* | *" --source inst "* | *" --source=inst "*) unwind=1 ;;
*) unwind=0 ;;
esac
unwind=${VARIANCE_RESIDENT_UNWIND:-$unwind}	# 0 for a build from before 2026-11-26 14:50
for mode in "$@"; do
	rm -rf p
	if ! perf record -q -e exceptions:page_fault_user -o pf.data -- \
		env VWORK_ITERS=$it "$B/sonde" variance -q -e page-faults ${VARIANCE_RESIDENT_OPTS:-} -o p -- \
		./vw "$mode" 0 >/dev/null 2>&1; then
		echo "$mode: the run or perf record failed"
		continue
	fi
	perf script -i pf.data --show-mmap-events -F pid,comm,trace 2>/dev/null >pf.txt
	python3 resident.py "$B/libsonde.so" "$mode" "$unwind" <pf.txt
done
exit 0
