/* SPDX-License-Identifier: MIT */
/*
 * vsites.c - one OpenMP region function started from two call sites with 8x different
 * work (t825): `small` runs the region over 2^14 elements, `big` over 2^17, in turn,
 * ROUNDS times (argv[1], default 300).  Each site is its own context: sonde variance must
 * not read them as one function whose instances vary (the trial of 2026-11-28: HPCG's SpMV
 * region on 4 multigrid levels of 8x different sizes read CV 91-102%, "investigate").
 * With `nest` (argv[2]) each team thread's half is split again by a region of its own
 * (`split`: nested, serialized unless OMP_MAX_ACTIVE_LEVELS allows two): samples in the
 * inner region belong to the outer one too (t825, libomp: the code review of 2026-11-29
 * read the outer region 0.0% or half the inner one).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static double a[1 << 17];

/* each team thread's half, a call in the region (t825: a function called inside a
 * parallel region must carry the region's callers too, or it read 0% of the time) */
__attribute__((noinline)) void part(int lo, int hi)
{
	for (int i = lo; i < hi; i++)
		for (int k = 0; k < 40; k++)
			a[i] = a[i] * 0.999 + k;
	__asm__ volatile("");
}

static int nest;

/* [lo, hi) in halves, by a region of its own */
__attribute__((noinline)) void split(int lo, int hi)
{
#pragma omp parallel num_threads(2)
	{
		int t = omp_get_thread_num(), nt = omp_get_num_threads();
		part(lo + (int)((long)(hi - lo) * t / nt), lo + (int)((long)(hi - lo) * (t + 1) / nt));
		__asm__ volatile("");
	}
}

__attribute__((noinline)) void sweep(int n)
{
#pragma omp parallel num_threads(2)
	{
		int t = omp_get_thread_num(), nt = omp_get_num_threads();
		int lo = (int)((long)n * t / nt), hi = (int)((long)n * (t + 1) / nt);
		if (nest)
			split(lo, hi);
		else
			part(lo, hi);
		__asm__ volatile("");	/* a call, not a tail call (small's note) */
	}
}

/* the asm keeps each call a call (not a jump: a tail call leaves no frame of its own) */
__attribute__((noinline)) void small(void)
{
	sweep(1 << 14);
	__asm__ volatile("");
}

__attribute__((noinline)) void big(void)
{
	sweep(1 << 17);
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 300;
	nest = argc > 2 && argv[2][0] == 'n';
	for (int r = 0; r < rounds; r++) {
		small();
		big();
	}
	printf("vsites: %.3f\n", a[12345]);
	return 0;
}
