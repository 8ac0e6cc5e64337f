/* SPDX-License-Identifier: MIT */
/*
 * rt-life - the ways a process ends, for the runtime's exit paths (t014).
 *
 * usage: rt-life MODE
 *   exit-threads   4 threads keep working (and allocating) while main calls exit(3)
 *   thread-exit    a thread calls _exit(4) while main keeps working
 *   main-pthread   main calls pthread_exit; its 3 threads finish and print; status 0
 *   abort          abort() after some work: SIGABRT (134 in a shell)
 *   sigterm        kill(getpid(), SIGTERM) after some work (143)
 *   sigkill        kill(getpid(), SIGKILL) after some work (137)
 *   chain-segv     installs a SIGSEGV handler that chains to the handler it replaced, the
 *                  way crash reporters do (calls it if it is a function, else restores the
 *                  default), then dereferences NULL: dies of SIGSEGV (139)
 *   overflow       unbounded recursion: dies of SIGSEGV (139)
 *   sigint-wait    works until a SIGINT comes (from the parent), no handler: dies (130)
 *   sigint-catch   same, with a handler: prints "caught" and exits 0
 *
 * Known answer: every mode prints "rt-life: MODE start" (flushed) first; the lines after
 * it and the status are the ones listed above, with or without a profiler.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt-work.h"

static volatile sig_atomic_t got_int;


static void *forever(void *arg)
{
	(void)arg;
	for (;;)
		work(16);
	return NULL;
}

static void *exit_soon(void *arg)
{
	(void)arg;
	work(2000);
	printf("rt-life: thread calls _exit\n");
	fflush(stdout);
	_exit(4);
}

static void *finisher(void *arg)
{
	uintptr_t k = (uintptr_t)arg;
	work(500 * (int)k);
	printf("rt-life: thread %u done\n", (unsigned)k);
	return NULL;
}

static void start(pthread_t *th, void *(*fn)(void *), void *arg)
{
	if (pthread_create(th, NULL, fn, arg)) {
		printf("rt-life: pthread_create failed\n");
		exit(1);
	}
}

static struct sigaction old_segv;

/* Chains like a crash reporter: the previous handler if there is one, else the default. */
static void chain_handler(int sig, siginfo_t *si, void *uc)
{
	static const char msg[] = "rt-life: in handler\n";
	ssize_t w = write(1, msg, sizeof(msg) - 1);
	(void)w;
	if ((old_segv.sa_flags & SA_SIGINFO) && old_segv.sa_sigaction) {
		old_segv.sa_sigaction(sig, si, uc);
	} else if (old_segv.sa_handler != SIG_DFL && old_segv.sa_handler != SIG_IGN) {
		old_segv.sa_handler(sig);
	} else {
		signal(sig, SIG_DFL);
	}
}

static __attribute__((noinline)) int recurse(volatile char *p, int n)
{
	volatile char buf[512];
	buf[0] = (char)n;
	buf[511] = p ? p[0] : 0;
	return recurse(buf, n + 1) + buf[1];
}

static void on_int(int sig)
{
	(void)sig;
	got_int = 1;
}

static int run(const char *mode)
{
	pthread_t th[4];
	if (!strcmp(mode, "exit-threads")) {
		for (int i = 0; i < 4; i++)
			start(&th[i], forever, NULL);
		work(2000);
		printf("rt-life: main calls exit\n");
		exit(3);
	}
	if (!strcmp(mode, "thread-exit")) {
		start(&th[0], exit_soon, NULL);
		for (;;)
			work(16);
	}
	if (!strcmp(mode, "main-pthread")) {
		for (uintptr_t k = 1; k <= 3; k++)
			start(&th[k], finisher, (void *)k);
		pthread_exit(NULL);
	}
	if (!strcmp(mode, "abort")) {
		work(2000);
		abort();
	}
	if (!strcmp(mode, "sigterm") || !strcmp(mode, "sigkill")) {
		work(2000);
		kill(getpid(), mode[3] == 't' ? SIGTERM : SIGKILL);
		for (;;)
			pause();
	}
	if (!strcmp(mode, "chain-segv")) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = chain_handler;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGSEGV, &sa, &old_segv);
		work(2000);
		*(volatile int *)(uintptr_t)sink = 1;	/* sink is never a valid address */
		printf("rt-life: not reached\n");
		return 1;
	}
	if (!strcmp(mode, "overflow")) {
		work(2000);
		return recurse(NULL, 0);
	}
	if (!strcmp(mode, "sigint-wait") || !strcmp(mode, "sigint-catch")) {
		if (mode[7] == 'c')
			signal(SIGINT, on_int);
		while (!got_int)
			work(16);
		printf("rt-life: caught\n");
		return 0;
	}
	printf("rt-life: unknown mode '%s'\n", mode);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: rt-life MODE\n");
		return 2;
	}
	printf("rt-life: %s start\n", argv[1]);
	fflush(stdout);
	return run(argv[1]);
}
