/* SPDX-License-Identifier: MIT */
/*
 * rt-sig - programs that do their own thing with signals, for the runtime's handlers (t016).
 *
 * usage: rt-sig MODE
 *   altstack   main and 2 threads each install their own 8 KiB sigaltstack (inside a
 *              64 KiB block whose lower 56 KiB hold a canary; sigaltstack reports it back) and a SA_ONSTACK handler for
 *              SIGUSR1, then work; prints "rt-sig: altstack canaries intact, usr1=3"
 *   longjmp    a CPU-time timer (SIGPROF, every 1 ms) whose handler siglongjmps out of a
 *              work loop, 300 times; prints "rt-sig: longjmp 300"
 *   blockall   2 threads block every signal and work; prints "rt-sig: blockall sum=S"
 *              with S = 3 * 200 * 4096 * 4095 / 2 (main works too)
 *   masktoggle block every signal, a little work, restore the mask, a little work: for 2 s
 *              of wall time (as glibc's pthread_create does around its clone); prints
 *              "rt-sig: masktoggle done"
 * Exit status 0 unless something went wrong.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "rt-work.h"
#define BLOCK (64u << 10)
#define ALT (8u << 10)	/* the classic SIGSTKSZ */

static volatile sig_atomic_t usr1;


static void on_usr1(int sig)
{
	(void)sig;
	usr1++;
}

/* Own altstack at the top of a block; the rest is a canary a deeper handler would hit. */
static int own_altstack(void)
{
	unsigned char *b = malloc(BLOCK);
	if (!b)
		return 1;
	memset(b, 0xa5, BLOCK - ALT);
	stack_t ss = { .ss_sp = b + BLOCK - ALT, .ss_size = ALT };
	stack_t q;
	if (sigaltstack(&ss, NULL) || sigaltstack(NULL, &q) || q.ss_sp != ss.ss_sp ||
	    q.ss_size != ALT || q.ss_flags)
		return 1;
	work(3000);
	pthread_kill(pthread_self(), SIGUSR1);
	int bad = 0;
	for (size_t i = 0; i < BLOCK - ALT; i++)
		bad |= b[i] != 0xa5;
	stack_t off = { .ss_flags = SS_DISABLE };
	sigaltstack(&off, NULL);
	free(b);
	return bad;
}

static void *alt_thread(void *arg)
{
	return (void *)(uintptr_t)own_altstack() + (uintptr_t)arg;
}

static int altstack(void)
{
	struct sigaction sa;
	pthread_t th[2];
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, alt_thread, NULL);
	int bad = own_altstack();
	for (int i = 0; i < 2; i++) {
		void *r;
		pthread_join(th[i], &r);
		bad |= r != NULL;
	}
	printf("rt-sig: altstack canaries %s, usr1=%d\n", bad ? "damaged" : "intact", (int)usr1);
	return bad;
}

static sigjmp_buf jb;
/* The loop the timer jumps out of touches only this block: a jump out of malloc or free
 * would leave the allocator's state half-updated (undefined behaviour; seen: glibc's
 * "malloc assertion failure in sysmalloc" in the program run alone). */
static uint64_t *jump_block;

static void jump_work(void)
{
	for (int i = 0; i < ELEMS; i++)
		jump_block[i] += (uint64_t)i;
	sink += jump_block[ELEMS - 1];
}

static void on_prof(int sig)
{
	(void)sig;
	siglongjmp(jb, 1);
}

static int longjmps(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_prof;
	sigaction(SIGPROF, &sa, NULL);
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	volatile int jumps = 0;
	jump_block = calloc(ELEMS, sizeof(*jump_block));
	if (!jump_block)
		return 1;
	if (sigsetjmp(jb, 1))
		jumps++;
	else
		setitimer(ITIMER_PROF, &it, NULL);
	if (jumps < 300)
		for (;;)
			jump_work();
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_PROF, &off, NULL);
	free(jump_block);
	printf("rt-sig: longjmp %d\n", jumps);
	return 0;
}

static void *blocked(void *arg)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	uint64_t s = 0;
	for (int i = 0; i < 200; i++)
		s += work(1);
	*(uint64_t *)arg = s;
	return NULL;
}

static int blockall(void)
{
	pthread_t th[2];
	uint64_t s[2] = { 0, 0 }, m = 0;
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, blocked, &s[i]);
	for (int i = 0; i < 200; i++)
		m += work(1);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("rt-sig: blockall sum=%llu\n", (unsigned long long)(s[0] + s[1] + m));
	return 0;
}

static double wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile uint64_t toggle_sink;

static int masktoggle(void)
{
	sigset_t all, old;
	double end = wall() + 2.0;
	sigfillset(&all);
	for (long n = 1;; n++) {
		pthread_sigmask(SIG_BLOCK, &all, &old);
		for (int i = 0; i < 50; i++)
			toggle_sink += (uint64_t)i * toggle_sink;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		for (int i = 0; i < 50; i++)
			toggle_sink += (uint64_t)i * toggle_sink;
		if (n % 1024 == 0 && wall() > end)
			break;
	}
	printf("rt-sig: masktoggle done\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "altstack"))
		return altstack();
	if (argc == 2 && !strcmp(argv[1], "longjmp"))
		return longjmps();
	if (argc == 2 && !strcmp(argv[1], "blockall"))
		return blockall();
	if (argc == 2 && !strcmp(argv[1], "masktoggle"))
		return masktoggle();
	fprintf(stderr, "usage: rt-sig altstack|longjmp|blockall|masktoggle\n");
	return 2;
}
