/* SPDX-License-Identifier: MIT */
/*
 * omp-sig.c - the handler's part of omp.c: a sample notes its thread's OpenMP thread
 * number (SONDE_REC_OMP) when libgomp's functions were found; rt_omp_number records a
 * number, from here or from LLVM's runtime (ompt.c: OMPT's implicit task).
 */
#include <stdint.h>

#include "sonde/format.h"
#include "rt/rt.h"
#include "rt/sigsafe.h"

/* A delivery's look in this many, once the number is known (the inst source delivers
 * every access of a sonde-cc program at period 1). */
#define OMP_LOOK_EVERY 64

SIGSAFE void rt_omp_number(struct rt_thread *t, int n)
{
	if (n < 0 || t->omp_varied || (t->omp_thread1 && n + 1 == t->omp_thread1))
		return;
	struct sonde_rec_omp r = {
		.h = { .type = SONDE_REC_OMP, .size = sizeof(r) },
		.thread = n, .flags = t->omp_thread1 ? SONDE_OMP_VARIED : 0, .time = rt_now(),
	};
	if (t->omp_thread1)
		t->omp_varied = 1;
	else
		t->omp_thread1 = n + 1;
	rt_tool_record(t, &r, sizeof(r));
}

SIGSAFE void rt_omp_note(struct rt_thread *t)
{
	if (!rt_omp_level || t->omp_varied ||
	    (t->omp_thread1 && ++t->omp_looks % OMP_LOOK_EVERY))
		return;
	if (rt_omp_level() == 1)
		rt_omp_number(t, rt_omp_num());
}
