/* SPDX-License-Identifier: MIT */
/*
 * vrare.c - a hot function called seldom, for sonde variance's "not measured" line (t834).
 *
 *   vrare ROUNDS     ROUNDS times: 20000 calls of often (20000 iterations each, ~15 us),
 *                    then one call of rare (600M iterations, ~0.5 s): rare holds most of
 *                    the time in ROUNDS calls, further apart than a pick waits
 */
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

__attribute__((noinline)) static void often(long n)
{
	double s = 0;
	for (long i = 0; i < n; i++)
		s += (double)i * 0.5;
	sink = s;
}

__attribute__((noinline)) static void rare(long n)
{
	double s = 0;
	for (long i = 0; i < n; i++)
		s += (double)i * 0.25;
	sink = s;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 2;
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < 20000; i++)
			often(20000);
		rare(600000000L);
	}
	puts("vrare done");
	return 0;
}
