/* SPDX-License-Identifier: MIT */
/*
 * bench-micro - the microbenchmarks of `sonde bench` (thesis ch. 4, App. A), counts known by
 * construction.  Built twice by src/tools/bench/build.mk:
 *
 *   build/bench/bench-micro       gcc -O2: the loops are x86-64 assembly (inline asm, one
 *                                 block per loop), every measured instruction has a global
 *                                 label, and the program prints the labels' run-time
 *                                 addresses ("site NAME ip 0xADDR"), so a sample's ip names
 *                                 the instruction without debug info or HPCToolkit.
 *   build/bench/bench-micro-inst  sonde-cc (clang + load/store callbacks), -DBENCH_C: the
 *                                 same loops in C with volatile accesses, one per source line
 *                                 ("site NAME line N"), because the compiler instruments C
 *                                 loads and stores but never inline asm.
 *
 * usage: bench-micro BENCH ITERATIONS
 *   load-ratio   1 load (movl) + subq/cmpq/jne per iteration
 *   locked-load  1 locked read-modify-write (lock addl) per iteration
 *   bias         4 identical loads per iteration (bias1..bias4)
 *   multi-event  2 loads, 1 store, 1 locked read-modify-write per iteration
 *   exec-user    1 getppid system call, then 2 loads (after, user) per iteration
 *
 * Output (stdout): "site NAME ip 0xADDR" or "site NAME line N" per measured instruction,
 * "count KIND N" for the accesses the loop makes (KIND load, store, rmw), then
 * "time cpu_ns N utime_ns N stime_ns N wall_ns N maxrss_kb N" (the loop alone; maxrss of
 * the whole process at the end).  Exit 0, 2 on a usage error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

static volatile int cell[16];

#ifndef BENCH_C
/* The assembly loops.  n is in a register; %1 points at cell. */
extern char bench_lr_load[], bench_ll_rmw[], bench_bias_load1[], bench_bias_load2[],
	bench_bias_load3[], bench_bias_load4[], bench_me_load1[], bench_me_store[], bench_me_rmw[],
	bench_me_load2[], bench_ex_syscall[], bench_ex_after[], bench_ex_user[];

NOINLINE static void load_ratio(long n)
{
	asm volatile("1:\n.globl bench_lr_load\nbench_lr_load: movl (%1), %%ebx\n"
		     "subq $1, %0\ncmpq $0, %0\njne 1b\n"
		     : "+r"(n) : "r"(cell) : "rbx", "cc", "memory");
}

NOINLINE static void locked_load(long n)
{
	asm volatile("1:\n.globl bench_ll_rmw\nbench_ll_rmw: lock addl $1, (%1)\n"
		     "subq $1, %0\ncmpq $0, %0\njne 1b\n"
		     : "+r"(n) : "r"(cell) : "cc", "memory");
}

NOINLINE static void bias(long n)
{
	asm volatile("1:\n"
		     ".globl bench_bias_load1\nbench_bias_load1: movl (%1), %%ebx\n"
		     ".globl bench_bias_load2\nbench_bias_load2: movl (%1), %%ebx\n"
		     ".globl bench_bias_load3\nbench_bias_load3: movl (%1), %%ebx\n"
		     ".globl bench_bias_load4\nbench_bias_load4: movl (%1), %%ebx\n"
		     "subq $1, %0\ncmpq $0, %0\njne 1b\n"
		     : "+r"(n) : "r"(cell) : "rbx", "cc", "memory");
}

NOINLINE static void multi_event(long n)
{
	asm volatile("1:\n"
		     ".globl bench_me_load1\nbench_me_load1: movl (%1), %%ebx\n"
		     ".globl bench_me_store\nbench_me_store: movl %%ebx, 8(%1)\n"
		     ".globl bench_me_rmw\nbench_me_rmw: lock addl $1, 16(%1)\n"
		     ".globl bench_me_load2\nbench_me_load2: movl 24(%1), %%ecx\n"
		     "subq $1, %0\ncmpq $0, %0\njne 1b\n"
		     : "+r"(n) : "r"(cell) : "rbx", "rcx", "cc", "memory");
}

NOINLINE static void exec_user(long n)
{
	asm volatile("1:\nmovl %2, %%eax\n"
		     ".globl bench_ex_syscall\nbench_ex_syscall: syscall\n"
		     ".globl bench_ex_after\nbench_ex_after: movl (%1), %%ebx\n"
		     ".globl bench_ex_user\nbench_ex_user: movl 4(%1), %%ebx\n"
		     "subq $1, %0\ncmpq $0, %0\njne 1b\n"
		     : "+r"(n) : "r"(cell), "i"(SYS_getppid)
		     : "rax", "rbx", "rcx", "r11", "cc", "memory");
}

#define SITE(name, label) printf("site %s ip %p\n", name, (void *)(label))
#else
/* The C loops for the inst source: each access on its own line; s stays in a register. */
static int line_lr, line_ll, line_b[4], line_me[4], line_ex[2];

NOINLINE static int load_ratio(long n)
{
	int s = 0;
	line_lr = __LINE__ + 2;
	for (long i = n; i; i--)
		s += cell[0];
	return s;
}

