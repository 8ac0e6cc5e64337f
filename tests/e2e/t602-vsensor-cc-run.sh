#!/usr/bin/env bash
# t602-vsensor-cc-run: 'sonde vsensor cc' compiles (-c, keeping the object's name) and
# links like mpicc; the instrumented program computes what the original computes; a
# 2-rank run writes one vsensor-<program>-<job>/ directory with the matrices, events.csv
# and sensors.csv naming exactly the sensors 'list' selected, on every rank; the report
# prints and its HTML page renders in headless Chromium.
. "$(dirname "$0")/lib.sh"
. "$SONDE_TOP/tests/workloads/vsensor/vs-test.sh"
vs_setup t602-vsensor
# libclang is loaded by the analysis when it runs (below: cc analyses the sources), not
# linked into the CLI, which every sonde command maps: 59 MB of RSS for `sonde --version`
# with it linked (12 MB of it its relocations, private), in every rank's sonde process
check t602-cli-no-libclang [ "$(ldd "$SONDE" | grep -c -E 'libclang|libLLVM')" -eq 0 ]
cp "$VSW/fig4.c" "$VSW/cases.c" .
if "$SONDE" vsensor cc mpicc -O2 -c fig4.c >cc.log 2>&1 && [ -f fig4.o ] &&
	"$SONDE" vsensor cc mpicc fig4.o -o fig4 >>cc.log 2>&1; then
	pass t602-vsensor-cc-c-then-link
else
	fail t602-vsensor-cc-c-then-link "$(tr '\n' ' ' <cc.log | head -c 300)"
	exit 0
fi
# a source whose path holds '"' and '\' (written into #line and the sensors' names as C
# string literals, unescaped until 2026-11-28: a name with '"' failed to compile, a
# directory with one compiled with warnings and a debug info naming a file "q")
mkdir -p 'q"d\x' && cp fig4.c 'q"d\x/fi"g4.c'
"$SONDE" vsensor cc mpicc -O2 -g -c 'q"d\x/fi"g4.c' -o quoted.o >quoted.log 2>&1
check t602-vsensor-cc-quoted-path [ $? -eq 0 -a -f quoted.o -a ! -s quoted.log ]
# and '?': "??/" is a trigraph in ISO C modes (a '\' that ate the closing quote)
mkdir -p 'tg??' && cp fig4.c 'tg??/x.c'
"$SONDE" vsensor cc mpicc -std=c99 -O2 -c 'tg??/x.c' -o tg.o >tg.log 2>&1
check t602-vsensor-cc-trigraph-path [ $? -eq 0 -a -f tg.o -a ! -s tg.log ]
# same output, original and instrumented (cases.c prints from inside sensors' loops)
mpicc -O2 -o cases-orig cases.c && "$SONDE" vsensor cc mpicc -O2 -o cases-vs cases.c
mpirun --allow-run-as-root -np 1 ./cases-orig >orig.out 2>/dev/null
SONDE_DIR=$T/d-cases mpirun --allow-run-as-root -np 1 ./cases-vs >vs.out 2>/dev/null
check t602-vsensor-same-output cmp -s orig.out vs.out
check t602-vsensor-output-nonempty test -s orig.out

vs_run -np 2 ./fig4 >run.out 2>run.err
check t602-vsensor-run-status test $? -eq 0
dirs=$(ls -d vsensor-fig4-* 2>/dev/null)
check t602-vsensor-one-dir test "$(echo "$dirs" | grep -c .)" -eq 1
D=$(echo "$dirs" | head -1)
for f in matrix-compute.csv matrix-network.csv matrix-io.csv events.csv sensors.csv rank-0.rec rank-1.rec; do
	check "t602-vsensor-file-$f" test -f "$D/$f"
done
# the records (rec.h, format 2): read back by 'records', each naming a sensor of its
# rank's sensors.csv and a slice of the matrices, with a time > 0 but for the (core)
# (its "time" is a CPU number, 0 included: vsrt.c); at most 9 bytes a record on average
# here (slice differences under 64, sensor ids under 128, weights under 2.1 s: 1+1+4+3)
check t602-vsensor-rec-magic test "$(head -c 4 "$D/rank-0.rec")" = VSR2
if "$SONDE" vsensor records "$D" >recs.csv 2>recs.err; then
	pass t602-vsensor-records
