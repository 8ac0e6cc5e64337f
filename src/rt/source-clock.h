/* SPDX-License-Identifier: MIT */
/*
 * source-clock.h - private to the clock sample source (source-clock.c sets up,
 * source-clock-sig.c holds the signal handlers).
 *
 * How a sample becomes an access: a per-thread cpu-clock event signals the thread every
 * `period` ns of its user CPU time.  The handler picks r in [0, max_extra_steps) and looks
 * for the (r+1)-th memory access from the interrupted PC on: first by decoding forward and
 * emulating simple instructions (decode_emulate), which often resolves it without executing
 * anything (SONDE_MEM_PREDICTED); else by setting the trap flag and single-stepping, one
 * SIGTRAP per instruction, until the look-ahead from some later PC succeeds.
 *
 * The look-ahead follows conditional jumps on known flags, loop back-edges, direct calls and
 * returns for up to CLOCK_MAX_SCAN instructions, so the r extra accesses of a loop it can
 * follow cost no trap (a step costs 20-25 us on a KVM guest, and with a 64-instruction reach
 * a loop of 20 instructions per access took ~16 steps a sample).  Steps are taken only where
 * it stops for want of a value; a path it knows entirely but that reaches no access within
 * CLOCK_MAX_SCAN is given up (CLOCK_LOST_FAR): stepping it would move one instruction per
 * trap.  Decoded instructions are kept per thread (struct clock_dcache_entry), so a loop
 * is decoded once, not at every look-ahead.
 *
 * The look-ahead runs in two passes.  The first reads no memory: it costs only decoding, and
 * settles most samples of code whose addresses come from arithmetic.  When it stops for a
 * lack of some value (an address register, flags or a jump target that came from a load),
 * the second pass runs again with memory: the loads on the path read the program's memory
 * (decode_read_data: process_vm_readv, never a direct read, see decode-x86.c) under the
 * stores the path made, at most CLOCK_MAX_READS reads.  A pointer chase, where every address
 * is the previous load's value, is then resolved without a single step.  The value read is
 * the one the program will load unless another thread writes it in between: such samples
 * (racy programs) get a stale but plausible address; all look-ahead samples are marked
 * SONDE_MEM_PREDICTED.
 *
 * One event for the whole process (clock_inherit, the default at periods from
 * CLOCK_RUN_MIN_PERIOD on): the first thread opens it with inherit + inherit_thread, and
 * every thread created afterwards gets its own copy at clone time; an overflow raises
 * SIGTRAP with si_code TRAP_PERF in the thread that was running (attr.sigtrap, Linux 5.13),
 * the sample.  Events opened one per thread (the fallback, and periods under
 * CLOCK_RUN_MIN_PERIOD) are scheduled out and in at every context switch of their thread:
 * an hrtimer cancelled and started again, and on a KVM guest each reprograms the local APIC
 * timer, a VM exit.  u-clock switch_cost (a futex ping-pong of two threads on one CPU, two
 * switches a round trip): 4.5 us a round trip without an event, 22.3 with one per thread,
 * 4.9 with the inherited one.  OpenMP's barriers make ~15,000 switches a second with 4
 * threads on 2 cores (cost-omp): 9 us each was most of what `sonde mem` cost there.
 * Copies inherited from one parent are clones, and the kernel swaps such contexts between
 * two threads of the process at a switch instead of scheduling their events out and in
 * (the timer runs on: the sampling stays one tick per period of the CPU time of the
 * process's threads, each tick taken by the thread it lands in).  The price: no per-thread
 * control of the event (no REFRESH, no period of its own), so the clock is not stopped
 * while a sample is stepped (below): a tick that lands in a step sequence mostly finds
 * SIGTRAP blocked (our handler), arrives flagged TRAP_PERF_FLAG_ASYNC and is dropped as
 * CLOCK_DROP_OWN_TIME; one that lands on the stepped instruction itself is
 * CLOCK_DROP_IN_STEP.  A thread that blocks SIGTRAP gets no sample (as a thread blocking
 * the sample signal does with per-thread events), and threads created after the first
 * thread exited (pthread_exit in main) inherit a stopped event.  SONDE_CLOCK_INHERIT=0
 * selects per-thread events (for comparison).
 *
 * With per-thread events the event runs on between samples: it is armed for clock_armed overflows
 * ahead, and each signal handled adds one back (PERF_EVENT_IOC_REFRESH on an event still enabled
 * is a counter update: letting the event disable itself at every overflow and enabling it again
 * cost an hrtimer cancel and start per sample, 2-6 us in a VM, u-clock handler_cost).  The clock
 * so counts the handlers' time too: the next overflow comes a period after the last, not after the
 * handler's end (1/(period - handler time) samples per second of the program's own time, up to ~3%
 * more at the default period).  No overflow lands in a handler while handlers take less than a
 * period (a step sequence runs on the watchdog period); one that would, held until the handler
 * returns, comes less than half a period after it and is dropped (CLOCK_DROP_OWN_TIME,
 * clock_on_sample).
 *
 * With per-thread events the clock stops while a sample is stepped: it is switched to the watchdog
 * period, and back to the usual period, counted afresh, when the last step is done. A step costs a
 * trap, a signal frame and a sigreturn (7 us on the machine the source was written on, 20-25 us on
 * a KVM/Firecracker guest, where every #DB is a VM exit): with the clock running, a sample needing
 * 5 steps at a 100 us period met the next tick half the time, and that tick, landing on time the
 * profiler itself spent, had to be dropped.  Stopped, the clock samples only the program's own
 * time and no sample can land between two steps.  Against a step sequence that never ends (the
 * trap flag lost: the program siglongjmp'd out of a signal handler that interrupted a step) the
 * event runs meanwhile on a long watchdog period (CLOCK_WATCHDOG_NS); when it fires the stuck
 * sample is counted lost and sampling goes on.
 *
 * Every signal of the event ends in exactly one of: delivered to the tool, dropped by the
 * tool or the runtime (rt_deliver_access), or one of the causes of enum clock_drop below,
 * each counted in struct clock_thread.why[] and in the thread's stats.dropped.
 */
