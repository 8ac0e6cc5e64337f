#!/usr/bin/env bash
# t831-variance-fork-exec: a program that forks and execs (a shell-out) records each
# process; the summary says how many ("N thread(s) of M processes": it read "11 thread(s)"
# for one thread and ten short processes), and names the program itself, not a child:
# with no sample anywhere (a run too short) it read "program: true", the exec'd child the
# directory listed first (profile_main_process: among equals, the first started).
. "$(dirname "$0")/lib.sh"
cat >fx.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	volatile double s = 0;
	for (int k = 0; k < 3; k++) {
		pid_t p = fork();
		if (p == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		waitpid(p, NULL, 0);
		for (int i = 0; i < n; i++)
			s += i * 0.5;
	}
	printf("fx: done\n");
	return 0;
}
C
gcc -O2 -g fx.c -o fx || { fail t831-build "gcc"; exit 0; }
"$SONDE" variance -o v0 -- ./fx 0 >out0 2>err0
check t831-status [ $? -eq 0 ]
check t831-program-output grep -qx "fx: done" out0
check t831-processes grep -q "pairs in [0-9]* thread(s) of 7 processes" <(flat err0)
check t831-program-named grep -q "^  program: ./fx 0$" err0
"$SONDE" report v0 >rep0 2>&1
check t831-report-program-named grep -q "^  program: ./fx 0$" rep0
