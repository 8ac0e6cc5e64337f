/* SPDX-License-Identifier: MIT */
/*
 * rt-fdstorm - a program that does what it likes with its descriptors while its threads are
 * sampled: rounds of "close everything above 2, make a pipe on the lowest descriptors, put
 * 64 bytes in it, run worker threads, read the bytes back".  The workers recurse deep
 * (many stack pages per call path: an unwinder that validates addresses does so often)
 * and start fresh each round, so their first samples come right after the close.
 *
 *   rt-fdstorm [SECONDS [MODE]]     SECONDS of rounds (default 1), MODE one of
 *     range   close_range(3, ~0): ascending, as closefrom does
 *     down    close(fd) from the limit down to 3, one by one (the other order)
 *     dup     as range, and the second close (below) is followed by the pipe's ends dup2'd
 *             onto the numbers of every descriptor above 4 that was open (a runtime's): a
 *             write into them, or a read from them, by anyone but the program shows in
 *             the bytes read back
 *     mixed   the three in turn (default)
 *   rt-fdstorm SECONDS after-range|after-from|after-down
 *             once: close every descriptor above 2 (close_range, closefrom, or close one by
 *             one from the limit down), then WORKERS threads that work for SECONDS of
 *             wall time, long enough each for many samples at the default period (the
 *             rounds' threads run about 0.3 ms of CPU each: less than one period)
 *
 * Mid-round a second close_range runs while the workers are sampled, and a second set of
 * workers starts after it.
 * Prints "rt-fdstorm: N rounds, pipe intact" and exits 0, or says what was damaged and
 * exits 1.  A SIGPIPE (exit 141) or EBADF it did not cause is the runtime's doing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WORKERS 4
#define PHASES 4
#define MSG 64

static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Each level has a page of locals, so a path spans dozens of stack pages. */
static __attribute__((noinline)) uint64_t deep(int d, uint64_t x)
{
	volatile char page[4096];
	page[x & 4095] = (char)x;
	if (d == 0) {
		for (int i = 0; i < 2000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		return x + page[x & 4095];
	}
	return deep(d - 1, x + 1) ^ page[(x >> 7) & 4095];
}

/* About a millisecond of work through call paths 8 to 31 frames deep. */
static void *worker(void *arg)
{
	uint64_t x = (uintptr_t)arg;
	for (int i = 0; i < 64; i++, x++)
		sink += deep(8 + (int)(x % 24), x);
	return NULL;
}

/* Work until the wall clock passes end. */
static void *long_worker(void *arg)
{
	double end = *(const double *)arg;
	uint64_t x = (uint64_t)(end * 1e6);
	while (now() < end)
		for (int i = 0; i < 8; i++, x++)
			sink += deep(8 + (int)(x % 24), x);
	return NULL;
}

static int fd_limit(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 4096)
		return 4096;
	return (int)rl.rlim_cur;
}

/* The number of close() calls that succeeded ("down"; 0 for close_range). */
static int close_all(const char *mode, int lim)
{
	int n = 0;
	if (strcmp(mode, "down") == 0) {
		for (int fd = lim - 1; fd > 2; fd--)
			n += close(fd) == 0;
		return n;
	}
	close_range(3, ~0u, 0);
	return 0;
}

/* Whether descriptors a and b are the same open file (same inode). */
static int same_file(int a, int b)
{
	struct stat sa, sb;
	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* The descriptors above 4 open now (the program has none there: they are a runtime's). */
static int others_open(int lim, int *fds, int max)
{
	int n = 0;
	for (int fd = 5; fd < lim && n < max; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			fds[n++] = fd;
	return n;
}

static int start_workers(pthread_t *th, int seed)
{
	for (int i = 0; i < WORKERS; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)(seed + i)))
			return printf("rt-fdstorm: pthread_create failed\n"), 1;
	return 0;
}

/* One round; 0, or 1 after printing what went wrong. */
static int one_round(const char *mode, int lim, int r)
{
	int p[2], taken[64];
	char msg[MSG], got[4 * MSG];
	pthread_t th[WORKERS];

	close_all(mode, lim);
	if (pipe2(p, O_NONBLOCK))
		return printf("rt-fdstorm: pipe failed: %s\n", strerror(errno)), 1;
	for (int i = 0; i < MSG; i++)
		msg[i] = (char)('A' + (i + r) % 26);
	if (write(p[1], msg, MSG) != MSG)
		return printf("rt-fdstorm: write failed: %s\n", strerror(errno)), 1;
	for (int ph = 0; ph < PHASES; ph++) {
		/* closes between sets of workers: the descriptors a runtime made for the last
		 * set's samples go from under it (in dup mode the program's pipe takes their
		 * numbers); the next set's first samples come right after */
		int ntaken = 0;
		if (ph > 0 && strcmp(mode, "dup") == 0)
			ntaken = others_open(lim, taken, 64);
		if (ph > 0)
			close_range(5, ~0u, 0);
		for (int i = 0; i < ntaken; i++)
			if (dup2(p[taken[i] & 1], taken[i]) < 0)
				return printf("rt-fdstorm: dup2 %d: %s\n", taken[i], strerror(errno)), 1;
		if (start_workers(th, (r * PHASES + ph) * WORKERS))
			return 1;
		for (int i = 0; i < WORKERS; i++)
			pthread_join(th[i], NULL);
		/* still the pipe, after the workers (and the runtime's thread ends) are gone */
		for (int i = 0; i < ntaken; i++)
			if (!same_file(taken[i], p[taken[i] & 1]))
				return printf("rt-fdstorm: round %d: fd %d is not the pipe after dup2\n",
					      r, taken[i]), 1;
	}
	ssize_t n = read(p[0], got, sizeof(got));
	if (n != MSG || memcmp(got, msg, MSG)) {
		printf("rt-fdstorm: round %d (%s): pipe damaged (%zd bytes back%s%s)\n", r, mode, n,
		       n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
		return 1;
	}
	if (p[0] != 3 || p[1] != 4)
		return printf("rt-fdstorm: round %d: pipe on fds %d,%d\n", r, p[0], p[1]), 1;
	return 0;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	const char *mode = argc > 2 ? argv[2] : "mixed";
	static const char *const modes[] = { "range", "down", "dup" };
	int lim = fd_limit(), r = 0;
	double end = now() + secs;

	if (strncmp(mode, "after-", 6) == 0) {
		pthread_t th[WORKERS];
		int closed = 0;
		if (strcmp(mode, "after-from") == 0)
			closefrom(3);
		else
			closed = close_all(mode + 6, lim);
		/* nothing above 2 is the program's now: a descriptor open there is a runtime's */
		for (int i = 0; i < WORKERS; i++)
			if (pthread_create(&th[i], NULL, long_worker, &end))
				return printf("rt-fdstorm: pthread_create failed\n"), 1;
		for (int i = 0; i < WORKERS; i++)
			pthread_join(th[i], NULL);
		/* natively nothing above 2 is open: 0 closed; a runtime's descriptors must
		 * look the same (close gives EBADF) */
		printf("rt-fdstorm: %s done (%d closed above 2)\n", mode, closed);
		return 0;
	}

	do {
		const char *m = strcmp(mode, "mixed") ? mode : modes[r % 3];
		if (one_round(m, lim, r))
			return 1;
		r++;
	} while (now() < end);
	printf("rt-fdstorm: %d rounds, pipe intact\n", r);
	return 0;
}
