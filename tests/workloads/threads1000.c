/* SPDX-License-Identifier: MIT */
/*
 * threads1000 - creates and joins 1,000 threads, at most 50 alive at a time, each doing a
 * little memory work; for the runtime's thread handling (creation, exit, per-thread files).
 *
 * usage: threads1000 [THREADS [BATCH]]     defaults 1000 and 50
 *
 * Known answer: THREADS threads besides the main thread (thread indexes 1..THREADS, in
 * creation order); thread k (1-based) fills its own 4,096-element uint64_t array with
 * k * j + 1 and sums it STEPS times, so it returns STEPS * (k * 4096*4095/2 + 4096) and
 * makes 4,096 stores plus STEPS * 4,096 loads.  Prints "threads1000: threads=1000 ok";
 * exits 1 if any thread could not be created or returned a wrong sum.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ELEMS 4096
#define STEPS 64
#define MAX_BATCH 256

struct job {
	uint64_t k;
	uint64_t sum;
};

static void *worker(void *arg)
{
	struct job *job = arg;
	uint64_t *a = malloc(ELEMS * sizeof(*a));
	uint64_t s = 0;

	if (!a)
		return NULL;
	for (uint64_t j = 0; j < ELEMS; j++)
		a[j] = job->k * j + 1;
	for (int step = 0; step < STEPS; step++) {
		for (uint64_t j = 0; j < ELEMS; j++)
			s += a[j];
		asm volatile("" : : "r"(a) : "memory");	/* keep every pass */
	}
	free(a);
	job->sum = s;
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	int batch = argc > 2 ? atoi(argv[2]) : 50;
	pthread_t tids[MAX_BATCH];
	struct job jobs[MAX_BATCH];
	int bad = 0, made = 0;

	if (n < 0 || batch < 1 || batch > MAX_BATCH) {
		fprintf(stderr, "usage: threads1000 [THREADS [BATCH (1-%d)]]\n", MAX_BATCH);
		return 2;
	}
	for (int first = 0; first < n; first += batch) {
		int m = n - first < batch ? n - first : batch;

		for (int i = 0; i < m; i++) {
			jobs[i].k = (uint64_t)(first + i + 1);
			jobs[i].sum = 0;
			if (pthread_create(&tids[i], NULL, worker, &jobs[i]) != 0) {
				fprintf(stderr, "threads1000: cannot create thread %d\n", first + i + 1);
				return 1;
			}
			made++;
		}
		for (int i = 0; i < m; i++) {
			uint64_t k = jobs[i].k;
			uint64_t want = STEPS * (k * (ELEMS * (ELEMS - 1ull) / 2) + ELEMS);

			pthread_join(tids[i], NULL);
			bad += jobs[i].sum != want;
		}
	}
	printf("threads1000: threads=%d %s\n", made, bad ? "WRONG" : "ok");
	return bad ? 1 : 0;
}
