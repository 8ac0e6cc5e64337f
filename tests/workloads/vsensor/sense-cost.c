/* sense-cost.c - the CPU cost of one timed sense (vs_tick + vs_tock) of the vsensor
 * runtime, for bench/vsensor.sh.  Links against libsonde-vsensor.a directly, one rank.
 * A body of about 8 us (above the 5-us switch-off) runs N times plain and N times between
 * vs_tick/vs_tock, alternately, 7 rounds; each round's CPU time (CLOCK_PROCESS_CPUTIME_ID:
 * other users' load on a shared machine barely moves it) gives a difference per sense;
 * prints the median difference in ns and the body's time in us. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tools/vsensor/vs-abi.h"

static volatile double sink;

static void body(int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += i * 0.5;
	sink += s;
}

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
	int n = argc > 1 ? atoi(argv[1]) : 20000;
	int w = 8000;
	struct vs_sensor s = { "sense-cost.c:0 main", 0, 0, 0, 0, 0 };
	double d[7], plain = 0;
	MPI_Init(&argc, &argv);
	for (int r = 0; r < 7; r++) {
		double t0 = cpu_s();
		for (int i = 0; i < n; i++)
			body(w);
		double t1 = cpu_s();
		for (int i = 0; i < n; i++) {
			vs_tick(&s);
			body(w);
			vs_tock(&s);
		}
		double t2 = cpu_s();
		d[r] = ((t2 - t1) - (t1 - t0)) / n * 1e9;
		plain += (t1 - t0) / n * 1e6 / 7;
	}
	qsort(d, 7, sizeof(double), cmp);
	printf("%.0f %.1f %s\n", d[3], plain, s.off ? "off" : "on");
	MPI_Finalize();
	return 0;
}
