/* SPDX-License-Identifier: MIT */
/*
 * rt2-heap - heavy use of the allocator and of mappings, for the runtime's interposers and
 * its exit paths (t018, t019).
 *
 * usage: rt2-heap MODE [N]
 *   exit-race    3 threads allocate and free 2 KiB blocks (each one an ALLOC and a FREE
 *                record) without pause; main calls exit(5) once all are going.  Done N
 *                times (default 10) in forked children, then by the process itself
 *   thread-exit  same, and one of the threads calls _exit(6)
 *   fork-storm   N (default 200) children forked one after the other while 3
 *                threads allocate 240 calls deep without pause; each child allocates
 *                and exits; prints how many
 *                hung (killed after 10 s) or failed: "0 hung, 0 failed"
 *   churn        4 threads, N (default 500000) alloc/free pairs each of tracked sizes
 *                1-8 KiB, 8 blocks live per thread; prints a checksum
 *   fill         1,200,000 live blocks of 64 bytes (more than the runtime's table of tracked
 *                blocks holds when --min-object is 64), all freed, then after_fill() sweeps
 *                a 1 MiB block
 *   realloc      4 blocks grown by realloc from 16 bytes to 16 MiB (doubling, and by 1 KiB
 *                steps), then shrunk, then realloc(p, 0); prints a checksum
 *   mmap         20,000 anonymous mappings of 64 KiB, unmapped whole, in halves, from the
 *                middle, and grown with mremap; prints a checksum
 *   tid-reuse    a thread allocates in first_thread(); the kernel is then asked (through
 *                /proc/sys/kernel/ns_last_pid) to give its id to a second thread, which
 *                allocates in second_thread(); prints "tid reused" or "tid not reused"
 *
 * Known answer: the checksums depend only on the values written, never on addresses, so
 * they are the same with and without a profiler; exit-race ends with status 5,
 * thread-exit with 6, the others 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile uint64_t sink;
static volatile int started[4];

static __attribute__((noinline)) uint64_t touch(uint64_t *a, size_t n, uint64_t seed)
{
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++)
		a[i] = seed + i;
	for (size_t i = 0; i < n; i++)
		s += a[i];
	return s;
}

/* ---- exit-race, thread-exit ---- */

struct racer {
	int id;
	volatile long exit_after;	/* _exit once this many blocks are done, 0: never */
};

/* Allocates from `depth` frames down: each allocation costs the runtime a longer unwind. */
static __attribute__((noinline)) uint64_t deep_alloc(int depth, uint64_t seed)
{
	if (depth > 0)
		return deep_alloc(depth - 1, seed) + 1;
	uint64_t *a = malloc(2048), s;
	if (!a)
		return 0;
	s = touch(a, 2048 / 8, seed);
	free(a);
	return s;
}

static volatile int storm_done;

static void *deep_racer(void *p)
{
	int id = (int)(intptr_t)p;
	/* until the forks are done (bounded: each allocation is a record) */
	for (long it = 0; it < 1000000 && !storm_done; it++) {
		sink += deep_alloc(240, (uint64_t)it);
		if (it == 200)
			started[id] = 1;
	}
	return NULL;
}

static void *racer(void *p)
{
	struct racer *r = p;
	for (long it = 0;; it++) {
		uint64_t *a = malloc(2048);
		if (!a)
			continue;
		sink += touch(a, 2048 / 8, (uint64_t)it);
		free(a);
		if (it == 2000)
			started[r->id] = 1;
		if (r->exit_after && it >= r->exit_after)
			_exit(6);
	}
	return NULL;
}

/* Threads allocating without pause, then the end of the process from main or a thread. */
static void race(int thread_exits)
{
	static struct racer r[3] = { { 0, 0 }, { 1, 0 }, { 2, 0 } };
	static struct racer me = { 3, 0 };
	pthread_t th[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, racer, &r[i]);
	while (!started[0] || !started[1] || !started[2])
		sched_yield();
	if (!thread_exits)
		exit(5);
	r[1].exit_after = 1;
	racer(&me);
}

