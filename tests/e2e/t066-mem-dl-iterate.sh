#!/usr/bin/env bash
# t066-mem-dl-iterate: a program that calls dl_iterate_phdr in a loop runs to its end under
# `sonde mem` (its status and output as without).  A sample that landed inside it unwound
# with libunwind, whose own dl_iterate_phdr waited on the loader's lock the program held:
# the program hung for good, SIGKILL only (3 runs of 3 at 30 million calls, and at 5
# million here; the usability review of 2026-11-27).  Such samples keep their leaf.
. "$(dirname "$0")/lib.sh"
command -v gcc >/dev/null || { skip t066 "gcc is not installed"; exit 0; }
cat >dlit.c <<'EOC'
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
static volatile long cnt;
static int cb(struct dl_phdr_info *i, size_t s, void *d)
{
	(void)s, (void)d;
	for (int k = 0; k < i->dlpi_phnum; k++)
		cnt += i->dlpi_phdr[k].p_memsz & 1;
	return 0;
}
int main(void)
{
	for (int r = 0; r < 5000000; r++)
		dl_iterate_phdr(cb, 0);
	printf("dlit %d\n", cnt > 0);
	return 0;
}
EOC
gcc -O2 -g dlit.c -o dlit || { fail t066-build "gcc could not build dlit.c"; exit 0; }
./dlit >want
"$SONDE" mem -q -o rec -- "$T/dlit" >got 2>err &
pid=$!
# about 1 s alone; 300 s is a hang, on any machine
for i in $(seq 1 300); do kill -0 $pid 2>/dev/null || break; sleep 1; done
if kill -0 $pid 2>/dev/null; then
	pkill -9 -f "$T/dlit"
	kill -9 $pid 2>/dev/null
	fail t066-no-hang "sonde mem -- ./dlit still running after 300 s (killed)"
	exit 0
fi
wait $pid
check "t066-status-$?" [ $? -eq 0 ]
check t066-no-hang cmp -s want got
check t066-samples [ "$(sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = 'samples'")" -gt 0 ]

# fork while another thread is inside dl_iterate_phdr: the child inherits the loader's
# lock held by a thread it does not have; it must not unwind (libunwind's dl_iterate_phdr
# would wait for good, and did when the child's count was lowered: the review of
# 2026-11-27), and it runs to its end
cat >forkdl.c <<'EOC'
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile int stop;
static int cb(struct dl_phdr_info *i, size_t s, void *d)
{
	volatile long x = 0;
	for (int k = 0; k < 2000; k++)
		x += k;
	(void)i, (void)s, (void)d;
	return 0;
}
static void *spin(void *a)
{
	while (!stop)
		dl_iterate_phdr(cb, 0);
	return a;
}
static double arr[1 << 20];
__attribute__((noinline)) static double leaf(int r)
{
	double s = 0;
	for (int i = 0; i < (1 << 20); i++)
		s += arr[i] += i * r;
	return s;
}
int main(void)
{
	pthread_t th;
	pthread_create(&th, 0, spin, 0);
	usleep(100000);
	pid_t p = fork();
	if (p == 0) {
		double s = 0;
		for (int r = 0; r < 60; r++)
			s += leaf(r);
		void *m = malloc(1 << 20);	/* a tracked block: its site is not unwound */
		printf("child %d\n", s != 0 && m != NULL);
		fflush(0);
		_exit(0);
	}
	stop = 1;
	pthread_join(th, 0);
	waitpid(p, 0, 0);
	puts("parent");
	return 0;
}
EOC
gcc -O2 -g -pthread forkdl.c -o forkdl || { fail t066-fork-build "gcc could not build forkdl.c"; exit 0; }
"$SONDE" mem -q -o frec -- "$T/forkdl" >fgot 2>ferr &
pid=$!
for i in $(seq 1 300); do kill -0 $pid 2>/dev/null || break; sleep 1; done
if kill -0 $pid 2>/dev/null; then
	pkill -9 -f "$T/forkdl"
	kill -9 $pid 2>/dev/null
	fail t066-fork-no-hang "sonde mem -- ./forkdl still running after 300 s (killed)"
	exit 0
fi
wait $pid
check "t066-fork-status-$?" [ $? -eq 0 ]
check t066-fork-child-ran grep -qx "child 1" fgot
check t066-fork-parent-ran grep -qx "parent" fgot

# another thread walking the modules all the time does not stop this thread's allocation
# sites from being unwound (outside a handler only the thread's own holding of the
# loader's lock matters: both arrays read "[unknown allocation site]" before, the review)
cat >allocx.c <<'EOC'
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static volatile int stop;
static int cb(struct dl_phdr_info *i, size_t s, void *d)
{
	(void)i, (void)s, (void)d;
	return 0;
}
static void *spin(void *a)
{
	while (!stop)
		dl_iterate_phdr(cb, 0);
	return a;
}
__attribute__((noinline)) static double *mk_a(void) { return malloc(8 << 20); }
__attribute__((noinline)) static double *mk_b(void) { return malloc(8 << 20); }
int main(void)
{
	pthread_t th;
	pthread_create(&th, 0, spin, 0);
	double s = 0;
	for (int r = 0; r < 30; r++) {
		double *a = mk_a(), *b = mk_b();
		for (int i = 0; i < (1 << 20); i++)
			b[i] = (a[i] = i) * 2;
		for (int i = 0; i < (1 << 20); i++)
			s += a[i] + b[i];
		free(a);
		free(b);
	}
	stop = 1;
	pthread_join(th, 0);
	printf("%d\n", s > 0);
	return 0;
}
EOC
if gcc -O2 -g -pthread allocx.c -o allocx; then
	"$SONDE" mem -q -o arec -- ./allocx >/dev/null 2>&1
	check t066-alloc-sites-status [ $? -eq 0 ]
	check t066-alloc-sites-known sh -c "! grep -q '^\[unknown allocation site\]' arec/mem/objects.csv"
	check t066-alloc-sites-named grep -q 'allocx.c:' arec/mem/objects.csv
fi
