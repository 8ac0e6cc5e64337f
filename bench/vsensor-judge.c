/* SPDX-License-Identifier: MIT */
/*
 * vsensor-judge.c - the time sonde vsensor's cross-rank analysis (judge.c, vs_judge) takes
 * on a synthetic job: RANKS ranks of SENSORS sensors each (the same names on every rank, a
 * third of them network ones), one record a sensor a slice for SLICES slices.  Built and
 * run by bench/vsensor-judge.sh; writes the job's files into OUTDIR.
 *   vsensor-judge RANKS SENSORS SLICES OUTDIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tools/vsensor/judge.h"
int main(int argc, char **argv) {
	if (argc != 5)
		return 2;
	int R = atoi(argv[1]), N = atoi(argv[2]), B = atoi(argv[3]);
	struct vs_all A; memset(&A, 0, sizeof(A));
	A.nranks = R; A.slice_s = 0.2;
	A.nd = calloc(R, sizeof(int)); A.nr = calloc(R, sizeof(int)); A.doff = calloc(R, sizeof(int)); A.roff = calloc(R, sizeof(int));
	A.d = calloc((size_t)R * N, sizeof(*A.d)); A.r = calloc((size_t)R * N * B, sizeof(*A.r)); A.std = calloc((size_t)R * N, sizeof(float));
	int nd = 0, nr = 0; unsigned x = 1;
	for (int q = 0; q < R; q++) { A.doff[q] = nd; A.roff[q] = nr;
		for (int i = 0; i < N; i++, nd++) { snprintf(A.d[nd].name, VS_NAME, "file.c:%d func%d", 10 * i, i); A.d[nd].kind = i % 3 == 1; A.d[nd].senses = 1; A.nd[q]++; }
		for (int b = 0; b < B; b++) for (int i = 0; i < N; i++, nr++) { x = x * 1103515245u + 12345u; A.r[nr].bin = b; A.r[nr].sensor = i; A.r[nr].mean_us = 100 + (x >> 16) % 50; A.r[nr].weight_s = 0.01f; A.nr[q]++; } }
	struct vs_rule rule; vs_rule_default(&rule); struct vs_judged j;
	struct timespec t0, t1; clock_gettime(CLOCK_MONOTONIC, &t0);
	int e = vs_judge(&A, &rule, argv[4], &j);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("ranks %d sensors %d slices %d records %d: %.3f s (rc %d)\n", R, N, B, nr, (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9, e);
	return 0;
}
