/* SPDX-License-Identifier: MIT */
/*
 * cost-branchy - work in registers with a data-dependent branch every few instructions
 * (a random generator's jump ahead, as libgfortran's reseeding does), no memory access for
 * thousands of instructions: the look-ahead cannot follow the path (source-clock.h, "far"
 * needs a fully known one), so a clock sample single-steps to the next access, a hundred
 * steps or more.  The clock source's time budget bounds what that costs (t088).
 *
 * usage: cost-branchy [ROUNDS]   (default 200000, ~0.3 s here)
 * Prints "cost-branchy: <value> ok".  Deterministic.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	uint64_t a = 1, b = 2, c = 3, d = 4, sum = 0;
	for (long r = 0; r < n; r++) {
		uint64_t ta = 0, tb = 0, tc = 0, td = 0;
		uint64_t jump = 0x9e3779b97f4a7c15ull * (uint64_t)(r + 1);
		for (int bit = 0; bit < 64; bit++) {
			if (jump >> bit & 1) {
				ta ^= a;
				tb ^= b;
				tc ^= c;
				td ^= d;
			}
			uint64_t t = b << 17;
			c ^= a;
			d ^= b;
			b ^= c;
			a ^= d;
			c ^= t;
			d = rotl(d, 45);
		}
		a = ta | 1;
		b = tb;
		c = tc;
		d = td;
		sum += a;
	}
	printf("cost-branchy: %llu ok\n", (unsigned long long)sum);
	return 0;
}
