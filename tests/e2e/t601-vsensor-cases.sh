#!/usr/bin/env bash
# t601-vsensor-cases: the static-analysis cases of tests/workloads/vsensor/cases.c, each
# annotated in the source with its expected verdict (written from the rules in
# doc/sonde-vsensor.md): positives (fixed bounds, a rank-dependent bound, a call whose
# callee's work is fixed, fixed-size MPI) and negatives (outer index, data-dependent
# branch, aliasing, recursion, function pointer, undescribed external, changing message
# size, mixed snippet, return inside).
. "$(dirname "$0")/lib.sh"
SRC=$SONDE_TOP/tests/workloads/vsensor/cases.c
if ! command -v python3 >/dev/null; then
	skip t601-vsensor "python3 not found"
	exit 0
fi
if ! "$SONDE" vsensor list --csv "$SRC" >list.csv 2>err; then
	fail t601-vsensor-list "$(head -c 300 err)"
	exit 0
fi
python3 - "$SRC" <<'PY'
import csv, re, sys
rows = list(csv.DictReader(open("list.csv")))
n = 0
for i, text in enumerate(open(sys.argv[1]), 1):
    m = re.search(r"/\* (SENSOR(,RANK)?(,NETWORK)?|NO\(([^)]*)\))", text)
    if not m or text.lstrip().startswith("*"):
        continue
    here = [r for r in rows if r["site"] == "cases.c:%d" % i]
    name = "t601-vsensor-line%d" % i
    if not here:
        print("FAIL %s: no candidate at line %d" % (name, i)); continue
    r = here[0]
    if m.group(1).startswith("SENSOR"):
        ok = r["status"].startswith("sensor")
        ok &= ("rank" in r["status"]) == bool(m.group(2))
        ok &= r["kind"] == ("network" if m.group(3) else "compute")
    else:
        ok = not any(x["status"].startswith("sensor") for x in here) and m.group(4) in r["reason"]
    print("PASS %s" % name if ok else "FAIL %s: %s" % (name, r))
    n += 1
print(("PASS" if n >= 16 else "FAIL") + " t601-vsensor-annotations-count (%d)" % n)
PY
