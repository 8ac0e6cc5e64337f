#!/usr/bin/env bash
# t058-mem-file-constants: a program whose samples fall on the compiler's constants (loads
# from its own .rodata, outside any named variable: the object "[file: PROGRAM]") gets a
# note saying what those are (the trial of 2026-11-28: miniBUDE's top object, 32%, its
# float literals, unexplained).  rodata.c: 24 constants read at every iteration, its only
# memory accesses; gcc -O2 keeps them in memory (more than the SSE registers).
. "$(dirname "$0")/lib.sh"
command -v gcc >/dev/null || { skip t058 "gcc is not installed"; exit 0; }
gcc -O2 -g "$SONDE_TOP/tests/workloads/rodata.c" -o rodata || { fail t058-build "gcc"; exit 0; }
if ! objdump -d rodata | grep -qE '(movsd|mulsd) +0x[0-9a-f]+\(%rip\),%xmm'; then
	skip t058 "this gcc keeps the constants in registers: no load to sample"
	exit 0
fi
"$SONDE" mem -o rec -- ./rodata 30000000 >/dev/null 2>err.txt
check t058-run [ $? -eq 0 ]
top=$(sqlite3 rec/profile.db "SELECT name FROM objects ORDER BY share DESC LIMIT 1")
check "t058-top-object-[$top]" [ "$top" = "[file: rodata]" ]
check t058-note grep -q "of the samples are accesses to \[file: rodata\]: that file's own data outside its named variables, mostly read-only constants" <(flat err.txt)
