/* SPDX-License-Identifier: MIT */
/*
 * vfork.c - a process that forks inside an OpenMP region (a team of one), for sonde
 * variance's regions timed at the runtime's call (t821).
 *
 *   vfork [ROUNDS [AT]]   ROUNDS (20) regions of one thread, each 2 x 2,000,000 loop
 *                         steps; in region AT (5) the process forks between the two
 *                         halves, the parent waits for the child, and both go on
 *
 * Each process prints how many regions started in it (the region that forked started in
 * the parent: the child's first is AT + 1), the counts a profiler that times every call
 * must find per process:
 *
 *   vfork parent pid 1234 regions 20
 *   vfork child pid 1235 regions 14
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long sink;

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20, at = argc > 2 ? atoi(argv[2]) : 5;
	int child = 0, started = 0;

	for (int r = 0; r < rounds; r++) {
		started++;
#pragma omp parallel num_threads(1)
		{
			for (long i = 0; i < 2000000; i++)
				sink++;
			if (r == at && !child) {
				pid_t p = fork();
				if (p == 0) {
					child = 1;
					started = 0;
				} else if (p > 0) {
					waitpid(p, NULL, 0);
				}
			}
			for (long i = 0; i < 2000000; i++)
				sink++;
		}
	}
	printf("vfork %s pid %d regions %d\n", child ? "child" : "parent", (int)getpid(), started);
	return 0;
}
