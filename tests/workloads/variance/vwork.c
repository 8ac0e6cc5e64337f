/* SPDX-License-Identifier: MIT */
/*
 * vwork.c - ground truth for `sonde variance`: functions whose per-instance work is known
 * by construction.  Built by the tests with `sonde-cc --sonde-calls -O1`.
 *
 *   vwork mix SECONDS       saw(): work 1..10 units in a sawtooth (CV of the work
 *                           sqrt(99/12)/5.5 = 0.522); flat(): 5 units every time (CV 0);
 *                           bimodal(): 1 or 9 units at random (CV 4/5 = 0.8)
 *   vwork pages SECONDS     pages3() touches 3 fresh pages, pages7() 7 (exact page faults);
 *                           multiret(i) returns by one of 3 paths after 1, 2 or 3 pages
 *   vwork recurse SECONDS   rec(d) touches 1 page, loops a quarter unit and recurses down to
 *                           d = 0: an instance entered with d has exactly d + 1 page faults
 *                           (top call d = 3)
 *   vwork indirect SECONDS  ind(), called through a pointer only: 4 or 12 units at random
 *                           (mean 8, CV 0.5)
 *   vwork jump SECONDS      deep(3) longjmps back from deep(0) (siglongjmp every other
 *                           time): deep never returns; flat() runs between
 *   vwork threads SECONDS   4 threads run tw(): 4 units each, thread 3 12 units (per-thread
 *                           means 1:1:1:3, their CV 1/1.5 = 0.667)
 *   vwork texit SECONDS     threads that end inside exiter(3) -> ... -> exiter(0), which
 *                           calls pthread_exit: exiter never returns; 2 at a time
 *   vwork calls SECONDS     a call-heavy loop of small functions (the benchmark)
 *   vwork tiny SECONDS      40000 calls of mid() (two calls of leaf(): a dozen
 *                           instructions, well under 1 us), then big() (20 units), in turn
 *
 * With VWORK_ITERS=N in the environment, mix, pages, recurse, jump and calls run N rounds
 * instead of SECONDS (fixed work, for bench/variance.sh).
 *
 * One unit is UNIT iterations of a volatile loop (about 0.1-0.3 ms with sonde-cc here).
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define UNIT 20000
#define NOINLINE __attribute__((noinline))

static volatile uint64_t sink;
static long page;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

NOINLINE void spin(int units)
{
	for (long i = 0; i < (long)units * UNIT; i++)
		sink += (uint64_t)i;
}

NOINLINE void saw(int k) { spin(k); }
NOINLINE void flat(void) { spin(5); }
NOINLINE void bimodal(int k) { spin(k); }
NOINLINE void big(void) { spin(20); }

/* n fresh pages, each written once: n minor faults. */
static NOINLINE void touch(int n)
{
	char *p = mmap(NULL, (size_t)n * (size_t)page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		abort();
	madvise(p, (size_t)n * (size_t)page, MADV_NOHUGEPAGE);
	for (int i = 0; i < n; i++)
		p[(long)i * page] = 1;
	munmap(p, (size_t)n * (size_t)page);
}

/* spin: user time on the stack, so that clock samples select them; no page fault. */
NOINLINE void pages3(void) { touch(3); spin(1); }
NOINLINE void pages7(void) { touch(7); spin(1); }

NOINLINE int multiret(int i)
{
	touch(1);
	if (i % 3 == 0)
		return 1;
	touch(1);
	if (i % 3 == 1)
		return 2;
	touch(1);
	return 3;
}

/* Called only through a function pointer (an indirect call, as libgomp calls an OpenMP
 * region's outlined function): 4 or 12 units at random (mean 8, CV 0.5), with no call
 * inside, so the samples land in it and its call site names no callee. */
NOINLINE void ind(int u)
{
	for (int i = 0; i < u * UNIT; i++)
		sink++;
}
static void (*volatile ind_ptr)(int) = ind;

NOINLINE void rec(int d)
{
	touch(1);
	/* user time of its own (a quarter unit): the page faults are kernel time, which
	 * clock samples do not see, so without it rec is seldom chosen */
	for (int i = 0; i < UNIT / 4; i++)
		sink++;
	if (d > 0)
		rec(d - 1);
	sink++;
}

static jmp_buf jb;
static sigjmp_buf sjb;
static int use_sig;

NOINLINE void deep(int d)
{
	spin(1);
	if (d == 0) {
		if (use_sig)
			siglongjmp(sjb, 1);
		longjmp(jb, 1);
	}
	deep(d - 1);
	sink++;
}

NOINLINE void tw(int units) { spin(units); }

NOINLINE void exiter(int d)
{
	spin(2);
	if (d == 0)
		pthread_exit(NULL);
	exiter(d - 1);
	sink++;
}

static void *texit_main(void *arg)
{
	(void)arg;
	flat();
	exiter(3);
	return NULL;
}

static double secs;
static long iters;	/* VWORK_ITERS: rounds instead of seconds */

static int more(long i, double end)
{
	return iters > 0 ? i < iters : now() < end;
}

static void *thread_main(void *arg)
{
	int slow = (int)(intptr_t)arg;
	double end = now() + secs;
	while (now() < end)
		tw(slow ? 12 : 4);
	return NULL;
}

static void pages_loop(long i, double end)
{
	for (; more(i, end); i++) {
		pages3();
		pages7();
		multiret((int)i);
		spin(1);
	}
}

NOINLINE int leaf(int x) { return x * 3 + 1; }
NOINLINE int mid(int x) { return leaf(x) + leaf(x + 1); }

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: vwork mix|pages|pagesfork|recurse|indirect|jump|threads|calls|tiny SECONDS\n");
		return 2;
	}
	secs = atof(argv[2]);
	iters = getenv("VWORK_ITERS") ? atol(getenv("VWORK_ITERS")) : 0;
	page = sysconf(_SC_PAGESIZE);
	const char *m = argv[1];
	double end = now() + secs;
	unsigned seed = 12345;
	long i = 0;

	if (!strcmp(m, "mix")) {
		for (; more(i, end); i++) {
			saw(1 + (int)(i % 10));
			flat();
			bimodal(rand_r(&seed) % 2 ? 9 : 1);
		}
	} else if (!strcmp(m, "indirect")) {
		for (; more(i, end); i++)
			ind_ptr(rand_r(&seed) % 2 ? 12 : 4);
	} else if (!strcmp(m, "pages")) {
		pages_loop(i, end);
	} else if (!strcmp(m, "pagesfork")) {
		/* the same in a forked child, the parent only waiting: a child maps none of
		 * its parent's file pages, the runtime's code included */
		pid_t c = fork();
		int st = 0;
		if (c < 0)
			abort();
		if (c > 0)
			return waitpid(c, &st, 0) == c && WIFEXITED(st) ? WEXITSTATUS(st) : 1;
		pages_loop(i, now() + secs);
	} else if (!strcmp(m, "recurse")) {
		for (; more(i, end); i++) {
			rec(3);
			spin(1);
		}
	} else if (!strcmp(m, "jump")) {
		for (; more(i, end); i++) {
			use_sig = (int)(i & 1);
			if (use_sig ? !sigsetjmp(sjb, 1) : !setjmp(jb))
				deep(3);
			flat();
		}
	} else if (!strcmp(m, "threads")) {
		pthread_t th[4];
		for (int k = 0; k < 4; k++)
			pthread_create(&th[k], NULL, thread_main, (void *)(intptr_t)(k == 3));
		for (int k = 0; k < 4; k++)
			pthread_join(th[k], NULL);
	} else if (!strcmp(m, "texit")) {
		for (; more(i, end); i++) {
			pthread_t a, b;
			pthread_create(&a, NULL, texit_main, NULL);
			pthread_create(&b, NULL, texit_main, NULL);
			pthread_join(a, NULL);
			pthread_join(b, NULL);
		}
	} else if (!strcmp(m, "tiny")) {
		for (; more(i, end); i++) {
			for (int k = 0; k < 40000; k++)
				sink += (uint64_t)mid(k);
			big();
		}
	} else if (!strcmp(m, "calls")) {
		for (; more(i, end); i++)
			for (int k = 0; k < 100000; k++)
				sink += (uint64_t)mid(k);
	} else {
		fprintf(stderr, "vwork: unknown mode '%s'\n", m);
		return 2;
	}
	printf("vwork %s done\n", m);
	return 0;
}
