#!/usr/bin/env bash
# t067-mem-stack-reuse: glibc gives a new thread the stack of one that ended, so two
# threads' stack ranges are the same; a sample is charged to the stack of the thread that
# took it when the address is in its own stack.  Thread 1 works on its stack, ends, and
# thread 2 (same stack, no work) starts: every stack sample is thread 1's (the search by
# address alone named thread 2, which took no sample: the trial of PARSEC streamcluster,
# 2026-11-27; mem, comm and reuse name objects alike).
. "$(dirname "$0")/lib.sh"
command -v gcc >/dev/null || { skip t067 "gcc is not installed"; exit 0; }
cat >sr.c <<'EOC'
#include <pthread.h>
#include <stdio.h>
static void *busy(void *a)
{
	volatile double buf[512];
	for (long r = 0; r < 3000000; r++)
		for (int i = 0; i < 512; i += 8)
			buf[i] += r;
	return a;
}
static void *idle(void *a) { return a; }
int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, busy, NULL);
	pthread_join(t, NULL);
	pthread_create(&t, NULL, idle, NULL);	/* glibc hands it thread 1's cached stack */
	pthread_join(t, NULL);
	puts("done");
	return 0;
}
EOC
gcc -O2 -g -pthread sr.c -o sr || { fail t067-build "gcc could not build sr.c"; exit 0; }
"$SONDE" mem -q -o rec -- ./sr >out 2>err
check t067-status [ $? -eq 0 ]
ot=rec/mem/object_threads.csv
s1=$(awk -F, '$1 == "[stack of thread 1]" && $2 == 1 { print $3 }' $ot)
s2=$(awk -F, '$1 == "[stack of thread 2]" { s += $3 } END { print s + 0 }' $ot)
echo "    stack samples: thread 1's own ${s1:-0}, named thread 2's $s2"
check "t067-own-stack-${s1:-0}" [ "${s1:-0}" -gt 0 ]
check "t067-not-the-later-thread-$s2" [ "$s2" -eq 0 ]
