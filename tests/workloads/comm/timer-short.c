/* SPDX-License-Identifier: MIT */
/*
 * timer-short.c - how often a POSIX CPU-time timer (timer_create(CLOCK_THREAD_CPUTIME_ID,
 * SIGEV_THREAD_ID), the clock source's timer where comm holds breakpoint events) signals a
 * thread that lives about one scheduler tick of CPU time, against one that lives long;
 * with the first expiry a whole period ("full"), drawn at random in (0, period]
 * ("random"), or 1 ns ("tick": the first tick that finds the thread running, what
 * rt/source-clock.c does).  Prints signals per CPU second for each.
 *   timer-short full|random|tick [PERIOD_NS=900000] [THREADS=600] [BURN_NS=1500000]
 * bench/comm.sh runs it (COMM_BENCH_ONLY=timer).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long period = 900000, burn = 1500000;
static int mode;	/* 0 full, 1 random, 2 tick */
static __thread volatile int signals;
static long total_signals;
static double total_cpu;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void on_sig(int s)
{
	(void)s;
	signals++;
}

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *worker(void *arg)
{
	long ns = (long)(size_t)arg;
	unsigned seed = (unsigned)syscall(SYS_gettid) * 2654435761u;
	struct sigevent ev;
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGRTMIN + 3;
	ev._sigev_un._tid = (int)syscall(SYS_gettid);
	timer_t tm;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &tm))
		return NULL;
	long first = mode == 1 ? 1 + (long)(rand_r(&seed) % (unsigned)period) : mode == 2 ? 1 : period;
	struct itimerspec it = { { period / 1000000000, period % 1000000000 },
				 { first / 1000000000, first % 1000000000 } };
	timer_settime(tm, 0, &it, NULL);
	double t0 = cpu_now();
	while (cpu_now() - t0 < ns * 1e-9)
		;
	timer_delete(tm);
	pthread_mutex_lock(&lock);
	total_signals += signals;
	total_cpu += cpu_now() - t0;
	pthread_mutex_unlock(&lock);
	return NULL;
}

static double run(int n, long ns)
{
	total_signals = 0;
	total_cpu = 0;
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, worker, (void *)(size_t)ns))
			return -1;
		pthread_join(t, NULL);
	}
	return total_cpu > 0 ? total_signals / total_cpu : 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "full") && strcmp(argv[1], "random") &&
			 strcmp(argv[1], "tick"))) {
		fprintf(stderr, "usage: timer-short full|random|tick [PERIOD_NS] [THREADS] [BURN_NS]\n");
		return 2;
	}
	mode = !strcmp(argv[1], "random") ? 1 : !strcmp(argv[1], "tick") ? 2 : 0;
	if (argc > 2)
		period = atol(argv[2]);
	int n = argc > 3 ? atoi(argv[3]) : 600;
	if (argc > 4)
		burn = atol(argv[4]);
	if (period <= 0 || n <= 0 || burn <= 0) {
		fprintf(stderr, "timer-short: numbers must be positive\n");
		return 2;
	}
	signal(SIGRTMIN + 3, on_sig);
	double shortr = run(n, burn);
	double longr = run(1, burn * n > 1000000000L ? 1000000000L : burn * n);
	printf("%s first expiry, period %ld ns: %d threads of %.1f ms CPU: %.0f signals a CPU second; "
	       "one thread of %.2f s: %.0f\n", argv[1], period, n, burn / 1e6, shortr,
	       (burn * n > 1000000000L ? 1e9 : (double)burn * n) / 1e9, longr);
	return 0;
}
