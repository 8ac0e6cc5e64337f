/* SPDX-License-Identifier: MIT */
/*
 * membound - a memory-bound benchmark for overhead measurements (`make bench`): streaming
 * over arrays larger than the last-level cache, then random pointer chasing.
 *
 * usage: membound [SCALE]    SCALE multiplies the number of passes and steps (default 1)
 *
 * Known answer: phase 1 runs STREAM_PASSES passes of a[i] = b[i] + 3 * c[i] over three
 * arrays of 4M uint64_t (32 MiB each); b[i] = i, c[i] = 1, so afterwards a[i] = i + 3.
 * Phase 2 follows CHASE_STEPS links of one random cycle through 8M uint32_t indexes
 * (Sattolo's algorithm, fixed xorshift seed, 32 MiB), one dependent cache miss per step.
 * Prints "membound: stream=<a[N-1]> chase=<final index> ok".  Deterministic; about 2-3 s on
 * the development VM.  Exits 1 if a[] is wrong.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define STREAM_N (4u << 20)
#define STREAM_PASSES 30
#define CHASE_N (8u << 20)
#define CHASE_STEPS (20u << 20)

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static __attribute__((noinline)) int stream(int passes)
{
	uint64_t *a = malloc(STREAM_N * sizeof(*a));
	uint64_t *b = malloc(STREAM_N * sizeof(*b));
	uint64_t *c = malloc(STREAM_N * sizeof(*c));
	int ok;

	if (!a || !b || !c)
		return 0;
	for (uint64_t i = 0; i < STREAM_N; i++) {
		b[i] = i;
		c[i] = 1;
	}
	for (int p = 0; p < passes; p++) {
		for (uint64_t i = 0; i < STREAM_N; i++)
			a[i] = b[i] + 3 * c[i];
		asm volatile("" : : "r"(a) : "memory");
	}
	ok = a[STREAM_N - 1] == STREAM_N - 1 + 3 && a[0] == 3;
	free(a);
	free(b);
	free(c);
	return ok;
}

static __attribute__((noinline)) uint32_t chase(uint64_t steps)
{
	uint32_t *next = malloc(CHASE_N * sizeof(*next));
	uint64_t seed = 0x2545f4914f6cdd1dull;
	uint32_t p = 0;

	if (!next)
		return 0;
	for (uint32_t i = 0; i < CHASE_N; i++)
		next[i] = i;
	for (uint32_t i = CHASE_N - 1; i > 0; i--) {	/* Sattolo: one cycle through all */
		uint32_t j = (uint32_t)(xorshift(&seed) % i);
		uint32_t t = next[i];

		next[i] = next[j];
		next[j] = t;
	}
	for (uint64_t s = 0; s < steps; s++)
		p = next[p];
	free(next);
	return p;
}

int main(int argc, char **argv)
{
	int scale = argc > 1 ? atoi(argv[1]) : 1;

	if (scale < 1)
		scale = 1;
	int ok = stream(STREAM_PASSES * scale);
	uint32_t end = chase((uint64_t)CHASE_STEPS * (uint64_t)scale);

	printf("membound: stream=%u chase=%u %s\n", STREAM_N - 1 + 3, end, ok ? "ok" : "WRONG");
	return ok ? 0 : 1;
}
