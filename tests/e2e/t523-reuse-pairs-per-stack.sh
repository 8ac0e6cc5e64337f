#!/usr/bin/env bash
# t523-reuse-pairs-per-stack: a reuse pair is the code on each side and the data; the same
# code on two threads' stacks is two pairs, each named by its own stack.  Each pair kept
# one address to name its object by, so the trial of 2026-11-28 (RSBench, 2 threads) read
# every stack pair as "[stack of thread 1]" though sonde mem showed the two stacks at 30%
# each.  Two workers (threads 1 and 2) sweep an array of their own stack in one function;
# the clock source (gcc build) samples both: pairs.csv names both stacks.  A run whose
# pairs name neither (no outcome sampled on a stack: a loaded machine's short run) is a
# SKIP, not a pass.
. "$(dirname "$0")/lib.sh"
cat >st.c <<'EOF'
#include <pthread.h>
#include <stdio.h>
__attribute__((noinline)) static double sweep(volatile double *a, int n, int rounds)
{
	double s = 0;
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < n; i++)
			s += a[i] += 1;
	return s;
}
static void *work(void *arg)
{
	volatile double a[512];	/* 4 KB of this thread's stack */
	for (int i = 0; i < 512; i++)
		a[i] = i;
	*(double *)arg = sweep(a, 512, 40000);
	return NULL;
}
int main(void)
{
	pthread_t t[2];
	double r[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, &r[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%.0f\n", r[0] + r[1]);
	return 0;
}
EOF
gcc -O1 -g -fno-omit-frame-pointer -pthread st.c -o st || { fail t523-build "gcc could not build st.c"; exit 0; }
"$SONDE" reuse -q -o d -- ./st >out 2>err
check t523-status [ $? -eq 0 ]
n1=$(grep -c "\[stack of thread 1\]" d/reuse/pairs.csv)
n2=$(grep -c "\[stack of thread 2\]" d/reuse/pairs.csv)
echo "pairs on thread 1's stack: $n1, on thread 2's: $n2"
if [ "$n1" -eq 0 ] && [ "$n2" -eq 0 ]; then
	skip t523-both-stacks "no pair on a stack in this run"
else
	check "t523-both-stacks ($n1 and $n2)" [ "$n1" -gt 0 -a "$n2" -gt 0 ]
fi
