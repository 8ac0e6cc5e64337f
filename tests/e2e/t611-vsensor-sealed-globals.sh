#!/usr/bin/env bash
# t611-vsensor-sealed-globals: a kernel bounded by a global, in a loop that calls a library
# function the analysis does not describe (qsort).  With --with the files are the whole
# program: a library function cannot name a global defined there whose address is never
# taken, so the kernel bounded by nsize (set in main alone) is a sensor; those bounded by
# naddr (its address kept in a file-scope pointer), ncb (written by the comparator qsort
# calls back) and optind (the C library's own) are not, and their reason names the call.
# Without --with any call may be to another file that writes them: none is a sensor.
# (tests/workloads/vsensor/glob-main.c, glob-lib.c; the trial of 2026-11-29: miniAMR's
# every kernel loop refused for globals main() alone sets, as its driver loop calls MPI.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t60-vsensor-lib.bash"
W=$SONDE_TOP/tests/workloads/vsensor
command -v python3 >/dev/null || { skip t611-vsensor "python3 not found"; exit 0; }
cp "$W/glob-main.c" "$W/glob-lib.c" .
"$SONDE" vsensor list --csv --with 'glob-*.c' glob-lib.c >with.csv 2>with.err ||
	{ fail t611-list-with "$(head -c 300 with.err)"; exit 0; }
"$SONDE" vsensor list --csv glob-lib.c >alone.csv 2>alone.err ||
	{ fail t611-list-alone "$(head -c 300 alone.err)"; exit 0; }
q=$(vs_line QSORT glob-main.c)
for k in SEALED ADDR CB LIB; do
	s=glob-lib.c:$(vs_line GLOB-$k glob-lib.c)
	st=$(vs_get with.csv "$s" status) why=$(vs_get with.csv "$s" reason)
	if [ $k = SEALED ]; then
		check "t611-with-$k-sensor ($st: $why)" [ "$st" = sensor ]
	else
		check "t611-with-$k-rejected ($st)" [ "$st" = rejected ]
		check "t611-with-$k-names-the-call" grep -q "which the call of qsort (line $q) in loop main:" <<<"$why"
	fi
	check "t611-alone-$k-rejected" [ "$(vs_get alone.csv "$s" status)" = rejected ]
done
