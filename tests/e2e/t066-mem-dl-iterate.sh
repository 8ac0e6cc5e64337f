#!/usr/bin/env bash
# t066-mem-dl-iterate: programs that call dl_iterate_phdr run to their end under `sonde
# mem`, their status and output as without.
#  - loop: a loop of 5 million calls.  A sample that landed inside one unwound with
#    libunwind, whose own dl_iterate_phdr waited on the loader's lock the program held:
#    the program hung for good, SIGKILL only (3 runs of 3 at 30 million calls, and at 5
#    million here; the usability review of 2026-11-27).  Such samples keep their leaf.
#  - fork: a fork while another thread is inside dl_iterate_phdr: the child inherits the
#    loader's lock held by a thread it does not have; it must not unwind (libunwind would
#    wait for good, and did when the child's count was lowered: the review of 2026-11-27).
#  - alloc: another thread walking the modules all the time does not stop this thread's
#    allocation sites from being unwound (outside a handler only the thread's own holding
#    of the loader's lock matters: both arrays read "[unknown allocation site]" before).
. "$(dirname "$0")/lib.sh"
command -v gcc >/dev/null || { skip t066 "gcc is not installed"; exit 0; }
cat >dlit.c <<'EOC'
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile long cnt;
static volatile int stop;
static int cb(struct dl_phdr_info *i, size_t s, void *d)
{
	(void)s, (void)d;
	for (int k = 0; k < i->dlpi_phnum; k++)
		cnt += i->dlpi_phdr[k].p_memsz & 1;
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
__attribute__((noinline)) static double *mk_a(void) { return malloc(8 << 20); }
__attribute__((noinline)) static double *mk_b(void) { return malloc(8 << 20); }
int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "loop";
	pthread_t th;
	if (!strcmp(m, "loop")) {
		for (int r = 0; r < 5000000; r++)
			dl_iterate_phdr(cb, 0);
		printf("dlit %d\n", cnt > 0);
		return 0;
	}
	pthread_create(&th, 0, spin, 0);
	if (!strcmp(m, "fork")) {
		usleep(100000);
		pid_t p = fork();
		if (p == 0) {
			double s = 0;
			for (int r = 0; r < 60; r++)
				s += leaf(r);
			void *b = malloc(1 << 20);	/* a tracked block: its site not unwound */
			printf("child %d\n", s != 0 && b != NULL);
			fflush(0);
			_exit(0);
		}
		stop = 1;
		pthread_join(th, 0);
		waitpid(p, 0, 0);
		puts("parent");
		return 0;
	}
	double s = 0;	/* alloc */
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
gcc -O2 -g -pthread dlit.c -o dlit || { fail t066-build "gcc could not build dlit.c"; exit 0; }

# guarded NAME DIR MODE: `sonde mem -q -o DIR -- ./dlit MODE` into DIR.out, DIR.err; 1 (a
# FAIL of NAME said, the processes killed) if it still runs after 300 s, a hang on any
# machine (each mode takes about a second alone); else the run's status in $status
guarded() {
	"$SONDE" mem -q -o "$2" -- "$T/dlit" "$3" >"$2.out" 2>"$2.err" &
	local pid=$! i
	for i in $(seq 1 300); do kill -0 $pid 2>/dev/null || break; sleep 1; done
	if kill -0 $pid 2>/dev/null; then
		pkill -9 -f "$T/dlit"
		kill -9 $pid 2>/dev/null
		fail "$1" "sonde mem -- ./dlit $3 still running after 300 s (killed)"
		return 1
	fi
	wait $pid
	status=$?
}

./dlit loop >want
guarded t066-no-hang rec loop || exit 0
check "t066-status-$status" [ $status -eq 0 ]
check t066-no-hang cmp -s want rec.out
check t066-samples [ "$(sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = 'samples'")" -gt 0 ]

guarded t066-fork-no-hang frec fork || exit 0
check "t066-fork-status-$status" [ $status -eq 0 ]
check t066-fork-child-ran grep -qx "child 1" frec.out
check t066-fork-parent-ran grep -qx "parent" frec.out

guarded t066-alloc-no-hang arec alloc || exit 0
check t066-alloc-sites-status [ $status -eq 0 ]
check t066-alloc-sites-known sh -c "! grep -q '^\[unknown allocation site\]' arec/mem/objects.csv"
check t066-alloc-sites-named grep -q 'dlit.c:' arec/mem/objects.csv
