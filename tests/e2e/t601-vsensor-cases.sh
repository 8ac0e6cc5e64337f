#!/usr/bin/env bash
# t601-vsensor-cases: the static-analysis cases of tests/workloads/vsensor/cases.c, each
# annotated in the source with its expected verdict (written from the rules in
# doc/sonde-vsensor.md): positives (fixed bounds, a rank-dependent bound, a call whose
# callee's work is fixed, fixed-size MPI) and negatives (outer index, data-dependent
# branch, aliasing, recursion, function pointer, undescribed external, changing message
# size, mixed snippet, return inside); then tests/workloads/vsensor/cases-real.c, the
# same way, tests/workloads/vsensor/cases-prk.c and cases-writes.c; a sensor at a line
# with no annotation fails too.
. "$(dirname "$0")/lib.sh"
if ! command -v python3 >/dev/null; then
	skip t601-vsensor "python3 not found"
	exit 0
fi
# check FILE MIN-ANNOTATIONS
check_cases() {
	local src=$SONDE_TOP/tests/workloads/vsensor/$1 name=t601-vsensor-${1%.c}
	if ! "$SONDE" vsensor list --csv "$src" >list.csv 2>err; then
		fail "$name-list" "$(head -c 300 err)"
		return
	fi
	python3 - "$src" "$name" "$2" <<'PY'
import csv, os, re, sys
rows = list(csv.DictReader(open("list.csv")))
base, name, want = os.path.basename(sys.argv[1]), sys.argv[2], int(sys.argv[3])
n = 0
annotated = []
for i, text in enumerate(open(sys.argv[1]), 1):
    m = re.search(r"/\* (SENSOR(,RANK)?(,NETWORK)?|NO\(([^)]*)\))", text)
    if not m or text.lstrip().startswith("*"):
        continue
    annotated.append(i)
    here = [r for r in rows if r["site"] == "%s:%d" % (base, i)]
    tname = "%s-line%d" % (name, i)
    if not here:
        print("FAIL %s: no candidate at line %d" % (tname, i)); continue
    r = here[0]
    if m.group(1).startswith("SENSOR"):
        ok = r["status"].startswith("sensor")
        ok &= ("rank" in r["status"]) == bool(m.group(2))
        ok &= r["kind"] == ("network" if m.group(3) else "compute")
    else:
        ok = not any(x["status"].startswith("sensor") for x in here) and m.group(4) in r["reason"]
    print("PASS %s" % tname if ok else "FAIL %s: %s" % (tname, r))
    n += 1
print(("PASS" if n >= want else "FAIL") + " %s-annotations-count (%d)" % (name, n))
# a sensor where the source expects nothing is as wrong as a missing one
stray = sorted(set(r["site"] for r in rows if r["status"].startswith("sensor")) -
               set("%s:%d" % (base, i) for i in annotated))
print(("FAIL %s-unannotated-sensors: %s" % (name, " ".join(stray))) if stray else
      "PASS %s-unannotated-sensors" % name)
PY
}
check_cases cases.c 20
# patterns of CoMD and NPB IS (doc/sonde-vsensor-history.md, "Real programs"): a block of 70+
# statements, 3-iteration loops and tiny helpers in a hot loop, a reused loop index
check_cases cases-real.c 15
# patterns of the Parallel Research Kernels (doc/sonde-vsensor-history.md, "Real programs"): an
# index macro that reads a size, sizes given to MPI_Bcast by address
check_cases cases-prk.c 11
# what writes a variable: operators inside macros, members of structs held by value,
# MPI_Wait after MPI_Irecv, printf's %n, memcpy's result
check_cases cases-writes.c 23
