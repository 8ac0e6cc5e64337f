#!/usr/bin/env bash
# t605-vsensor-program: a program in two files (tests/workloads/vsensor/prog-main.c,
# prog-lib.c), like CoMD with its MPI calls in parallel.c.  File by file, the calls into
# the other file are undescribed externals and the library's loops, whose callers are
# not seen, are not sensors (their n could differ at every call).  With --with the
# analysis sees the program: each call site with a fixed argument is a sensor, a
# function called with two different sizes is not one inside, the one called from one
# site is, and an Allreduce wrapped in a sensor of the other file is dropped
# (outermost).  'cc --with' builds it; the run names the sensors 'list' selected and
# prints what the uninstrumented program prints.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t60-vsensor-lib.bash"
W=$SONDE_TOP/tests/workloads/vsensor
if ! command -v python3 >/dev/null; then
	skip t605-vsensor "python3 not found"
	exit 0
fi
cp "$W/prog-main.c" "$W/prog-lib.c" .
for f in main lib; do
	"$SONDE" vsensor list --csv "prog-$f.c" >"alone-$f.csv" 2>"alone-$f.err" ||
		fail "t605-vsensor-list-$f" "$(head -c 300 "alone-$f.err")"
	"$SONDE" vsensor list --csv --with 'prog-*.c' "prog-$f.c" >"with-$f.csv" 2>"with-$f.err" ||
		fail "t605-vsensor-list-with-$f" "$(head -c 300 "with-$f.err")"
done
SUM=prog-main.c:$(vs_line MAIN-SUM prog-main.c)
SC1=prog-main.c:$(vs_line MAIN-SCALE1 prog-main.c)
SC2=prog-main.c:$(vs_line MAIN-SCALE2 prog-main.c)
LSUM=prog-lib.c:$(vs_line LIB-SUM prog-lib.c)
LKER=prog-lib.c:$(vs_line LIB-KERNEL prog-lib.c)
LSC=prog-lib.c:$(vs_line LIB-SCALE prog-lib.c)
# file by file: nothing
check t605-vsensor-alone-main-sum grep -q "undescribed external" <<<"$(vs_get alone-main.csv "$SUM" reason)"
check t605-vsensor-alone-lib-kernel grep -q "callers are not all seen" <<<"$(vs_get alone-lib.csv "$LKER" reason)"
# --with naming files where nothing calls the function: not "callers not all seen", but
# called by no file given (the trial of 2026-11-29: minisweep's compare_runs, called only
# by another program's tester.c)
"$SONDE" vsensor list --csv --with prog-lib.c prog-lib.c >uncalled.csv 2>uncalled.err
check t605-vsensor-uncalled-reason grep -q "in lib_kernel, which no file given calls" <<<"$(vs_get uncalled.csv "$LKER" reason)"
# loops of functions defined in the program's own header: not candidates, said (the trial
# of 2026-11-29: minisweep keeps its kernels in headers, and list read "0 candidates, 0
# sensors" file after file, no word why); the .c file's call of one can be a sensor
printf 'static inline void hk(double *a, int n)\n{\n\tfor (int i = 0; i < n; i++)\n\t\ta[i] += 1;\n}\n' >kern.h
printf '#include "kern.h"\nstatic double a[100];\nint main(void)\n{\n\tfor (int it = 0; it < 9; it++)\n\t\thk(a, 100);\n\treturn 0;\n}\n' >hmain.c
"$SONDE" vsensor list hmain.c >hmain.out 2>hmain.err
check t605-vsensor-header-status test $? -eq 0
check t605-vsensor-header-said grep -q "^sonde: warning: vsensor: 'hmain.c' has 1 loop in 1 function defined in headers (the first in .*kern.h): not candidates themselves" hmain.err
check t605-vsensor-header-call-sensor grep -q "^hmain.c:6 *main *hk *compute *sensor" hmain.out
# one file holding main, rejections for code not seen: the hint to name it the whole
# program (the trial of 2026-11-30: miniWeather in one file, 2 sensors without --with
# itself, 10 with it); with --with itself, none
printf 'double v[1000];\nvoid kern(int n)\n{\n\tfor (int i = 0; i < n; i++)\n\t\tv[i] += 1;\n}\nint main(void)\n{\n\tfor (int it = 0; it < 9; it++)\n\t\tkern(1000);\n\treturn 0;\n}\n' >one.c
"$SONDE" vsensor list one.c >one.out 2>one.err
check t605-vsensor-one-file-hint grep -q "^sonde: warning: vsensor: 'one.c': 1 candidate rejected for code not seen: if this file is the whole program, say so with --with one.c" one.err
"$SONDE" vsensor list --with one.c one.c >one-w.out 2>one-w.err
check t605-vsensor-one-file-with-no-hint sh -c '! grep -q "code not seen" one-w.err'
check t605-vsensor-one-file-with-global grep -q "^one.c:4 .*global" one-w.out
check t605-vsensor-alone-no-sensor test "$(cat alone-main.csv alone-lib.csv | grep -c ',sensor')" -eq 0
# as one program
check t605-vsensor-with-sum test "$(vs_get with-main.csv "$SUM" status)" = sensor
check t605-vsensor-with-sum-network test "$(vs_get with-main.csv "$SUM" kind)" = network
check t605-vsensor-with-scale1 test "$(vs_get with-main.csv "$SC1" status)" = sensor
check t605-vsensor-with-scale2 test "$(vs_get with-main.csv "$SC2" status)" = sensor
check t605-vsensor-with-lib-kernel test "$(vs_get with-lib.csv "$LKER" status)" = sensor
check t605-vsensor-with-lib-scale-sites grep -q "2 call sites" <<<"$(vs_get with-lib.csv "$LSC" reason)"
check t605-vsensor-with-lib-sum-sites grep -q "2 call sites" <<<"$(vs_get with-lib.csv "$LSUM" reason)"
# a --with file that does not parse: a warning, the analysis goes on without it
printf 'int broken(void) { return nope; }\n' >prog-broken.c
"$SONDE" vsensor list --csv --with 'prog-*.c' prog-main.c >with-broken.csv 2>with-broken.err
check t605-vsensor-with-broken-status test $? -eq 0
check t605-vsensor-with-broken-msg \
	grep -q "^sonde: warning: vsensor: analysing 'prog-main.c' without --with prog-broken.c: .*nope" \
	with-broken.err