#ifndef SONDE_RT_SOURCE_CLOCK_H
#define SONDE_RT_SOURCE_CLOCK_H

#include <signal.h>
#include <stdint.h>
#include <time.h>

#include "rt/decode-x86.h"
#include "rt/rt.h"

#define CLOCK_DEFAULT_PERIOD 900000ull	/* ns of CPU time: ~1,100 samples/s per busy thread */
#define CLOCK_MAX_STEPS 256		/* single-steps per sample before giving up */
/* Instructions decoded ahead from one PC.  Enough for the wanted access 8 accesses ahead
 * in loops of up to ~60 instructions per access; a scan that runs out of it with nothing
 * unknown in its way gives the sample up (CLOCK_LOST_FAR): a step would only advance one
 * instruction of the same path. */
#define CLOCK_MAX_SCAN 512
/* Instructions decoded for one sample, all scans together (one per step): bounds the
 * handlers' work on a sample that steps through code the scan cannot see past. */
#define CLOCK_MAX_DECODED 4096
#define CLOCK_MAX_READS 24		/* memory reads (64-byte lines) per look-ahead */
#define CLOCK_EFLAGS_TF 0x100ull
/* Overflows the event is armed for ahead of the handlers (clock_armed): a thread that
 * blocks the signal holds at most this many queued (a full real-time queue makes the kernel
 * send SIGIO, which kills).  2 keeps the event enabled across a sample (see above); 1, the
 * event disabled at each overflow until the handler is done, for periods under
 * CLOCK_RUN_MIN_PERIOD, where a handler (tens of us, hundreds with a long look-ahead) could
 * take half a period. */
#define CLOCK_ARMED 2
#define CLOCK_RUN_MIN_PERIOD 500000ull
/* The scheduler tick, at which POSIX CPU-time timers expire (HZ=250 on the development VM:
 * 250 signals a CPU second whatever the period under it, source-clock.c): a tool with
 * RT_TOOL_TICK_TIMERS samples by them at periods of at least this, by the perf event below. */
#define CLOCK_TICK_PERIOD 4000000ull
/* While a sample is stepped: the event's period, in ns of CPU time.  A step sequence takes
 * 0.1-0.4 ms (5-15 steps of 20-25 us on a KVM guest), at most CLOCK_MAX_STEPS steps, ~7 ms;
 * the watchdog fires for a sequence that lost its trap flag, and costs that sequence at most
 * 10 ms of unsampled time.  Firing in a sequence that is merely long it drops one signal, of
 * time the profiler spent (CLOCK_DROP_IN_STEP), not the program. */
#define CLOCK_WATCHDOG_NS 10000000ull
/*
 * The handlers' share of a thread's time, at most 1 / (1 + CLOCK_BUDGET_DIV) of it (a fifth:
 * perf's own throttle, perf_cpu_time_max_percent, is 25% of a CPU): a sample, from its
 * signal to its last step, spends credit that the time between samples earns at
 * 1/CLOCK_BUDGET_DIV, up to CLOCK_BUDGET_CAP saved, and owes at most CLOCK_BUDGET_CAP.
 * Past it, the signal is dropped (CLOCK_DROP_TIME_BUDGET) and the thread's period
 * stretched until the credit is back: by at most CLOCK_BUDGET_DIV x CLOCK_BUDGET_CAP
 * (8 ms of the thread's CPU time).
 * For per-thread events (periods under CLOCK_RUN_MIN_PERIOD), the only ones whose period
 * can be cut to the handlers' cost: on a VM whose traps exit to the hypervisor a sample
 * took ~100-160 us, and at --period 10000 (the least) a program ran at 1-5% of its speed
 * (an MPI_Init under sonde mem ran past 300 s, t201).  The thread's CPU time, not wall
 * time, which held other processes' time on a busy machine.
 */
