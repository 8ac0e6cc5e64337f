/* SPDX-License-Identifier: MIT */
/*
 * u-clock.c - the clock sample source, linked directly: a hand-made profiled thread, a test
 * tool that records what it is given, and assembly workloads whose accesses are known by
 * construction (which array, load or store, in what proportion).
 */
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "rt/rt.h"
#include "rt/source-clock.h"

/* ---- workloads (SysV: rdi, rsi, rdx) ---- */

/* ldst_loop(A, B, iters): per iteration 9 loads from A[i..i+8] and 1 store to B[i]. */
void ldst_loop(uint64_t *a, uint64_t *b, long iters);
/* chase_loop(p, iters): p = *p, iters times (each address comes from the previous load). */
void chase_loop(void *p, long iters);
/* lock_loop(c, iters): call a function doing `lock add [c], 1`, iters times. */
void lock_loop(uint64_t *c, long iters);
/* pushf_loop(a, iters): pushf; load a[0]; popf. */
void pushf_loop(uint64_t *a, long iters);
/* swapped_chase_loop(p, iters): p = bswap(*p): the emulator does not model bswap, so each
 * address needs a step whatever memory holds. */
void swapped_chase_loop(void *p, long iters);
/* sparse_loop(a, iters): one load of a[i & 63] per iteration, behind 40 register
 * instructions (shifts, xors, adds: all modelled), i counting up. */
void sparse_loop(uint64_t *a, long iters);
/* compute_loop(iters): registers only, no memory access at all. */
void compute_loop(long iters);
/* mod_loop(a, iters): per iteration, x = an LCG step, then loads a[x % 61] (div) and
 * a[(x >> 3) % 59 + 58] (cqo; idiv: a remainder in -58..58), a[] of 128 entries. */
void mod_loop(uint64_t *a, long iters);
/* index_chase_loop(next, iters): i = next[i] on 32-bit indexes from i = 0 (membound's chase). */
void index_chase_loop(const uint32_t *next, long iters);
/* racy_loop(pp, iters): q = *pp; load *q; iters times (another thread changes *pp). */
void racy_loop(void **pp, long iters);
extern const char swapped_chase_end[];
extern const char chase_loop_end[], index_chase_code[], index_chase_end[], racy_deref[],
	racy_loop_end[];
extern const char ldst_code[], ldst_code_end[], lock_fn[], lock_fn_end[], lock_loop_end[];

__asm__(".text\n"
	".globl ldst_loop\n"
	"ldst_loop:\n"
	"	xor %ecx, %ecx\n"
	".globl ldst_code\n"
	"ldst_code:\n"
	"	mov 0(%rdi,%rcx,8), %rax\n"
	"	mov 8(%rdi,%rcx,8), %rax\n"
	"	mov 16(%rdi,%rcx,8), %rax\n"
	"	mov 24(%rdi,%rcx,8), %rax\n"
	"	mov 32(%rdi,%rcx,8), %rax\n"
	"	mov 40(%rdi,%rcx,8), %rax\n"
	"	mov 48(%rdi,%rcx,8), %rax\n"
	"	mov 56(%rdi,%rcx,8), %rax\n"
	"	mov 64(%rdi,%rcx,8), %rax\n"
	"	mov %rax, (%rsi,%rcx,8)\n"
	"	add $1, %rcx\n"
	"	and $4095, %rcx\n"
	"	dec %rdx\n"
	"	jnz ldst_code\n"
	".globl ldst_code_end\n"
	"ldst_code_end:\n"
	"	ret\n"
	".globl chase_loop\n"
	"chase_loop:\n"
	"1:	mov (%rdi), %rdi\n"
	"	dec %rsi\n"
	"	jnz 1b\n"
	".globl chase_loop_end\n"
	"chase_loop_end:\n"
	"	ret\n"
	".globl swapped_chase_loop\n"
	"swapped_chase_loop:\n"
	"1:	mov (%rdi), %rdi\n"
	"	bswap %rdi\n"
	"	dec %rsi\n"
	"	jnz 1b\n"
	".globl swapped_chase_end\n"
	"swapped_chase_end:\n"
	"	ret\n"
	".globl index_chase_loop\n"
	"index_chase_loop:\n"
	"	xor %eax, %eax\n"
	".globl index_chase_code\n"
	"index_chase_code:\n"
	"1:	mov (%rdi,%rax,4), %eax\n"
	"	dec %rsi\n"
	"	jnz 1b\n"
	".globl index_chase_end\n"
	"index_chase_end:\n"
	"	ret\n"
	".globl racy_loop\n"
	"racy_loop:\n"
	"1:	mov (%rdi), %rax\n"
	".globl racy_deref\n"
	"racy_deref:\n"
	"	mov (%rax), %rdx\n"
	"	dec %rsi\n"
	"	jnz 1b\n"
	".globl racy_loop_end\n"
	"racy_loop_end:\n"
	"	ret\n"
	".globl lock_fn\n"
	"lock_fn:\n"
	"	lock addq $1, (%rdi)\n"
	"	ret\n"
	".globl lock_fn_end\n"
	"lock_fn_end:\n"
	".globl lock_loop\n"
	"lock_loop:\n"
	"1:	call lock_fn\n"
	"	dec %rsi\n"
	"	jnz 1b\n"
	"	ret\n"
	".globl lock_loop_end\n"
	"lock_loop_end:\n"
	".globl pushf_loop\n"
	"pushf_loop:\n"
	"1:	pushfq\n"
	"	mov (%rdi), %rax\n"
	"	popfq\n"
	"	dec %rsi\n"
	"	jnz 1b\n"
	"	ret\n");

/* ---- a test tool: record every access ---- */

#define MAX_REC 40000
static struct rec {
	uint64_t ip, addr;
	uint16_t len, flags;
	/* the interrupted context, and how far the source had to go from it */
	uint64_t pc, rax, rdi, rsi;
	int remaining, steps;
} recs[MAX_REC];
static volatile int n_recs;

static void rec_access(struct rt_thread *t, const struct rt_access *a, const ucontext_t *uc,
		       int skip)
{
	const struct clock_thread *ct = t->src;
	if (n_recs < MAX_REC) {
		struct rec *r = &recs[n_recs];
		r->ip = a->ip;
		r->addr = a->addr;
		r->len = a->len;
		r->flags = a->flags;
		r->pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
		r->rax = (uint64_t)uc->uc_mcontext.gregs[REG_RAX];
		r->rdi = (uint64_t)uc->uc_mcontext.gregs[REG_RDI];
		r->rsi = (uint64_t)uc->uc_mcontext.gregs[REG_RSI];
		r->remaining = ct->remaining;
		r->steps = ct->steps;
		n_recs++;
	}
	t->stats.samples++;
}

static const struct rt_tool rec_tool = { .name = "test", .access = rec_access };

