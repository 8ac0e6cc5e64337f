/* SPDX-License-Identifier: MIT */
/*
 * omp-helper.c - an OpenMP program with a helper thread started before its first region
 * (as an MPI library's progress thread is), so that the matrices' thread numbers (creation
 * order: main 0, the helper 1, the OpenMP worker 2) and the OpenMP thread numbers differ.
 *
 *   omp-helper [ROUNDS [nest]]  ROUNDS times (default 400) a parallel region of 2 threads
 *                         in which each thread writes its half of one cache line 200,000
 *                         times (false sharing); the helper waits on a condition until
 *                         the end.  `nest`: then each thread opens a nested region of 2
 *                         in which the nested team's other thread writes too (with
 *                         OMP_MAX_ACTIVE_LEVELS=2 those are threads of their own, in no
 *                         top-level team: no OpenMP thread number of theirs is known)
 *
 * Each OpenMP thread prints its OS tid and its number, the helper its tid, and with
 * `nest` each nested team's other thread its tid:
 *   omp-helper omp 1 tid 12345
 *   omp-helper helper tid 12344
 *   omp-helper nested tid 12346
 * Built by gcc -fopenmp (libgomp: the runtime whose numbers sonde reads).
 */
#define _GNU_SOURCE
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
	volatile long half[2][4];
} line __attribute__((aligned(64)));

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int done;
static int tids[2], nested[2];

static void *helper(void *arg)
{
	(void)arg;
	printf("omp-helper helper tid %d\n", (int)gettid());
	fflush(stdout);
	pthread_mutex_lock(&lock);
	while (!done)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 400;
	int nest = argc > 2 && !strcmp(argv[2], "nest");
	pthread_t h;

	if (pthread_create(&h, NULL, helper, NULL))
		return 1;
	for (int r = 0; r < rounds; r++) {
#pragma omp parallel num_threads(2)
		{
			int t = omp_get_thread_num() & 1;
			tids[t] = (int)gettid();
			for (int i = 0; i < 200000; i++)
				line.half[t][0]++;
			if (nest) {
#pragma omp parallel num_threads(2)
				if (omp_get_thread_num() == 1) {
					nested[t] = (int)gettid();
					for (int i = 0; i < 200000; i++)
						line.half[t][1]++;
				}
			}
		}
	}
	for (int t = 0; t < 2; t++)
		printf("omp-helper omp %d tid %d\n", t, tids[t]);
	for (int t = 0; t < 2 && nest; t++)
		if (nested[t] && nested[t] != tids[0] && nested[t] != tids[1])
			printf("omp-helper nested tid %d\n", nested[t]);
	pthread_mutex_lock(&lock);
	done = 1;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&lock);
	pthread_join(h, NULL);
	return 0;
}
