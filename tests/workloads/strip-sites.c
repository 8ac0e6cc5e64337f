/* SPDX-License-Identifier: MIT */
/*
 * strip-sites - four heap objects of known shares, for naming them in a stripped build
 * (tests/e2e/t090-mem-stripped.sh).
 *
 * usage: strip-sites [ROUNDS]     (default 2000)
 *
 * Known answer: setup() allocates a and b (two mallocs of one function), buf() allocates
 * u and v (one malloc, called from two lines of main).  Each round passes over a three
 * times, over b once, over u twice and over v twice, each pass one load and one store per
 * element of 2^18: of the accesses, a 37.5%, u 25%, v 25%, b 12.5%.  Prints a[1] + b[1] +
 * u[1] + v[1] = (1 + 3 R) + (1 + R) + (1 + 2 R) + (1 + 2 R) = 4 + 8 R for R rounds.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 18)

struct two {
	long *a, *b;
};

__attribute__((noinline)) static void pass(volatile long *x, long n)
{
	for (long i = 0; i < n; i++)
		x[i] += 1;
}

__attribute__((noinline)) static void setup(struct two *s)
{
	s->a = malloc(N * sizeof(long));
	s->b = malloc(N * sizeof(long));
	for (long i = 0; i < N; i++)
		s->a[i] = s->b[i] = i;
}

__attribute__((noinline)) static long *buf(long n)
{
	long *p = malloc(n * sizeof(long));
	for (long i = 0; i < n; i++)	/* not zeros: gcc made malloc and a zeroing loop calloc, */
		p[i] = i;		/* tail-called, and buf was in no call path */
	return p;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 2000;
	struct two s;
	setup(&s);
	long *u = buf(N);
	long *v = buf(N);
	if (!s.a || !s.b || !u || !v)
		return 1;
	for (int r = 0; r < rounds; r++) {
		pass(s.a, N);
		pass(s.a, N);
		pass(s.a, N);
		pass(s.b, N);
		pass(u, N);
		pass(u, N);
		pass(v, N);
		pass(v, N);
	}
	printf("%ld\n", s.a[1] + s.b[1] + u[1] + v[1]);
	return 0;
}
