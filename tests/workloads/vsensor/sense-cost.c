/* sense-cost.c - the CPU cost of one timed sense (vs_tick + vs_tock, with the runtime's
 * 1-ms averaging, records and CPU-share samples) of the vsensor runtime, for
 * bench/vsensor.sh.  Links against libsonde-vsensor.a directly, one rank.
 * The runtime switches a sensor off after 1000 senses shorter than 5 us, once; so the
 * sensor first runs 1000 empty senses, is switched back on, and from then on times an
 * empty body.  7 rounds of N plain and N timed iterations, alternately, measured in CPU
 * time (CLOCK_PROCESS_CPUTIME_ID: other users' load on a shared machine barely moves
 * it); prints the median difference per sense in ns. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tools/vsensor/vs-abi.h"

static volatile unsigned long sink;

static double cpu_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000000;
	struct vs_sensor s = { "sense-cost.c:0 main", 0, 0, 0, 0, 0 };
	double d[7];
	MPI_Init(&argc, &argv);
	for (int i = 0; i < 1000; i++) {
		vs_tick(&s);
		sink++;
		vs_tock(&s);
	}
	s.off = 0;
	for (int r = 0; r < 7; r++) {
		double t0 = cpu_s();
		for (int i = 0; i < n; i++)
			sink++;
		double t1 = cpu_s();
		for (int i = 0; i < n; i++) {
			vs_tick(&s);
			sink++;
			vs_tock(&s);
		}
		double t2 = cpu_s();
		d[r] = ((t2 - t1) - (t1 - t0)) / n * 1e9;
	}
	qsort(d, 7, sizeof(double), cmp);
	printf("%.0f %s\n", d[3], s.off ? "off" : "on");
	MPI_Finalize();
	return 0;
}
