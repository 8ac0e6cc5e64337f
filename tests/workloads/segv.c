/* SPDX-License-Identifier: MIT */
/*
 * segv - does memory work for about half a second, then dereferences NULL and dies of
 * SIGSEGV: for a profiler's fatal-signal path (the exit status must stay 128 + 11 = 139 in a
 * shell, and the partial profile must be readable).
 *
 * Known answer: prints "segv: working" (flushed) before the work, never prints "segv: not
 * reached", and the process is killed by SIGSEGV after PASSES passes of `a[i] += 1` over a
 * heap array of 1M uint64_t allocated by alloc_big() — the only object it accesses.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ELEMS (1u << 20)
#define PASSES 4000

/* The empty asm keeps calloc from becoming a tail call, so the allocation site is here. */
static __attribute__((noinline)) uint64_t *alloc_big(void)
{
	uint64_t *p = calloc(ELEMS, sizeof(uint64_t));

	asm volatile("" : "+r"(p));
	return p;
}

/* The NULL pointer comes from a function the compiler cannot see through. */
static __attribute__((noinline)) int *nowhere(uint64_t *a)
{
	asm volatile("" : "+r"(a));
	return (int *)(uintptr_t)(a[0] - a[0]);
}

int main(void)
{
	uint64_t *a = alloc_big();

	if (!a)
		return 1;
	printf("segv: working\n");
	fflush(stdout);
	for (int p = 0; p < PASSES; p++) {
		for (uint64_t i = 0; i < ELEMS; i++)
			a[i] += 1;
		asm volatile("" : : "r"(a) : "memory");
	}
	*(volatile int *)nowhere(a) = 1;
	printf("segv: not reached\n");
	return 0;
}
