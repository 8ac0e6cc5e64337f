/* SPDX-License-Identifier: MIT */
/*
 * objcode - one array accessed from four lines, another from one: the truth of the mem
 * tool's objects x code view (mem/object_code.csv, "Where the objects are accessed").
 *
 * Known answer, when built with sonde-cc (clang -O2) and run with one argument or none:
 *   `grid` (static, N = 4096 unsigned): sum_a's line  4 N = 16384 loads  (50%),
 *                                       fill's line   2 N =  8192 stores (25%),
 *                                       sum_c's line    N =  4096 loads  (12.5%),
 *                                       sum_d's line    N =  4096 loads  (12.5%);
 *   `side`  (global, N / 2 unsigned):   sum_side's line N / 2 = 2048 loads (100%);
 * and nothing else (main passes registers; libc is not instrumented).  The loops are kept
 * scalar by pragmas (one access per element), each pass's sum depends on the one before
 * (s * 3 + x, so passes cannot be merged), and fill's two calls are separated by reads
 * (neither is a dead store).  Each counted line ends in a "line:" comment for the tests.
 * Prints a checksum.
 */
#include <stdio.h>

#define N 4096

static unsigned grid[N];
unsigned side[N / 2];	/* not static: never written, its loads stay loads */

#ifdef __clang__
#define SCALAR _Pragma("clang loop vectorize(disable) interleave(disable)")
#else
#define SCALAR
#endif

static __attribute__((noinline)) void fill(unsigned seed)
{
	SCALAR
	for (unsigned i = 0; i < N; i++)
		grid[i] = i * 2654435761u + seed; /* line: fill */
}

static __attribute__((noinline)) unsigned sum_a(unsigned s)
{
	for (int p = 0; p < 4; p++) {
		SCALAR
		for (unsigned i = 0; i < N; i++)
			s = s * 3 + grid[i]; /* line: sum_a */
	}
	return s;
}

static __attribute__((noinline)) unsigned sum_c(unsigned s)
{
	SCALAR
	for (unsigned i = 0; i < N; i++)
		s = s * 5 + grid[i]; /* line: sum_c */
	return s;
}

static __attribute__((noinline)) unsigned sum_d(unsigned s)
{
	SCALAR
	for (unsigned i = 0; i < N; i++)
		s = s * 7 + grid[i]; /* line: sum_d */
	return s;
}

static __attribute__((noinline)) unsigned sum_side(unsigned s)
{
	SCALAR
	for (unsigned i = 0; i < N / 2; i++)
		s = s * 11 + side[i]; /* line: sum_side */
	return s;
}

int main(int argc, char **argv)
{
	(void)argv;
	fill((unsigned)argc);
	unsigned s = sum_a((unsigned)argc);
	fill(s);
	s = sum_c(s);
	s = sum_d(s);
	s = sum_side(s);
	printf("objcode: %u\n", s);
	return 0;
}
