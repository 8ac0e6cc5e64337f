#!/usr/bin/env bash
# t071-mem-stack-note: where the threads' stacks take 30% of the samples or more, the
# summary says what those accesses are (locals, spills, the pushes and pops of calls) and
# where to look, as it does for the OpenMP runtime and MPI's polling (the trial of
# 2026-11-28: graph500's ranks put 46% of their samples on their stacks, which reads as
# the program's data).  A -O0 loop calling a small function keeps everything on the stack
# (100% by construction but for the runtime's start); an -O2 sweep of a heap array keeps
# it in registers and the array (no note).
. "$(dirname "$0")/lib.sh"
cat >stk.c <<'EOF'
#include <stdlib.h>
__attribute__((noinline)) long add(long a, long b) { long c = a + b; return c; }
int main(int argc, char **argv) {
	long s = 0, n = 60000000;
	if (argc > 1) {	/* the heap sweep */
		long *a = calloc(1 << 20, sizeof(long));
		for (long r = 0; r < 60; r++)
			for (long i = 0; i < 1 << 20; i++) s += a[i] += i;
		return (int)(s & 1);
	}
	for (long i = 0; i < n; i++) s = add(s, i);
	return (int)(s & 1);
}
EOF
gcc -O0 -g stk.c -o stk0 && gcc -O2 -g stk.c -o stk2 || { fail t071-build "gcc stk.c"; exit 0; }
"$SONDE" mem -o s0 -- ./stk0 >/dev/null 2>s0.txt
check t071-stack-run [ $? -eq 0 ]
share=$(sqlite3 s0/profile.db "SELECT ROUND(100 * SUM(share)) FROM objects WHERE kind = 'stack'")
check "t071-stack-share-${share%.*}" [ "${share%.*}" -ge 30 ]
check t071-stack-said grep -q "${share%.*}% of the samples are accesses to the threads' stacks: local variables (arrays among them), spilled registers, and the pushes and pops of calls.*a local array is the program's data, which sonde names by the thread's stack, not by variable" <(flat s0.txt)
"$SONDE" mem -o s2 -- ./stk2 heap >/dev/null 2>s2.txt
check t071-heap-run [ $? -eq 0 ]
share=$(sqlite3 s2/profile.db "SELECT ROUND(100 * COALESCE(SUM(share), 0)) FROM objects WHERE kind = 'stack'")
check "t071-heap-stack-share-${share%.*}" [ "${share%.*}" -lt 30 ]
check t071-heap-not-said [ "$(grep -c "accesses to the threads' stacks" s2.txt)" -eq 0 ]
