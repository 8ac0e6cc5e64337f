/* SPDX-License-Identifier: MIT */
/*
 * openmp.h - which code is an OpenMP runtime's, for the runtime and the reports alike:
 * GCC's libgomp, LLVM's libomp and Intel's libiomp5, known by their file names.
 */
#ifndef SONDE_OPENMP_H
#define SONDE_OPENMP_H

#include <string.h>

/* 1 if s (a path, a module, or a label such as "[libgomp.so.1.0.0]+0x1cfd0") names one
 * of the OpenMP runtimes' libraries: the file name starts s or follows a '/' or a '['. */
static inline int sonde_openmp_lib(const char *s)
{
	static const char *const libs[] = { "libgomp.so", "libomp.so", "libiomp5.so" };
	if (!s)
		return 0;
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		for (const char *p = strstr(s, libs[i]); p; p = strstr(p + 1, libs[i]))
			if (p == s || p[-1] == '/' || p[-1] == '[')
				return 1;
	return 0;
}

#endif
