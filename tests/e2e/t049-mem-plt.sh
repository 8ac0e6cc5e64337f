#!/usr/bin/env bash
# t049-mem-plt: samples in a PLT stub are named "function@plt", as perf and objdump name
# them, not by the symbol before the PLT ("_init": the trial of 2026-11-27, SimpleMOC's
# calls of expf, 1.2% of its samples).  The program calls a one-line function of its own
# library in a loop: the stub (a jmp through the GOT: a load) is a third of the
# instructions run, so by construction a good part of the samples (0.05: the loop and the
# function hold the rest), and nothing may be named _init.  The caller has an ifunc too
# (target_clones): GNU ld puts its IRELATIVE relocation last in .rela.plt but its stub
# among the others, so stubs are named by the GOT slot they jump through, not by their
# position (review of 2026-11-27: every stub after it took its neighbour's name).  (The
# stubs are Debian gcc's plain .plt: jmp through the GOT, push, jmp to the resolver.)
. "$(dirname "$0")/lib.sh"
command -v gcc >/dev/null || { skip t049 "gcc is not installed"; exit 0; }
cat >tiny.c <<'EOF'
int tiny(int x)
{
	return x + 1;
}
EOF
cat >caller.c <<'EOF'
#include <stdio.h>
#include <time.h>
int tiny(int x);
__attribute__((target_clones("default", "avx2"), noinline)) int twice(int x)
{
	return 2 * x;
}
int main(void)
{
	struct timespec a, b;
	long n = 0;
	int s = 0;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	do {
		for (int i = 0; i < 1000000; i++)
			s = tiny(s);
		n++;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < 0.4);
	printf("caller: %d\n", s == (int)(n * 1000000) && twice(2) == 4 ? 1 : 0);
	return 0;
}
EOF
gcc -O2 -g -shared -fPIC tiny.c -o libtiny.so &&
	gcc -O2 -g caller.c -o caller -L. -ltiny -Wl,-rpath,"$PWD" ||
	{ fail t049-build "gcc could not build the library or its caller"; exit 0; }
"$SONDE" mem -q --source clock -o rec -- ./caller >out 2>err
check t049-status [ $? -eq 0 ]
check t049-output [ "$(cat out)" = "caller: 1" ]
plt=$(awk -F, '$1 == "tiny@plt" { s += $5 } END { print s + 0 }' rec/mem/code.csv)
check "t049-stub-named-${plt}" float_between "$plt" 0.05 1.0
check t049-no-init [ "$(awk -F, '$1 == "_init"' rec/mem/code.csv | wc -l)" -eq 0 ]
