/* SPDX-License-Identifier: MIT */
/*
 * cost-sweep - sequential sweeps over two 32 MiB arrays (a[i] = b[i] * 3 + a[i]): the
 * overhead of `sonde mem --source clock` on streaming code (bench/mem.sh).
 *
 * usage: cost-sweep [SCALE]    SCALE multiplies the passes (default 1, ~1 s here)
 *
 * Known answer by access count: a 2/3 (a load and a store per element), b 1/3.
 * Prints "cost-sweep: <a[N-1]> ok".  Deterministic.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N (4u << 20)			/* 8-byte elements: 32 MiB per array */
#define PASSES 96

static __attribute__((noinline)) void sweep(uint64_t *a, const uint64_t *b, int passes)
{
	for (int p = 0; p < passes; p++) {
		for (uint64_t i = 0; i < N; i++)
			a[i] = b[i] * 3 + a[i];
		__asm__ volatile("" : : "r"(a) : "memory");
	}
}

int main(int argc, char **argv)
{
	int scale = argc > 1 ? atoi(argv[1]) : 1;
	uint64_t *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b));
	if (!a || !b || scale <= 0)
		return 1;
	for (uint64_t i = 0; i < N; i++) {
		a[i] = 0;
		b[i] = i;
	}
	sweep(a, b, PASSES * scale);
	int ok = a[N - 1] == (uint64_t)(N - 1) * 3 * (uint64_t)(PASSES * scale);
	printf("cost-sweep: %llu %s\n", (unsigned long long)a[N - 1], ok ? "ok" : "WRONG");
	free(a);
	free(b);
	return !ok;
}
