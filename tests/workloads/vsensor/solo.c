/* solo.c - one rank (pmpi-solo.h's stubs: no mpirun) computing in a loop of fixed work for
 * SECONDS of wall time (default 2), for sonde vsensor's output directory and its records
 * (t608).  Prints "solo: done" at the end.  `solo SECONDS oom`: every calloc from
 * MPI_Finalize on fails (this file's calloc stands in for libc's), as on a rank out of
 * memory at the end of a long job.  `solo SECONDS nap`: halfway, 2 s asleep outside any
 * sensor (between two loops of the fixed work).  `solo SECONDS spin`: halfway, 4 s of a
 * loop that is no sensor (it reads the clock), busy: a test stops the process in it, when
 * "solo: spinning" is on stderr.  */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmpi-solo.h"

/* 100,000 doubles: a step of 15-40 us here, far over the 5 us under which the runtime
 * switches a sensor off as too short (20,000 took 2.7 us: switched off when its first
 * 1000 steps ran fast, and then the run recorded nothing) */
#define SOLO_N 100000
static double v[SOLO_N];
static int no_memory;

void *__libc_calloc(size_t n, size_t size);
void *calloc(size_t n, size_t size)
{
	if (no_memory) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(n, size);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void step(void)
{
	for (int i = 0; i < SOLO_N; i++)
		v[i] = v[i] * 0.5 + 1;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2, end;
	long n = 0;

	MPI_Init(&argc, &argv);
	end = now() + secs;
	if (argc > 2 && (!strcmp(argv[2], "nap") || !strcmp(argv[2], "spin"))) {
		double half = now() + secs / 2;
		while (now() < half) {
			step();
			n++;
		}
		if (!strcmp(argv[2], "nap")) {
			struct timespec nap = { 2, 0 };
			while (nanosleep(&nap, &nap) && errno == EINTR)
				;
			end += 2;
		} else {
			volatile unsigned long spins = 0;
			double until = now() + 4;
			fprintf(stderr, "solo: spinning\n");
			while (now() < until)
				spins++;
			end += 4;
		}
	}
	while (now() < end) {
		step();
		n++;
	}
	no_memory = argc > 2 && !strcmp(argv[2], "oom");
	MPI_Finalize();
	no_memory = 0;
	printf("solo: %s\n", n > 0 ? "done" : "no iteration");
	return 0;
}