else
	fail t602-vsensor-records "$(head -c 300 recs.err)"
fi
check t602-vsensor-records-sensors python3 - "$D" recs.csv <<'PY'
import csv, os, sys
names = {}
for r in csv.DictReader(open(os.path.join(sys.argv[1], "sensors.csv"))):
    names.setdefault(r["rank"], []).append(r["sensor"])
slices = len(open(os.path.join(sys.argv[1], "matrix-network.csv")).readline().split(",")) - 1
rows = list(csv.DictReader(open(sys.argv[2])))
for r in rows:
    s = int(r["sensor"])
    assert 0 <= s < len(names[r["rank"]]), r
    assert 0 <= int(r["slice"]) < slices, (r, slices)
    assert float(r["time_us"]) > 0 or names[r["rank"]][s] == "(core)", r
size = sum(os.path.getsize(os.path.join(sys.argv[1], "rank-%d.rec" % q)) - 4 for q in (0, 1))
assert rows and size <= 9 * len(rows), (size, len(rows))
PY
# the format before it (16 bytes a record, no header) still reads, to the same records
mkdir -p old
cp "$D/sensors.csv" old/
python3 - recs.csv old <<'PY'
import csv, struct, sys
out = {}
for r in csv.DictReader(open(sys.argv[1])):
    out.setdefault(r["rank"], b"")
    out[r["rank"]] += struct.pack("<iiff", int(r["slice"]), int(r["sensor"]), float(r["time_us"]), float(r["seconds"]))
for rank, b in out.items():
    open("%s/rank-%s.rec" % (sys.argv[2], rank), "wb").write(b)
PY
"$SONDE" vsensor records old >old.csv 2>&1
check t602-vsensor-records-format1 cmp -s recs.csv old.csv
printf 'VSR9xxxx' >old/rank-0.rec
check t602-vsensor-records-version sh -c "'$SONDE' vsensor records old >/dev/null 2>err; test \$? -eq 1 && grep -q 'version' err"
check t602-vsensor-records-usage sh -c "'$SONDE' vsensor records '$D/sensors.csv' >/dev/null 2>&1; test \$? -eq 2"
check t602-vsensor-events-header test "$(head -1 "$D/events.csv")" = "ranks,start,end,kind,severity,sensors"
"$SONDE" vsensor list --csv fig4.c >list.csv
want=$(python3 -c '
import csv
print(" ".join(sorted(r["site"] + " " + r["function"] for r in csv.DictReader(open("list.csv")) if r["status"].startswith("sensor"))))')
for r in 0 1; do
	got=$(python3 - "$D/sensors.csv" "$r" <<'PY'
import csv, sys
print(" ".join(sorted(x["sensor"] for x in csv.DictReader(open(sys.argv[1]))
                      if x["rank"] == sys.argv[2] and not x["sensor"].startswith("("))))
PY
)
	check "t602-vsensor-sensors-rank$r" test "$got" = "$want"
done
# the runtime's CPU-share pseudo-sensor, on every rank, where the kernel has schedstat
if [ -r /proc/thread-self/schedstat ]; then
	check t602-vsensor-cpu-share test "$(grep -c '^[01],(cpu share),compute,' "$D/sensors.csv")" -eq 2
	# the CPU each rank ran on, per slice (the rule's core check): a CPU of this machine
	check t602-vsensor-core test "$(grep -c '^[01],(core),' "$D/sensors.csv")" -eq 2
	# (the cells after each row's rank; since 2026-11-28 written as the float exactly, "1"
	# where it was "1.000")
	check t602-vsensor-core-matrix test "$(tail -n +2 "$D/matrix-core.csv" | cut -d, -f2- | tr ',' '\n' | grep . |
		awk -v n="$(getconf _NPROCESSORS_CONF)" '$1 < 0 || $1 >= n || $1 != int($1) { bad++ } END { print (NR > 0 && !bad) }')" = 1
	# the CPU-share records, what bench_others reads (bench/lib.sh): fig4 is too short
	# for them (a rank runnable under 10 ms a period has none: vsrt.c), so a program
	# whose ranks each spin for 0.4 s of their own CPU time (CPU time, not wall: the
	# same work at any load).  Each rank has some, none with seconds < 0, and each
	# rank's add up to more than 0 (90df3d4 had dropped this check with the one of fig4)
	cat >busy.c <<'C'
