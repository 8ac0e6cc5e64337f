/* SPDX-License-Identifier: MIT */
/*
 * forkexec - fork, exec and wait, for the runtime's fork/exec handling.
 *
 * usage: forkexec            the parent
 *        forkexec child      what the exec'd child runs
 *
 * Known answer: the parent forks twice.  The first child execs /bin/echo "forkexec: echo";
 * the second execs this program with the argument "child", which sums a 1M-element array
 * 64 times and prints "forkexec: child sum=<64 * 1M*(1M-1)/2>".  Meanwhile the parent does
 * the same memory work, waits for both children, checks that both exited with status 0 and
 * prints "forkexec: parent ok".  Exit status 0 (1 if anything failed).  The line order of
 * the three outputs is not fixed (the processes run concurrently); the lines are.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ELEMS (1u << 20)
#define PASSES 64

static uint64_t memory_work(void)
{
	uint64_t *a = malloc(ELEMS * sizeof(*a));
	uint64_t s = 0;

	if (!a)
		return 0;
	for (uint64_t i = 0; i < ELEMS; i++)
		a[i] = i;
	for (int p = 0; p < PASSES; p++) {
		for (uint64_t i = 0; i < ELEMS; i++)
			s += a[i];
		asm volatile("" : : "r"(a) : "memory");
	}
	free(a);
	return s;
}

static pid_t spawn(char *const argv[])
{
	fflush(stdout);
	pid_t pid = fork();

	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static int exited_ok(pid_t pid)
{
	int status;

	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
	const uint64_t want = PASSES * ((uint64_t)ELEMS * (ELEMS - 1) / 2);

	if (argc > 1 && !strcmp(argv[1], "child")) {
		uint64_t s = memory_work();

		printf("forkexec: child sum=%llu\n", (unsigned long long)s);
		return s == want ? 0 : 1;
	}
	char *echo[] = { "/bin/echo", "forkexec: echo", NULL };
	char *self[] = { "/proc/self/exe", "child", NULL };
	pid_t a = spawn(echo);
	pid_t b = spawn(self);
	int ok = memory_work() == want;

	ok &= exited_ok(a);
	ok &= exited_ok(b);
	printf("forkexec: parent %s\n", ok ? "ok" : "WRONG");
	return ok ? 0 : 1;
}
