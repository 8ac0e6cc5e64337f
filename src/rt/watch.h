/* SPDX-License-Identifier: MIT */
/*
 * watch.h - the debug-register manager: hardware watchpoints (and breakpoints) on a thread,
 * through perf_event_open(PERF_TYPE_BREAKPOINT).
 *
 * A thread has a watch set of up to WATCH_HW_SLOTS slots (x86: 4 debug registers); each
 * slot is one breakpoint event (one fd) armed on one address.  Under the soft backend a
 * set has WATCH_MAX_SLOTS, of which a tool uses WATCH_HW_SLOTS unless it asks for more
 * (watch_limit).  Any thread may arm a slot of
 * any profiled thread of the process: the event is opened on the target's tid and its
 * signal goes to the target, so a trap always runs its callback in the thread that made
 * the access.
 *
 * Delivery: each event fd has O_ASYNC, F_SETSIG rt_cfg.sig_watch and F_SETOWN_EX
 * F_OWNER_TID (the target).  The handler finds the slot by si_fd.  attr.sigtrap (Linux
 * >= 5.13) is cheaper per trap: 4.0 against 7.1 us on an earlier kernel of the dev VM,
 * 12 against 22-25 us on Linux 6.18, where the O_ASYNC signal's irq_work (a self-IPI in
 * the guest) is most of a trap (bench/watch-ioctl.sh).  But it raises SIGTRAP, which the
 * clock source's single-stepping and any debugger already own: an event delivers by
 * sigtrap only where the clock source routes SIGTRAP to us and the tool asked for it
 * (variance, two traps per sample; see watch_sigtrap below); comm and reuse keep the
 * signal of our own.  watch_probe_run() tells `sonde info` whether the machine has it.
 *
 * Trap IP: x86 data watchpoints are trap-like.  The context handed to the callback is the
 * state AFTER the access: its RIP is the instruction that follows the accessing one (the
 * tool decodes backwards or takes the previous instruction).  Execute breakpoints
 * (WATCH_X) are fault-like: RIP is the breakpointed instruction itself.
 *
 * Concurrency: the set of a thread is guarded by a small lock taken by arm/modify/disarm
 * (from any thread) and by the trap handler (in the owner).  It is never waited on for
 * long: a contended arm returns -EAGAIN (drop the sample).  Everything here is
 * handler-safe (no malloc, stdio or blocking locks) except where marked "not in a handler".
 *
 * Re-arms and queued signals: a trap's signal may still be queued when the slot is re-armed
 * on the same fd (by another thread, or while T's handler was busy).  The slot keeps the
 * event's count read just before each re-arm; a signal that finds the count not moved
 * past it belongs to an earlier arming and is ignored (stale).  One read(2) per arm and per
 * trap.  Known limit: a trap of the old arming that lands between that read and the
 * re-arm's ioctl (a few instructions) is reported with the new arming's cookie.
 *
 * Backends.  The engine has two, chosen once at start-up (watch_backend_init) and invisible
 * to tools: "hw", the debug registers above, and "soft", for programs built by sonde-cc,
 * where the inst source's callbacks (source-inst.c) see every load and store the compiled
 * code makes and compare it with the calling thread's armed slots.  A soft trap has no
 * signal: the callback runs the dispatch directly, before the access, with uc == NULL and
 * si == NULL, and knows the access exactly (struct watch_trap says what each backend fills).
 * Soft watchpoints see only accesses in code compiled by sonde-cc: not libc's (memcpy,
 * memset, string functions), not the kernel's (hardware excludes the kernel too), not the
 * runtime's.  sonde-cc instruments `x++` as a load then a store: an RW soft watch traps
 * twice on it where the hardware traps once on `addl`; a W watch traps once in both.
 * Soft execute breakpoints (WATCH_X) fire only in programs compiled with `sonde-cc
 * --sonde-calls`, whose function-entry hook calls watch_soft_exec (before the function's
 * body, as the fault-like hardware breakpoint; the trap's access_addr is the function's
 * return-address slot, what RSP addresses at a hardware X trap).  Those hooks also report
 * the call's write of the return slot (a store of 8 bytes, before the entry) and the
 * return's read of it (a load of 8 bytes at the function's exit hook, before the return;
 * both traps give the function's entry as ip),
 * so an RW soft watch on a return slot traps at the return, as the hardware's does after
 * `ret`.  watch_soft_calls says whether such hooks ran.  With neither
 * (no trapping debug registers, program not built by sonde-cc), watch_arm fails with
 * -EOPNOTSUPP and watch_backend_why() says why.
 *
 * Soft fast path: the inst callbacks keep, per thread (TLS), a copy of the calling
 * thread's filters (the pages and words of its armed slots, struct watch_soft_head) stamped
 * with watch_soft_gen, which every soft slot change by another thread moves (a thread's
 * changes to its own set only mark its own copy stale).  An access tests its page's bit
 * in the copy and compares the stamp with watch_soft_gen: a thread with no slot armed, or
 * an access in a page away from its slots, goes no further, whatever other threads have
 * armed.  Past the page, the words filter, then the armed slots' ranges (watch_soft_match: the
 * armed-slot mask, acquire, published after the slot's fields).  A candidate is confirmed
 * under the set's lock before dispatch, so an access racing with another thread's arm may
 * or may not trap but never dispatches a slot it does not overlap.
 */