#define CLOCK_BUDGET_DIV 4
/* The same for the inherited event and the POSIX timers (the default periods, 0.5 ms and
 * over), which drop the tick rather than stretch the period (source-clock-sig.c,
 * budget_tick), and stop a sample's steps past its credit: a third of the thread's time,
 * a bound on the worst case (1.5x), not the cost of a usual program (a few percent): a
 * pointer chase through a bswap, ~19 steps a sample (400 us here at 1 ms), is sampled
 * whole (u-clock), a branchy loop in registers, ~100 steps to an access, is capped. */
#define CLOCK_BUDGET_DIV_LONG 2
#define CLOCK_BUDGET_CAP 2000000ll
/* ns a sample may step past the credit it started with (source-clock-sig.c, advance): a
 * few steps, so that a thread whose credit is low still finishes its short samples */
#define CLOCK_SAMPLE_SLACK 100000ll

/* Why a signal of the event gave no access (struct clock_thread.why[]). */
enum clock_drop {
	CLOCK_DROP_BUSY,	/* the thread was busy in the runtime, stopping, or stopped */
	CLOCK_DROP_IN_STEP,	/* came while a sample was stepped: only the watchdog can now */
	CLOCK_LOST_NO_ACCESS,	/* the PC's instruction did not decode, or an address unknown */
	CLOCK_LOST_BUDGET,	/* no access within CLOCK_MAX_STEPS steps or CLOCK_MAX_DECODED */
	CLOCK_LOST_TRAP_BLOCKED,/* needed a step, but the thread blocks SIGTRAP */
	CLOCK_LOST_FLAGS,	/* needed a step over iret or sigreturn, which rewrite the flags */
	CLOCK_LOST_TRAP_FLAG,	/* a step never trapped (the trap flag vanished) */
	CLOCK_LOST_OVERSHOT,	/* a step passed the wanted access (more accesses than decoded) */
	CLOCK_LOST_STOPPED,	/* the thread or the process stopped during the steps */
	CLOCK_DROP_REFUSED,	/* found, but the runtime refused it (rt_deliver_access: the
				 * runtime's own memory, thread busy, the tool could not store it) */
	CLOCK_LOST_FAR,		/* no wanted access within CLOCK_MAX_SCAN instructions of a
				 * fully known path (code that rarely touches memory) */
	CLOCK_DROP_OWN_TIME,	/* the overflow came in the sample handlers' own time */
	CLOCK_DROP_TIME_BUDGET,	/* the handlers had spent their share of the thread's time
				 * (clock_thread.credit) */
	CLOCK_N_DROP		/* append only: the mem tool records the counts by index */
};

/* Decoded instructions kept per thread, by address (direct-mapped): loops are decoded once,
 * not at every pass of every look-ahead (a decode costs ~0.3-0.5 us, a look-ahead follows
 * up to CLOCK_MAX_SCAN instructions).  An entry is reused only if the code bytes still
 * match. */
#define CLOCK_DCACHE 256
struct clock_dcache_entry {
	uint64_t rip;
	uint8_t bytes[15];
	uint8_t len;			/* 0: empty */
	struct decode_insn d;
};

/* Per-thread state, in the thread's arena. */
struct clock_thread {
	int fd;				/* the cpu-clock event opened by this thread, -1 if
					 * none (or inherited: clock_inherit; or clock_posix) */
	int has_timer;			/* clock_posix: timer is this thread's */
	timer_t timer;			/* clock_posix: its CPU-time timer */
	volatile sig_atomic_t stepping;	/* we set TF; the next SIGTRAP TRAP_TRACE is ours */
	int remaining;			/* accesses still to pass before the one to deliver */
	int pending;			/* accesses of the instruction being stepped over */
	int steps;			/* steps taken for the current sample */
	int decoded;			/* instructions decoded for the current sample */
	int pushf;			/* stepping over pushf: clear TF in the pushed image */
	uint64_t predicted;		/* samples resolved by look-ahead beyond the PC */
	uint64_t stepped;		/* samples that needed at least one step */
	int watchdog;			/* 1: the event runs on CLOCK_WATCHDOG_NS (a sample is stepped);
				 * -1: stretched by the time budget (set_period) */
	uint64_t lost;			/* samples given up (no access found, undecodable...) */
	uint64_t why[CLOCK_N_DROP];	/* signals without an access, by cause */
	uint64_t via_loads;		/* samples resolved by the look-ahead pass that loads */
	uint64_t reads;			/* memory reads made by look-ahead (system calls) */
	struct clock_dcache_entry *dcache;	/* CLOCK_DCACHE entries (arena), or NULL */
	uint64_t last_exit;		/* rt_now() when the last sample was done */
	/* The handlers' time budget (per-thread events): ns they may still spend, earned at
	 * 1/CLOCK_BUDGET_DIV of the time since credit_at, spent by each sample from its signal
	 * (sample_at, 0 when none is under way) to its last step. */
	int64_t credit;
	uint64_t credit_at, sample_at;
	/* The period the event runs on (ns; 0: clock_period), and the ns of it that the
	 * signals since the last delivered sample stood for: the time budget's drops and the
	 * sample's own signal.  A sample's weight is that in periods of clock_period (rounded,
	 * the remainder carried), so that a thread whose period was stretched counts for the
	 * CPU time its samples stood for, not for their number (t060: the main thread read
	 * 0.06-0.26 of the samples at --period 10000 for 0.29 of the CPU time).  Per-thread
	 * events only; 1 elsewhere. */
	uint64_t period_ns, owed_ns;
	uint64_t decodes, dcache_hits;	/* instructions looked at by look-ahead, and how many
					 * came from dcache */
};

