/* SPDX-License-Identifier: MIT */
/*
 * inst-loop - exactly 10,000 loads, for the inst source's exact mode.
 *
 * Known answer, when built with sonde-cc (clang -O2): the instrumented code makes
 *   10,000 loads  of 4 bytes, all in chase(), from `ring` (static, .bss), and
 *    1,024 stores of 4 bytes, all in fill(), to `ring`,
 * and nothing else (main only passes registers; libc is not instrumented).  The loads are a
 * dependent chain (each index is the previous load's value) so the compiler can neither
 * vectorise nor drop them; the stores are kept scalar by a pragma.  Checked with
 * `objdump -d`: one __sanitizer_cov_load4 call per load, one __sanitizer_cov_store4 per store.
 * Prints the final index, which depends on argc (normally 1) so nothing is constant-folded.
 */
#include <stdio.h>

#define LOADS 10000
#define RING 1024

static unsigned ring[RING];

static __attribute__((noinline)) void fill(unsigned stride)
{
#ifdef __clang__
#pragma clang loop vectorize(disable) interleave(disable)
#endif
	for (unsigned i = 0; i < RING; i++)
		ring[i] = (i * stride + 1) % RING;
}

static __attribute__((noinline)) unsigned chase(unsigned start)
{
	unsigned p = start;

	for (int i = 0; i < LOADS; i++)
		p = ring[p];
	return p;
}

int main(int argc, char **argv)
{
	(void)argv;
	fill(5 + 2 * (unsigned)argc);
	printf("inst-loop: %u\n", chase((unsigned)argc));
	return 0;
}