/* Each round is a forked child that races (each leaves a recording), then main itself. */
static int exit_race(int thread_exits, int rounds)
{
	int want = thread_exits ? 6 : 5, bad = 0;
	for (int i = 0; i < rounds; i++) {
		pid_t pid = fork();
		if (pid == 0)
			race(thread_exits);
		int st;
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != want)
			bad++;
	}
	printf("rt2-heap: %s %d rounds, %d bad\n", thread_exits ? "thread-exit" : "exit-race",
	       rounds, bad);
	fflush(stdout);
	race(thread_exits);
	return 1;
}

/* ---- fork-storm ---- */

/* Children forked while 3 threads allocate 240 calls deep (the runtime unwinds) without pause:
 * a child allocates too, then exits.  A child still running after 10 s is killed and
 * counted as hung. */
static int fork_storm(int children)
{
	pthread_t th[3];
	int hung = 0, bad = 0;
	for (intptr_t i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, deep_racer, (void *)i);
	while (!started[0] || !started[1] || !started[2])
		sched_yield();
	for (int i = 0; i < children; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			uint64_t *a = malloc(4096);
			if (a)
				sink += touch(a, 4096 / 8, 1);
			free(a);
			exit(0);
		}
		int st = 0, k;
		for (k = 0; k < 10000 && pid > 0; k++) {
			if (waitpid(pid, &st, WNOHANG) == pid)
				break;
			usleep(1000);
		}
		if (pid > 0 && k == 10000) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			hung++;
		} else if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
			bad++;
		}
	}
	storm_done = 1;
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	printf("rt2-heap: fork-storm %d children, %d hung, %d failed\n", children, hung, bad);
	fflush(stdout);
	_exit(hung || bad);
}

/* ---- churn ---- */

static long churn_n = 500000;

static void *churner(void *p)
{
	uint64_t id = (uint64_t)(uintptr_t)p, s = 0, rng = 88172645463325252ull + id;
	uint64_t *live[8] = { 0 };
	size_t len[8] = { 0 };
	for (long it = 0; it < churn_n; it++) {
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		int k = (int)(rng % 8);
		if (live[k])
			s += live[k][len[k] / 8 - 1];
		free(live[k]);
		len[k] = 1024 + (rng >> 8) % 7169;
		live[k] = malloc(len[k]);
		if (!live[k])
			return (void *)1;
		live[k][0] = it;
		live[k][len[k] / 8 - 1] = it ^ id;
	}
	for (int k = 0; k < 8; k++) {
		if (live[k])
			s += live[k][len[k] / 8 - 1];
		free(live[k]);
	}
	__sync_fetch_and_add(&sink, s);
	return NULL;
}

static int churn(void)
{
	pthread_t th[4];
	for (uintptr_t i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, churner, (void *)i);
	int bad = 0;
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(th[i], &r);
		bad |= r != NULL;
	}
	printf("rt2-heap: churn %ld x 4 sum %llu%s\n", churn_n, (unsigned long long)sink,
	       bad ? " (out of memory)" : "");
	return bad;
}

/* ---- fill ---- */

#define FILL_N 1200000

static __attribute__((noinline)) uint64_t after_fill(void)
{
	size_t n = (1u << 20) / 8;
	uint64_t *a = malloc(n * 8), s = 0;
	if (!a)
		return 0;
	for (int pass = 0; pass < 300; pass++)
		s += touch(a, n, (uint64_t)pass);
	free(a);
	return s;
}

static int fill(void)
{
	uint64_t **v = malloc(FILL_N * sizeof(*v)), s = 0;
	if (!v)
		return 1;
	for (long i = 0; i < FILL_N; i++) {
		v[i] = malloc(64);
		if (!v[i])
			return 1;
		v[i][0] = (uint64_t)i;
	}
	for (long i = 0; i < FILL_N; i++) {
		s += v[i][0];
		free(v[i]);
	}
	free(v);
	s += after_fill();
	printf("rt2-heap: fill %d sum %llu\n", FILL_N, (unsigned long long)s);
	return 0;
}

/* ---- realloc ---- */