#ifndef SONDE_RT_WATCH_H
#define SONDE_RT_WATCH_H

#include <signal.h>
#include <stdint.h>
#include <ucontext.h>

#include "rt/rt.h"

#define WATCH_HW_SLOTS 4	/* x86-64: DR0-DR3 */
/* The slots of a set: the soft backend's limit (its `armed` mask is 32 bits; one page a
 * set either way); the hw backend uses WATCH_HW_SLOTS of them.  4 for both until
 * 2026-11-27, when sampled `sonde reuse` on sonde-cc programs wanted more watched uses at
 * once than a thread has debug registers (doc/sonde-reuse.md, "Slots"). */
#define WATCH_MAX_SLOTS 32

/* Access types (values of linux/hw_breakpoint.h).  x86 has no read-only watchpoint. */
enum watch_type {
	WATCH_W = 2,	/* HW_BREAKPOINT_W: writes */
	WATCH_RW = 3,	/* HW_BREAKPOINT_RW: reads and writes */
	WATCH_X = 4,	/* HW_BREAKPOINT_X: execution of the instruction at addr; len must be 8 */
};

/* What watch_arm does when every slot of the thread is armed. */
enum watch_policy {
	WATCH_REFUSE = 0,	/* take an empty slot or fail with -ENOSPC */
	WATCH_RESERVOIR,	/* Witch: visit slots in shuffled order, replace each with
				 * probability 1 / (1 + offers since it was armed from empty);
				 * if none is picked, -ENOSPC.  A replacement does not restart
				 * the count, so with one slot every address offered since it
				 * was empty is kept with the same probability (Vitter's R).
				 * Offers = watch_arm calls on the thread. */
	WATCH_OLDEST,		/* replace the slot armed longest ago */
	WATCH_NEWEST,		/* replace the slot armed last */
};

/* Flags of struct watch_req. */
#define WATCH_PERSIST 0x1	/* stay armed after a trap (default: one-shot, disabled on trap) */
#define WATCH_ALIGN 0x2		/* widen [addr, addr+len) to the smallest aligned 1/2/4/8-byte
				 * block covering it, instead of failing with -EINVAL */
#define WATCH_CALLS 0x4		/* soft: a return-slot watch that only the call hooks of
				 * `sonde-cc --sonde-calls` check (the call's write, the
				 * return's read), not every load and store of the program,
				 * which then keeps its fast path; hw: ignored */
#define WATCH_OVERLAP 0x8	/* may watch bytes another slot of the thread watches (each
				 * slot traps on its own: a debug register each, one trap
				 * call each); without it such an arm fails with -EEXIST, and
				 * with it too under attr.sigtrap delivery (hw), where two
				 * traps of one access merge into one SIGTRAP */

struct rt_thread;

/* Values of watch_trap.stored. */
#define WATCH_TRAP_LOAD 0
#define WATCH_TRAP_STORE 1	/* a store or a read-modify-write */
#define WATCH_TRAP_UNKNOWN (-1)

/*
 * A trap as the tool's trap hook (struct rt_tool) sees it, and as watch_current_trap()
 * gives it to a slot's own callback.  The first six fields are the same in both backends;
 * the access fields are exact in soft and approximate in hw:
 *
 *   field        soft (sonde-cc callbacks)          hw (debug registers)
 *   ip           the accessing instruction          RIP after the access (the next
 *                                                    instruction); X: the breakpoint
 *   access_addr  the accessed address               the watched block's address
 *   access_len   bytes accessed (1..16)             0 (the hardware does not say)
 *   stored       LOAD or STORE                      STORE for W, UNKNOWN for RW, LOAD for X
 *   si           NULL                               the signal's info
 *   soft         1                                  0
 */
struct watch_trap {
	int slot;
	void *cookie;		/* the arming request's cookie */
	uint64_t addr;		/* the watched block */
	uint32_t len;
	int type;		/* enum watch_type */
	const siginfo_t *si;
	uint64_t ip;
	uint64_t access_addr;
	uint32_t access_len;
	int stored;		/* WATCH_TRAP_* */
	int soft;
	/* hw, with watch_stamp_traps(1): the clocks read first thing in the signal's handler,
	 * before the engine's own work (its lock, a read of the event's count, the slot's
	 * bookkeeping: ~2 us on the development VM), in ns: CLOCK_MONOTONIC (in_before_ns),
	 * CLOCK_THREAD_CPUTIME_ID (in_cpu_ns), CLOCK_MONOTONIC again (in_ns); a tool that
	 * reads CPU time inside time takes in_cpu_ns and in_ns, a pair read as time then CPU
	 * time elsewhere takes in_before_ns and in_cpu_ns (watch-calib.c: its rounds' two
	 * clocks must agree within 0.5 us, and one clock read in between is ~0.55 us here).
	 * `stamped` 0 when they were not read (soft traps, a trap found merged into a step's
	 * signal). */
	int stamped;
	int64_t in_before_ns, in_cpu_ns, in_ns;
};

