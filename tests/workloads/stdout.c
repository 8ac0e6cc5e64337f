/* SPDX-License-Identifier: MIT */
/*
 * stdout - prints 100,000 computed lines while doing memory work, so that its output with
 * and without a profiler can be compared byte for byte.
 *
 * Known answer: line i (0 <= i < 100000) is "i a s" where a = (i * 2654435761) mod 1000003
 * and s = a_0 + ... + a_i (an independent awk one-liner computes the same).  The values are
 * kept in an array; every 1,000 lines the program re-sums the array so far (memory work) and
 * exits 1 if that sum disagrees with s.  About 3.4 MB of output.
 */
#include <stdint.h>
#include <stdio.h>

#define LINES 100000

static uint64_t vals[LINES];

int main(void)
{
	uint64_t s = 0;

	for (uint64_t i = 0; i < LINES; i++) {
		vals[i] = i * 2654435761ull % 1000003ull;
		s += vals[i];
		printf("%llu %llu %llu\n", (unsigned long long)i, (unsigned long long)vals[i],
		       (unsigned long long)s);
		if (i % 1000 == 999) {
			for (int rep = 0; rep < 100; rep++) {
				uint64_t t = 0;

				for (uint64_t j = 0; j <= i; j++)
					t += vals[j];
				asm volatile("" : : : "memory");
				if (t != s)
					return 1;
			}
		}
	}
	return 0;
}
