#!/usr/bin/env bash
# libsonde.so's resident part (Makefile, RT_RESIDENT; src/rt/libtrim.c): under `sonde
# variance` only the text from the code segment's start up to the marker rt_resident_end
# is kept mapped, so code a handler or an interposed call runs while an instance is
# measured must lie below it (else its first use faults inside the instance, where t802
# sees it only if that first use falls in one).  Checked on the built library:
#  - the build's assumptions: one R+X PT_LOAD between read-only ones (resident_find takes
#    the first read-only one, the text up to the marker, and the read-only one after the
#    text up to .eh_frame_hdr; -z noseparate-code would leave no .rodata segment), and
#    every RT_RESIDENT object's functions below the marker (-flto or section sorting
#    would scatter them);
#  - the resident code (objdump -d up to the marker) calls, jumps to or takes the address
#    (lea) of no function above it, and no pointer in the data (relocations) names one,
#    except the allow-listed start-up and non-variance paths below.
. "$(dirname "$0")/lib.sh"

so=$SONDE_BUILD/libsonde.so
list=$SONDE_BUILD/resident.list
for need in objdump readelf nm python3; do
	command -v $need >/dev/null || { skip resident-code "no $need"; exit 0; }
done
[ -f "$so" ] && [ -s "$list" ] || { fail resident-code "$so or $list missing (make)"; exit 0; }

# FROM TO: a reference from resident code (or a data object) to a function above the
# marker that no variance path takes while an instance is measured.  Globs (fnmatch).
cat >allow.txt <<'EOF'
# start-up: sonde_init picks the watchpoint backend and registers the fork handlers once
sonde_init watch_backend_init
sonde_init __pthread_atfork
sonde_init pthread_atfork
# libgcc's CPU detection (for __builtin_cpu_supports), a constructor run at load: the
# linker puts .text.startup sections first, below the marker
__cpu_indicator_init set_cpu_feature*
get_available_features* set_cpu_feature*
# start-up: the clock source's start sets its look-ahead decoder up
clock_start decode_init
# a probe's failure message, at start-up (watch_pick)
watch_probe_run pmu_strerror
# 128-bit division (libgcc's, linked at the end) in the clock's look-ahead emulation only:
# variance takes no look-ahead (its samples come from the debug registers or the hooks)
decode_emulate_mem __divmodti4
decode_emulate_mem __udivmodti4
# the other tools' operations (their tool tables), called only when that tool runs, and
# the hw source's (variance refuses --source hw: src/tools/variance/cmd.c)
rt_tool_comm comm_*
rt_tool_mem mem_*
rt_tool_reuse reuse_*
rt_source_hw hw_*
EOF

python3 - "$so" "$SONDE_TOP" "$list" allow.txt <<'PY' || fail resident-code "the check did not run"
import fnmatch, os, re, subprocess, sys

so, top, listf, allowf = sys.argv[1:5]
run = lambda *a: subprocess.run(a, capture_output=True, text=True, check=True).stdout
ok = lambda name: print("PASS " + name)
bad = lambda name, why: print("FAIL %s: %s" % (name, why))

# the build's assumptions: PT_LOADs R, R+X, R, RW..., .eh_frame_hdr in the R one after R+X
ph = run("readelf", "-lW", so)
loads = [(int(m.group(1), 16), int(m.group(2), 16), m.group(3).replace(" ", "")) for m in
	 re.finditer(r"^\s*LOAD\s+\S+\s+(0x[0-9a-f]+)\s+\S+\s+\S+\s+(0x[0-9a-f]+)\s+(.{3})",
		      ph, re.M)]
flags = [f for _, _, f in loads]
eh = re.search(r"GNU_EH_FRAME\s+\S+\s+(0x[0-9a-f]+)", ph)
x = [i for i, f in enumerate(flags) if "E" in f]
if (len(x) == 1 and flags[0] == "R" and x[0] + 1 < len(flags) and flags[x[0] + 1] == "R" and
    eh and loads[x[0] + 1][0] <= int(eh.group(1), 16) < sum(loads[x[0] + 1][:2])):
	ok("resident-segments (%s)" % " ".join(flags))
else:
	bad("resident-segments", "PT_LOADs %s, .eh_frame_hdr %s: not R, R+X, R (with "
	    ".eh_frame_hdr), ... as resident_find expects" % (" ".join(flags),
							      eh.group(1) if eh else "none"))
