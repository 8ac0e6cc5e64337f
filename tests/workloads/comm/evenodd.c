/* SPDX-License-Identifier: MIT */
/*
 * evenodd.c - false sharing inside 8-byte chunks (t421): of a 4 KB char array, thread 1
 * writes the even bytes and thread 2 the odd ones, REPS sweeps each, free running.  Every
 * transfer is false sharing, and each thread keeps to its own byte parity.
 * Usage: evenodd [REPS]   (2000000)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#define N 4096
static volatile char buf[N] __attribute__((aligned(64)));
static long reps;
static void *worker(void *arg)
{
	long me = (long)arg;
	for (long r = 0; r < reps; r++)
		for (int i = (int)me; i < N; i += 2)
			buf[i] = (char)(r + i);
	return NULL;
}
int main(int argc, char **argv)
{
	reps = argc > 1 ? atol(argv[1]) : 2000000;
	pthread_t th[2];
	for (long t = 0; t < 2; t++)
		pthread_create(&th[t], NULL, worker, (void *)t);
	for (int t = 0; t < 2; t++)
		pthread_join(th[t], NULL);
	printf("evenodd %d\n", buf[5]);
	return 0;
}
