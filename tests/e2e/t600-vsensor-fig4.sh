#!/usr/bin/env bash
# t600-vsensor-fig4: the paper's Figure 4/8 program (tests/workloads/vsensor/fig4.c).
# Expected answers, from the paper's text, not from sonde's output: foo's work depends on
# x and GLBV; L3 is a v-sensor of L1; L5 of L4, L2 and L1; C1 (foo(n,k)) of L2 but not
# L1; C2 (foo(k,n)) of neither, so L4 is not a v-sensor of L2; C3 (MPI_Barrier) is a
# network snippet.  Global v-sensors (the paper's answer): L3, L5 and C3; instrumented:
# C3 only, since L3 and L5 are 10 iterations of one statement, too small to time (the
# runtime would switch them off, but their Tick/Tock calls would stay in the loops).
. "$(dirname "$0")/lib.sh"
SRC=$SONDE_TOP/tests/workloads/vsensor/fig4.c
if ! command -v python3 >/dev/null; then
	skip t600-vsensor "python3 not found"
	exit 0
fi
line() { grep -n "/\* $1 \*/" "$SRC" | cut -d: -f1; }
for l in L1 L2 L3 L4 L5 C1 C2 C3; do eval "$l=$(line $l)"; done
if ! "$SONDE" vsensor list --csv "$SRC" >list.csv 2>err; then
	fail t600-vsensor-list "$(head -c 300 err)"
	exit 0
fi
pass t600-vsensor-list
# site -> "status|kind|scope" for the first candidate at each line
get() { python3 - "$1" "$2" <<'PY'
import csv, sys
for row in csv.DictReader(open("list.csv")):
    if row["site"] == "fig4.c:" + sys.argv[1]:
        print(row[sys.argv[2]]); break
PY
}
sel=$(python3 -c '
import csv
print(" ".join(sorted(r["site"] for r in csv.DictReader(open("list.csv")) if r["status"].startswith("sensor"))))')
glob=$(python3 -c '
import csv
print(" ".join(sorted(r["site"] for r in csv.DictReader(open("list.csv")) if r["status"] in ("sensor", "global"))))')
want=$(printf 'fig4.c:%s\n' "$L3" "$L5" "$C3" | sort | tr '\n' ' ' | sed 's/ $//')
check t600-vsensor-global test "$glob" = "$want"
check t600-vsensor-selected test "$sel" = "fig4.c:$C3"
for l in "$L3" "$L5"; do
	check "t600-vsensor-small-$l" grep -q "too small to time" <<<"$(get "$l" reason)"
done
check t600-vsensor-L3-scope test "$(get "$L3" scope)" = "main:$L1"
for l in "foo:$L4" "main:$L2" "main:$L1"; do
	check "t600-vsensor-L5-of-${l%%:*}-$l" grep -qw "$l" <<<"$(get "$L5" scope)"
done
check t600-vsensor-C1-of-L2-only test "$(get "$C1" scope)" = "main:$L2"
check t600-vsensor-C2-of-none test -z "$(get "$C2" scope)"
check t600-vsensor-L4-not-of-L2 test -z "$(get "$L4" scope)"
check t600-vsensor-C3-network test "$(get "$C3" kind)" = network
check t600-vsensor-L3-compute test "$(get "$L3" kind)" = compute
# L5 sits under L1, L2 (through C1/C2) and L4: depth 3, so --max-depth 2 drops it
"$SONDE" vsensor list --csv --max-depth 2 "$SRC" >list.csv
check t600-vsensor-max-depth test "$(get "$L5" status)" = global
check t600-vsensor-max-depth-reason grep -q "max-depth" <<<"$(get "$L5" reason)"
