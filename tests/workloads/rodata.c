/* SPDX-License-Identifier: MIT */
/*
 * rodata.c - a loop whose only memory accesses are loads of the compiler's floating-point
 * constants (24 of them, more than the SSE registers hold: gcc -O2 reads them from
 * .rodata at every iteration), for sonde mem's "[file: PROGRAM]" note (t058).
 *   rodata [ITERATIONS]
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 50000000;
	volatile double sink;
	double x = argc;
	for (long i = 0; i < n; i++)
		x = (x * 0.100001 + x * 0.113702 + x * 0.127403 + x * 0.141104 + x * 0.154805 +
		     x * 0.168506 + x * 0.182207 + x * 0.195908 + x * 0.209609 + x * 0.223310 +
		     x * 0.237011 + x * 0.250712 + x * 0.264413 + x * 0.278114 + x * 0.291815 +
		     x * 0.305516 + x * 0.319217 + x * 0.332918 + x * 0.346619 + x * 0.360320 +
		     x * 0.374021 + x * 0.387722 + x * 0.401423 + x * 0.415124) * 0.0001 + 0.5;
	sink = x;
	printf("rodata: %g\n", sink);
	return 0;
}
