/* SPDX-License-Identifier: MIT */
/*
 * omp-handoff.c - many short OpenMP regions over data private to each thread (its own
 * padded row): the only lines that move are libgomp's own, handing each region to the
 * team and waiting for it (t420).  omp-handoff [ROUNDS] (default 20000).
 */
#include <stdio.h>
#include <omp.h>
#include <stdlib.h>
static double priv[2][4096] __attribute__((aligned(64)));
int main(int argc, char **argv)
{
	double s = 0;
	for (int r = 0; r < (argc > 1 ? atoi(argv[1]) : 20000); r++) {
#pragma omp parallel num_threads(2)
		{
			int t = omp_get_thread_num();
			for (int i = 0; i < 64; i++)
				priv[t][i] += i;
		}
	}
	for (int i = 0; i < 64; i++) s += priv[0][i] + priv[1][i];
	printf("%.0f\n", s);
	return 0;
}
