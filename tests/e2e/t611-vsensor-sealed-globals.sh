#!/usr/bin/env bash
# t611-vsensor-sealed-globals: a kernel bounded by a global, in a loop that calls a library
# function the analysis does not describe (qsort).  With --with the files are the whole
# program: a library function cannot name a global defined there whose address is never
# taken, so the kernels bounded by nsize (set in main alone), ndef (defined in a file of
# definitions alone) and sfix (static, set in main alone) are sensors; those bounded by
# naddr (its address kept in a file-scope pointer), ncb and scb (written by the comparator
# qsort calls back, the one external, the other static) and optind (the C library's own)
# are not, and their reason names the call.  Without --with any call may be to another
# file, which may write the external ones and call a function of the file that writes a
# static one (set_sfix): none is a sensor.
# (tests/workloads/vsensor/glob-main.c, glob-lib.c, glob-defs.c; the trial of 2026-11-29:
# miniAMR's every kernel loop refused for globals main() alone sets, as its driver loop
# calls MPI; the code review of the same day: static globals were not asked at all, and
# a file of definitions alone left its globals undefined.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t60-vsensor-lib.bash"
W=$SONDE_TOP/tests/workloads/vsensor
command -v python3 >/dev/null || { skip t611-vsensor "python3 not found"; exit 0; }
cp "$W/glob-main.c" "$W/glob-lib.c" "$W/glob-defs.c" .
for f in lib main; do
	"$SONDE" vsensor list --csv --with 'glob-*.c' glob-$f.c >with-$f.csv 2>with-$f.err ||
		{ fail t611-list-with-$f "$(head -c 300 with-$f.err)"; exit 0; }
done
for f in lib main; do
	"$SONDE" vsensor list --csv glob-$f.c >alone-$f.csv 2>alone-$f.err ||
		{ fail t611-list-alone-$f "$(head -c 300 alone-$f.err)"; exit 0; }
done
q=$(vs_line QSORT glob-main.c)
# KIND FILE VERDICT: the kernel's status with --with
for k in SEALED:lib:sensor DEF:lib:sensor SFIX:main:sensor ADDR:lib:rejected CB:lib:rejected \
	SCB:main:rejected LIB:lib:rejected; do
	IFS=: read -r m f want <<<"$k"
	s=glob-$f.c:$(vs_line GLOB-$m glob-$f.c)
	st=$(vs_get with-$f.csv "$s" status) why=$(vs_get with-$f.csv "$s" reason)
	check "t611-with-$m-$want ($st: $why)" [ "$st" = "$want" ]
	[ "$want" = rejected ] &&
		check "t611-with-$m-names-the-call" grep -q "which the call of qsort (line $q) in loop main:" <<<"$why"
	check "t611-alone-$m-rejected" [ "$(vs_get alone-$f.csv "$s" status)" = rejected ]
done
# the program's files alone: no word of other programs
check t611-with-no-duplicate-warning [ "$(cat with-lib.err with-main.err | grep -c "more than one program")" = 0 ]
# Files of two programs (HPCC's STREAM directory holds stream_mpi.c beside stream.c, with its
# own main; the trial of 2026-11-29, F4): the first main found is analysed, glob-main.c's
# calls are unseen, and the warning names the function and both files, not silence.
printf 'int main(void)\n{\n\treturn 0;\n}\n' >glob-aaa.c
"$SONDE" vsensor list --csv --with 'glob-*.c' glob-lib.c >two.csv 2>two.err ||
	{ fail t611-list-two-programs "$(head -c 300 two.err)"; exit 0; }
check t611-two-programs-said grep -q "more than one program's files: main is defined in glob-aaa.c and in glob-main.c (1 such function)" two.err
s=glob-lib.c:$(vs_line GLOB-SEALED glob-lib.c)
check "t611-two-programs-sealed-unseen" [ "$(vs_get two.csv "$s" status)" = rejected ]
