/* fork-heap: a block allocated before fork() and read by the child alone (the parent
 * waits): the child's samples land in the parent's block, which the child inherits with
 * the address space (tests/e2e/t078-mem-fork-heap.sh).  Until 2026-11-29 they read as
 * [anonymous memory]: the child's recording holds no allocation record of it. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define N (1 << 20)

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 400;
	double *inherited = malloc(N * sizeof(*inherited));	/* FORK-HEAP-BLOCK */
	if (!inherited)
		return 1;
	for (long i = 0; i < N; i++)
		inherited[i] = (double)i;
	fflush(stdout);
	pid_t p = fork();
	if (p < 0)
		return 1;
	if (p == 0) {
		double s = 0;
		for (long r = 0; r < rounds; r++)
			for (long i = 0; i < N; i++)
				s += inherited[(i * 7919) & (N - 1)];
		printf("fork-heap: child %.0f\n", s);
		fflush(stdout);
		_exit(0);
	}
	int st;
	waitpid(p, &st, 0);
	printf("fork-heap: parent done\n");
	free(inherited);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
