/* SPDX-License-Identifier: MIT */
/*
 * rt-proc - processes, descriptors and environments, for the runtime's fork, exec and
 * descriptor handling (t015, t017).
 *
 * usage: rt-proc MODE
 *   fork-mt      3 threads keep creating short threads (and allocating) while main forks 20
 *                children; each child starts 2 threads, joins them and exits 0.  Prints
 *                "rt-proc: forked 20 ok".
 *   vfork-fail   20 times: vfork, exec a missing program, _exit(127) in the child; then
 *                main allocates and sweeps a block in after_vfork().  Prints
 *                "rt-proc: vfork 20 ok sum=S" with S = 512 * 2^17 * (2^17 - 1) / 2.
 *   spawn        posix_spawn, system() and popen() each run /bin/echo; prints what they got
 *   execle-empty execle("/usr/bin/env") with an empty environment: env prints nothing
 *   high-fd      closes every descriptor above 2 (close_range), puts /dev/null on 700..709,
 *                forks; the child checks that all ten are still open.  Prints
 *                "rt-proc: high fds 10 of 10 open in child".
 *   fd-limit     RLIMIT_NOFILE 64; 30 live threads; main opens 40 descriptors.  Prints
 *                "rt-proc: opened 40 of 40".
 *   first-fd     with stdin closed (run it so): the first open() returns 0.  Prints
 *                "rt-proc: first fd 0".
 *   low-pipe     closes every descriptor above 2, makes a pipe (fds 3 and 4), writes 64
 *                bytes into it, works on 2 threads, reads the pipe back.  Prints
 *                "rt-proc: pipe fds 3,4 intact (64 bytes back)".
 *   dir-gone     renames $SONDE_DIR (if set) to $SONDE_DIR.gone, then works on 4 threads.
 *                Prints "rt-proc: dir-gone ok".
 * Exit status 0 unless something went wrong (then 1 and a line saying what).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define ELEMS (1u << 17)
#define PASSES 512

static volatile uint64_t sink;
static volatile int stop;

static __attribute__((noinline)) uint64_t sweep(uint64_t *a, unsigned n, int passes)
{
	uint64_t s = 0;
	for (unsigned i = 0; i < n; i++)
		a[i] = i;
	for (int p = 0; p < passes; p++)
		for (unsigned i = 0; i < n; i++)
			s += a[i];
	return s;
}

static uint64_t work(int passes)
{
	uint64_t *a = malloc(4096 * sizeof(*a));
	if (!a)
		return 0;
	uint64_t s = sweep(a, 4096, passes);
	free(a);
	sink += s;
	return s;
}

static void *short_thread(void *arg)
{
	(void)arg;
	work(4);
	return NULL;
}

static void *spawner(void *arg)
{
	(void)arg;
	while (!stop) {
		pthread_t t;
		if (pthread_create(&t, NULL, short_thread, NULL) == 0)
			pthread_join(t, NULL);
	}
	return NULL;
}

static int fork_mt(void)
{
	pthread_t th[3];
	int bad = 0;
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, spawner, NULL);
	for (int i = 0; i < 20; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			pthread_t c[2];
			for (int k = 0; k < 2; k++)
				if (pthread_create(&c[k], NULL, short_thread, NULL))
					_exit(3);
			for (int k = 0; k < 2; k++)
				pthread_join(c[k], NULL);
			exit(0);
		}
		int st;
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
		work(8);
	}
	stop = 1;
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	printf(bad ? "rt-proc: %d forks failed\n" : "rt-proc: forked 20 ok\n", bad);
	return bad != 0;
}

static __attribute__((noinline)) uint64_t after_vfork(void)
{
	uint64_t *a = malloc(ELEMS * sizeof(*a));
	if (!a)
		return 0;
	uint64_t s = sweep(a, ELEMS, PASSES);
	free(a);
	return s;
}

static int vfork_fail(void)
{
	int bad = 0;
	for (int i = 0; i < 20; i++) {
		pid_t pid = vfork();
		if (pid == 0) {
			char *argv[] = { "rt-proc-missing", NULL };
			execve("/nonexistent/rt-proc-missing", argv, environ);
			_exit(127);
		}
		int st;
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 127)
			bad++;
	}
	uint64_t s = after_vfork();
	uint64_t want = (uint64_t)PASSES * ((uint64_t)ELEMS * (ELEMS - 1) / 2);
	printf("rt-proc: vfork 20 %s sum=%llu\n", bad || s != want ? "bad" : "ok",
	       (unsigned long long)s);
	return bad || s != want;
}

static int spawn(void)
{
	char *argv[] = { "echo", "rt-proc: posix_spawn", NULL };
	pid_t pid;
	int st, bad = 0;
	fflush(stdout);
	if (posix_spawn(&pid, "/bin/echo", NULL, NULL, argv, environ) ||
	    waitpid(pid, &st, 0) != pid || st)
		bad++;
	if (system("echo 'rt-proc: system'"))
		bad++;
	FILE *p = popen("echo 'rt-proc: popen'", "r");
	char line[128] = "";
	if (!p || !fgets(line, sizeof(line), p) || pclose(p))
		bad++;
	printf("%s", line);
	printf("rt-proc: spawn %s\n", bad ? "bad" : "ok");
	return bad != 0;
}

static int execle_empty(void)
{
	char *envp[] = { NULL };
	fflush(stdout);
	execle("/usr/bin/env", "env", (char *)NULL, envp);
	printf("rt-proc: execle failed\n");
	return 1;
}

static int high_fd(void)
{
	close_range(3, ~0u, 0);
	int fd = open("/dev/null", O_RDONLY);
	for (int k = 700; k < 710; k++)
		if (fd < 0 || dup2(fd, k) != k)
			return printf("rt-proc: dup2 failed\n"), 1;
	close(fd);
	work(2000);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		int n = 0;
		for (int k = 700; k < 710; k++)
			n += fcntl(k, F_GETFD) >= 0;
		printf("rt-proc: high fds %d of 10 open in child\n", n);
		exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	return 0;
}

static pthread_barrier_t bar;

static void *waiter(void *arg)
{
	(void)arg;
	work(1);
	pthread_barrier_wait(&bar);	/* all alive while main opens */
	pthread_barrier_wait(&bar);
	return NULL;
}

