/* sigloads: a pointer chase of ROUNDS x 1000 loads (one load an iteration, not
 * vectorised) while SIGALRM comes every 200 us, its handler running 64 loads of its own.
 * For t517: every access of the chase must reach `reuse --exact`. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

#define N 1000
static int next[N];
static long hbuf[64];
static volatile long sink;

static void on_alrm(int sig)
{
	long x = sig;
	for (int i = 0; i < 64; i++)
		x += hbuf[i];
	sink = x;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 2000;
	struct sigaction sa = { .sa_handler = on_alrm, .sa_flags = SA_RESTART };
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	int i = 0;

	for (int k = 0; k < N; k++)
		next[k] = (k + 7) % N;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (long r = 0; r < rounds * N; r++)
		i = next[i];
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	printf("sigloads: %d\n", i);
	return 0;
}
