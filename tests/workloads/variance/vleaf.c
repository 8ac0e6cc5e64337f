/*
 * vleaf.c - a leaf loop that gcc builds with no frame of its own, even with
 * -fno-omit-frame-pointer (it needs no stack), called from a framed driver on the main
 * thread and on a second thread, for t819.
 *
 *   vleaf [K [N]]   each thread calls leaf(N) K times (400, 300000) through drive(), with
 *                   ext() between calls (a call of its own: drive keeps its frame)
 *
 * A sample in leaf finds the chain's first frame to be drive's, whose callee (as the
 * code names it) is drive itself on the main thread and, on the second thread, sonde's
 * own thread start's: the leaf is the function only the sample's PC names.
 * Prints on stderr "leaf CALLS" per thread at exit.  Build: gcc -O2 -g -fno-omit-frame-pointer -pthread.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static volatile uint64_t sink;
static long k = 400, n = 300000;

__attribute__((noinline)) void leaf(long m)
{
	for (long i = 0; i < m; i++)
		sink += (uint64_t)i;
}

__attribute__((noinline)) uint64_t ext(void)
{
	__asm__ volatile("");
	return 1;
}

__attribute__((noinline)) void drive(void)
{
	for (long j = 0; j < k; j++) {
		leaf(n);
		sink += ext();
	}
	fprintf(stderr, "leaf %ld\n", k);
}

static void *thr(void *a)
{
	drive();
	return a;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1)
		k = atol(argv[1]);
	if (argc > 2)
		n = atol(argv[2]);
	if (pthread_create(&t, NULL, thr, NULL))
		return 1;
	drive();
	pthread_join(t, NULL);
	return 0;
}
