#!/usr/bin/env bash
# t200-mpi-mem-ranks: `mpirun -np 4 sonde mem -- mpi-memwork` records one profile per rank
# in one default directory shared by the ranks, leaves the program's output and exit
# status alone, and `sonde report DIR` merges the ranks: rank r does r + 1 units of work
# (tests/workloads/mpi/mpi-memwork.c), so its share of the samples is (r + 1) / 10, and the
# heap array (3/4 of every unit) ranks above the static one (1/4).
# Tolerances: each rank's share within 0.04 of (r + 1) / 10 (measured: within 0.015;
# MPI_Init costs each rank the same few samples); objects' shares within 0.12 of 3/4, 1/4.
. "$(dirname "$0")/lib.sh"
. "$SONDE_TOP/tests/workloads/mpi/mpi-test.sh"
mpi_setup t200-mpi

NP=4
PASSES=8000
line=$(mpi_alloc_line)

{
	for r in $(seq 0 $((NP - 1))); do echo "mpi-memwork: rank $r units $((r + 1)) ok"; done
	echo "mpi-memwork: ranks=$NP passes=$PASSES ok"
} | sort >want

mpi_run -np $NP "$SONDE" mem -- "$MW" $PASSES >out 2>err
rc=$?
check t200-mpi-status [ "$rc" -eq 0 ]
sort out >out.sorted
check t200-mpi-stdout cmp -s out.sorted want
[ "$rc" -eq 0 ] || sed 's/^/    | /' err | head -20

# One directory, named after the program and shared by every rank.
dirs=$(ls -d sonde-mpi-memwork-* 2>/dev/null)
check t200-mpi-one-default-dir [ "$(echo "$dirs" | grep -c .)" -eq 1 ]
D=$PWD/$(echo "$dirs" | head -1)
[ -d "$D" ] || { fail t200-mpi-dir "no sonde-mpi-memwork-* directory: $(ls)"; exit 0; }

# One .proc per rank, named r<rank>.<pid>, saying its rank and pid, ended normally.
for r in $(seq 0 $((NP - 1))); do
	procs=$(ls "$D"/r$r.*.proc 2>/dev/null)
	n=$(echo "$procs" | grep -c .)
	if [ "$n" -ne 1 ]; then
		fail t200-mpi-proc-r$r "$n .proc files for rank $r: $(ls "$D")"
		continue
	fi
	f=$(basename "$procs" .proc)
	ok=1
	[ "$(proc_get "$procs" rank)" = "$r" ] || ok=0
	[ "$(proc_get "$procs" pid)" = "${f#r$r.}" ] || ok=0
	[ "$(proc_get "$procs" end)" = exit ] || ok=0
	[ "$(basename "$(proc_get "$procs" exe)")" = mpi-memwork ] || ok=0
	check t200-mpi-proc-r$r [ "$ok" -eq 1 ]
done
check t200-mpi-proc-count [ "$(ls "$D"/*.proc | wc -l)" -eq $NP ]

# Under MPI the ranks end at different times: no database yet, and rank 0 (only) says
# where the recording is.
check t200-mpi-no-db-yet [ ! -e "$D/profile.db" ]
check t200-mpi-rank0-message [ "$(grep -c "^sonde: rank 0 done; recording in $D " err)" -eq 1 ]
check t200-mpi-one-message [ "$(grep -c '^sonde: ' err)" -eq 1 ]

# The merged report.
if ! "$SONDE" report "$D" --format csv >report.csv 2>report.err; then
	fail t200-mpi-report "sonde report: $(head -c 300 report.err)"
	exit 0
fi
pass t200-mpi-report
o=$D/mem/objects.csv
check t200-mpi-hot-heap-first test "$(sed -n 2p "$o" | cut -d, -f1,2)" = \
	"alloc_work (mpi-memwork.c:$line),heap"
check t200-mpi-static-second test "$(sed -n 3p "$o" | cut -d, -f1,2)" = "static_table,static"
check t200-mpi-heap-share float_between "$(csv_get "$o" kind heap share)" 0.63 0.87
check t200-mpi-static-share float_between "$(csv_get "$o" object static_table share)" 0.13 0.37
check t200-mpi-csv-view test "$(sed '/^$/,$d' report.csv)" = "$(cat "$o")"

# Per-rank split, from the rank column of threads.csv.
t=$D/mem/threads.csv
rank_shares "$t" >ranks
sed 's/^/    ranks: /' ranks
check t200-mpi-ranks-present test "$(cut -d' ' -f1 ranks | tr '\n' ' ')" = "$(seq -s' ' 0 $((NP - 1))) "
total=$((NP * (NP + 1) / 2))
for r in $(seq 0 $((NP - 1))); do
	share=$(awk -v r="$r" '$1 == r { print $2 }' ranks)
	want=$(awk -v r="$r" -v t="$total" 'BEGIN { printf "%.4f", (r + 1) / t }')
	check t200-mpi-rank$r-share float_between "${share:-0}" \
		"$(awk -v w="$want" 'BEGIN { print w - 0.04 }')" "$(awk -v w="$want" 'BEGIN { print w + 0.04 }')"
done
# Each thread row's pid is the pid of its rank's .proc.
bad=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	{ print $h["rank"], $h["pid"] }' "$t" | sort -u | while read -r r p; do
	[ -f "$D/r$r.$p.proc" ] || echo "rank $r pid $p"
done)
check t200-mpi-thread-pids [ -z "$bad" ]

if command -v python3 >/dev/null; then
	"$SONDE" report "$D" --format json >report.json
	check t200-mpi-json python3 - "$NP" "alloc_work (mpi-memwork.c:$line)" <<'EOF'
import json, sys
np, top = int(sys.argv[1]), sys.argv[2]
d = json.load(open("report.json"))
assert d["meta"]["processes"] == np, d["meta"]
assert d["objects"][0]["object"] == top, d["objects"][0]
assert sorted({t["rank"] for t in d["threads"]}) == list(range(np))
per = [sum(t["samples"] for t in d["threads"] if t["rank"] == r) for r in range(np)]
assert sum(per) == d["meta"]["samples"], (per, d["meta"]["samples"])
assert per == sorted(per) and len(set(per)) == np, per
EOF
else
	skip t200-mpi-json "python3 not found"
fi