/*
 * Called in the target thread after a one-shot slot was disarmed (hw: its event is disabled
 * after the callback returns, unless the callback re-armed the slot, which then costs one
 * MODIFY_ATTRIBUTES and no DISABLE), never while t is busy in
 * the runtime (such traps are dropped and counted).  t is not claimed: a callback that
 * records claims it (rt_enter/rt_leave, rt/thread.h), which also keeps t's sample handler
 * out - necessary for soft traps, which no blocked signal protects.  It may arm, modify or
 * disarm slots (its own set's lock is not held).
 * hw: from the watch signal handler (on the sigaltstack, with rt_cfg.sig_sample, SIGTRAP
 * and the watch signal blocked); `uc` is the context after the access (see above), `si`
 * the signal's info.  soft: from the instrumented program's access callback, before the
 * access; `uc` and `si` are NULL.  Both: watch_current_trap(t) gives the whole trap.
 */
typedef void (*watch_fn)(struct rt_thread *t, int slot, void *cookie, const ucontext_t *uc,
			 const siginfo_t *si);

#define WATCH_SOFT_MAX_LEN 64	/* the soft backend's widest block (a cache line) */

struct watch_req {
	uint64_t addr;
	uint32_t len;		/* 1, 2, 4 or 8, addr aligned to it (see WATCH_ALIGN); X: 8;
				 * soft backend only: also 16, 32 or 64, aligned (hw: -EINVAL) */
	int type;		/* enum watch_type */
	int flags;		/* WATCH_PERSIST, WATCH_ALIGN */
	int policy;		/* enum watch_policy, used only when no slot is empty */
	watch_fn on_trap;	/* NULL: the active tool's trap hook (struct rt_tool), or the
				 * trap is only counted when there is none */
	void *cookie;		/* passed back to on_trap, not owned */
};

/* What a slot holds now (watch_slot_get). */
struct watch_slot_info {
	int armed;		/* 1 while it can trap */
	int fd;			/* -1 if the slot never had an event */
	uint64_t addr;
	uint32_t len;
	int type;
	int flags;
	void *cookie;
	uint64_t traps;		/* traps dispatched for the current arming */
	uint64_t seq;		/* arming sequence number in the set (larger = newer) */
};

/* Counters of a set, for the report and for tests.  The soft backend opens no event:
 * opens, modifies and reopens stay 0 there, and stale counts candidates that no longer
 * matched under the lock (a racing re-arm). */
struct watch_stats {
	uint64_t offers;	/* watch_arm calls */
	uint64_t arms;		/* successful arms (including replacements) */
	uint64_t opens;		/* events opened */
	uint64_t modifies;	/* re-arms through PERF_EVENT_IOC_MODIFY_ATTRIBUTES */
	uint64_t reopens;	/* re-arms through close + open (ioctl missing or forced) */
	uint64_t replaced;	/* armed slots taken over by a policy */
	uint64_t refused;	/* arms refused: no slot (-ENOSPC) or kernel refusal */
	uint64_t traps;		/* traps dispatched to a slot */
	uint64_t stale;		/* signals for a slot no longer armed, or caused by the
				 * runtime's own accesses inside the handler: ignored */
	uint64_t dropped;	/* traps seen while the thread was busy in the runtime or the
				 * set was locked: counted, callback not called */
};

/* ---- the probe: works in any process, without the runtime's init; not in a handler ---- */

#define WATCH_PROBE_MAX 16	/* breakpoints the probe opens at most */
#define WATCH_WHY 320

/*
 * What this machine's debug registers can do, found by trying: the only debug-register
 * probe of sonde (`sonde info`, the tests and the runtime all use it).
 *
 * Opening a breakpoint is not enough: in some VMs (Firecracker) every breakpoint opens
 * but none ever fires, because the hypervisor does not pass the debug registers through.
 * So the probe also writes each watched word once and reads the event's count.
 */
struct watch_probe {
	int regs;	/* write breakpoints one thread can hold open at once (0..16) */
	int regs_err;	/* -errno of the open that failed after them (-ENOSPC on x86 after
			 * 4), 0 if WATCH_PROBE_MAX was reached */
	int fired;	/* how many of those counted the one write to their word */
	int modify;	/* PERF_EVENT_IOC_MODIFY_ATTRIBUTES on a breakpoint: 0 it moves it
			 * (the moved one counts a write at its new address and not at the
			 * old), -ENODATA the ioctl is accepted but no trap fires to show it,
			 * else the ioctl's -errno (-ENOTTY before Linux 4.17) */
	int sigtrap;	/* attr.sigtrap: 0 a hit raises SIGTRAP with TRAP_PERF and our
			 * sig_data, -ENODATA the event opens but no signal comes, else the
			 * open's -errno (-EINVAL before Linux 5.13) */
	int hypervisor;	/* CPUID: running under a hypervisor */
	char why[WATCH_WHY];	/* "" if the watchpoint tools can work here; else what is
				 * missing, why, and what to do (one sentence, no newline) */
};