static int fd_limit(void)
{
	struct rlimit rl = { 64, 64 };
	pthread_t th[30];
	int n = 0;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return printf("rt-proc: setrlimit failed\n"), 1;
	pthread_barrier_init(&bar, NULL, 31);
	for (int i = 0; i < 30; i++)
		if (pthread_create(&th[i], NULL, waiter, NULL))
			return printf("rt-proc: pthread_create failed\n"), 1;
	pthread_barrier_wait(&bar);
	for (int i = 0; i < 40; i++)
		n += open("/dev/null", O_RDONLY) >= 0;
	pthread_barrier_wait(&bar);
	for (int i = 0; i < 30; i++)
		pthread_join(th[i], NULL);
	printf("rt-proc: opened %d of 40\n", n);
	return n != 40;
}

static int first_fd(void)
{
	work(2000);
	int fd = open("/dev/null", O_RDONLY);
	printf("rt-proc: first fd %d\n", fd);
	return 0;
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 100; i++)
		work(64);
	return NULL;
}

/* The program's own pipe on the lowest descriptors, after closing everything above 2. */
static int low_pipe(void)
{
	int p[2];
	char msg[64], got[256];
	pthread_t th[2];
	close_range(3, ~0u, 0);
	if (pipe2(p, O_NONBLOCK))
		return printf("rt-proc: pipe failed\n"), 1;
	for (int i = 0; i < 64; i++)
		msg[i] = (char)('A' + i % 26);
	if (write(p[1], msg, sizeof(msg)) != (ssize_t)sizeof(msg))
		return printf("rt-proc: write failed\n"), 1;
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	ssize_t n = read(p[0], got, sizeof(got));
	int same = n == (ssize_t)sizeof(msg) && !memcmp(got, msg, sizeof(msg));
	printf("rt-proc: pipe fds %d,%d %s (%zd bytes back)\n", p[0], p[1],
	       same ? "intact" : "damaged", n);
	return !same;
}

static int dir_gone(void)
{
	const char *dir = getenv("SONDE_DIR");
	pthread_t th[4];
	work(500);
	if (dir && *dir) {
		char to[4096];
		snprintf(to, sizeof(to), "%s.gone", dir);
		if (rename(dir, to))
			return printf("rt-proc: rename failed\n"), 1;
	}
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	printf("rt-proc: dir-gone ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(void);
	} modes[] = {
		{ "fork-mt", fork_mt },	      { "vfork-fail", vfork_fail },
		{ "spawn", spawn },	      { "execle-empty", execle_empty },
		{ "high-fd", high_fd },	      { "fd-limit", fd_limit },
		{ "first-fd", first_fd },     { "dir-gone", dir_gone },
		{ "low-pipe", low_pipe },
	};
	for (size_t i = 0; argc == 2 && i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(argv[1], modes[i].name))
			return modes[i].fn();
	fprintf(stderr, "usage: rt-proc MODE\n");
	return 2;
}
