#!/usr/bin/env bash
# t075-mem-sigkill-heap: a process killed by SIGKILL (a batch system's time limit, the OOM
# killer: no handler runs) keeps its heap objects.  The runtime held the allocation record
# of a block back until the block's free (a block freed before any observation is only
# counted), so the long-lived blocks of such a run were never written and every heap
# sample read [unknown] (the usability review of 2026-11-28); it now writes the held
# records of blocks that outlived an observation every 64 observations.  kb allocates two
# 256 KiB blocks at two lines, works on them (1 pass and 3) for about 2 s of CPU, and
# kills itself: its records up to the last flush of the buffer (16 KB, a few hundred
# samples) are on disk, the blocks' among them.
. "$(dirname "$0")/lib.sh"
command -v gcc >/dev/null || { skip t075 "gcc is not installed"; exit 0; }
cat >kb.c <<'EOC'
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#define N 32768
static double cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
__attribute__((noinline)) static void work(volatile double *p, int reps)
{
	for (int r = 0; r < reps; r++)
		for (int i = 0; i < N; i++)
			p[i] += 1;
}
int main(void)
{
	volatile double *a = malloc(N * sizeof(double));	/* line A */
	volatile double *b = malloc(N * sizeof(double));	/* line B */
	double t0 = cpu();
	while (cpu() - t0 < 2.0) {
		work(a, 1);
		work(b, 3);
	}
	raise(SIGKILL);
	return 0;
}
EOC
la=$(grep -n "line A" kb.c | cut -d: -f1) lb=$(grep -n "line B" kb.c | cut -d: -f1)
gcc -O2 -g kb.c -o kb || { fail t075-build "gcc could not build kb.c"; exit 0; }
"$SONDE" mem -q -o rec -- ./kb >out 2>err
st=$?
check "t075-status-$st-is-137" [ "$st" = 137 ]
o=rec/mem/objects.csv
sa=$(awk -F, -v o="main (kb.c:$la)" '$1 == o { print $3 }' $o)
sb=$(awk -F, -v o="main (kb.c:$lb)" '$1 == o { print $3 }' $o)
all=$(awk -F, 'NR > 1 { s += $3 } END { print s + 0 }' $o)
echo "    samples: line $la ${sa:-0}, line $lb ${sb:-0}, all $all; top: $(sed -n 2p $o | cut -c1-60)"
check "t075-blocks-named-${sa:-0}-${sb:-0}-of-$all" awk -v a="${sa:-0}" -v b="${sb:-0}" \
	-v n="$all" 'BEGIN { exit !(a > 0 && b > a && 2 * (a + b) > n) }'
# The common shape: the main thread allocates, starts a worker and waits for it, taking
# no sample; the worker works and the process is killed.  The master's held records (and
# its buffer) go to disk when it creates the thread (the review of 2026-11-28: 2,030 of
# 2,031 samples read [unknown] with the flush every 64 observations alone).
cat >kw.c <<'EOC'
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#define N 32768
static volatile double *a, *b;
static double cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
__attribute__((noinline)) static void work(volatile double *p, int reps)
{
	for (int r = 0; r < reps; r++)
		for (int i = 0; i < N; i++)
			p[i] += 1;
}
static void *worker(void *x)
{
	double t0 = cpu();
	while (cpu() - t0 < 2.0) {
		work(a, 1);
		work(b, 3);
	}
	raise(SIGKILL);
	return x;
}
int main(void)
{
	pthread_t t;
	a = malloc(N * sizeof(double));	/* line A */
	b = malloc(N * sizeof(double));	/* line B */
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	return 0;
}
EOC
la=$(grep -n "line A" kw.c | cut -d: -f1) lb=$(grep -n "line B" kw.c | cut -d: -f1)
gcc -O2 -g -pthread kw.c -o kw || { fail t075-build-kw "gcc could not build kw.c"; exit 0; }
"$SONDE" mem -q -o recw -- ./kw >outw 2>errw
st=$?
check "t075-worker-status-$st-is-137" [ "$st" = 137 ]
o=recw/mem/objects.csv
sa=$(awk -F, -v o="main (kw.c:$la)" '$1 == o { print $3 }' $o)
sb=$(awk -F, -v o="main (kw.c:$lb)" '$1 == o { print $3 }' $o)
all=$(awk -F, 'NR > 1 { s += $3 } END { print s + 0 }' $o)
echo "    worker: line $la ${sa:-0}, line $lb ${sb:-0}, all $all; top: $(sed -n 2p $o | cut -c1-60)"
check "t075-worker-blocks-named-${sa:-0}-${sb:-0}-of-$all" awk -v a="${sa:-0}" -v b="${sb:-0}" \
	-v n="$all" 'BEGIN { exit !(a > 0 && b > a && 2 * (a + b) > n) }'
