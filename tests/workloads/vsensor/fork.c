/* fork.c - a rank that forks, and a child that reaches MPI_Finalize (t607).  One
 * process, no mpirun: the PMPI_* calls of the runtime are pmpi-solo.h's single-rank
 * stubs, because a forked child of a real Open MPI rank hangs in PMPI_Finalize whatever
 * the runtime does.  The child
 * has no CPU-share sampler thread: before the fix its MPI_Finalize joined the parent's
 * and waited forever (here: killed by its alarm after 10 s). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmpi-solo.h"

double v[100000];

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	for (int it = 0; it < 300; it++)
		for (int i = 0; i < 100000; i++)
			v[i] = v[i] * 0.5 + 1;
	pid_t p = fork();
	if (p == 0) {
		alarm(10);
		for (int it = 0; it < 30; it++)
			for (int i = 0; i < 100000; i++)
				v[i] = v[i] * 0.5 + 1;
		MPI_Finalize();
		_exit(7);
	}
	int st = 0;
	waitpid(p, &st, 0);
	printf("child %s %d\n", WIFEXITED(st) ? "exit" : "signal",
	       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	MPI_Finalize();
	return 0;
}