NOINLINE static int locked_load(long n)
{
	line_ll = __LINE__ + 2;
	for (long i = n; i; i--)
		__atomic_fetch_add(&cell[0], 1, __ATOMIC_SEQ_CST);
	return 0;
}

NOINLINE static int bias(long n)
{
	int s = 0;
	line_b[0] = __LINE__ + 2;
	for (long i = n; i; i--) {
		s += cell[0];
		s += cell[0];
		s += cell[0];
		s += cell[0];
	}
	return s;
}

NOINLINE static int multi_event(long n)
{
	int s = 0;
	line_me[0] = __LINE__ + 2;
	for (long i = n; i; i--) {
		s += cell[0];
		cell[2] = s;
		__atomic_fetch_add(&cell[4], 1, __ATOMIC_SEQ_CST);
		s += cell[6];
	}
	return s;
}

NOINLINE static int exec_user(long n)
{
	int s = 0;
	line_ex[0] = __LINE__ + 2;
	for (long i = n; i; i--) {
		syscall(SYS_getppid);
		s += cell[0];
		s += cell[1];
	}
	return s;
}

#define SITE(name, line) printf("site %s line %d\n", name, line)
#endif

static uint64_t ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
}

/* Name the sites and the known counts of the loop before it runs. */
static int describe(const char *b, long n)
{
#ifndef BENCH_C
	if (!strcmp(b, "load-ratio")) {
		SITE("load", bench_lr_load);
	} else if (!strcmp(b, "locked-load")) {
		SITE("rmw", bench_ll_rmw);
	} else if (!strcmp(b, "bias")) {
		SITE("bias1", bench_bias_load1);
		SITE("bias2", bench_bias_load2);
		SITE("bias3", bench_bias_load3);
		SITE("bias4", bench_bias_load4);
	} else if (!strcmp(b, "multi-event")) {
		SITE("load1", bench_me_load1);
		SITE("store", bench_me_store);
		SITE("rmw", bench_me_rmw);
		SITE("load2", bench_me_load2);
	} else if (!strcmp(b, "exec-user")) {
		SITE("after", bench_ex_after);
		SITE("user", bench_ex_user);
	} else {
		return -1;
	}
#else
	/* Run each loop once with n = 0 so that it records its lines. */
	if (!strcmp(b, "load-ratio")) {
		load_ratio(0);
		SITE("load", line_lr);
	} else if (!strcmp(b, "locked-load")) {
		locked_load(0);
		SITE("rmw", line_ll);
	} else if (!strcmp(b, "bias")) {
		bias(0);
		for (int i = 0; i < 4; i++)
			printf("site bias%d line %d\n", i + 1, line_b[0] + i);
	} else if (!strcmp(b, "multi-event")) {
		multi_event(0);
		SITE("load1", line_me[0]);
		SITE("store", line_me[0] + 1);
		SITE("rmw", line_me[0] + 2);
		SITE("load2", line_me[0] + 3);
	} else if (!strcmp(b, "exec-user")) {
		exec_user(0);
		SITE("after", line_ex[0] + 1);
		SITE("user", line_ex[0] + 2);
	} else {
		return -1;
	}
#endif
	long loads = 0, stores = 0, rmw = 0;
	if (!strcmp(b, "load-ratio"))
		loads = n;
	else if (!strcmp(b, "locked-load"))
		rmw = n;
	else if (!strcmp(b, "bias"))
		loads = 4 * n;
	else if (!strcmp(b, "multi-event"))
		loads = 2 * n, stores = n, rmw = n;
	else
		loads = 2 * n;
	printf("count load %ld\ncount store %ld\ncount rmw %ld\n", loads, stores, rmw);
	return 0;
}

static void run(const char *b, long n)
{
	if (!strcmp(b, "load-ratio"))
		load_ratio(n);
	else if (!strcmp(b, "locked-load"))
		locked_load(n);
	else if (!strcmp(b, "bias"))
		bias(n);
	else if (!strcmp(b, "multi-event"))
		multi_event(n);
	else
		exec_user(n);
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;
	if (argc != 3 || n <= 0 || describe(argv[1], n) < 0) {
		fprintf(stderr, "usage: bench-micro load-ratio|locked-load|bias|multi-event|"
				"exec-user ITERATIONS\n");
		return 2;
	}
	fflush(stdout);
	struct rusage r0, r1;
	getrusage(RUSAGE_SELF, &r0);
	uint64_t c0 = ns(CLOCK_PROCESS_CPUTIME_ID), w0 = ns(CLOCK_MONOTONIC);
	run(argv[1], n);
	uint64_t c1 = ns(CLOCK_PROCESS_CPUTIME_ID), w1 = ns(CLOCK_MONOTONIC);
	getrusage(RUSAGE_SELF, &r1);
	printf("time cpu_ns %llu utime_ns %llu stime_ns %llu wall_ns %llu maxrss_kb %ld\n",
	       (unsigned long long)(c1 - c0),
	       (unsigned long long)(tv_ns(r1.ru_utime) - tv_ns(r0.ru_utime)),
	       (unsigned long long)(tv_ns(r1.ru_stime) - tv_ns(r0.ru_stime)),
	       (unsigned long long)(w1 - w0), r1.ru_maxrss);
	return 0;
}
