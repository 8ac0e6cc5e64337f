/*
 * farcode - accesses from two pieces of code far apart (bench/reuse-window.sh): the loop
 * of main stores each word, a function loads it just before.  Built three ways:
 *   -DFARCODE_LIB -shared -fPIC   the function alone, in a shared library (mapped far more
 *                                 than 16 MB from the program: --exact's code windows)
 *   (nothing)                     the program, calling the library's function
 *   -DFARCODE_NEAR                the program with the function in it (one window)
 *   farcode [WORDS [PASSES]]      (default 1000 1000)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(FARCODE_LIB) || defined(FARCODE_NEAR)
__attribute__((noinline)) uint64_t farcode_load(volatile uint64_t *v, long i)
{
	return v[i];
}
#else
uint64_t farcode_load(volatile uint64_t *v, long i);
#endif

#ifndef FARCODE_LIB
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, passes = argc > 2 ? atol(argv[2]) : 1000;
	volatile uint64_t *v = calloc((size_t)n, sizeof(*v));
	uint64_t s = 0;

	if (!v)
		return 1;
	for (long p = 0; p < passes; p++)
		for (long i = 0; i < n; i++) {
			s += farcode_load(v, i);
			v[i] = s;
		}
	printf("farcode: %lu\n", (unsigned long)(s & 1));
	return 0;
}
#endif
