/* SPDX-License-Identifier: MIT */
/*
 * widepairs.c - manypairs.c's loop with 1024 loads: load k reads the word that load k+1
 * read in the previous iteration, so 1023 code pairs, each reused exactly N - 1 times at
 * one reuse distance (1022 other words between use and reuse).  More pairs than the
 * per-thread slots of `sonde reuse --exact` (512 in 8-way LRU sets): cycled in order, the
 * pairs may evict each other at every reuse, and each eviction writes a record of the
 * pair's counts, of which one bin is not 0.  Built with sonde-cc by t516.
 *
 *   widepairs N      N iterations (at most 60000) of the 1024 loads; prints their sum (0)
 */
#include <stdio.h>
#include <stdlib.h>

#define W 65536
/* each expansion is its own load instruction, so its own code location */
#define L(k) s += a[i + (k)];
#define L4(k) L(k) L((k) + 1) L((k) + 2) L((k) + 3)
#define L16(k) L4(k) L4((k) + 4) L4((k) + 8) L4((k) + 12)
#define L64(k) L16(k) L16((k) + 16) L16((k) + 32) L16((k) + 48)
#define L256(k) L64(k) L64((k) + 64) L64((k) + 128) L64((k) + 192)

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	volatile double *a = calloc(W, sizeof(double));
	double s = 0;
	if (!a || n < 1 || n > W - 1024)
		return 2;
	for (long i = 0; i < n; i++) {
		L256(0)
		L256(256)
		L256(512)
		L256(768)
	}
	printf("widepairs: %g\n", s);
	return 0;
}
