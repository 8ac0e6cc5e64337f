/* vomp.c - an OpenMP parallel region with known per-thread work, for sonde variance.
 *   vomp ROUNDS [K]  ROUNDS times: a parallel region of 2 threads in which thread 0
 *                 loops 1 unit and thread 1 loops K units (default 3): per-thread means
 *                 1:3 (their CV, with the sample SD, sqrt(2) / 2 = 0.707), each thread's
 *                 instances constant.  Each thread counts in its own cache line: a
 *                 shared counter made thread 0's unit a contended one, several times
 *                 slower than thread 1's, by an amount that varied from one VM to the next.
 * The region's outlined function is called by the OpenMP runtime, in the master from
 * GOMP_parallel (or __kmpc_fork_call) and in the worker from the runtime's thread loop.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define UNIT 400000

static volatile unsigned long sink[2][8] __attribute__((aligned(64)));

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;
	long k = argc > 2 ? atol(argv[2]) : 3;

	for (int r = 0; r < rounds; r++) {
#pragma omp parallel num_threads(2)
		{
			int t = omp_get_thread_num() & 1;
			long n = (t == 0 ? 1 : k) * (long)UNIT;
			for (long i = 0; i < n; i++)
				sink[t][0]++;
		}
	}
	printf("vomp done\n");
	return 0;
}
