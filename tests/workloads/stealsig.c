/*
 * stealsig - installs its own handler on the signal the runtime samples with
 * (SIGRTMAX-3, sonde's default) and then computes for ~0.5 s.  Nobody sends that signal,
 * so natively the handler never runs.  Known answer: prints "stealsig: got 0" and exits 0,
 * with or without sonde; under sonde the samples keep coming.
 */
#include <signal.h>
#include <stdio.h>

static volatile long got;

static void on_signal(int sig)
{
	(void)sig;
	got++;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_signal }, old;
	signal(SIGRTMAX - 3, on_signal);
	sigaction(SIGRTMAX - 3, &sa, &old);
	int same = old.sa_handler == on_signal;
	volatile double x = 0;
	for (long i = 0; i < 150000000; i++)
		x += (double)i * 0.5;
	printf("stealsig: got %ld%s\n", got, same ? "" : " (sigaction lost the handler)");
	return same ? 0 : 1;
}
