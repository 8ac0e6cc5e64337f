/* SPDX-License-Identifier: MIT */
/*
 * lopsided.c - one large and one tiny cell for sonde comm's heat map (t402): workers 1 and
 * 2 hand a word back and forth N times (strict alternation, 2N transfers), then worker 3,
 * started after them, reads it once (1 transfer), then makes M accesses of its own (a
 * private array: no transfer), so that the transfers are as rare as asked.
 *   lopsided N [M]
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long word __attribute__((aligned(64)));
static volatile int turn __attribute__((aligned(64)));
static long n, m;
static volatile long own[512] __attribute__((aligned(64)));

__attribute__((no_sanitize("coverage"), noinline)) static void wait_for(int me)
{
	while (turn != me)
		sched_yield();
}

static void *hand(void *arg)
{
	int me = (int)(long)arg;
	for (long i = 0; i < n; i++) {
		wait_for(me);
		word = word + 1;
		turn = 1 - me;
	}
	return NULL;
}

static void *reader(void *arg)
{
	(void)arg;
	long v = word;
	for (long i = 0; i < m; i++)
		own[i % 512] = own[i % 512] + v;
	return (void *)v;
}

int main(int argc, char **argv)
{
	pthread_t a, b, c;
	n = argc > 1 ? atol(argv[1]) : 1000;
	m = argc > 2 ? atol(argv[2]) : 0;
	pthread_create(&a, NULL, hand, (void *)0L);
	pthread_create(&b, NULL, hand, (void *)1L);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	pthread_create(&c, NULL, reader, NULL);
	pthread_join(c, NULL);
	printf("lopsided: %ld\n", word);
	return 0;
}
