/* SPDX-License-Identifier: MIT */
/*
 * sigrtmin - a program that owns real-time signals: it installs SIGRTMIN and SIGRTMIN+1
 * handlers with sigaction and sends itself thousands of them while doing memory work, to
 * check that a profiler neither steals, loses nor breaks the program's own signals.
 *
 * Known answer: SIGNALS (4,000) signals are queued with sigqueue(), alternately SIGRTMIN and
 * SIGRTMIN+1, each carrying its sequence number; real-time signals queue, so each must be
 * delivered exactly once, to the handler of its number.  Each handler also does a little
 * memory work (a 64-element array).  Between two signals the program sums a 64 KiB array
 * 16 times.
 * Prints "sigrtmin: signals=4000 rtmin=2000 rtmin1=2000 ok"; exits 1 if a signal was
 * missed, delivered twice or to the wrong handler, or the memory work went wrong.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SIGNALS 4000
#define ELEMS 8192
#define REPS 16

static volatile sig_atomic_t count[2];
static volatile sig_atomic_t bad;
static unsigned char seen[SIGNALS];
static uint64_t handler_buf[64];
static uint64_t data[ELEMS];

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	int which = sig - SIGRTMIN;
	int seq = si->si_value.sival_int;

	(void)uc;
	if (which < 0 || which > 1 || seq < 0 || seq >= SIGNALS || seen[seq] ||
	    (seq & 1) != which) {
		bad = 1;
		return;
	}
	seen[seq] = 1;
	count[which]++;
	for (int i = 0; i < 64; i++)
		handler_buf[i] += (uint64_t)seq;
}

static int install(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

static uint64_t memory_work(void)
{
	uint64_t s = 0;

	for (int rep = 0; rep < REPS; rep++) {
		for (int i = 0; i < ELEMS; i++)
			s += data[i];
		asm volatile("" : : : "memory");
	}
	return s;
}

int main(void)
{
	uint64_t want = 0, got = 0;

	if (install(SIGRTMIN) || install(SIGRTMIN + 1)) {
		perror("sigrtmin: sigaction");
		return 1;
	}
	for (int i = 0; i < ELEMS; i++)
		data[i] = (uint64_t)i;
	for (int seq = 0; seq < SIGNALS; seq++) {
		union sigval v = { .sival_int = seq };

		got += memory_work();
		want += (uint64_t)REPS * ELEMS * (ELEMS - 1) / 2;
		/* A signal sent to oneself, unblocked, is delivered before sigqueue returns. */
		if (sigqueue(getpid(), SIGRTMIN + (seq & 1), v) != 0) {
			perror("sigrtmin: sigqueue");
			return 1;
		}
	}
	int missed = 0;

	for (int seq = 0; seq < SIGNALS; seq++)
		missed += !seen[seq];
	int ok = !bad && !missed && count[0] == SIGNALS / 2 && count[1] == SIGNALS / 2 &&
		 got == want && handler_buf[63] == (uint64_t)SIGNALS * (SIGNALS - 1) / 2;

	printf("sigrtmin: signals=%d rtmin=%d rtmin1=%d %s\n", SIGNALS, (int)count[0],
	       (int)count[1], ok ? "ok" : "WRONG");
	return ok ? 0 : 1;
}
