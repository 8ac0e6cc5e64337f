/*
 * rt-work.h - the robustness workloads' unit of memory work: one heap block worth
 * tracking (>= 1 KiB), filled and summed `passes` times, then freed.
 */
#ifndef RT_WORK_H
#define RT_WORK_H

#include <stdint.h>
#include <stdlib.h>

#define ELEMS 4096

static volatile uint64_t sink;

static __attribute__((unused)) uint64_t work(int passes)
{
	uint64_t *a = malloc(ELEMS * sizeof(*a));
	uint64_t s = 0;
	if (!a)
		return 0;
	for (int i = 0; i < ELEMS; i++)
		a[i] = (uint64_t)i;
	for (int p = 0; p < passes; p++)
		for (int i = 0; i < ELEMS; i++)
			s += a[i];
	free(a);
	sink += s;
	return s;
}

#endif