#include <mpi.h>
#include <time.h>
static double cpu_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
int main(int argc, char **argv)
{
	volatile double x = 0;
	MPI_Init(&argc, &argv);
	while (cpu_s() < 0.4)
		for (int i = 0; i < 100000; i++)
			x += i;
	MPI_Finalize();
	return 0;
}
C
	"$SONDE" vsensor cc mpicc -O2 -o busy busy.c >>cc.log 2>&1
	SONDE_DIR=$T/d-busy vs_run -np 2 ./busy >/dev/null 2>&1
	DB=$T/d-busy
	"$SONDE" vsensor records "$DB" >busy.csv 2>busy.err
	check t602-vsensor-cpu-share-records python3 - "$DB" busy.csv <<'PY'
import csv, os, sys
ids = {}
per = {}
for r in csv.DictReader(open(os.path.join(sys.argv[1], "sensors.csv"))):
    per[r["rank"]] = per.get(r["rank"], -1) + 1
    if r["sensor"] == "(cpu share)":
        ids[r["rank"]] = str(per[r["rank"]])
sec = {}
for r in csv.DictReader(open(sys.argv[2])):
    if ids.get(r["rank"]) == r["sensor"]:
        assert float(r["seconds"]) >= 0 and float(r["time_us"]) > 0, r
        sec.setdefault(r["rank"], []).append(float(r["seconds"]))
assert sorted(sec) == ["0", "1"], sec
assert all(sum(v) > 0 for v in sec.values()), sec
PY
else
	skip t602-vsensor-cpu-share "no /proc/thread-self/schedstat"
fi
# live warnings are off with SONDE_VS_LIVE=0 (the run's only stderr is the summary)
SONDE_VS_LIVE=0 SONDE_DIR=$T/d-quiet vs_run -np 2 -x SONDE_VS_LIVE ./fig4 >/dev/null 2>quiet.err
check t602-vsensor-live-off test "$(grep -c 'sonde: vsensor: rank' quiet.err)" -eq 0
check t602-vsensor-summary grep -q '^sonde: vsensor: 2 ranks' quiet.err
# the matrix has one row per rank
check t602-vsensor-matrix-rows test "$(tail -n +2 "$D/matrix-compute.csv" | cut -d, -f1 | tr '\n' ' ')" = "0 1 "
if "$SONDE" vsensor report "$D" >report.txt 2>report.err && grep -q "^2 ranks" report.txt; then
	pass t602-vsensor-report
else
	fail t602-vsensor-report "$(head -c 300 report.err)"
fi
check t602-vsensor-report-usage sh -c "'$SONDE' vsensor report /nonexistent >/dev/null 2>&1; test \$? -eq 1"
if chromium_find t602-vsensor-html; then
	"$SONDE" vsensor report --html "$T/page.html" "$D" >/dev/null
	chromium "file://$T/page.html" --dump-dom >dom.html
	# fig4's one sensor is C3, an MPI_Barrier (its loops are too small to time)
	check t602-vsensor-html-matrix grep -q 'id="matrix-network"' dom.html
	# one row of cells per rank in the heat map
	check t602-vsensor-html-rows test "$(grep -o 'data-row="[0-9]*"' dom.html | sort -u | wc -l)" -ge 2
	check t602-vsensor-html-events grep -q 'id="events"' dom.html
	# the page lists every event of events.csv
	rows=$(python3 -c 'import re,sys; t=re.search(r"<table[^>]*id=\"events\".*?</table>", open(sys.argv[1]).read(), re.S); print(len(re.findall(r"<tr", t.group(0))) - 1 if t else -1)' dom.html)
	check "t602-vsensor-html-events-rows ($rows)" test "$rows" -eq "$(($(wc -l <"$D/events.csv") - 1))"
	# an empty table says so (the trial of 2026-11-29: a header alone), a full one not
	if [ "$rows" = 0 ]; then
		check t602-vsensor-html-no-events-said grep -q "No variance events" dom.html
	else
		check t602-vsensor-html-events-not-none sh -c '! grep -q "No variance events" dom.html'
	fi
	check t602-vsensor-html-console test -z "$(chromium_console_errors)"
fi