/*
 * Probe the calling thread's debug registers into p (breakpoints opened, written,
 * counted and closed; nothing stays open).  The attr.sigtrap trial installs a SIGTRAP
 * handler for a moment and restores the previous one and the signal mask: call it from
 * the CLI, a test, or at start-up before any other code uses SIGTRAP.  Returns 0 if
 * traps fire on every register that opens (the watchpoint tools can work), else
 * -ENODEV (p->why says why).  Takes well under a millisecond; never waits for a trap.
 */
int watch_probe_run(struct watch_probe *p);

/* The result of one watch_probe_run in this process, run on first call (same rules).
 * Never NULL.  For the runtime's start-up and the tests' skip decisions. */
const struct watch_probe *watch_probe_cached(void);

/* 1 if the probe found traps that fire (p->regs > 0 and every one fired). */
static inline int watch_probe_fires(const struct watch_probe *p)
{
	return p->regs > 0 && p->fired == p->regs;
}

/* ---- backends: chosen at start-up ---- */

enum watch_backend_id {
	WATCH_BACKEND_NONE = 0,	/* watch_arm fails with -EOPNOTSUPP */
	WATCH_BACKEND_HW,	/* debug registers (perf_event_open breakpoints) */
	WATCH_BACKEND_SOFT,	/* the inst callbacks of a program built by sonde-cc */
};

/*
 * Choose the backend once, at start-up, before any slot is armed; not in a handler.
 * `mode` is SONDE_WATCH: "hw", "soft", "auto" (NULL, empty or anything else: auto).
 * `instrumented`: the program was built by sonde-cc (libsonde-inst.so is loaded, so the
 * inst callbacks run whatever the sample source).  The rule:
 *   auto: soft if instrumented and prefer_soft (a tool that watches data in a sonde-cc
 *         program: the callbacks are exact and ~50x cheaper a trap); else hw if a W
 *         breakpoint on a variable counts the one write made to it; else soft if
 *         instrumented; else none.
 *   hw:   hw if breakpoint events open (the firing check is only reported); else none.
 *   soft: soft if instrumented; else none.
 * Returns the backend chosen; watch_backend_why() then holds a one-line reason when it is
 * not hw, or when the check found something worth reporting ("" otherwise).
 * Until it is called the engine uses the hardware (unit tests, the CLI).
 */
int watch_backend_init(const char *mode, int instrumented, int prefer_soft);
/* Use backend `id` from now on without any check (tests); `why` may be NULL.  Only while
 * no slot is armed anywhere; sets created before keep the backend they were made with. */
void watch_backend_set(int id, const char *why);
/* The backend in use (enum watch_backend_id), its name ("hw", "soft", "none") and the
 * reason of the choice.  Handler-safe. */
int watch_backend(void);
const char *watch_backend_name(void);
const char *watch_backend_why(void);

/*
 * The trap being dispatched in t, for a slot's own callback (watch_fn) that wants the
 * exact access of a soft trap; NULL outside a callback.  Handler-safe.
 */
const struct watch_trap *watch_current_trap(struct rt_thread *t);

/*
 * on: every hw trap's signal handler reads the monotonic clock, the thread's CPU clock and
 * the monotonic clock again as it starts (watch_trap.in_*), so that a tool timing between traps can
 * leave the engine's own work in the handler out of its figure, as its own (variance:
 * "counters are paused while sonde's handlers run"); one clock_gettime system call (and
 * two vDSO reads) more a trap.  Off by default.  Set before arming; handler-safe.
 */
void watch_stamp_traps(int on);

/* ---- the soft backend's entry points (source-inst.c) ---- */

/* Soft data slots armed in the process (all threads; execute breakpoints and WATCH_CALLS
 * slots are counted in watch_soft_calls_live instead); the callbacks' fast path reads it
 * relaxed and does nothing more while it is 0. */
extern int watch_soft_live __attribute__((visibility("hidden")));
/* Have the load and store callbacks anything to do in this process: the inst source
 * samples (set at its start), or a soft data slot was armed once (set by the engine before
 * the slot is published; never cleared).  0: every callback returns after this one load,
 * as libsonde-inst.so's no-ops return at once.  Under a clock source (sonde variance) the
 * callbacks draw no sample (their countdown is never started) and the call hooks' slots
 * (execute and WATCH_CALLS) are not theirs to check: `mix` built with --sonde-calls, whose
 * loop makes two callbacks a round, took 1.13x of native's CPU time with their whole fast
 * path and no sample at all (doc/sonde-variance.md, "Costs").  On a line of its own: read
 * by every access of every thread, written once. */
struct inst_callbacks_line {
	int on;		/* 0, INST_ON, INST_ON_EVERY or INST_ON_WATCHED */
} __attribute__((aligned(64)));
/* on: the callbacks' full fast path (the countdown, the soft-watch filters) */
#define INST_ON 1
/* on: a tool takes every access (rt_inst_every) and no soft data slot was ever armed in
 * the process: a profiled thread's countdown stays at 1 (period 1) and its filters empty,
 * so the callbacks test the countdown for 1 and go straight to the tool's hook, with no
 * decrement, no filter and no store of the countdown (16 instructions an access fewer than
 * the full path, `sonde reuse --exact`: bench/reuse.sh callgrind, 197.2 against 213.2 at
 * 59434c1, doc/sonde-reuse.md).  A countdown not at 1 (a thread not profiled: 0) takes the
 * full path.  Set by rt_inst_every with a compare-and-swap from INST_ON only. */
