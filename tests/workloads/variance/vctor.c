/* SPDX-License-Identifier: MIT */
/*
 * vctor.c - a library whose constructor calls OpenMP (as OpenMP builds of OpenBLAS do):
 * loaded with a program, its constructor runs before libsonde.so's, so libomp starts and
 * asks for its tool before sonde's runtime has read its settings (t823).
 */
#include <omp.h>

__attribute__((constructor)) static void vctor(void)
{
	(void)omp_get_max_threads();
}
