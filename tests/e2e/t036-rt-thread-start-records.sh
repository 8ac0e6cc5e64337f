#!/usr/bin/env bash
# t036-rt-thread-start-records: many threads starting at once under the runtime, beyond its
# 16 static start records (src/rt/init.c, start_take: more records on mmap'd pages, not
# malloc).  100 threads, created with SCHED_IDLE on the creator's one CPU so that most have
# not run (and not given their record back) when the next is created; each adds its
# argument, then all wait on a barrier while the program counts the malloc arenas (the
# 64 MB PROT_NONE reserves, over 32 MB, in /proc/self/maps).  Every routine must have run
# with its own argument (sum), and no thread may have an arena: the threads never call
# malloc, and a record malloc'd by the creator and freed by the thread made glibc create one
# in it (glibc's cap on 2 CPUs: 15 arenas, in each of 10 runs of this test against the code
# before, 5 under comm and 5 under variance, 2026-11-26 17:57 UTC).
. "$(dirname "$0")/lib.sh"

cat >many.c <<'EOF_C'
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#define N 100
static pthread_barrier_t b;
static atomic_long sum;
static void *fn(void *a)
{
	atomic_fetch_add(&sum, (long)a);
	pthread_barrier_wait(&b);
	pthread_barrier_wait(&b);
	return a;
}
static int arenas(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char l[512];
	int n = 0;

	while (f && fgets(l, sizeof(l), f)) {
		unsigned long lo, hi;
		char p[8];
		if (sscanf(l, "%lx-%lx %7s", &lo, &hi, p) == 3 && !strcmp(p, "---p") &&
		    hi - lo > (32ul << 20))
			n++;
	}
	if (f)
		fclose(f);
	return n;
}
int main(void)
{
	pthread_t t[N];
	pthread_attr_t at;
	struct sched_param sp = { 0 };
	cpu_set_t one;
	long expect = 0;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof(one), &one);
	pthread_attr_init(&at);
	pthread_attr_setinheritsched(&at, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&at, SCHED_IDLE);
	pthread_attr_setschedparam(&at, &sp);
	pthread_barrier_init(&b, NULL, N + 1);
	for (long i = 0; i < N; i++) {
		if (pthread_create(&t[i], &at, fn, (void *)(i + 1)))
			return 2;
		expect += i + 1;
	}
	pthread_barrier_wait(&b);
	int a = arenas();
	pthread_barrier_wait(&b);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	printf("sum %ld of %ld, arenas %d\n", (long)atomic_load(&sum), expect, a);
	return atomic_load(&sum) != expect ? 1 : a ? 3 : 0;
}
EOF_C
run_native_and_tools t036 many all-ran-no-arena variance comm || exit 0