#define INST_ON_EVERY 3
/* on: the full path as INST_ON, for good: a soft data slot was armed (the first arm sets it
 * before the slot is published, from 0, INST_ON or INST_ON_EVERY).  Not INST_ON, so that an
 * rt_inst_every running beside the arm cannot turn the every-only path on again
 * (tests/unit/u-watch-every.c). */
#define INST_ON_WATCHED 5
extern struct inst_callbacks_line inst_callbacks_line __attribute__((visibility("hidden")));
/* watch_soft_gen moves (release) after every change of a soft data slot's state made by a
 * thread other than the set's owner: the load/store callbacks keep a per-thread copy of
 * their own set's filters (pages, words) and refresh it when this differs from the copy's
 * stamp.  Read relaxed on every access of every thread: on a cache line of its own, so
 * that the counters every arm writes (watch_soft_live) do not evict it. */
struct watch_soft_gen_line {
	unsigned gen;
} __attribute__((aligned(64)));
extern struct watch_soft_gen_line watch_soft_gen_line __attribute__((visibility("hidden")));
#define watch_soft_gen (watch_soft_gen_line.gen)
/* The calling thread armed or disarmed one of its own soft data slots: its callbacks'
 * copy is out of date, nobody else's (watch_soft_gen does not move, so other threads keep
 * their fast path).  Called by the engine after the change is published.  Handler-safe. */
void watch_soft_changed_self(void);
/* t->watch after watch_thread_release. */
#define WATCH_SET_DEAD 1

/* The words filter: WATCH_SOFT_FILTER_WORDS 64-bit words, a bit for each hash of an
 * 8-byte word.  A multiplicative hash, so that neither a sweep nor a power-of-two stride
 * maps every access onto one armed slot's bit.  An access to a word that no slot holds
 * passes with a chance of about (armed words)/2048: 32 slots of 8 bytes, 1 in 64; a
 * 16-byte access tests 2-3 words (1 in 16 with one 64-bit word until 2026-11-26, 512 bits
 * until 2026-11-27: each pass a mispredicted branch and the callbacks' slow path, for
 * sampled `sonde reuse`'s slots spread over the arrays; doc/sonde-reuse.md, "Cost" and
 * "Slots"). */
#define WATCH_SOFT_FILTER_WORDS 32
#define WATCH_SOFT_FILTER_SHIFT 53	/* 64 - log2(64 * WATCH_SOFT_FILTER_WORDS) */
/* The longest access a load/store callback reports (__sanitizer_cov_load16): the pages
 * filter covers the accesses of up to this many bytes that start before a range and end
 * in it. */
#define WATCH_SOFT_MAX_ACCESS 16

/* The beginning of every watch set: what the callbacks' check reads (each thread's copy
 * of its own: source-inst.c).  Written under the set's lock; the filters cover every
 * armed slot (widened before a slot is published in `armed`, narrowed after it left). */
/* The pages filter: WATCH_SOFT_PAGE_WORDS 64-bit words, bit p % (64 x that) for page p.
 * 64 bits until 2026-11-27, when 32 slots (sampled `sonde reuse`) set half of them and let
 * half the accesses on to the words filter (NPB MG.W on one thread, CPU 2.8x of the
 * program where 4 slots took 1.5x: doc/sonde-reuse.md, "Slots"). */
#define WATCH_SOFT_PAGE_WORDS 4
struct watch_soft_head {
	unsigned armed;		/* bit i: slot i is armed */
	/* bit p % 256: an access of up to WATCH_SOFT_MAX_ACCESS bytes starting in page p
	 * (4 KiB) may overlap an armed range (watch_soft_pages) */
	uint64_t pages[WATCH_SOFT_PAGE_WORDS];
	/* bit watch_soft_bit(g) of this bitmap: an armed range may hold 8-byte word g */
	uint64_t words[WATCH_SOFT_FILTER_WORDS];
};

/* Word g's bit in the filter. */
static inline uint64_t watch_soft_bit(uint64_t g)
{
	return (g * 0x9e3779b97f4a7c15ull) >> WATCH_SOFT_FILTER_SHIFT;
}

/* Is word g's bit set in filter f? */
static inline int watch_soft_has(const uint64_t *f, uint64_t g)
{
	uint64_t b = watch_soft_bit(g);

	return (int)((__atomic_load_n(&f[b / 64], __ATOMIC_RELAXED) >> (b % 64)) & 1);
}

/* Set in f the bits of the words that [addr, addr+len) touches (all of them when it
 * touches more words than the filter has bits). */
static inline void watch_soft_words(uint64_t *f, uint64_t addr, uint64_t len)
{
	uint64_t g0 = addr >> 3, g1 = (addr + (len ? len : 1) - 1) >> 3;

	if (g1 - g0 >= 64 * WATCH_SOFT_FILTER_WORDS) {
		for (int i = 0; i < WATCH_SOFT_FILTER_WORDS; i++)
			f[i] = ~0ull;
		return;
	}
	for (uint64_t g = g0; g <= g1; g++) {
		uint64_t b = watch_soft_bit(g);
		f[b / 64] |= 1ull << (b % 64);
	}
}

