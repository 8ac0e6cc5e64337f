/* SPDX-License-Identifier: MIT */
/*
 * vself.c - a short function that times itself, for checking `sonde variance`'s CPU time
 * per instance against the truth of the very same calls (doc/sonde-variance.md, "Short
 * functions beside a load").  THREADS threads (default 2) call leaf() for SECONDS; leaf()
 * does about US microseconds of CPU work (a chain of multiplies, its speed measured at
 * start, or VSELF_PER_US iterations per us) and, with VSELF_KB, reads that many KB of a
 * buffer of its thread's (one byte a 64-byte line, in a scattered order: the cache
 * footprint of a function like RSBench's calculate_macro_xs).
 *
 *   vself SECONDS [US [THREADS]]
 *
 * leaf() reads the thread's CPU clock and the monotonic clock inside its body: after the
 * entry breakpoint's trap and its handler, before the return watch's trap.  So each call's
 * own cost is known even in the calls sonde measures, and an instance can be matched to
 * its call by its start (instances.csv `start`, the monotonic time its entry's handler
 * ended: the body starts ~2 us later).  At exit, VSELF_OUT (default vself.calls) gets one
 * line per call: thread, body start (monotonic ns), body CPU ns, body wall ns.  What the
 * body's clocks do not hold of leaf(): the tail of the first CPU clock read and the head
 * of the last (one clock_gettime system call, ~0.55 us on the development VM; stdout's
 * `clock` line gives this machine's) and two monotonic reads (vDSO, ~25 ns each).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "vclock.h"

#define NOINLINE __attribute__((noinline))
#define MAX_THREADS 8
#define MAX_CALLS 2000000

struct call {
	int64_t mono, cpu_in, mono_in;
};

struct th {
	long n;
	struct call *c;
	uint64_t sink;
	volatile unsigned char *buf;
};

static long per_us, nwork, nbuf;
static double secs;
static __thread struct th *me;

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

NOINLINE void leaf(void)
{
	int64_t m0 = mono_ns(), c0 = cpu_ns();
	uint64_t x = chain(me->sink, nwork);

	/* one byte a line, lines in a scattered order (a stride of 61 lines) */
	for (long i = 0, lines = nbuf / 64; i < lines; i++)
		x += me->buf[(i * 61 % lines) * 64];
	me->sink = x;
	int64_t c1 = cpu_ns(), m1 = mono_ns();
	if (me->n < MAX_CALLS) {
		struct call *k = &me->c[me->n++];
		k->mono = m0;
		k->cpu_in = c1 - c0;
		k->mono_in = m1 - m0;
	}
}

static void *run(void *a)
{
	struct th *t = a;
	int64_t end = mono_ns() + (int64_t)(secs * 1e9);

	me = t;
	while (mono_ns() < end)
		leaf();
	return NULL;
}

int main(int argc, char **argv)
{
	secs = argc > 1 ? atof(argv[1]) : 3;
	double us = argc > 2 ? atof(argv[2]) : 4;
	int nt = argc > 3 ? atoi(argv[3]) : 2;
	const char *e = getenv("VSELF_PER_US"), *kb = getenv("VSELF_KB");
	const char *out = getenv("VSELF_OUT") ? getenv("VSELF_OUT") : "vself.calls";
	struct th T[MAX_THREADS] = { { 0 } };
	pthread_t p[MAX_THREADS];

	if (nt < 1 || nt > MAX_THREADS) {
		fprintf(stderr, "vself: 1 to %d threads\n", MAX_THREADS);
		return 2;
	}
	per_us = e ? atol(e) : loop_speed();
	nwork = (long)((double)per_us * us);
	nbuf = kb ? atol(kb) * 1024 : 0;
	printf("vself loop %ld clock %ld\n", per_us, (long)clock_cost());
	for (int i = 0; i < nt; i++) {
		T[i].c = calloc(MAX_CALLS, sizeof(struct call));
		T[i].buf = calloc((size_t)(nbuf ? nbuf : 64), 1);
		T[i].sink = (uint64_t)i + 1;
		if (!T[i].c || !T[i].buf)
			return 1;
	}
	for (int i = 1; i < nt; i++)
		pthread_create(&p[i], NULL, run, &T[i]);
	run(&T[0]);
	for (int i = 1; i < nt; i++)
		pthread_join(p[i], NULL);
	FILE *f = fopen(out, "w");
	if (!f)
		return 1;
	for (int i = 0; i < nt; i++)
		for (long j = 0; j < T[i].n; j++)
			fprintf(f, "%d %lld %lld %lld\n", i, (long long)T[i].c[j].mono,
				(long long)T[i].c[j].cpu_in, (long long)T[i].c[j].mono_in);
	fclose(f);
	return 0;
}
