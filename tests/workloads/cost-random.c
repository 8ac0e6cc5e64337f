/* SPDX-License-Identifier: MIT */
/*
 * cost-random - random loads over three 8 MiB arrays (issue 7's cost loop): the overhead of
 * `sonde mem --source clock` on code whose addresses come from arithmetic (bench/mem.sh).
 *
 * usage: cost-random [SCALE]    SCALE multiplies the iterations (default 1, ~1 s here)
 *
 * Each iteration draws one xorshift number and loads one element of hot[], and one in 8
 * iterations one of warm[] and cold[] too; every array is 8 MiB of uint64_t, indexed at
 * random.  Known answer by access count: hot 8/10, warm 1/10, cold 1/10.  Prints
 * "cost-random: <sum> ok".  Deterministic (fixed seed).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1u << 20)			/* elements: 8 MiB each */
#define ITERS (24u << 20)

static __attribute__((noinline)) uint64_t run(const uint64_t *hot, const uint64_t *warm,
					      const uint64_t *cold, uint64_t iters)
{
	uint64_t x = 88172645463325252ull, sum = 0;
	for (uint64_t i = 0; i < iters; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		sum += hot[x & (N - 1)];
		if ((i & 7) == 0) {
			sum += warm[(x >> 20) & (N - 1)];
			sum += cold[(x >> 40) & (N - 1)];
		}
	}
	return sum;
}

int main(int argc, char **argv)
{
	uint64_t scale = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
	uint64_t *hot = malloc(N * sizeof(*hot));
	uint64_t *warm = malloc(N * sizeof(*warm));
	uint64_t *cold = malloc(N * sizeof(*cold));
	if (!hot || !warm || !cold || !scale)
		return 1;
	for (uint64_t i = 0; i < N; i++) {
		hot[i] = i;
		warm[i] = 2 * i;
		cold[i] = 3 * i;
	}
	uint64_t s = run(hot, warm, cold, ITERS * scale);
	printf("cost-random: %llu ok\n", (unsigned long long)s);
	free(hot);
	free(warm);
	free(cold);
	return 0;
}