/* Set in pages filter f the bits of range [addr, addr+len): the pages in which an access of
 * up to WATCH_SOFT_MAX_ACCESS bytes that overlaps it can start, by their low 8 bits (a
 * sweep meets an armed range's bit for one page in 256, in a run that a branch predicts;
 * a stride of 256 pages falls on one bit, and then the words filter sorts it out). */
static inline void watch_soft_pages(uint64_t *f, uint64_t addr, uint64_t len)
{
	uint64_t lo = addr > WATCH_SOFT_MAX_ACCESS - 1 ? addr - (WATCH_SOFT_MAX_ACCESS - 1) : 0;
	uint64_t p0 = lo >> 12, p1 = (addr + (len ? len : 1) - 1) >> 12;

	if (p1 - p0 >= 64 * WATCH_SOFT_PAGE_WORDS - 1) {
		for (int i = 0; i < WATCH_SOFT_PAGE_WORDS; i++)
			f[i] = ~0ull;
		return;
	}
	for (uint64_t p = p0; p <= p1; p++)
		f[(p / 64) % WATCH_SOFT_PAGE_WORDS] |= 1ull << (p % 64);
}

/* Is page p's bit set in pages filter f? */
static inline int watch_soft_page_has(const uint64_t *f, uint64_t p)
{
	return (int)((f[(p / 64) % WATCH_SOFT_PAGE_WORDS] >> (p % 64)) & 1);
}

/* Slots of t (bit i = slot i) whose armed range [addr, addr+len) overlaps and whose type
 * the access honours (W: stores only); 0 if none.  Lock-free; handler-safe. */
unsigned watch_soft_match(struct rt_thread *t, uint64_t addr, uint32_t len, int store);
/* Dispatch the slots of `mask` that still match, as a hardware trap would (see watch_fn),
 * for an access at ip.  Drops (counts) when t is busy in the runtime.  Handler-safe. */
void watch_soft_trap(struct rt_thread *t, unsigned mask, uint64_t addr, uint32_t len,
		     int store, uint64_t ip);

/* Dispatch the armed soft execute breakpoints of t on function entry `fn`, whose return
 * address is at `slot` (the function-entry hook of `sonde-cc --sonde-calls`, source-inst.c).
 * The trap's ip is fn, access_addr the slot.  Handler-safe. */
void watch_soft_exec(struct rt_thread *t, uint64_t fn, uint64_t slot);
/* Soft execute breakpoints and WATCH_CALLS watches armed in the process: the call hooks'
 * slow path reads it (and watch_soft_live); the load/store callbacks do not. */
extern int watch_soft_calls_live __attribute__((visibility("hidden")));
/* 1 once a function-entry hook of `sonde-cc --sonde-calls` ran in the process. */
extern int watch_soft_calls __attribute__((visibility("hidden")));
/* The call hooks' one word: watch_soft_calls_live + watch_soft_live, plus 1 until the
 * first entry hook noted watch_soft_calls; the hooks do nothing more while it is 0.  One
 * load where they made three (both counts, and watch_soft_calls at every entry).  What it
 * gains shows only where the load/store callbacks cost nothing: `calls` built with
 * --sonde-calls, with no sample, 1.038x of native's CPU time without it and 1.000x with
 * it while the (since withdrawn) callbacks' flag was in; 1.038x with it alone
 * (doc/sonde-variance.md, "Costs", part 8). */
extern int watch_soft_hooks __attribute__((visibility("hidden")));

/* ---- process-wide ---- */

/* Install the trap handler on rt_cfg.sig_watch (SA_SIGINFO | SA_ONSTACK | SA_RESTART,
 * blocking rt_cfg.sig_sample and SIGTRAP).  -EINVAL if rt_cfg.sig_watch is 0.  Not in a
 * handler. */
int watch_start(void);
/* Restore the handler that watch_start replaced.  Not in a handler. */
void watch_stop(void);
/* 1 between watch_start and watch_stop: the hw backend arms only then (-ENOTCONN). */
int watch_is_started(void);
/*
 * What one hw trap costs the thread it hits outside any handler (debug exception, signal
 * delivery, sigreturn), in wall and thread-CPU ns (watch-calib.c).  The first call
 * measures it in thread t (a starting thread that does not sample yet; after
 * watch_start) and later calls return the same; 0, 0 with another backend, where no trap
 * fires, or with SONDE_TRAP_CALIBRATE=0.  Not in a handler for the first call; then any.
 */
void watch_trap_cost(struct rt_thread *t, int64_t *time_ns, int64_t *cpu_ns);
/*
 * What a call keeps of the two traps that time it as variance times a function: an
 * execute trap at its first instruction, whose callback re-arms that slot on the return
 * address (one MODIFY), then that watch's trap at the return; from the first callback's
 * end to the second's start (the leaf is one `ret`).  Measured as watch_trap_cost is, on
 * its own first call (30 ms more); where that gives 0 (no executable page for the leaf,
 * no trap from it) or with SONDE_TRAP_CALIBRATE=store, watch_trap_cost's measure, 0 where
 * that gives 0.  *probe_ns (may be NULL): what
 * watch_probe_ns read in the rounds the cost was picked from (their median), 0 if none.
 */
