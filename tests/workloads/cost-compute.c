/* SPDX-License-Identifier: MIT */
/*
 * cost-compute - a loop that touches no memory (an LCG in registers): the clock source's
 * worst case, where no access follows a sample within the look-ahead's reach.  Its samples
 * are dropped with the cause "far" (source-clock.h); bench/mem.sh shows what that costs.
 *
 * usage: cost-compute [SCALE]   SCALE multiplies the iterations (default 1, ~0.5 s here)
 * Prints "cost-compute: <value> ok".  Deterministic.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	uint64_t scale = argc > 1 ? strtoull(argv[1], NULL, 10) : 1, x = 1;
	for (uint64_t i = 0; i < (300ull << 20) * scale; i++) {
		x = x * 6364136223846793005ull + i;
		x ^= x >> 17;
	}
	printf("cost-compute: %llu ok\n", (unsigned long long)x);
	return 0;
}
