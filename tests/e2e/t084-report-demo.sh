#!/usr/bin/env bash
# t084: a real recording (`sonde mem` on demo-hotcold), shown again by `sonde report`:
# symbolized names (the static table, heap sites in demo-hotcold.c, the sweep code),
# the CSV view equals the exports, JSON parses, and the database tables are consistent.
source "$(dirname "$0")/lib.sh"
# Without the workload or the recording there is nothing to check: a failure, not a skip.
[ -x "$W/demo-hotcold" ] || { fail demo_report "$W/demo-hotcold not built"; exit 0; }

if ! "$SONDE" mem -o rec -- "$W/demo-hotcold" 2 60 >mem.out 2>mem.err || [ ! -s rec/profile.db ]; then
	fail demo_report "sonde mem did not record: $(grep -m1 sonde: mem.err)"
	exit 0
fi
o=rec/mem/objects.csv
# demo-hotcold sweeps a static table in 5 of 16 steps: it is sampled, under its own name
check demo_static test "$(csv_get $o object static_table kind)" = static
check demo_static_share float_between "$(csv_get $o object static_table share)" 0.05 0.8
# heap objects are named by allocation site in the workload's source
check demo_heap_site grep -qE '^[a-z_]+ \(demo-hotcold\.c:[0-9]+\),heap,[1-9]' $o
# the hottest code line is a named function of the workload's source
check demo_code grep -qE '^[a-z_]+,[^,]*demo-hotcold\.c,[1-9][0-9]*,[1-9]' <(sed -n 2p rec/mem/code.csv)
# shares add up to 1 (within rounding) and samples to the meta total
check demo_share_sum float_between "$(awk -F, 'NR > 1 { s += $4 } END { print s }' $o)" 0.99 1.01

"$SONDE" report rec --format csv >out.csv
check demo_csv_view test "$(sed '/^$/,$d' out.csv)" = "$(cat $o)"
"$SONDE" report rec --format json >out.json
if command -v python3 >/dev/null; then
	check demo_json python3 -c '
import json
d = json.load(open("out.json"))
assert d["meta"]["samples"] == sum(o["samples"] for o in d["objects"])
assert d["meta"]["samples"] == sum(t["samples"] for t in d["threads"])
assert len(d["threads"]) == 2
'
fi
if command -v sqlite3 >/dev/null; then
	n=$(sqlite3 rec/profile.db "SELECT COUNT(*) FROM mem_samples s LEFT JOIN contexts c ON c.id = s.context WHERE s.context IS NOT NULL AND c.id IS NULL")
	check demo_db_contexts test "$n" = 0
	n=$(sqlite3 rec/profile.db "SELECT (SELECT SUM(weight) FROM mem_samples) = (SELECT value FROM meta WHERE key = 'samples')")
	check demo_db_samples test "$n" = 1
fi