void watch_call_cost(struct rt_thread *t, int64_t *time_ns, int64_t *cpu_ns, int64_t *probe_ns);
/*
 * The trap's cost moves with the kernel's speed, which moves on its own: on this project's
 * KVM guests a bare debug trap costs ~12.2 us for 10-100 ms at a time, then ~15.7 (per
 * vCPU, independently), a getppid(2) 0.20 us then 0.26-0.27, while user code keeps its
 * speed (bench/watch-levels.sh; doc/sonde-variance.md, "The traps' cost moves with the
 * kernel's speed").  A calibration at start sees one level; the instances of a run in the
 * other keep or lose 3-4 us each.  watch_probe_ns times the fastest of 3 getppid calls
 * (~0.7 us with the clock reads): a caller scales the calibrated cost by it over the
 * calibration's probe (watch_call_cost).  Handler-safe.
 */
int64_t watch_probe_ns(void);
/* The calibration's probe from n rounds (wall, cpu, probe; not reordered): the median
 * probe of the clean rounds whose CPU time is within CALIB_WINDOW_NS of cost_cpu, else of
 * all rounds with a probe; 0 if none.  Pure; any context. */
int64_t watch_calib_probe(const int64_t *wall, const int64_t *cpu, const int64_t *probe, int n,
			  int64_t cost_cpu);
/*
 * The calibration's pick from n rounds' wall and CPU times (ns; both arrays are
 * reordered): of the clean rounds (wall within CALIB_CLEAN_NS of CPU time: nothing else
 * ran on the thread's CPU nor took it), the lowest window of CALIB_DENSE rounds within
 * CALIB_WINDOW_NS of CPU time, and its third lowest.  0; -EAGAIN when no such window
 * exists among 3 or more clean rounds (the third lowest clean round is given), and always
 * when fewer than 3 are clean (the third lowest of all rounds is given, no window sought);
 * -EINVAL if n < 3.  Pure; any context.
 */
#define CALIB_CLEAN_NS 500
#define CALIB_DENSE 8
#define CALIB_WINDOW_NS 500
int watch_calib_pick(int64_t *wall, int64_t *cpu, int n, int64_t *cost_wall, int64_t *cost_cpu);
/* Force the close + open re-arm path in every set (tests, and kernels whose ioctl is
 * broken); the ioctl path is also abandoned by a set after its first failure. */
void watch_force_reopen(int on);

/* ---- per thread ---- */

/*
 * Create t's watch set (mmap'd, published on t->watch) if it has none.  Any thread may
 * call it; watch_arm calls it on first use.  0 or -errno (-ENOMEM).
 */
int watch_thread_init(struct rt_thread *t);
/*
 * Close t's events and free its set; t->watch becomes NULL.  Call at t's end; no other
 * thread may arm t during or after it (a tool removes t from its thread list first).
 */
void watch_thread_release(struct rt_thread *t);
/* In a fork child: forget the set inherited from the parent (its events belong to the
 * parent's threads), closing the inherited fds.  The memory is the child's copy; it is
 * reset, not unmapped. */
void watch_after_fork_child(struct rt_thread *t);
/* Use at most n slots of t (1..watch_slots_max(); WATCH_HW_SLOTS until called); armed
 * slots beyond n are disarmed.  0, -EINVAL (n out of range), or the set's errors. */
int watch_limit(struct rt_thread *t, int n);
/* The slots a thread's set can have under the backend chosen: WATCH_MAX_SLOTS for soft,
 * WATCH_HW_SLOTS else. */
int watch_slots_max(void);

/*
 * Arm a watchpoint in thread t (the caller's own or another profiled thread of the
 * process).  Takes an empty slot (never armed, disarmed, or one-shot already fired),
 * else asks r->policy for a victim.  Returns the slot index (>= 0) or:
 *   -EINVAL   bad len/type, addr not aligned to len (without WATCH_ALIGN), or no single
 *             aligned block of <= 8 bytes covers the range (soft: also 16/32/64 aligned)
 *   -EFAULT   page 0 or a non-user address
 *   -EPERM    the runtime's own memory (rt_owns_address, t's arena, altstack or set), or
 *             t's errno, which the runtime's handlers save and restore
 *   -EEXIST   the range overlaps a slot of t that is armed now
 *   -ENOSPC   every usable slot is armed and the policy kept them all
 *   -EAGAIN   t's set is busy (another thread is arming it): drop the sample
 *   -EDEADLK  called inside a handler that interrupted an arm of the same set
 *   -EOPNOTSUPP  no backend (watch_backend_why), or WATCH_X with the soft backend
 *   other     perf_event_open's error (EACCES, ESRCH if t's tid is gone, ...)
 * Nothing leaks on failure.  Handler-safe.
 */