static int grow(void)
{
	uint64_t s = 0;
	unsigned char *p[4] = { 0 };
	size_t n[4] = { 0 };
	for (int round = 0; round < 21; round++) {
		for (int k = 0; k < 4; k++) {
			size_t want = k & 1 ? n[k] + 1024 * (size_t)(round + 1) :
					      (size_t)16 << round;
			unsigned char *q = realloc(p[k], want);
			if (!q)
				return 1;
			for (size_t i = n[k]; i < want; i++)
				q[i] = (unsigned char)(i * 7 + (size_t)k);
			p[k] = q;
			n[k] = want;
		}
	}
	for (int k = 0; k < 4; k++) {
		for (size_t i = 0; i < n[k]; i += 4096)
			s += p[k][i];
		p[k] = realloc(p[k], 100);
		s += p[k][99];
		p[k] = realloc(p[k], 0);	/* frees; may return NULL or a minimal block */
		free(p[k]);
	}
	printf("rt2-heap: realloc sum %llu\n", (unsigned long long)s);
	return 0;
}

/* ---- mmap ---- */

static int maps(void)
{
	const size_t len = 64 << 10, page = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t s = 0;
	for (int i = 0; i < 20000; i++) {
		char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		if (m == MAP_FAILED)
			return 1;
		for (size_t o = 0; o < len; o += page)
			m[o] = (char)(i + (int)o);
		for (size_t o = 0; o < len; o += page)
			s += (unsigned char)m[o];
		switch (i % 4) {
		case 0:
			munmap(m, len);
			break;
		case 1:	/* halves, the second first */
			munmap(m + len / 2, len / 2);
			munmap(m, len / 2);
			break;
		case 2:	/* a hole in the middle, then the rest */
			munmap(m + page, page);
			munmap(m, len);
			break;
		case 3: {
			char *g = mremap(m, len, 2 * len, MREMAP_MAYMOVE);
			if (g == MAP_FAILED)
				return 1;
			g[2 * len - 1] = 1;
			s += (unsigned char)g[len - page] + (unsigned char)g[2 * len - 1];
			munmap(g, 2 * len);
			break;
		}
		}
	}
	printf("rt2-heap: mmap sum %llu\n", (unsigned long long)s);
	return 0;
}

/* ---- tid-reuse ---- */

static volatile pid_t tid_seen;

static __attribute__((noinline)) void *first_thread(void *p)
{
	(void)p;
	tid_seen = (pid_t)syscall(SYS_gettid);
	uint64_t *a = malloc(1 << 16);
	if (a)
		sink += touch(a, (1 << 16) / 8, 1);
	free(a);
	return NULL;
}

static __attribute__((noinline)) void *second_thread(void *p)
{
	(void)p;
	tid_seen = (pid_t)syscall(SYS_gettid);
	uint64_t *a = malloc(1 << 17);
	if (a)
		sink += touch(a, (1 << 17) / 8, 2);
	free(a);
	return NULL;
}

static int tid_reuse(void)
{
	pthread_t th;
	pthread_create(&th, NULL, first_thread, NULL);
	pthread_join(th, NULL);
	pid_t want = tid_seen;
	int reused = 0;
	/* other processes may take the id first: a few tries, each a first_thread again */
	for (int i = 0; i < 20 && !reused; i++) {
		FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");
		if (!f)
			break;
		fprintf(f, "%d", (int)want - 1);
		if (fclose(f))
			break;
		pthread_create(&th, NULL, second_thread, NULL);
		pthread_join(th, NULL);
		reused = tid_seen == want;
	}
	printf("rt2-heap: tid %s\n", reused ? "reused" : "not reused");
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	if (argc > 2)
		churn_n = atol(argv[2]);
	if (!strcmp(m, "exit-race"))
		return exit_race(0, argc > 2 ? atoi(argv[2]) : 10);
	if (!strcmp(m, "thread-exit"))
		return exit_race(1, argc > 2 ? atoi(argv[2]) : 10);
	if (!strcmp(m, "fork-storm"))
		return fork_storm(argc > 2 ? atoi(argv[2]) : 200);
	if (!strcmp(m, "churn"))
		return churn();
	if (!strcmp(m, "fill"))
		return fill();
	if (!strcmp(m, "realloc"))
		return grow();
	if (!strcmp(m, "mmap"))
		return maps();
	if (!strcmp(m, "tid-reuse"))
		return tid_reuse();
	fprintf(stderr, "usage: rt2-heap exit-race|thread-exit|fork-storm|churn|fill|realloc|"
			"mmap|tid-reuse [N]\n");
	return 2;
}
