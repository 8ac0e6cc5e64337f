/* SPDX-License-Identifier: MIT */
/*
 * inst-sites.c - 1024 distinct load sites in one loop, for the inst source's per-thread
 * cache of call site -> accessing instruction (t056): more sites than its 512 direct-mapped
 * entries once held, so that every access missed and read the code again.
 *
 *   inst-sites N     N iterations of the 1024 loads; prints their sum (0)
 */
#include <stdio.h>
#include <stdlib.h>

#define L(k) s += a[(k) & 1023];
#define L8(k) L(k) L(k + 1) L(k + 2) L(k + 3) L(k + 4) L(k + 5) L(k + 6) L(k + 7)
#define L64(k) L8(k) L8(k + 8) L8(k + 16) L8(k + 24) L8(k + 32) L8(k + 40) L8(k + 48) L8(k + 56)
#define L512(k) L64(k) L64(k + 64) L64(k + 128) L64(k + 192) L64(k + 256) L64(k + 320) \
	L64(k + 384) L64(k + 448)

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	volatile double *a = calloc(1024, sizeof(double));
	double s = 0;
	if (!a)
		return 2;
	for (long i = 0; i < n; i++) {
		L512(0)
		L512(512)
	}
	printf("inst-sites: %.0f\n", s);
	return 0;
}