int watch_arm(struct rt_thread *t, const struct watch_req *r);
/* Re-arm slot `slot` of t on r's address/len/type (cookie, callback, flags from r; policy
 * ignored).  Same errors as watch_arm; -ENOENT if the slot has no event (soft: was never
 * armed since the set was made or the slot closed by watch_limit).  Handler-safe. */
int watch_modify(struct rt_thread *t, int slot, const struct watch_req *r);
/* A tool's slot re-armed on r: watch_modify of `slot`, or watch_arm where it is -1 or has
 * no event (-ENOENT: closed, or never armed); the slot armed (maybe another) or -errno.
 * Handler-safe. */
int watch_rearm(struct rt_thread *t, int slot, const struct watch_req *r);
/* Stop slot `slot` trapping; its event stays open for the next arm.  0, -EINVAL, -EAGAIN.
 * Handler-safe. */
int watch_disarm(struct rt_thread *t, int slot);
/* Stop slot `slot` trapping and close its event (hw): the next arm opens a new one (an
 * open and a close cost ~8 us, a MODIFY 2-3).  A disabled breakpoint event still costs at
 * each of its thread's context switches (bench/watch-switch.sh, this VM: ~0.6 us a switch
 * with its events disabled, ~0.15 once closed, 1.2-1.7 with one or two enabled); a tool
 * whose slots sit idle across many switches (variance on OpenMP programs) closes them.
 * Soft: as watch_disarm.  0, -EINVAL, -EAGAIN.  Handler-safe (close(2)). */
int watch_release(struct rt_thread *t, int slot);
/* Disarm every slot of t.  Handler-safe. */
void watch_disarm_all(struct rt_thread *t);

/* Snapshot of a slot.  0 or -EINVAL (no set, bad slot).  Handler-safe. */
int watch_slot_get(struct rt_thread *t, int slot, struct watch_slot_info *out);
/* Snapshot of t's counters (zeros if t has no set).  Handler-safe. */
void watch_stats_get(struct rt_thread *t, struct watch_stats *out);

/*
 * Trap delivery by attr.sigtrap.  The engine's own real-time signal (O_ASYNC, F_SETSIG)
 * goes through the kernel's irq_work, a self-IPI: on the Linux 6.18 VM a W trap costs
 * 22-25 us with it and 12 us with attr.sigtrap, whose SIGTRAP is raised by task_work on
 * the way back to user space; one variance instance's cycle (two traps and the engine's
 * system calls) 66 us against 33 us (bench/watch-ioctl.sh).  SIGTRAP is not ours, so
 * sigtrap events are opened only when both hold:
 *   - the sample source owns SIGTRAP's handler and hands our traps to watch_sigtrap
 *     (watch_sigtrap_route(1): the clock source, on a kernel that delivers a blocked
 *     sigtrap when it is unblocked, Linux 6.1 on, instead of killing the program);
 *   - the tool asked for it (watch_prefer_sigtrap(1); SONDE_WATCH_SIGTRAP=0 refuses).
 * A slot's event keeps the delivery it was opened with.  SIGTRAP is a standard signal:
 * a watch trap taken in the same debug exception as the clock source's single-step has
 * its signal merged into the step's; the step's handler calls watch_sigtrap_poll, which
 * finds such a trap by its count and dispatches it there (the step's context is the
 * trap's: after the access).  Persistent slots are not polled.
 */
void watch_sigtrap_route(int on);
/* Not in a handler (reads the environment). */
void watch_prefer_sigtrap(int on);
/* Internal (watch.c -> watch-sig.c). */
void watch_sigtrap_want(int on);
/* 1 once an event delivering by sigtrap was opened in this process (for the report). */
extern int watch_sigtrap_used;
/* Traps watch_sigtrap_poll found merged into a step's signal (for the report). */
extern uint64_t watch_sigtrap_merged;
/*
 * From the SIGTRAP handler, for a TRAP_PERF signal whose si_perf_data is `data`: 1 if it
 * is a watch trap (dispatched, or counted stale), 0 if not ours.  `late`: si_perf_flags
 * has TRAP_PERF_FLAG_ASYNC (the trap was taken while SIGTRAP was blocked and comes at the
 * unblock, in the wrong context): counted stale, never dispatched.  Handler-safe.
 */
int watch_sigtrap(uint64_t data, int late, siginfo_t *si, void *uc);
/* From the SIGTRAP handler at a single-step trap, before anything else: dispatch the
 * one-shot sigtrap slots whose trap's signal was merged into the step's.  Handler-safe. */
void watch_sigtrap_poll(siginfo_t *si, void *uc);

/* The signal handler itself (installed by watch_start; exported for runtimes that chain). */
void watch_signal(int sig, siginfo_t *si, void *uc);

/* Internal (watch.c, used by watch-sig.c): the breakpoint attr every event of the module
 * uses, so PERF_EVENT_IOC_MODIFY_ATTRIBUTES sees identical fields but addr/len/type/disabled.
 * Handler-safe. */
struct perf_event_attr;
void watch_bp_attr(struct perf_event_attr *a, uint64_t addr, uint32_t len, int type,
		   int disabled);

#endif /* SONDE_RT_WATCH_H */
