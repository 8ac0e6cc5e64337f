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