__asm__(".text\n"
	".globl sparse_loop\n"
	"sparse_loop:\n"
	"	xor %ecx, %ecx\n"
	"	xor %eax, %eax\n"
	"1:	.rept 10\n"
	"	shl $1, %rax\n"
	"	xor %rcx, %rax\n"
	"	add $3, %rax\n"
	"	shr $1, %rax\n"
	"	.endr\n"
	"	mov %rcx, %r8\n"
	"	and $63, %r8\n"
	"	add (%rdi,%r8,8), %rax\n"
	"	add $1, %rcx\n"
	"	cmp %rsi, %rcx\n"
	"	jne 1b\n"
	"	ret\n"
	".globl mod_loop\n"
	"mod_loop:\n"
	"	mov $12345, %r9d\n"
	"	xor %r11d, %r11d\n"
	"1:	imul $69069, %r9, %r9\n"
	"	add $12345, %r9\n"
	"	mov %r9, %rax\n"
	"	xor %edx, %edx\n"
	"	mov $61, %r10d\n"
	"	div %r10\n"
	"	add (%rdi,%rdx,8), %r11\n"
	"	mov %r9, %rax\n"
	"	sar $3, %rax\n"
	"	cqo\n"
	"	mov $59, %r10d\n"
	"	idiv %r10\n"
	"	add 464(%rdi,%rdx,8), %r11\n"
	"	dec %rsi\n"
	"	jnz 1b\n"
	"	ret\n"
	".globl compute_loop\n"
	"compute_loop:\n"
	"	mov $1, %eax\n"
	"1:	imul $69069, %rax, %rax\n"
	"	add $12345, %rax\n"
	"	dec %rdi\n"
	"	jnz 1b\n"
	"	ret\n");

/* ---- the profiled thread ---- */

static struct rt_thread th;
static int source_ok;
static char source_why[256];

