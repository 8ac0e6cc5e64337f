/* SPDX-License-Identifier: MIT */
/*
 * clock-spread - timer samples pile up behind a long-latency instruction; the clock source's
 * random extra steps must spread them over the accesses that follow.
 *
 * Each iteration does one `lock add` on `counter` (a read-modify-write that stalls the
 * pipeline) and then three loads from `table`.  Known answer, by access count: counter 1/4 =
 * 25 %, table 3/4 = 75 %.  The clock source skips a random 0..7 further accesses, a multiple
 * of the 4-access period, so it must find about 25 % on counter wherever the timer lands;
 * without the skip (SONDE_EXTRA_STEPS=1) the samples land on the load after the lock add.
 *
 * usage: clock-spread [SECONDS]   (CPU seconds, default 1)
 * Prints "clock-spread: 1 ok".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t counter;
static volatile uint64_t table[64];

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	uint64_t n = 0, x = 0;
	double t0 = cpu_seconds();
	while (cpu_seconds() - t0 < secs) {
		for (int i = 0; i < 100000; i++) {
			__atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
			x += table[i & 63];
			x += table[(i + 1) & 63];
			x += table[(i + 2) & 63];
		}
		n += 100000;
	}
	if (counter != n || x != 0)
		return 1;
	printf("clock-spread: %llu ok\n", (unsigned long long)(n > 0));
	return 0;
}
