/* SPDX-License-Identifier: MIT */
/*
 * vbp.c - a program that holds debug registers of its own (as a debugger or a watchpoint
 * library would): `vbp N SECONDS` starts a thread that opens N breakpoint events on
 * itself, then calls work() for SECONDS of CPU time.  With N = 4 every register of that
 * thread is taken before its first sample, so each of sonde variance's arms there is
 * refused (t818).  (Not in main: the runtime's calibration keeps an event there.)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "vbp.h"

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int want = 4, got;
static double secs = 0.5;

static void *thr(void *arg)
{
	for (int i = 0; i < want && i < 4; i++)
		got += vbp_open(i) >= 0;
	double end = cpu_now() + secs;
	while (cpu_now() < end)
		work(20000);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1)
		want = atoi(argv[1]);
	if (argc > 2)
		secs = atof(argv[2]);
	if (pthread_create(&t, NULL, thr, NULL) || pthread_join(t, NULL))
		return 1;
	printf("vbp: %d of its own breakpoints held\n", got);
	return 0;
}
