/* SPDX-License-Identifier: MIT */
/*
 * vlevels.c - instances that fall in groups by design, and ones that do not (t832):
 * `level` smooths one of three levels, 2^17, 2^13 and 2^9 elements (16x apart), drawn at
 * random each call (a level in turn, as a V-cycle goes, is measured through its successor:
 * doc/sonde-variance.md, "Bias"), from one call site; `spread` does a random 1x-4x of one
 * amount of work (a continuous spread: no group); `same` does the same work every call.
 * ROUNDS rounds (argv[1], default 100), each calling the three.
 */
#include <stdio.h>
#include <stdlib.h>

static double a[1 << 17];

__attribute__((noinline)) void level(int n)
{
	for (int r = 0; r < 8; r++)
		for (int i = 1; i < n - 1; i++)
			a[i] = 0.5 * a[i] + 0.25 * (a[i - 1] + a[i + 1]);
	__asm__ volatile("");
}

__attribute__((noinline)) void spread(int n)
{
	for (int r = 0; r < 8; r++)
		for (int i = 1; i < n - 1; i++)
			a[i] = 0.5 * a[i] + 0.25 * (a[i - 1] + a[i + 1]);
	__asm__ volatile("");
}

__attribute__((noinline)) void same(int n)
{
	for (int r = 0; r < 8; r++)
		for (int i = 1; i < n - 1; i++)
			a[i] = 0.5 * a[i] + 0.25 * (a[i - 1] + a[i + 1]);
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;
	unsigned s = 12345;
	for (int c = 0; c < rounds; c++)
		for (int l = 0; l < 3; l++) {
			s = s * 1103515245u + 12345u;
			level(1 << (17 - 4 * (int)((s >> 16) % 3)));
			s = s * 1103515245u + 12345u;
			spread(4096 + (int)((s >> 8) % 12288));	/* 2^12 to 2^14: 1x-4x */
			same(8192);
		}
	printf("vlevels: %.3f\n", a[7]);
	return 0;
}
