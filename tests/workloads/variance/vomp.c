/* vomp.c - an OpenMP parallel region with known per-thread work, for sonde variance.
 *   vomp ROUNDS   ROUNDS times: a parallel region of 2 threads in which thread 0 loops 1
 *                 unit and thread 1 loops 3 units: per-thread means 1:3 (their CV, with
 *                 the sample SD, sqrt(2) / 2 = 0.707), each thread's instances constant
 * The region's outlined function is called by the OpenMP runtime, in the master from
 * GOMP_parallel (or __kmpc_fork_call) and in the worker from the runtime's thread loop.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define UNIT 400000

static volatile unsigned long sink;

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;

	for (int r = 0; r < rounds; r++) {
#pragma omp parallel num_threads(2)
		{
			long n = (omp_get_thread_num() == 0 ? 1 : 3) * (long)UNIT;
			for (long i = 0; i < n; i++)
				sink++;
		}
	}
	printf("vomp done\n");
	return 0;
}