rm prog-broken.c
# two files with a static function of the same name: each call is its own file's (a call
# of sb.c's scale taken for sa.c's would give sa.c's loop 3 call sites, not one)
mkdir statics
printf '%s\n' 'static double w[4096];' 'static void scale(int n)' '{' \
	'	for (int i = 0; i < n; i++)	/* SA-SCALE */' '		w[i] *= 0.999;' '}' \
	'void a_run(void)' '{' '	scale(1000);' '}' >statics/sa.c
printf '%s\n' '#include <mpi.h>' 'void a_run(void);' 'static double u[4096];' \
	'static void scale(int n)' '{' '	for (int i = 0; i < n; i++)	/* SB-SCALE */' \
	'		u[i] *= 0.999;' '}' 'int main(int argc, char **argv)' '{' \
	'	MPI_Init(&argc, &argv);' '	for (int it = 0; it < 200; it++) {' '		a_run();' \
	'		scale(1000);' '		scale(2000);' '	}' '	MPI_Finalize();' '	return 0;' '}' \
	>statics/sb.c
for f in sa sb; do
	"$SONDE" vsensor list --csv --with 'statics/s*.c' statics/$f.c >statics-$f.csv 2>statics-$f.err ||
		fail "t605-vsensor-statics-list-$f" "$(head -c 300 statics-$f.err)"
done
SA=sa.c:$(vs_line SA-SCALE statics/sa.c)
SB=sb.c:$(vs_line SB-SCALE statics/sb.c)
check t605-vsensor-statics-sa-one-site test "$(vs_get statics-sa.csv "$SA" status)" = global
check t605-vsensor-statics-sa-reason grep -q "^inside sensor a_run:" <<<"$(vs_get statics-sa.csv "$SA" reason)"
check t605-vsensor-statics-sb-two-sites \
	grep -q "a parameter of scale that its 2 call sites may set differently" <<<"$(vs_get statics-sb.csv "$SB" reason)"

. "$W/vs-test.sh"
vs_setup t605-vsensor
mpicc -O2 -o prog-orig prog-main.c prog-lib.c
for f in main lib; do
	"$SONDE" vsensor cc --with 'prog-*.c' mpicc -O2 -c "prog-$f.c" >>cc.log 2>&1
done
if "$SONDE" vsensor cc mpicc -o prog prog-main.o prog-lib.o >>cc.log 2>&1; then
	pass t605-vsensor-cc-with
else
	fail t605-vsensor-cc-with "$(tr '\n' ' ' <cc.log | head -c 300)"
	exit 0
fi
vs_run -np 2 ./prog-orig >orig.out 2>/dev/null
SONDE_DIR=$T/d SONDE_VS_LIVE=0 vs_run -np 2 -x SONDE_VS_LIVE ./prog >vs.out 2>vs.err
check t605-vsensor-run-status test $? -eq 0
check t605-vsensor-same-output cmp -s orig.out vs.out
want=$(cat with-main.csv with-lib.csv | python3 -c '
import csv, sys
print(" ".join(sorted(r["site"] + " " + r["function"] for r in csv.DictReader(sys.stdin) if r["status"].startswith("sensor"))))')
got=$(python3 - "$T/d/sensors.csv" <<'PY'
import csv, sys
print(" ".join(sorted(x["sensor"] for x in csv.DictReader(open(sys.argv[1]))
                      if x["rank"] == "0" and not x["sensor"].startswith("("))))
PY
)
check t605-vsensor-run-sensors test "$got" = "$want"
