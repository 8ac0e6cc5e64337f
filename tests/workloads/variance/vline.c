/*
 * vline.c - functions whose loop shares the 64-byte line of their entry, beside twins whose
 * loop starts 72 bytes further (an execute breakpoint on the entry slows the first ones'
 * loop, ~13x here, and not the twins': doc/sonde-variance.md, Costs), for t813.
 *
 *   vline short [K]   in_short/pad_short: ~1 ms leaves (no frame), K calls each (500),
 *                     then fill() for 0-4 ms (pseudo-random: the next call of in_short
 *                     starts at any phase of the 4 ms sampling period)
 *   vline long [K]    in_long/pad_long: ~25 ms with a frame (they call ext), K each (20)
 *
 * Calls alternate, so a loaded machine slows both alike.  Prints on stderr the mean thread
 * CPU time of each function's calls by its own clock ("mean FUNCTION MS") and the
 * process's CPU time ("cpu SECONDS", handlers included).  Build: gcc -O2 -g -fno-omit-frame-pointer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile uint64_t sink;

__attribute__((noinline)) uint64_t ext(void)
{
	__asm__ volatile("");
	return 1;
}

#define LOOP(n)                                 \
	for (long i = 0; i < (n); i++)          \
		sink += (uint64_t)i

__attribute__((noinline, aligned(64))) void in_short(long n)
{
	LOOP(n);
}

__attribute__((noinline, aligned(64))) void pad_short(long n)
{
	__asm__ volatile(".skip 72, 0x90");
	LOOP(n);
}

__attribute__((noinline, aligned(64))) void fill(long n)
{
	__asm__ volatile(".skip 72, 0x90");
	LOOP(n);
}

__attribute__((noinline, aligned(64))) void in_long(long n)
{
	LOOP(n);
	sink += ext() * 3;
}

__attribute__((noinline, aligned(64))) void pad_long(long n)
{
	__asm__ volatile(".skip 72, 0x90");
	LOOP(n);
	sink += ext() * 3;
}

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	int lng = argc > 1 && !strcmp(argv[1], "long");
	long k = argc > 2 ? atol(argv[2]) : lng ? 20 : 500;
	long n = lng ? 90000000 : 3600000;
	struct timespec ts;
	double in = 0, pad = 0, t;

	for (long j = 0; j < k; j++) {
		t = cpu_ms();
		if (lng)
			in_long(n);
		else
			in_short(n);
		in += cpu_ms() - t;
		t = cpu_ms();
		if (lng)
			pad_long(n);
		else
			pad_short(n);
		pad += cpu_ms() - t;
		if (!lng)
			fill((long)((j * 2654435761u) % 4096) * n / 1024);
	}
	fprintf(stderr, "mean in_%s %.4f\nmean pad_%s %.4f\n", lng ? "long" : "short",
		in / (double)k, lng ? "long" : "short", pad / (double)k);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	fprintf(stderr, "cpu %.3f\n", ts.tv_sec + ts.tv_nsec / 1e9);
	return 0;
}
