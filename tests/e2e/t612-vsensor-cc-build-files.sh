#!/usr/bin/env bash
# t612-vsensor-cc-build-files: what 'sonde vsensor cc' leaves for the build is the original
# compile's, though it compiles an instrumented copy in a temporary directory (the
# usability review of 2026-11-29):
#  - H1: -MMD's dependency file names the source as given, not the copy: the copy's
#    temporary path made every later `make` stop at "No rule to make target
#    /tmp/sonde-vsensor.X/0/main.c"; so does -MF's, and -MD without -o;
#  - H3: __FILE__ (and so assert's messages) reads as the compile command names the file
#    (src/f.c, not its absolute path), and the debug information's unit is src/f.c, not
#    the temporary copy.
. "$(dirname "$0")/lib.sh"
. "$SONDE_TOP/tests/workloads/vsensor/vs-test.sh"
vs_setup t612-vsensor
mkdir -p src
cat >src/f.c <<'C'
#include <mpi.h>
#include <stdio.h>
#include "f.h"
int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	double s = 0;
	for (int t = 0; t < 3; t++)
		for (int i = 0; i < N; i++)
			s += i * 0.5;
	printf("%s s=%g\n", __FILE__, s);
	MPI_Finalize();
	return 0;
}
C
echo '#define N 100000' >src/f.h
"$SONDE" vsensor cc mpicc -O2 -g -MMD -MP -c src/f.c -o f.o >cc.log 2>&1
check t612-cc-status [ $? -eq 0 -a -f f.o -a -f f.d ]
check "t612-deps-source ($(head -1 f.d))" grep -q '^f.o: src/f.c' f.d
check t612-deps-no-copy [ "$(grep -c 'sonde-vsensor\.' f.d)" -eq 0 ]
check t612-deps-header grep -q 'src/f.h' f.d
mkdir -p dep
"$SONDE" vsensor cc mpicc -O2 -c src/f.c -MD -MF dep/x.dep -o g.o >cc2.log 2>&1
check t612-mf-status [ $? -eq 0 -a -f dep/x.dep ]
check t612-mf-no-copy [ "$(grep -c 'sonde-vsensor\.' dep/x.dep)" -eq 0 ]
# -MD without -o: the source's base name, here (in a directory of its own: its f.o)
mkdir -p nod && (cd nod && "$SONDE" vsensor cc mpicc -O2 -MD -c ../src/f.c >cc3.log 2>&1)
check t612-md-no-o [ -f nod/f.d -a "$(grep -c 'sonde-vsensor\.' nod/f.d)" -eq 0 ]
# __FILE__ and the debug information
"$SONDE" vsensor cc mpicc -O2 -g -o f f.o >link.log 2>&1
check t612-link [ $? -eq 0 ]
SONDE_DIR=$PWD/run SONDE_VS_LIVE=0 ./f >out 2>/dev/null
check "t612-file-as-given ($(cat out))" grep -q '^src/f.c s=' out
if command -v objdump >/dev/null; then
	objdump --dwarf=info f.o >dw 2>/dev/null
	check t612-debug-unit grep -q 'DW_AT_name.*: src/f.c$' dw
	check t612-debug-no-copy [ "$(grep -c 'sonde-vsensor\.' dw)" -eq 0 ]
else
	skip t612-debug-unit "objdump not found"
fi
