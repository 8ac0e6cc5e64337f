/* SPDX-License-Identifier: MIT */
/*
 * vtool.c - a program's own OpenMP tool (OMPT), for sonde variance: it counts the
 * parallel regions that begin and prints the count when the runtime finalizes it:
 *
 *   vtool regions 300
 *
 * Loaded by OMP_TOOL_LIBRARIES=./vtool.so (built by clang, whose omp-tools.h it uses),
 * it must keep the interface and see every region under sonde as without it (t823).
 */
#include <omp-tools.h>
#include <stdio.h>

static unsigned long regions;

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
			      unsigned requested, int flags, const void *ra)
{
	(void)task, (void)frame, (void)parallel, (void)requested, (void)flags, (void)ra;
	__atomic_add_fetch(&regions, 1, __ATOMIC_RELAXED);
}

static int init(ompt_function_lookup_t lookup, int device, ompt_data_t *data)
{
	ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");

	(void)device, (void)data;
	return set && set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin) > ompt_set_never;
}

static void fini(ompt_data_t *data)
{
	(void)data;
	printf("vtool regions %lu\n", regions);
	fflush(stdout);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned version, const char *runtime)
{
	static ompt_start_tool_result_t r = { init, fini, { 0 } };

	(void)version, (void)runtime;
	return &r;
}
