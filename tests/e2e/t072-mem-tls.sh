#!/usr/bin/env bash
# t072-mem-tls: thread-local data is named "VARIABLE (TLS of thread N)" (kind static), not
# the thread's stack, and "[TLS of thread N: MODULE]" where the module has no symbol for it: glibc puts a new thread's static TLS at the top of its stack block, where
# OpenMP's threadprivate data and libgomp's per-thread state read as "[stack of thread 3]"
# (the trial of 2026-11-28, PENNANT).  Thread 1 and then the main thread work on a
# __thread array only, thread 2 on an array on its stack, thread 3 on main's __thread array
# through a pointer: by construction every sample of thread 1 is in its TLS, every one of
# thread 2 in its stack, every one of thread 3 in main's TLS.
. "$(dirname "$0")/lib.sh"
command -v gcc >/dev/null || { skip t072 "gcc is not installed"; exit 0; }
cat >tl.c <<'EOC'
#include <pthread.h>
#include <stdio.h>
static __thread volatile double tl[512];
static void *tls_work(void *a)
{
	for (long r = 0; r < 1500000; r++)
		for (int i = 0; i < 512; i += 8)
			tl[i] += r;
	return a;
}
static void *stack_work(void *a)
{
	volatile double buf[512];
	for (long r = 0; r < 1500000; r++)
		for (int i = 0; i < 512; i += 8)
			buf[i] += r;
	return a;
}
static void *other_work(void *a)	/* main's tl, through a pointer */
{
	volatile double *p = a;
	for (long r = 0; r < 1500000; r++)
		for (int i = 0; i < 512; i += 8)
			p[i] += r;
	return a;
}
int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, tls_work, NULL);
	pthread_join(t, NULL);
	pthread_create(&t, NULL, stack_work, NULL);
	pthread_join(t, NULL);
	pthread_create(&t, NULL, other_work, (void *)tl);
	pthread_join(t, NULL);
	tls_work(NULL);
	puts("done");
	return 0;
}
EOC
gcc -O2 -g -pthread tl.c -o tl || { fail t072-build "gcc could not build tl.c"; exit 0; }
"$SONDE" mem -q -o rec -- ./tl >out 2>err
check t072-status [ $? -eq 0 ]
ot=rec/mem/object_threads.csv
n() { awk -F, -v o="$1" -v t="$2" '$1 == o && $2 == t { s += $3 } END { print s + 0 }' $ot; }
t1=$(n "tl (TLS of thread 1)" 1) t0=$(n "tl (TLS of thread 0)" 0) s2=$(n "[stack of thread 2]" 2)
s1=$(n "[stack of thread 1]" 1) o3=$(n "tl (TLS of thread 0)" 3)
echo "    samples: TLS of 1 $t1, TLS of 0 $t0, stack of 2 $s2, stack of 1 $s1, main's TLS by 3 $o3"
check "t072-other-threads-tls-$o3" [ "$o3" -gt 0 ]
check "t072-tls-of-thread-1-$t1" [ "$t1" -gt 0 ]
check "t072-tls-of-main-$t0" [ "$t0" -gt 0 ]
check "t072-stack-of-thread-2-$s2" [ "$s2" -gt 0 ]
check "t072-no-tls-sample-as-stack-$s1" [ "$s1" -eq 0 ]
k=$(awk -F, '$1 == "tl (TLS of thread 1)" { print $2 "," $7 }' rec/mem/objects.csv)
check "t072-kind-static-size-4096-${k:-none}" [ "$k" = static,4096 ]
# stripped: the block is the executable's, no symbol names the variable
strip -o tl-stripped tl || { fail t072-strip "strip failed"; exit 0; }
"$SONDE" mem -q -o srec -- ./tl-stripped >out 2>err
ot=srec/mem/object_threads.csv
t1=$(n "[TLS of thread 1: tl-stripped]" 1)
s1=$(n "[stack of thread 1]" 1)
check "t072-stripped-tls-of-thread-1-$t1" [ "$t1" -gt 0 ]
check "t072-stripped-no-tls-sample-as-stack-$s1" [ "$s1" -eq 0 ]
# a library's thread-local array, loaded through its soname link (the loader names it
# libtl.so.1, the maps file libtl.so.1.0: the review of 2026-11-28 read "[TLS of thread 0:
# libtl.so.1]" before the runtime resolved the name)
cat >libtl.c <<'EOC'
__thread double lt_arr[512];
void lt_work(long n)
{
	for (long r = 0; r < n; r++)
		for (int i = 0; i < 512; i += 8)
			((volatile double *)lt_arr)[i] += r;
}
EOC
printf 'void lt_work(long n);\nint main(void) { lt_work(1500000); return 0; }\n' >tlmain.c
if gcc -O2 -g -fPIC -shared -Wl,-soname,libtl.so.1 libtl.c -o libtl.so.1.0 &&
	ln -sf libtl.so.1.0 libtl.so.1 && ln -sf libtl.so.1.0 libtl.so &&
	gcc -O2 -g tlmain.c -L. -ltl -o tlmain; then
	LD_LIBRARY_PATH=$PWD "$SONDE" mem -q -o lrec -- ./tlmain >/dev/null 2>&1
	check t072-lib-status [ $? -eq 0 ]
	lt=$(awk -F, '$1 == "lt_arr [libtl.so.1.0] (TLS of thread 0)" { print $3 }' lrec/mem/objects.csv)
	check "t072-lib-tls-named-${lt:-0}" [ "${lt:-0}" -gt 0 ]
else
	fail t072-lib-build "gcc could not build libtl"
fi
