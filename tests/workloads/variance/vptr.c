/* vptr.c - one function that does all the work, called through a pointer (t817).
 *
 *   vptr ROUNDS N     work(N) ROUNDS times through a volatile function pointer
 *
 * Built by sonde-cc: every store of work's loop calls a load/store callback, so most
 * clock samples land in the runtime's callback code, whose caller is work.  Called
 * through a pointer, work is found by the PC inside it, not by a call's target: the
 * path that took the callback's own return slot for work's (sonde variance's review of
 * 2026-11-26).  work is all of the program's time by construction.
 */
#include <stdlib.h>

static long a[4096];

__attribute__((noinline)) static void work(long n)
{
	for (long i = 0; i < n; i++)
		a[i & 4095] += i;
}

static void (*volatile call)(long) = work;

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 60;
	long n = argc > 2 ? atol(argv[2]) : 2000000;

	for (int r = 0; r < rounds; r++)
		call(n);
	return (int)(a[7] & 1);
}
