/* SPDX-License-Identifier: MIT */
/*
 * cost-chase - a pointer chase through one random cycle of 64-byte nodes (32 MiB): every
 * address is the previous load's value, one dependent cache miss per step.  For the
 * overhead of `sonde mem --source clock` (bench/mem.sh): the look-ahead must read memory to
 * see the next addresses.
 *
 * usage: cost-chase [SCALE]    SCALE multiplies the steps (default 1, ~1 s here)
 *
 * Known answer: every sampled access is a load of nodes[] (a node's `next` or `pad`).
 * Prints "cost-chase: <final index> ok".  Deterministic (Sattolo's shuffle, fixed seed).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1u << 19)			/* nodes of 64 bytes: 32 MiB */
#define STEPS (6u << 20)

struct node {
	struct node *next;
	uint64_t pad[7];
};

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static __attribute__((noinline)) uint64_t chase(struct node *p, uint64_t steps)
{
	uint64_t sum = 0;
	for (uint64_t i = 0; i < steps; i++) {
		sum += p->pad[i & 7 ? 1 : 2];
		p = p->next;
	}
	return sum + (uint64_t)(p != NULL);
}

int main(int argc, char **argv)
{
	uint64_t scale = argc > 1 ? strtoull(argv[1], NULL, 10) : 1, seed = 7;
	struct node *nodes = malloc(N * sizeof(*nodes));
	uint32_t *perm = malloc(N * sizeof(*perm));
	if (!nodes || !perm || !scale)
		return 1;
	for (uint32_t i = 0; i < N; i++)
		perm[i] = i;
	for (uint32_t i = N - 1; i > 0; i--) {	/* Sattolo: one cycle through all */
		uint32_t j = (uint32_t)(xorshift(&seed) % i), t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (uint32_t i = 0; i < N; i++) {
		nodes[perm[i]].next = &nodes[perm[(i + 1) % N]];
		for (int k = 0; k < 7; k++)
			nodes[i].pad[k] = i + (uint64_t)k;
	}
	free(perm);
	uint64_t s = chase(&nodes[0], STEPS * scale);
	printf("cost-chase: %llu ok\n", (unsigned long long)s);
	free(nodes);
	return 0;
}
