/* SPDX-License-Identifier: MIT */
/*
 * vplug.c - an OpenMP library loaded RTLD_LOCAL, as Python loads extension modules (and
 * wheels that ship their own libgomp): its libgomp is not in the process's global scope.
 *
 *   built twice: with -DPLUGIN -fopenmp -shared -fPIC (vplug.so: plug_run, a parallel
 *   region of 2 threads ROUNDS times, each thread adding to its own counter), and without
 *   (vplug: dlopens ./vplug.so RTLD_LOCAL | RTLD_NOW, calls plug_run ROUNDS, prints the
 *   sum).  vplug itself links no OpenMP runtime.
 */
#include <stdio.h>
#include <stdlib.h>

#ifdef PLUGIN
#include <omp.h>

static volatile unsigned long sink[2][8] __attribute__((aligned(64)));

unsigned long plug_run(int rounds)
{
	for (int r = 0; r < rounds; r++) {
#pragma omp parallel num_threads(2)
		{
			int t = omp_get_thread_num() & 1;
			for (long i = 0; i < 20000; i++)
				sink[t][0]++;
		}
	}
	return sink[0][0] + sink[1][0];
}
#else
#include <dlfcn.h>

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;
	void *h = dlopen("./vplug.so", RTLD_LOCAL | RTLD_NOW);
	if (!h) {
		fprintf(stderr, "vplug: %s\n", dlerror());
		return 1;
	}
	unsigned long (*run)(int) = (unsigned long (*)(int))dlsym(h, "plug_run");
	if (!run) {
		fprintf(stderr, "vplug: %s\n", dlerror());
		return 1;
	}
	printf("vplug sum %lu\n", run(rounds));
	return 0;
}
#endif
