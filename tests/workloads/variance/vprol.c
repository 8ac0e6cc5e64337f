/*
 * vprol.c - a function whose loop runs inside its prologue, after `push %rbp` and before
 * `mov %rsp,%rbp`, beside a twin with the same loop after a whole prologue, for t814.
 *
 * A clock sample in pro_loop's loop finds RBP still the caller's (drive's frame) and the
 * word at RSP the caller's RBP just pushed; pro_loop's return slot is the word above.  The
 * loop shares pro_loop's entry's 64-byte line, so variance arms that entry behind a gate
 * on the return slot (an execute breakpoint there would slow the loop ~13x:
 * doc/sonde-variance.md, Costs), and it must be that slot (gate_slot's prologue case):
 * RBP + 8, the only other candidate, is drive's, which returns once at the end.
 *
 *   vprol [K]   drive() calls pro_loop(n) and pad_loop(n) alternately, K times each (300),
 *               ~1.5 ms each, and fill() for 0-1.5 ms between rounds (pseudo-random: the
 *               next call starts at any phase of the 4 ms sampling period)
 *   vprol K T   the same in T threads (worker() calls drive), main waiting: t815
 *
 * main calls drive through a pointer, so the frame a sample in the prologue sees first
 * (drive's) returns from an indirect call and the function picked is the one that holds
 * the PC, pro_loop.  Prints on stderr the mean thread CPU time of each function's calls by
 * its own clock ("mean FUNCTION MS") and the process's CPU time ("cpu SECONDS").  Build:
 * gcc -O2 -g -fno-omit-frame-pointer -pthread.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

uint64_t vprol_sink;

void pro_loop(long n);
void pad_loop(long n);

/* The loops are a chain of multiplies in registers (3 cycles an iteration whatever
 * happened before; a loop adding to memory ran 1 or 3-4 cycles an iteration from one call
 * to the next here, memory renaming or not).  pad_loop's loop starts 72 bytes past its
 * entry, out of the entry's line; its frame is set up before the loop as a compiler's
 * would be. */
__asm__("	.text\n"
	"	.p2align 6\n"
	"	.globl pro_loop\n"
	"	.type pro_loop, @function\n"
	"pro_loop:\n"
	"	push %rbp\n"
	"	mov %rdi, %rcx\n"
	"	mov $3, %eax\n"
	"	.p2align 4\n"
	"1:	imul %rax, %rax\n"
	"	dec %rcx\n"
	"	jnz 1b\n"
	"	mov %rax, vprol_sink(%rip)\n"
	"	mov %rsp, %rbp\n"
	"	pop %rbp\n"
	"	ret\n"
	"	.size pro_loop, .-pro_loop\n"
	"	.p2align 6\n"
	"	.globl pad_loop\n"
	"	.type pad_loop, @function\n"
	"pad_loop:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	mov %rdi, %rcx\n"
	"	mov $3, %eax\n"
	"	.skip 72, 0x90\n"
	"	.p2align 4\n"
	"2:	imul %rax, %rax\n"
	"	dec %rcx\n"
	"	jnz 2b\n"
	"	mov %rax, vprol_sink(%rip)\n"
	"	pop %rbp\n"
	"	ret\n"
	"	.size pad_loop, .-pad_loop\n");

/* the same chain in C, between rounds */
__attribute__((noinline, aligned(64))) void fill(long n)
{
	uint64_t x = 3;

	__asm__ volatile(".skip 72, 0x90");
	for (long i = 0; i < n; i++) {
		x *= x;
		__asm__ volatile("" : "+r"(x));
	}
	vprol_sink = x;
}

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static __thread double mean_pro, mean_pad;

__attribute__((noinline)) void drive(long k, long n)
{
	double pro = 0, pad = 0, t;

	for (long j = 0; j < k; j++) {
		t = cpu_ms();
		pro_loop(n);
		pro += cpu_ms() - t;
		t = cpu_ms();
		pad_loop(n);
		pad += cpu_ms() - t;
		fill((long)((j * 2654435761u) % 1024) * n / 1024);
	}
	mean_pro = pro / (double)k;
	mean_pad = pad / (double)k;
}

static long rounds;

/* drive called through a pointer here too: its frame returns from an indirect call */
static void *worker(void *arg)
{
	void (*volatile d)(long, long) = drive;

	(void)arg;
	d(rounds, 1500000);
	return NULL;
}

int main(int argc, char **argv)
{
	long k = argc > 1 ? atol(argv[1]) : 300;
	int nt = argc > 2 ? atoi(argv[2]) : 0;
	void (*volatile d)(long, long) = drive;
	struct timespec ts;

	if (nt > 0) {
		pthread_t th[16];
		rounds = k;
		nt = nt > 16 ? 16 : nt;
		for (int i = 0; i < nt; i++)
			if (pthread_create(&th[i], NULL, worker, NULL))
				return 1;
		for (int i = 0; i < nt; i++)
			pthread_join(th[i], NULL);
		fprintf(stderr, "vprol: %d threads done\n", nt);
		return 0;
	}
	d(k, 1500000);
	fprintf(stderr, "mean pro_loop %.4f\nmean pad_loop %.4f\n", mean_pro, mean_pad);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	fprintf(stderr, "cpu %.3f\n", ts.tv_sec + ts.tv_nsec / 1e9);
	return 0;
}
