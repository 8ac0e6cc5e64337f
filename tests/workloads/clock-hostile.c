/* SPDX-License-Identifier: MIT */
/*
 * clock-hostile - code that a single-stepping profiler can break; its output must be the
 * same with and without the clock source.
 *
 *   blocked  two threads block every blockable signal (SIGTRAP and the sample signal
 *            included), the main thread only SIGTRAP; all three chase pointers (each address
 *            comes from the previous load, so a profiler wants to step).  A step with SIGTRAP
 *            blocked is a forced trap that kills the process, and a blocked real-time sample
 *            signal that keeps being queued fills the queue (then the kernel sends SIGIO).
 *   pushf    pushf; load; popf in a loop, and the flags image is checked for the trap flag:
 *            a profiler stepping over pushf leaves TF in the image, and popf turns it on.
 *
 * usage: clock-hostile blocked|pushf [SECONDS]
 * Prints "clock-hostile: <mode> <checksum> tf=0".  Exit 1 if the trap flag was seen.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RING 4096
static void *ring[RING];
static double secs = 0.5;

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Follow the ring for `secs` of CPU, in whole rounds so the result is deterministic. */
static uint64_t chase(void)
{
	void **p = ring;
	uint64_t rounds = 0;
	double t0 = cpu_seconds();
	while (cpu_seconds() - t0 < secs) {
		for (int i = 0; i < RING * 16; i++)
			p = *p;
		rounds++;
	}
	return (uint64_t)((uintptr_t)p - (uintptr_t)ring) / sizeof(void *) + (rounds > 0);
}

static void *blocked_thread(void *arg)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	*(uint64_t *)arg = chase();
	return NULL;
}

static int run_blocked(void)
{
	pthread_t th[2];
	uint64_t r[2] = { 0, 0 };
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, blocked_thread, &r[i]);
	sigset_t trap;
	sigemptyset(&trap);
	sigaddset(&trap, SIGTRAP);
	pthread_sigmask(SIG_BLOCK, &trap, NULL);
	uint64_t m = chase();
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("clock-hostile: blocked %llu tf=0\n", (unsigned long long)(r[0] + r[1] + m));
	return 0;
}

static int run_pushf(void)
{
	static volatile uint64_t cell = 7;
	uint64_t sum = 0, tf = 0;
	double t0 = cpu_seconds();
	while (cpu_seconds() - t0 < secs) {
		for (int i = 0; i < 100000; i++) {
			uint64_t fl, v;
			__asm__ volatile("pushfq\n\t"
					 "mov (%2), %1\n\t"
					 "mov (%%rsp), %0\n\t"
					 "popfq"
					 : "=&r"(fl), "=&r"(v)
					 : "r"(&cell)
					 : "memory", "cc");
			tf |= fl & 0x100;
			sum += v;
		}
	}
	printf("clock-hostile: pushf %llu tf=%d\n", (unsigned long long)(sum > 0), tf ? 1 : 0);
	return tf ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (argc > 2)
		secs = atof(argv[2]);
	for (int i = 0; i < RING; i++)
		ring[i] = &ring[(i * 1021 + 1) % RING];
	if (!strcmp(argv[1], "blocked"))
		return run_blocked();
	if (!strcmp(argv[1], "pushf"))
		return run_pushf();
	return 2;
}