static int thread_setup(void)
{
	memset(&th, 0, sizeof(th));
	th.tid = (int)syscall(SYS_gettid);
	th.rng = 0x1234567887654321ull;
	if (arena_init(&th.arena, 1 << 20))
		return -1;
	th.altstack_size = 256 * 1024;
	th.altstack = mmap(NULL, th.altstack_size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	stack_t ss = { .ss_sp = th.altstack, .ss_size = th.altstack_size };
	if (th.altstack == MAP_FAILED || sigaltstack(&ss, NULL))
		return -1;
	rt_set_self(&th);
	return 0;
}

static void reset(uint64_t period, int extra)
{
	rt_cfg.period = period;
	rt_cfg.max_extra_steps = extra;
	memset(&th.stats, 0, sizeof(th.stats));
	struct clock_thread *ct = th.src;
	if (ct)
	{
		ct->predicted = ct->stepped = ct->lost = ct->via_loads = ct->reads = 0;
		memset(ct->why, 0, sizeof(ct->why));
	}
	n_recs = 0;
}

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sampling is per thread: start() set the period, so re-start to change it. */
static int sample_on(uint64_t period, int extra)
{
	reset(period, extra);
	if (rt_source_clock.start())
		return -1;
	return rt_source_clock.thread_start(&th);
}

static void sample_off(void)
{
	rt_source_clock.thread_stop(&th);
}

static void print_stats(const char *what)
{
	struct clock_thread *ct = th.src;
	printf("  %s: signals %llu, delivered %d, dropped %llu, steps %llu (%.2f per sample), "
	       "predicted %llu (%llu through loads, %llu reads), stepped %llu, lost %llu\n",
	       what, (unsigned long long)th.stats.signals, n_recs,
	       (unsigned long long)th.stats.dropped, (unsigned long long)th.stats.steps,
	       n_recs ? (double)th.stats.steps / n_recs : 0.0, (unsigned long long)ct->predicted,
	       (unsigned long long)ct->via_loads, (unsigned long long)ct->reads,
	       (unsigned long long)ct->stepped, (unsigned long long)ct->lost);
	int any = 0;
	for (int k = 0; k < CLOCK_N_DROP; k++) {
		if (!ct->why[k])
			continue;
		printf("%s %s %llu", any ? "," : "    without an access:", clock_drop_name(k),
		       (unsigned long long)ct->why[k]);
		any = 1;
	}
	if (any)
		printf("\n");
}

/*
 * Every signal of the event ends one way (source-clock.h): delivered to the tool, or dropped
 * for a cause the source counts (the runtime's refusals included); a sample still being
 * stepped is the only one not ended yet.  Exact: no tolerance.
 */
static int accounted(void)
{
	const struct clock_thread *ct = th.src;
	uint64_t causes = 0;
	for (int k = 0; k < CLOCK_N_DROP; k++)
		causes += ct->why[k];
	uint64_t ended = (uint64_t)n_recs + th.stats.dropped + (ct->stepping ? 1 : 0);
	if (ended == th.stats.signals && causes == th.stats.dropped)
		return 1;
	printf("  accounting: signals %llu, delivered %d + dropped %llu + in flight %d; causes "
	       "%llu\n", (unsigned long long)th.stats.signals, n_recs,
	       (unsigned long long)th.stats.dropped, ct->stepping ? 1 : 0,
	       (unsigned long long)causes);
	return 0;
}

/* Signals that came while a sample was stepped: the clock is stopped then, and only the
 * watchdog (CLOCK_WATCHDOG_NS) can fire, when a step sequence lasts 10 ms (25 times the
 * longest seen here).  Tolerated: 1 in 100, for a host that stalls the vCPU in mid-sequence. */
static int few_in_step(void)
{
	const struct clock_thread *ct = th.src;
	return ct->why[CLOCK_DROP_IN_STEP] * 100 <= th.stats.signals;
}

/* ---- tests ---- */

/*
 * Iterations of a workload call between two readings of the thread's CPU time.  That reading
 * is a system call, and a cpu-clock tick that lands in the kernel with exclude_kernel set
 * is taken at the thread's user PC (kernel/events: "the next best thing"), the instruction
 * after the syscall: a sample in the test's own code.  At 1M iterations (~1 ms) a loaded VM,
 * where the call takes tens of us, put 1.6 % of the samples there; at 10M (~10 ms) 0.2 %.
 */
#define LOOP_ITERS 10000000

static uint64_t A[4096 + 16], B[4096];

TEST(probe)
{
	if (!source_ok)
		SKIP(source_why);
	/* the fd-based signal path: the event fd is hidden high and close-on-exec */
	CHECK(sample_on(1000000, 8) == 0);
	struct clock_thread *ct = th.src;
	CHECK(ct && ct->fd >= 700);
	sample_off();
	CHECK(ct->fd == -1);
}

TEST(loads_and_stores)
{
	if (!source_ok)
		SKIP(source_why);
	/* Timer samples cluster on a few PCs of the loop; a random skip of 0..9 accesses covers
	 * the 10-access pattern whatever the landing point, so the shares must come out as
	 * constructed.  (With the default 0..7 they need not: printed below for information.) */
	CHECK(sample_on(1000000, 10) == 0);
	double t0 = cpu_seconds();
	while (cpu_seconds() - t0 < 1.0)
		ldst_loop(A, B, LOOP_ITERS);
	sample_off();
	print_stats("9 loads : 1 store, 1 s");

	uint64_t a_lo = (uintptr_t)A, a_hi = (uintptr_t)(A + 4096 + 9);
	uint64_t b_lo = (uintptr_t)B, b_hi = (uintptr_t)(B + 4096);
	int in_a = 0, in_b = 0, bad_flags = 0, bad_ip = 0;
	for (int i = 0; i < n_recs; i++) {
		const struct rec *r = &recs[i];
		int st = !!(r->flags & SONDE_MEM_STORE);
		if (r->addr >= a_lo && r->addr < a_hi) {
			in_a++;
			bad_flags += st || r->len != 8;
		} else if (r->addr >= b_lo && r->addr < b_hi) {
			in_b++;
			bad_flags += !st || r->len != 8;
		}
		if (r->ip < (uintptr_t)ldst_code || r->ip >= (uintptr_t)ldst_code_end)
			bad_ip++;
	}
	double resolved = th.stats.signals ? (double)n_recs / (double)th.stats.signals : 0;
	double store_share = n_recs ? (double)in_b / n_recs : 0;
	printf("  resolved %.4f, in A %d, in B %d (store share %.3f, constructed 0.100), "
	       "bad flags %d, ip outside the loop %d\n",
	       resolved, in_a, in_b, store_share, bad_flags, bad_ip);
	CHECK(n_recs >= 500);
	CHECK(accounted());
	/* look-ahead resolves the loop without steps; what may fail: a sample in the test's own
	 * code around the calls (1 in 100 at most: LOOP_ITERS) */
	CHECK(resolved >= 0.99);
	/* each call's last iteration may walk out through ret into the caller: rare */
	CHECK(in_a + in_b >= n_recs - n_recs / 100);
	/* 1 access in 10 is the store; timer skid and the 8-way random skip blur it a little */
	CHECK(store_share >= 0.06 && store_share <= 0.14);
	CHECK(bad_flags == 0);
	CHECK(bad_ip <= n_recs / 100);

	CHECK(sample_on(1000000, 8) == 0);
	t0 = cpu_seconds();
	while (cpu_seconds() - t0 < 0.3)
		ldst_loop(A, B, LOOP_ITERS);
	sample_off();
	in_b = 0;
	for (int i = 0; i < n_recs; i++)
		in_b += recs[i].addr >= b_lo && recs[i].addr < b_hi;
	printf("  with the default skip 0..7: store share %.3f of %d\n",
	       n_recs ? (double)in_b / n_recs : 0.0, n_recs);
}

TEST(sparse_loop_without_steps)
{
	/* The wanted access is up to 8 loads ahead, ~350 instructions of a loop whose every
	 * value the look-ahead knows: found by emulation alone, no single-step. */
	static uint64_t a[64];
	if (!source_ok)
		SKIP(source_why);
	CHECK(sample_on(1000000, 8) == 0);
	double t0 = cpu_seconds();
	while (cpu_seconds() - t0 < 0.4)
		sparse_loop(a, LOOP_ITERS / 4);
	sample_off();
	print_stats("sparse loop (1 load in 44 instructions), 0.4 s");
	struct clock_thread *ct = th.src;
	int inside = 0;
	for (int i = 0; i < n_recs; i++)
		inside += recs[i].addr >= (uintptr_t)a && recs[i].addr < (uintptr_t)(a + 64);
	CHECK(n_recs >= 150);
	CHECK(accounted());
	/* a sample in the test's own code around the calls may step (1 in 100: LOOP_ITERS) */
	CHECK(ct->stepped * 100 <= (uint64_t)n_recs);
	CHECK(inside >= n_recs - n_recs / 100);
}

TEST(mod_loop_without_steps)
{
	/* Every load's index is a remainder (div, cqo + idiv): the look-ahead computes them,
	 * so the wanted access, up to 8 loads ahead, is found without a single-step (where the
	 * emulator left rax and rdx unknown after a div, nearly every sample stepped). */
	static uint64_t a[128];
	if (!source_ok)
		SKIP(source_why);
	CHECK(sample_on(1000000, 8) == 0);
	double t0 = cpu_seconds();
	while (cpu_seconds() - t0 < 0.4)
		mod_loop(a, LOOP_ITERS / 8);
	sample_off();
	print_stats("remainder-indexed loads, 0.4 s");
	struct clock_thread *ct = th.src;
	int inside = 0;
	for (int i = 0; i < n_recs; i++)
		inside += recs[i].addr >= (uintptr_t)a && recs[i].addr < (uintptr_t)(a + 128) &&
			  (recs[i].addr - (uintptr_t)a) % 8 == 0;
	CHECK(n_recs >= 150);
	CHECK(accounted());
	/* a sample in the test's own code around the calls may step (1 in 100: LOOP_ITERS) */
	CHECK(ct->stepped * 100 <= (uint64_t)n_recs);
	CHECK(inside >= n_recs - n_recs / 100);
}

TEST(far_from_any_access)
{
	/* A loop with no memory access: the look-ahead follows it for CLOCK_MAX_SCAN
	 * instructions and gives the sample up as "far", without a step. */
	if (!source_ok)
		SKIP(source_why);
	CHECK(sample_on(1000000, 8) == 0);
	double t0 = cpu_seconds();
	while (cpu_seconds() - t0 < 0.3)
		compute_loop(LOOP_ITERS);
	sample_off();
	print_stats("compute loop, 0.3 s");
	struct clock_thread *ct = th.src;
	CHECK(th.stats.signals >= 100);
	CHECK(accounted());
	/* samples in the test's own code between calls find accesses, or step: 1 in 100 by
	 * LOOP_ITERS, a few in 100 on a loaded VM where the clock_gettime call between calls
	 * takes tens of us (seen: 1 in 300 quiet, 3 in 290 loaded); 5 in 100 allowed */
	CHECK(ct->why[CLOCK_LOST_FAR] * 100 >= th.stats.signals * 95);
	CHECK(ct->stepped * 100 <= th.stats.signals * 5);
}

/* A ring of 512 pointers in a scrambled order; stored byte-swapped if `swapped`. */
static void ring_init(void **ring, int swapped)
{
	for (int i = 0; i < 512; i++) {
		uint64_t p = (uintptr_t)&ring[(i * 97 + 1) % 512];
		ring[i] = (void *)(uintptr_t)(swapped ? __builtin_bswap64(p) : p);
	}
}

TEST(stepping_pointer_chase)
{
	/* each address comes from the previous load, through bswap, which look-ahead does not
	 * model: steps must find them */
	static void *ring[512];
	if (!source_ok)
		SKIP(source_why);
	ring_init(ring, 1);
	CHECK(sample_on(1000000, 8) == 0);
	double t0 = cpu_seconds();
	while (cpu_seconds() - t0 < 0.4)
		swapped_chase_loop(ring, LOOP_ITERS);
	sample_off();
	print_stats("swapped pointer chase, 0.4 s");
	int inside = 0;
	for (int i = 0; i < n_recs; i++)
		inside += recs[i].addr >= (uintptr_t)ring && recs[i].addr < (uintptr_t)(ring + 512) &&
			  !(recs[i].flags & SONDE_MEM_STORE);
	struct clock_thread *ct = th.src;
	CHECK(n_recs >= 150);
	CHECK(accounted());
	CHECK(few_in_step());
	/* every sample in the loop is found within a few steps; one in the test's own code
	 * around the calls may not be (1 in 100: the loop is all but the whole 0.4 s).  Not
	 * counted: signals that came in the handlers' own time or while a sample was stepped,
	 * sonde's time, not the loop's (a pair of suites on 2 cores: 4 and 4 of 404, and
	 * 396 found, 2026-11-29) */
	CHECK(n_recs >= 0.99 * (double)(th.stats.signals - ct->why[CLOCK_DROP_TIME_BUDGET] -
					ct->why[CLOCK_DROP_OWN_TIME] -
					ct->why[CLOCK_DROP_IN_STEP]));
	/* the budget drops a bounded part (review): under half.  A quarter held alone; a pair
	 * of suites on 2 cores dropped 123 of 405 (30%), the steps' cost stretched by the
	 * other suite, 2026-11-30 */
	CHECK(ct->why[CLOCK_DROP_TIME_BUDGET] * 2 <= th.stats.signals);
	/* a sample may land in the test's own code between two calls: rare */
	CHECK(inside >= n_recs - n_recs / 100);
	CHECK(th.stats.steps > 0 && ct->stepped > 0);
}

/* The node `n` links past p in the ring (plain C, independent of the decoder). */
static uint64_t ring_walk(uint64_t p, int n)
{
	while (n-- > 0)
		p = *(const uint64_t *)(uintptr_t)p;
	return p;
}

TEST(chase_through_loads)
{
	/* Look-ahead reads the loaded pointers: the address r accesses ahead of the PC is the
	 * node r links ahead of the interrupted rdi, found without a step. */
	static void *ring[512];
	if (!source_ok)
		SKIP(source_why);
	ring_init(ring, 0);
	CHECK(sample_on(1000000, 8) == 0);
	double t0 = cpu_seconds();
	while (cpu_seconds() - t0 < 0.4)
		chase_loop(ring, LOOP_ITERS);
	sample_off();
	print_stats("pointer chase, 0.4 s");
	struct clock_thread *ct = th.src;
	int checked = 0, wrong = 0, deep = 0, outside = 0, stepped_inside = 0;
	for (int i = 0; i < n_recs; i++) {
		const struct rec *r = &recs[i];
		/* inside the loop (not the test's own code around the calls), away from its
		 * exit, and found by look-ahead alone */
		if (r->pc < (uintptr_t)chase_loop || r->pc >= (uintptr_t)chase_loop_end ||
		    r->rsi < 16)
			continue;
		if (r->steps) {
			stepped_inside++;
			continue;
		}
		outside += r->addr < (uintptr_t)ring || r->addr >= (uintptr_t)(ring + 512);
		checked++;
		deep += r->remaining >= 2;
		wrong += r->addr != ring_walk(r->rdi, r->remaining);
	}
	printf("  %d samples checked against the ring walk (%d of them 2+ links deep), %d wrong, "
	       "%d stepped in the loop\n", checked, deep, wrong, stepped_inside);
	CHECK(n_recs >= 150);
	CHECK(accounted());
	CHECK(outside == 0);
	CHECK(checked >= n_recs * 9 / 10);
	CHECK(deep >= checked / 2);
	CHECK(wrong == 0);
	CHECK(ct->via_loads > 0);
	/* in the loop, look-ahead through loads needs no step (8 links: 8 reads of the 24
	 * allowed); the test's own code around the calls (clock_gettime) may need some */
	CHECK(stepped_inside == 0);
}

TEST(index_chase_through_loads)
{
	/* membound's chase: i = next[i] with 32-bit indexes (zero-extending loads) */
	enum { N = 4096 };
	static uint32_t next[N];
	if (!source_ok)
		SKIP(source_why);
	for (uint32_t i = 0; i < N; i++)
		next[i] = (i * 1237 + 1) % N;
	CHECK(sample_on(1000000, 8) == 0);
	double t0 = cpu_seconds();
	while (cpu_seconds() - t0 < 0.3)
		index_chase_loop(next, LOOP_ITERS);
	sample_off();
	print_stats("index chase, 0.3 s");
	int checked = 0, wrong = 0, stepped_inside = 0;
	for (int i = 0; i < n_recs; i++) {
		const struct rec *r = &recs[i];
		if (r->pc < (uintptr_t)index_chase_code || r->pc >= (uintptr_t)index_chase_end ||
		    r->rsi < 16 || r->rax >= N)
			continue;
		if (r->steps) {
			stepped_inside++;
			continue;
		}
		uint32_t idx = (uint32_t)r->rax;
		for (int k = 0; k < r->remaining; k++)
			idx = next[idx];
		checked++;
		wrong += r->addr != (uintptr_t)&next[idx] || r->len != 4;
	}
	printf("  %d samples checked against the index walk, %d wrong, %d stepped in the loop\n",
	       checked, wrong, stepped_inside);
	CHECK(n_recs >= 100);
	CHECK(accounted());
	CHECK(checked >= n_recs * 9 / 10);
	CHECK(wrong == 0);
	/* as in chase_through_loads: no step in the loop; the test's code around it may */
	CHECK(stepped_inside == 0);
}

/* ---- a racy program: another thread flips the pointer the sampled loop loads ---- */

static void *racy_ptr;
static uint64_t racy_targets[64];
static uint8_t *racy_bad;		/* a PROT_NONE page the pointer sometimes names */
static volatile int racy_stop;
static volatile long racy_faults;

static void *racy_writer(void *arg)
{
	for (unsigned long i = 0; !racy_stop; i++) {
		void *p = (i & 15) == 15 ? (void *)(racy_bad + 8 * (i % 64)) :
					  (void *)&racy_targets[i % 64];
		__atomic_store_n(&racy_ptr, p, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* The program's own SIGSEGV handler: the deref of a bad pointer is skipped (3 bytes). */
static void racy_segv(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	if ((uint64_t)uc->uc_mcontext.gregs[REG_RIP] != (uintptr_t)racy_deref)
		abort();
	uc->uc_mcontext.gregs[REG_RIP] += 3;
	racy_faults++;
}

TEST(racy_pointer)
{
	/* The value look-ahead reads may be stale when the program loads it, and may even name
	 * a page that faults: no crash, and the samples stay on addresses the program itself
	 * touches (the pointer, a target, the bad page). */
	if (!source_ok)
		SKIP(source_why);
	racy_bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(racy_bad != MAP_FAILED);
	if (racy_bad == MAP_FAILED)
		return;
	struct sigaction sa = { 0 }, old;
	sa.sa_sigaction = racy_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, &old);
	racy_ptr = &racy_targets[0];
	racy_stop = 0;
	racy_faults = 0;
	pthread_t w;
	CHECK(pthread_create(&w, NULL, racy_writer, NULL) == 0);
	CHECK(sample_on(1000000, 8) == 0);
	double t0 = cpu_seconds();
	while (cpu_seconds() - t0 < 0.4)
		racy_loop(&racy_ptr, 100000);
	sample_off();
	racy_stop = 1;
	pthread_join(w, NULL);
	sigaction(SIGSEGV, &old, NULL);
	print_stats("racy pointer, 0.4 s");
	struct clock_thread *ct = th.src;
	int on_ptr = 0, on_target = 0, on_bad = 0, elsewhere = 0;
	for (int i = 0; i < n_recs; i++) {
		uint64_t a = recs[i].addr;
		if (a == (uintptr_t)&racy_ptr)
			on_ptr++;
		else if (a >= (uintptr_t)racy_targets && a < (uintptr_t)(racy_targets + 64))
			on_target++;
		else if (a >= (uintptr_t)racy_bad && a < (uintptr_t)racy_bad + 4096)
			on_bad++;
		else if (recs[i].pc >= (uintptr_t)racy_loop && recs[i].pc < (uintptr_t)racy_loop_end &&
			 recs[i].rsi >= 16)
			elsewhere++;	/* not near the loop's exit, yet off the program's addresses */
	}
	printf("  program faults %ld; samples on the pointer %d, on targets %d, on the bad page "
	       "%d, elsewhere %d\n", racy_faults, on_ptr, on_target, on_bad, elsewhere);
	CHECK(n_recs >= 100);
	CHECK(accounted());
	CHECK(on_ptr > 0 && on_target > 0);
	CHECK(elsewhere == 0);
	CHECK(ct->via_loads > 0);
	munmap(racy_bad, 4096);
}

TEST(spread_after_lock_add)
{
	static uint64_t counter;
	if (!source_ok)
		SKIP(source_why);
	/* 6,000 samples at 10 kHz: 0.6 s of CPU, plus the steps (~5 a sample of 7-25 us).  The
	 * ticks' own cost (clock_tick_cost, 100-400 us on a KVM guest) left out of the budget
	 * here: charged, it stretches 10 kHz to about 1.5 kHz where it is measured high, and
	 * the 4 s bound came first (2820-4057 signals in 2 of 6 runs): the spreading is what
	 * this test is about, the budget t060's */
	CHECK(sample_on(100000, 8) == 0);
	uint64_t tick_cost = clock_tick_cost;	/* (measured in sample_on, the first time) */
	clock_tick_cost = 0;
	double t0 = cpu_seconds();
	while (th.stats.signals < 6000 && cpu_seconds() - t0 < 4.0)
		lock_loop(&counter, LOOP_ITERS / 4);
	sample_off();
	print_stats("lock add, spread over 8");

	uint64_t ips[16] = { 0 };
	int counts[16] = { 0 }, distinct = 0, top = 0, outside = 0;
	for (int i = 0; i < n_recs; i++) {
		int k;
		for (k = 0; k < distinct && ips[k] != recs[i].ip; k++)
			;
		if (k == distinct && distinct < 16)
			ips[distinct++] = recs[i].ip;
		if (k < 16)
			counts[k]++;
		int in_fn = recs[i].ip >= (uintptr_t)lock_fn && recs[i].ip < (uintptr_t)lock_loop_end;
		outside += !in_fn;
	}
	for (int k = 0; k < distinct; k++)
		if (counts[k] > top)
			top = counts[k];
	double top_share = n_recs ? (double)top / n_recs : 1;
	printf("  samples %d on %d instructions; the most frequent has %.3f\n", n_recs, distinct,
	       top_share);
	CHECK(accounted());
	CHECK(few_in_step());
	/* every signal but those few in-step ones: 5,000 of the 6,000 leaves room for those and
	 * for the 4 s CPU bound, which a 3 times slower machine would reach first */
	CHECK(n_recs >= 5000);
	/* three accesses per iteration (call's push, lock add, ret's pop) share the samples */
	CHECK(distinct >= 3);
	CHECK(top_share < 0.6);
	/* the walk may leave through lock_loop's ret into the caller: rare by construction */
	printf("  samples outside lock_fn/lock_loop: %d\n", outside);
	CHECK(outside <= n_recs / 50);

	/* without the random skip: informational (how hard timer samples pile up here) */
	CHECK(sample_on(100000, 1) == 0);
	t0 = cpu_seconds();
	while (cpu_seconds() - t0 < 0.3)
		lock_loop(&counter, LOOP_ITERS / 4);
	sample_off();
	int same = 0;
	for (int i = 0; i < n_recs; i++)
		same += n_recs && recs[i].ip == recs[0].ip;
	printf("  without spreading: %d samples, %.3f on the first sample's instruction\n", n_recs,
	       n_recs ? (double)same / n_recs : 0.0);
	clock_tick_cost = tick_cost;
}

TEST(pushf_popf_survives)
{
	/* stepping over pushf must not leave TF in the pushed image: popf would then start
	 * tracing with nobody to catch it, and the default SIGTRAP would kill us */
	if (!source_ok)
		SKIP(source_why);
	CHECK(sample_on(200000, 8) == 0);
	double t0 = cpu_seconds();
	while (cpu_seconds() - t0 < 0.3)
		pushf_loop(A, LOOP_ITERS / 4);
	sample_off();
	print_stats("pushf/popf loop");
	struct clock_thread *ct = th.src;
	CHECK(accounted());
	CHECK(few_in_step());
	/* no sample given up: popf is stepped with TF put in the image it pops */
	CHECK(ct->lost == 0);
	/* hence delivered = signals but for the in-step ones, and those the time budget
	 * dropped (a VM whose steps exit to the hypervisor: 10 of 710) */
	CHECK(n_recs >= 0.99 * (double)(th.stats.signals - ct->why[CLOCK_DROP_TIME_BUDGET]));
	/* the budget drops a bounded part (review): under half.  A quarter held alone; a pair
	 * of suites on 2 cores dropped 123 of 405 (30%), the steps' cost stretched by the
	 * other suite, 2026-11-30 */
	CHECK(ct->why[CLOCK_DROP_TIME_BUDGET] * 2 <= th.stats.signals);
	/* what the program sees is unchanged: TF never set in its flags */
	uint64_t fl;
	__asm__ volatile("pushfq; pop %0" : "=r"(fl));
	CHECK(!(fl & 0x100));
}

TEST(sigtrap_blocked)
{
	/* A thread that blocks SIGTRAP must never be stepped: the forced trap would kill it.
	 * With per-thread events (a period under CLOCK_RUN_MIN_PERIOD here) the sample signal
	 * still comes and look-ahead alone serves it.  With the inherited event the samples are
	 * SIGTRAPs themselves: none comes while it is blocked, and the one left pending arrives
	 * at the unblock flagged async, and is dropped (its context is the unblock's). */
	static void *ring[512];
	if (!source_ok)
		SKIP(source_why);
	ring_init(ring, 1);
	for (int inherit = 0; inherit < 2; inherit++) {
		sigset_t set, old;
		sigemptyset(&set);
		sigaddset(&set, SIGTRAP);
		pthread_sigmask(SIG_BLOCK, &set, &old);
		CHECK(sample_on(inherit ? 1000000 : 400000, 8) == 0);
		int inherited = clock_inherit;
		double t0 = cpu_seconds();
		while (cpu_seconds() - t0 < 0.2) {
			swapped_chase_loop(ring, 100000);	/* needs steps: lost */
			ldst_loop(A, B, 100000);		/* look-ahead alone: delivered */
		}
		sample_off();
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		print_stats(inherited ? "swapped pointer chase and ldst, SIGTRAP blocked, inherited "
					"event" : "swapped pointer chase and ldst, SIGTRAP blocked");
		struct clock_thread *ct = th.src;
		CHECK(th.stats.steps == 0);
		CHECK(accounted());
		if (!inherit) {
			CHECK(!inherited);
			CHECK(th.stats.signals > 50);
			/* what look-ahead alone resolves still arrives */
			CHECK(n_recs > 0 && ct->why[CLOCK_LOST_TRAP_BLOCKED] > 0);
			CHECK(ct->lost == ct->why[CLOCK_LOST_TRAP_BLOCKED]);
		} else if (inherited) {
			CHECK(n_recs == 0 && th.stats.signals <= 1);
			CHECK(th.stats.signals == ct->why[CLOCK_DROP_OWN_TIME]);
		}
	}
}

/* ---- the inherited event: threads created after it have their copy ---- */

struct inh_worker {
	struct rt_thread t;
	int started, fd;
	double cpu;		/* CPU seconds of loop while sampled, to the pause */
	uint64_t at_pause;	/* signals then */
	uint64_t at_stop;	/* signals when the thread saw the event closed */
	volatile int paused;	/* the main thread asked the loop to pause */
	volatile int idle;	/* the thread has paused: cpu and at_pause are set */
	volatile int stopped;	/* the main thread closed the event */
};

static void count_access(struct rt_thread *t, const struct rt_access *a, const ucontext_t *uc,
			 int skip)
{
	t->stats.samples++;
}

static const struct rt_tool count_tool = { .name = "count", .access = count_access };

static void nap(void)
{
	struct timespec ts = { 0, 1000000 };
	nanosleep(&ts, NULL);
}

static void *inh_thread(void *arg)
{
	struct inh_worker *w = arg;
	w->t.tid = (int)syscall(SYS_gettid);
	w->t.rng = 0x9876543212345678ull ^ (uint64_t)w->t.tid;
	if (arena_init(&w->t.arena, 1 << 20))
		return NULL;
	rt_set_self(&w->t);
	w->started = rt_source_clock.thread_start(&w->t) == 0;
	const struct clock_thread *ct = w->t.src;
	w->fd = ct ? ct->fd : -2;
	double t0 = cpu_seconds();
	while (!w->paused)
		ldst_loop(A, B, 10000);	/* the threads store to B at once: harmless */
	/* CPU time and signals read here, by the thread itself, at one moment: a loaded
	 * machine may hold the main thread off for a while between its pause and its close,
	 * and this thread's loop must not run on uncounted then */
	w->cpu = cpu_seconds() - t0;
	w->at_pause = __atomic_load_n(&w->t.stats.signals, __ATOMIC_RELAXED);
	w->idle = 1;
	while (!w->stopped)
		nap();
	/* A signal raised before the close is delivered when this thread next returns to
	 * user mode, which it has by now: so it is counted here, not taken for one after
	 * the close (read by the main thread, it could still be pending then) */
	w->at_stop = __atomic_load_n(&w->t.stats.signals, __ATOMIC_RELAXED);
	double t1 = cpu_seconds();
	while (cpu_seconds() - t1 < 0.1)
		ldst_loop(A, B, 10000);
	rt_set_self(NULL);
	return NULL;
}

TEST(inherited_threads)
{
	/* Threads made after the first thread opened the inherited event are sampled without
	 * an event of their own, each in proportion to its CPU time; the first thread's
	 * thread_stop (the process's end) stops them all. */
	if (!source_ok)
		SKIP(source_why);
	CHECK(sample_on(1000000, 8) == 0);
	if (!clock_inherit) {
		sample_off();
		SKIP("per-thread events (a kernel without attr.sigtrap, or SONDE_CLOCK_INHERIT=0)");
	}
	const struct rt_tool *saved = rt_tool;
	rt_tool = &count_tool;
	static struct inh_worker w[2];
	pthread_t pt[2];
	memset(w, 0, sizeof(w));
	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&pt[i], NULL, inh_thread, &w[i]) == 0);
	/* 0.3 s of this thread's CPU, and 0.2 s of each worker's: on a loaded machine a
	 * worker may get little CPU while this thread gets its 0.3 s (0.057 s seen), and its
	 * count would then rest on a few dozen ticks.  A minute of wall time at most. */
	clockid_t cid[2];
	for (int i = 0; i < 2; i++)
		CHECK(pthread_getcpuclockid(pt[i], &cid[i]) == 0);
	double t0 = cpu_seconds();
	struct timespec wall0, now;
	clock_gettime(CLOCK_MONOTONIC, &wall0);
	for (;;) {
		ldst_loop(A, B, 10000);
		int enough = cpu_seconds() - t0 >= 0.3;
		for (int i = 0; i < 2; i++) {
			struct timespec ts;
			clock_gettime(cid[i], &ts);
			enough &= (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 >= 0.2;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (enough || now.tv_sec - wall0.tv_sec > 60)
			break;
	}
	for (int i = 0; i < 2; i++)
		w[i].paused = 1;
	for (int i = 0; i < 2; i++)
		while (!w[i].idle)
			nap();
	sample_off();
	for (int i = 0; i < 2; i++)
		w[i].stopped = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(pt[i], NULL);
	rt_tool = saved;
	for (int i = 0; i < 2; i++) {
		const struct inh_worker *x = &w[i];
		double expect = x->cpu / 1e-3;
		printf("  thread %d: %.3f s of CPU sampled, %llu signals (%.0f expected at 1 ms), "
		       "%llu samples; %llu more while paused, %llu after the event was closed\n",
		       i, x->cpu, (unsigned long long)x->at_pause, expect,
		       (unsigned long long)x->t.stats.samples,
		       (unsigned long long)(x->at_stop - x->at_pause),
		       (unsigned long long)(x->t.stats.signals - x->at_stop));
		CHECK(x->started && x->fd == -1);
		/* One tick per ms of the thread's CPU time, give or take: ticks that land in the
		 * kernel are skipped (exclude_kernel; each CPU-time reading is a system call),
		 * and a context switch between two threads of the process swaps their copies,
		 * so a thread's first tick after it may come early or late by up to a period.
		 * Half to 1.5 times leaves room for both on a loaded machine. */
		CHECK(x->at_pause >= expect * 0.5 && x->at_pause <= expect * 1.5 + 2);
		CHECK(x->t.stats.samples > 0);
		/* closing the first thread's event ended the copies: not one signal in the
		 * 0.1 s of CPU after it */
		CHECK(x->t.stats.signals == x->at_stop);
	}
}

/* ---- a program that siglongjmps out of a signal handler that interrupted a step ---- */

static sigjmp_buf tf_jump;
static volatile int tf_jumps;
static volatile int tf_stop;

/* Jump out only from the loop (never from the runtime's handlers, which it also interrupts):
 * the frame holding TF is then abandoned, and TF with it. */
static void tf_usr2(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	if (pc >= (uintptr_t)swapped_chase_loop && pc < (uintptr_t)swapped_chase_end) {
		tf_jumps++;
		siglongjmp(tf_jump, 1);
	}
}

static void *tf_kicker(void *arg)
{
	pthread_t target = *(pthread_t *)arg;
	while (!tf_stop) {
		pthread_kill(target, SIGUSR2);
		usleep(3000);
	}
	return NULL;
}

TEST(trap_flag_lost_recovers)
{
	/* A step whose trap flag vanishes never traps: the clock, stopped while a sample is
	 * stepped, would never resume without the watchdog. */
	static void *ring[512];
	if (!source_ok)
		SKIP(source_why);
	ring_init(ring, 1);
	struct sigaction sa = { 0 }, old;
	sa.sa_sigaction = tf_usr2;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR2, &sa, &old);
	struct clock_thread *ct = NULL;
	CHECK(sample_on(1000000, 8) == 0);
	ct = th.src;
	pthread_t self = pthread_self(), k;
	tf_stop = 0;
	tf_jumps = 0;
	CHECK(pthread_create(&k, NULL, tf_kicker, &self) == 0);
	/* until a jump has left a step behind (~1 in 4 jumps: stepping is ~1/4 of the time) */
	static volatile double t0;
	t0 = cpu_seconds();
	sigsetjmp(tf_jump, 1);
	while (ct->why[CLOCK_LOST_TRAP_FLAG] < 3 && cpu_seconds() - t0 < 3.0)
		swapped_chase_loop(ring, 100000);
	tf_stop = 1;
	pthread_join(k, NULL);
	sigaction(SIGUSR2, &old, NULL);
	uint64_t before = th.stats.signals;
	double t1 = cpu_seconds();
	while (cpu_seconds() - t1 < 0.2)
		swapped_chase_loop(ring, 100000);
	sample_off();
	print_stats("swapped pointer chase, siglongjmp from SIGUSR2 every 3 ms");
	uint64_t after = th.stats.signals - before;
	printf("  %d jumps out of the loop; %llu signals in the 0.2 s after them\n", tf_jumps,
	       (unsigned long long)after);
	CHECK(ct->why[CLOCK_LOST_TRAP_FLAG] >= 1);
	CHECK(accounted());
	/* sampling goes on after the losses: 0.2 s at 1 ms (plus ~0.35 ms of steps a sample)
	 * is ~150 signals; a third of that leaves room for a slow machine, none for a clock
	 * that stopped for good */
	CHECK(after >= 50);
}

static volatile int app_traps;
static void app_sigtrap(int sig)
{
	app_traps++;
}

static void app_sigtrap2(int sig)
{
	app_traps += 100;
}

TEST(chains_program_sigtrap)
{
	if (!source_ok)
		SKIP(source_why);
	/* the program's handler was installed before start(): int3 must still reach it */
	app_traps = 0;
	__asm__ volatile("int3");
	CHECK(app_traps == 1);

	/* a handler the program installs later goes through the interposer's divert hook */
	struct sigaction mine = { 0 }, prev;
	mine.sa_handler = app_sigtrap2;
	CHECK(clock_sigtrap_divert(&mine, &prev) == 1);
	CHECK(prev.sa_handler == app_sigtrap);
	__asm__ volatile("int3");
	CHECK(app_traps == 101);
	/* and stepping still works: our handler stayed in place */
	CHECK(sample_on(200000, 8) == 0);
	double t0 = cpu_seconds();
	while (cpu_seconds() - t0 < 0.1)
		pushf_loop(A, 100000);
	sample_off();
	CHECK(th.stats.steps > 0 && app_traps == 101);
	clock_sigtrap_divert(&prev, NULL);
}

TEST(fork_child)
{
	if (!source_ok)
		SKIP(source_why);
	CHECK(sample_on(1000000, 8) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		rt_source_clock.after_fork_child(&th);
		memset(&th.stats, 0, sizeof(th.stats));
		int ok = rt_source_clock.thread_start(&th) == 0;
		double t0 = cpu_seconds();
		while (cpu_seconds() - t0 < 0.1)
			ldst_loop(A, B, 100000);
		rt_source_clock.thread_stop(&th);
		_exit(ok && th.stats.signals >= 20 ? 0 : 1);
	}
	int st = -1;
	waitpid(pid, &st, 0);
	sample_off();
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

TEST(handler_cost)
{
	if (!source_ok)
		SKIP(source_why);
	/* informational: extra CPU per sample, for the pure look-ahead loop and the stepping one */
	const long iters = 400000000;	/* ~0.3 s at ~0.75 ns per iteration here */
	double t0 = cpu_seconds();
	ldst_loop(A, B, iters);
	double plain = cpu_seconds() - t0;
	CHECK(sample_on(1000000, 8) == 0);
	t0 = cpu_seconds();
	ldst_loop(A, B, iters);
	double sampled = cpu_seconds() - t0;
	sample_off();
	uint64_t n = th.stats.signals;
	printf("  ldst loop: %.3f s plain, %.3f s sampled, %llu samples: %.1f us per sample "
	       "(%.1f%% at 1 kHz)\n", plain, sampled, (unsigned long long)n,
	       n ? (sampled - plain) / (double)n * 1e6 : 0.0,
	       plain > 0 ? (sampled - plain) / plain * 100 : 0.0);

	/* What keeping the event enabled across samples saves (source-clock.h): re-enabling
	 * an event its overflow disabled (here: disable, then refresh) against adding to the
	 * count of an enabled one, by ioctl on the event; the lower of 5 rounds of 200. */
	setenv("SONDE_CLOCK_INHERIT", "0", 1);	/* the per-thread event's ioctls */
	CHECK(sample_on(1000000, 8) == 0);
	unsetenv("SONDE_CLOCK_INHERIT");
	struct clock_thread *ct = th.src;
	double best[2] = { 1e9, 1e9 };
	for (int round = 0; round < 5; round++)
		for (int kept = 0; kept < 2; kept++) {
			uint64_t w0 = rt_now();
			for (int i = 0; i < 200; i++) {
				if (!kept)
					ioctl(ct->fd, PERF_EVENT_IOC_DISABLE, 0);
				ioctl(ct->fd, PERF_EVENT_IOC_REFRESH, 1);
			}
			double us = (double)(rt_now() - w0) / 200 / 1e3;
			best[kept] = us < best[kept] ? us : best[kept];
		}
	sample_off();
	printf("  re-arming: %.1f us to re-enable the event (disable + refresh), %.1f us to add "
	       "to an enabled one's count\n", best[0], best[1]);

	static void *ring[512];
	for (int i = 0; i < 512; i++)
		ring[i] = &ring[(i * 97 + 1) % 512];
	t0 = cpu_seconds();
	chase_loop(ring, iters / 2);
	plain = cpu_seconds() - t0;
	CHECK(sample_on(1000000, 8) == 0);
	t0 = cpu_seconds();
	chase_loop(ring, iters / 2);
	sampled = cpu_seconds() - t0;
	sample_off();
	n = th.stats.signals;
	printf("  chase loop: %.3f s plain, %.3f s sampled, %llu samples, %.2f steps each: "
	       "%.1f us per sample (%.1f%% at 1 kHz)\n", plain, sampled, (unsigned long long)n,
	       n ? (double)th.stats.steps / (double)n : 0.0,
	       n ? (sampled - plain) / (double)n * 1e6 : 0.0,
	       plain > 0 ? (sampled - plain) / plain * 100 : 0.0);
}

/* ---- what the event costs at a context switch ---- */

static int pp_word;
static volatile int pp_rounds;

static void pp_wait(int v)
{
	while (__atomic_load_n(&pp_word, __ATOMIC_ACQUIRE) == v)
		syscall(SYS_futex, &pp_word, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

static void pp_wake(int v)
{
	__atomic_store_n(&pp_word, v, __ATOMIC_RELEASE);
	syscall(SYS_futex, &pp_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *pp_thread(void *arg)
{
	struct inh_worker *w = arg;
	w->t.tid = (int)syscall(SYS_gettid);
	if (w->started && !arena_init(&w->t.arena, 1 << 20)) {
		rt_set_self(&w->t);
		rt_source_clock.thread_start(&w->t);
	}
	for (int i = 0; i < pp_rounds; i++) {
		pp_wait(2 * i);
		pp_wake(2 * i + 2);
	}
	if (w->started) {
		rt_source_clock.thread_stop(&w->t);
		rt_set_self(NULL);
		arena_release(&w->t.arena);
	}
	return NULL;
}

/* us per round trip of a futex ping-pong between this thread and another on one CPU (two
 * context switches); mode 0 no event, 1 an event per thread, 2 the inherited one */
static double ping_pong(int mode)
{
	static struct inh_worker w;
	memset(&w, 0, sizeof(w));
	w.started = mode > 0;
	if (mode) {
		if (mode == 1)
			setenv("SONDE_CLOCK_INHERIT", "0", 1);
		int r = sample_on(CLOCK_DEFAULT_PERIOD, 8);
		unsetenv("SONDE_CLOCK_INHERIT");
		if (r || clock_inherit != (mode == 2)) {
			sample_off();
			return -1;
		}
	}
	pp_rounds = 20000;
	pp_word = 0;
	pthread_t pt;
	if (pthread_create(&pt, NULL, pp_thread, &w))
		return -1;
	uint64_t w0 = rt_now();
	for (int i = 0; i < pp_rounds; i++) {
		pp_wake(2 * i + 1);
		pp_wait(2 * i + 1);
	}
	double us = (double)(rt_now() - w0) / pp_rounds / 1e3;
	pthread_join(pt, NULL);
	if (mode)
		sample_off();
	return us;
}

TEST(switch_cost)
{
	/* informational (source-clock.h): per-thread events are scheduled out and in at each
	 * context switch, an hrtimer cancelled and started (a VM exit each on a KVM guest);
	 * copies of the inherited event are swapped between the process's threads instead.
	 * The best of 3 rounds, both threads on one CPU. */
	if (!source_ok)
		SKIP(source_why);
	cpu_set_t one, all;
	if (sched_getaffinity(0, sizeof(all), &all))
		SKIP("no affinity");
	CPU_ZERO(&one);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &all)) {
			CPU_SET(c, &one);
			break;
		}
	sched_setaffinity(0, sizeof(one), &one);	/* inherited by the partner thread */
	const struct rt_tool *saved = rt_tool;
	rt_tool = &count_tool;
	double best[3] = { 1e9, 1e9, 1e9 };
	for (int round = 0; round < 3; round++)
		for (int mode = 0; mode < 3; mode++) {
			double us = ping_pong(mode);
			if (us >= 0 && us < best[mode])
				best[mode] = us;
		}
	rt_tool = saved;
	sched_setaffinity(0, sizeof(all), &all);
	printf("  futex ping-pong on one CPU, us a round trip (2 switches): %.1f without an "
	       "event, %.1f with an event per thread, %.1f with the inherited event\n", best[0],
	       best[1], best[2] < 1e9 ? best[2] : -1.0);
	CHECK(best[0] < 1e9 && best[1] < 1e9);
}

int main(void)
{
	struct sigaction sa = { 0 };
	sa.sa_handler = app_sigtrap;
	sigaction(SIGTRAP, &sa, NULL);

	rt_cfg.sig_sample = SIGRTMAX - 3;
	rt_cfg.sig_watch = SIGRTMAX - 4;
	rt_tool = &rec_tool;
	if (thread_setup()) {
		printf("FAIL setup: no arena or altstack\n");
		return 1;
	}
	int r = rt_source_clock.probe(source_why, sizeof(source_why));
	source_ok = r == 0 && rt_source_clock.start() == 0;
	if (r && !source_why[0])
		snprintf(source_why, sizeof(source_why), "probe failed: %s", strerror(-r));
	RUN(probe);
	RUN(loads_and_stores);
	RUN(sparse_loop_without_steps);
	RUN(mod_loop_without_steps);
	RUN(far_from_any_access);
	RUN(stepping_pointer_chase);
	RUN(chase_through_loads);
	RUN(index_chase_through_loads);
	RUN(racy_pointer);
	RUN(spread_after_lock_add);
	RUN(pushf_popf_survives);
	RUN(sigtrap_blocked);
	RUN(inherited_threads);
	RUN(trap_flag_lost_recovers);
	RUN(chains_program_sigtrap);
	RUN(fork_child);
	RUN(handler_cost);
	RUN(switch_cost);
	return CHECK_DONE();
}