text_lo, text_hi = (loads[x[0]][0], sum(loads[x[0]][:2])) if x else (0, 0)

# the functions (sorted), the marker
funcs = []
for line in run("nm", "-S", "--defined-only", so).splitlines():
	f = line.split()
	if len(f) == 4 and f[2] in "tTwW" and text_lo <= int(f[0], 16) < text_hi:
		funcs.append((int(f[0], 16), int(f[1], 16), f[3]))
funcs.sort()
marks = [a for a, _, n in funcs if n == "rt_resident_end"]
if not marks:
	bad("resident-marker", "no rt_resident_end in %s" % so)
	sys.exit(0)
end = marks[0]
by_name = {}
for a, s, n in funcs:
	by_name.setdefault(n, []).append(a)

def func_at(a):
	best = None
	for fa, s, n in funcs:
		if fa > a:
			break
		if a < fa + max(s, 1):
			best = n
	return best or "?%x" % a

# every RT_RESIDENT object's functions below the marker
objs = [l if l.startswith("/") else os.path.join(top, l) for l in open(listf).read().split()]
above = []
for o in objs:
	if not os.path.exists(o):
		bad("resident-objects", "%s not built" % o)
		continue
	for line in run("nm", "--defined-only", o).splitlines():
		f = line.split()
		if len(f) == 3 and f[1] in "tT" and f[2] in by_name:
			if not any(a < end for a in by_name[f[2]]):
				above.append("%s (%s)" % (f[2], os.path.basename(o)))
if above:
	bad("resident-objects-below-marker", "above rt_resident_end: " + ", ".join(above[:20]))
else:
	ok("resident-objects-below-marker (%d objects)" % len(objs))

allow = []
for line in open(allowf):
	line = line.split("#")[0].split()
	if len(line) == 2:
		allow.append(line)
allowed = lambda fr, to: any(fnmatch.fnmatchcase(fr, a) and fnmatch.fnmatchcase(to, b)
			     for a, b in allow)

# references from the resident code: call/jmp/jcc targets, lea's rip-relative addresses
refs = set()
dis = run("objdump", "-d", "--no-show-raw-insn", "--start-address=0x%x" % text_lo,
	  "--stop-address=0x%x" % end, so)
cur = None
for line in dis.splitlines():
	m = re.match(r"^([0-9a-f]+) <(.+)>:$", line)
	if m:
		cur = m.group(2)
		continue
	m = re.match(r"^\s*[0-9a-f]+:\s+(\S+)\s.*?(?:#\s*)?([0-9a-f]+) <([^>]+)>", line)
	if not m or not cur:
		continue
	op, tgt = m.group(1), int(m.group(2), 16)
	if not (op.startswith("j") or op.startswith("call") or op == "lea"):
		continue
	if end < tgt < text_hi:	# the marker's own byte (a ret) is kept: PAGE_UP(end + 1)
		refs.add((cur, func_at(tgt)))
n_code = len(refs)
# pointers in the data to code above the marker (tool and source tables, callbacks)
data = []
for line in run("nm", "-S", "--defined-only", so).splitlines():
	f = line.split()
	if len(f) == 4 and f[2] in "dDbBrRV":
		data.append((int(f[0], 16), int(f[1], 16), f[3]))
data.sort()
def data_at(a):
	for da, s, n in data:
		if da <= a < da + s:
			return n
	return "?data"
for line in run("readelf", "-rW", so).splitlines():
	f = line.split()
	if len(f) >= 4 and f[2] == "R_X86_64_RELATIVE":
		tgt = int(f[3], 16)
	elif len(f) >= 5 and f[2] == "R_X86_64_64" and f[4] in by_name:
		tgt = by_name[f[4]][0]
	else:
		continue
	if end < tgt < text_hi:
		refs.add((data_at(int(f[0], 16)), func_at(tgt)))
if os.environ.get("T009_LIST"):	# every reference, for whoever edits the allow-list
	for r in sorted(refs):
		print("  ref %s -> %s" % r)
found = sorted(r for r in refs if not allowed(*r))
if found:
	bad("resident-code-refs", "references to code above rt_resident_end, not allow-listed: " +
	    ", ".join("%s -> %s" % r for r in found))
else:
	ok("resident-code-refs (%d references above the marker, all allow-listed)" % len(refs))
PY