/* The event's period (ns of CPU time), and the overflows it is armed for ahead (CLOCK_ARMED
 * or 1), set by start(). */
extern uint64_t clock_period;
/*
 * Per-thread events: what a tick costs the thread's CPU time outside our handler (the
 * timer's interrupt, the signal's delivery and return: on KVM guests the timer's exits to
 * the hypervisor, 100-400 us a tick here, all of it in the thread's CPU clock and none in the
 * handler's span), measured once at the first thread's start (clock_calibrate_tick) and
 * charged to the time budget at each signal, a dropped one too.  Without it the budget
 * held the handlers to a fifth and a program at --period 100000 still ran 2-3x.  0: not
 * measured (inherited events, POSIX timers, SONDE_CLOCK_TICK_COST=0).
 */
extern uint64_t clock_tick_cost;
/* The thread's CPU time in ns (the budget's clock: a handler's wall time held the other
 * processes' time on a busy machine), 0 if unknown.  Handler-safe. */
uint64_t clock_cpu_now(void);
extern int clock_armed;
/* 1: one inherited event for the process, samples by SIGTRAP/TRAP_PERF (see above); set by
 * start(). */
extern int clock_inherit;
/* 1: a POSIX CPU-time timer per thread (timer_create(CLOCK_THREAD_CPUTIME_ID)), no perf
 * event: see source-clock.c; set by start() or, for "auto", by the first thread_start. */
extern int clock_posix;
/* 1 (the default; SONDE_CLOCK_PREV=0: 0): a sample's window of accesses starts at the
 * instruction before the PC (source-clock-sig.c, on_tick) */
extern int clock_prev;
/* the inherited event's and POSIX timers' budget divisor (CLOCK_BUDGET_DIV_LONG, or
 * SONDE_CLOCK_BUDGET_DIV) */
extern uint64_t clock_budget_div_long;
/* threads of this process whose timer_create failed (unsampled) */
extern uint64_t clock_timer_failed;
/* sigev_value of those timers: tells their signals from others of the sample signal */
#define CLOCK_TIMER_SIG_VALUE 0x50de
/* attr.sig_data of the inherited event: tells its TRAP_PERF from other perf SIGTRAPs */
#define CLOCK_SIG_DATA 0x50de0c10c4ull

/* Name of a cause of enum clock_drop ("busy", "in-step", ...), at most 15 characters.
 * Handler-safe. */
const char *clock_drop_name(int why);

/* rt_source.drops: t's counts by cause of enum clock_drop.  Handler-safe. */
int clock_drops(const struct rt_thread *t, const char **names, uint64_t *counts, int max);

/* The program's SIGTRAP disposition when the source started (chained to). */
extern struct sigaction clock_old_sigtrap;

/*
 * For a sigaction()/signal() interposer: while the clock source owns SIGTRAP, the program's
 * new SIGTRAP disposition must not replace our handler (single-steps would reach the
 * program).  Returns 1 if the source owns SIGTRAP: *old (if not NULL) gets the program's
 * previous disposition, *act (if not NULL) becomes the one chained to for traps that are not
 * ours; the caller must then NOT call the real sigaction.  Returns 0 otherwise.
 * Not handler-safe (a program calling sigaction from a handler is served, racily).
 */
int clock_sigtrap_divert(const struct sigaction *act, struct sigaction *old);

/* The signal handlers.  clock_on_trap also takes the samples of the inherited event. */
void clock_on_sample(int sig, siginfo_t *si, void *uc);
void clock_on_trap(int sig, siginfo_t *si, void *uc);

#endif /* SONDE_RT_SOURCE_CLOCK_H */
