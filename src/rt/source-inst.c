/* SPDX-License-Identifier: MIT */
/*
 * source-inst.c - the `inst` sample source: compiler-instrumented loads and stores.
 *
 * A program built by sonde-cc calls __sanitizer_cov_loadN(addr) / __sanitizer_cov_storeN(addr)
 * just before each load or store of N bytes.  It is linked against libsonde-inst.so (no-op
 * definitions, inst-stub.c); this file defines the same symbols, exported from the preloaded
 * libsonde.so, which therefore wins by symbol lookup order while the program is profiled.
 *
 * Per thread, a TLS countdown holds the accesses left before the next sample.  The fast path
 * is one decrement of it in memory and a branch; every `period`-th access (every access in
 * exact mode, period 1) takes the slow path, which hands the access to the tool.  The
 * thread's access count (stats.accesses) is kept lazily: `period` is added per sample, and the
 * remainder of the last window when the thread stops.
 *
 * Threads that are not profiled (or run before the runtime starts) have a countdown of 0
 * (TLS starts zeroed): the first decrement wraps it to 2^64 - 1, so they never reach the slow
 * path.  The callbacks run wherever the program loads or stores, signal handlers included:
 * everything here is handler-safe, and the decrement is a single read-modify-write
 * instruction so a handler interrupting it cannot lose or double a count.
 *
 * The callbacks also serve the watchpoint engine's soft backend (watch.h): each access is
 * compared with the bounds of the calling thread's armed slots, kept in the same TLS block
 * as the countdown (struct inst_tls), and a hit is dispatched right here, before the
 * access, as a hardware trap would be.  That works whatever the sample source: only the
 * program needs to be built by sonde-cc.
 */
#include <errno.h>
#include <link.h>
#include <string.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>

#include "rt/decode-x86.h"
#include "rt/rt.h"
#include "rt/watch.h"
#include "rt/sigsafe.h"

/* A prime, so that the sampled accesses do not lock step with a loop's body. */
#define INST_DEFAULT_PERIOD 10007

/* Frames to skip above the runtime's own when unwinding a sample: none.  ctx_unwind already
 * skips every frame in libsonde.so (inst_sample, the __sanitizer_cov_* callback), so the path
 * starts in the instrumented function, at the access. */
#define INST_SKIP 0

/* Per-thread cache of return address -> accessing instruction: INST_FIX_SETS sets of
 * INST_FIX_WAYS, the oldest entry of a full set replaced (64 KiB of the thread's arena,
 * touched as call sites arrive).  A miss decodes the code after the call site, read with
 * process_vm_readv: 512 direct-mapped entries missed on 3% of miniFE's accesses under
 * --exact (2.0 million system calls at -nx 20, 3 s of its 9).  That is when every access
 * or nearly is taken (rt_inst_every, comm --exact's period 1): the cache is whole from the
 * start.  At a period of INST_FIX_SPARSE or more the sites, hashed all over 64 KiB, touched
 * a page each: 96 KB of `sonde comm`'s peak on commbench's 5 threads at the default period
 * (perf record -e minor-faults, 2026-11-26).  There the thread starts with the first
 * INST_FIX_SETS_SPARSE sets (4 KiB, one page; the rest is reserved in the arena, which is
 * MAP_NORESERVE: not touched, not resident) and grows to all INST_FIX_SETS after
 * INST_FIX_GROW misses: a program of many sites (5,122 sampled at period 1000, review of
 * 2026-11-26) missed on 80% of its samples with 64 sets, 97,318 code reads, 1.82x its CPU
 * time where period 999 (the whole cache) took 1.51x.  A small program's sites fit in the
 * 256 entries and it stays at one page (commbench: t056). */
#define INST_FIX_WAYS 4
#define INST_FIX_SETS 1024
#define INST_FIX_SETS_SPARSE 64
#define INST_FIX_SPARSE 1000
#define INST_FIX_GROW 256
#define INST_FIX_SET(ret, mask) ((((ret) * 0x9E3779B97F4A7C15ull) >> 40) & (mask))

struct inst_fix {
	uint64_t ret, ip;
};

/* The callbacks' slots in struct inst_tls's `last`: one per width and direction. */
#define INST_FIX_SLOTS 10
static inline int inst_fix_slot(uint16_t len, uint16_t flags)
{
	int w = len >= 16 ? 4 : len >= 8 ? 3 : len >= 4 ? 2 : len >= 2 ? 1 : 0;
	return (flags & SONDE_MEM_STORE ? 5 : 0) + w;
}

/* The source's per-thread state (t->src, from the thread's arena): the cache, an array
 * of inst_tls.fix_mask + 1 sets. */
typedef struct inst_fix inst_fix_set[INST_FIX_WAYS];

static uint64_t inst_period = INST_DEFAULT_PERIOD;
/* rt_inst_jitter: each window's length is drawn around the period, not the period */
static int inst_jitter;
/* rt_inst_probe: the tool's hook at one random access of each window, NULL none */
static rt_inst_probe_fn inst_probe_fn;

/*
 * The callbacks' per-thread state, in one TLS block (one GOT load reaches all of it): the
 * sampling countdown, and the thread's own copy of its soft-watch filters (watch.h's
 * struct watch_soft_head): `pages`, the pages where an access may overlap one of the
 * thread's armed data slots (0: none), and `words`, the words filter (watch_soft_bit;
 * after the rest, which every access reads).  The copy is refreshed in the slow path
 * whenever the process-wide watch_soft_gen differs from `gen` (a soft slot of some thread
 * changed), so a thread with nothing armed, or an access in a page away from its slots,
 * costs a shift and a bit test, never a pointer chase into the set.
 */
struct __attribute__((aligned(64))) inst_tls {
	/* the fast path's fields, in the first line (aligned: 44 bytes, where a TLS block
	 * placed at 32 modulo 64 put `gen` and the last pages word in a second line, review
	 * of 2026-11-27) */
	uint64_t countdown;
	uint64_t pages[WATCH_SOFT_PAGE_WORDS];
	unsigned gen;
	int active;		/* between thread_start and thread_stop */
	int dirty;		/* the thread changed its own set (watch_soft_changed_self) */
	uint32_t fix_mask;	/* its cache's sets in use - 1 (inst_thread_start, inst_fix_grow) */
	uint32_t fix_misses;	/* the cache's misses while it is not whole (inst_fix_grow) */
	/* the every-access path's last call site and its instruction, one per callback
	 * (inst_fix_slot): checked before the thread's cache (inst_every) */
	struct inst_fix last[INST_FIX_SLOTS];
	uint64_t words[WATCH_SOFT_FILTER_WORDS];
	/* rt_inst_probe: the window's accesses after its probe, counted down from the
	 * probe on; 0 while the countdown runs to the window's end (inst_begin) */
	uint64_t rest;
	uint64_t probe_rng;	/* the probes' draws (rt_rand_split: rt_rand's stay put) */
};

static RT_TLS struct inst_tls inst_tls;

struct inst_callbacks_line inst_callbacks_line;		/* watch.h */
_Static_assert(sizeof(struct inst_callbacks_line) == 64, "a line of its own");
#define inst_countdown inst_tls.countdown
#define inst_active inst_tls.active

/*
 * Which instruction after the call site made the access (decode_call_access): the
 * instruction after the call, or a later one when clang put a spill reload first.
 * Decoded by decode_access_lite, not by Zydis: this is the source's one use of a decoder,
 * and libZydis's pages were 272 KB of `sonde comm`'s resident memory on commbench
 * (bench/memory.sh, 2026-11-26 13:13 UTC).  An instruction the lite decoder does not
 * cover ends the search and is taken to be the access (decode_call_access): u-decode-lite
 * counts how often the answer differs from Zydis's.
 */
static SIGSAFE uint64_t access_ip(uint64_t ret, uint64_t addr, int store, uint64_t rsp,
				  uint64_t rbp)
{
	uint8_t code[DECODE_CALL_WINDOW * 15];
	long n = decode_read_code(ret, code, sizeof(code));

	return decode_call_access(decode_access_lite, code, n, ret, addr, store, rsp, rbp);
}

/* access_ip through the thread's cache: a call site always resolves the same way.  The cache
 * is the inst source's (t->src); under another source t->src is not ours: no cache. */
static SIGSAFE uint64_t access_ip_cached(struct rt_thread *t, uint64_t ret, uint64_t addr,
					 int store, uint64_t rsp, uint64_t rbp)
{
	inst_fix_set *c = rt_source == &rt_source_inst ? t->src : NULL;
	struct inst_fix *set = c ? c[INST_FIX_SET(ret, inst_tls.fix_mask)] : NULL;

	for (int w = 0; set && w < INST_FIX_WAYS; w++)
		if (set[w].ret == ret)
			return set[w].ip;
	uint64_t ip = access_ip(ret, addr, store, rsp, rbp);

	if (set && inst_tls.fix_mask != INST_FIX_SETS - 1 &&
	    ++inst_tls.fix_misses >= INST_FIX_GROW) {
		/* all the sets from now on (reserved at thread start: no allocation here).  A
		 * handler's lookup between the two masks indexes within the array either way,
		 * and every entry, wherever it sits, is a true ret -> ip: the entries of the
		 * first sets stay valid, found again if their site hashes there. */
		inst_tls.fix_mask = INST_FIX_SETS - 1;
		set = c[INST_FIX_SET(ret, inst_tls.fix_mask)];
	}
	if (set) {	/* the newest first: the oldest drops off the end */
		for (int w = INST_FIX_WAYS - 1; w > 0; w--)
			set[w] = set[w - 1];
		set[0] = (struct inst_fix){ .ret = ret, .ip = ip };
	}
	return ip;
}

/*
 * The next window's length: the period, or with rt_inst_jitter one drawn uniformly in
 * [period - period/2, period + period/2] (mean the period, so a sample still stands for
 * `period` accesses).  A fixed window locks onto a loop whose accesses per iteration divide
 * it (or period mod it) evenly: every thread then samples the same access of the loop
 * body, in the same relation to the others, for the whole run (the comm ring: 4 accesses
 * a round, 1009 = 1 mod 4).
 */
static SIGSAFE uint64_t inst_window(struct rt_thread *t)
{
	uint64_t half = inst_period / 2;

	if (!inst_jitter || !half)
		return inst_period;
	return inst_period - half + rt_rand(t) % (2 * half + 1);
}

/*
 * Start a window of w accesses: the countdown and the count move by the same amount (the
 * count stays stats.accesses + period - countdown: rt_inst_accesses).  With a probe
 * (rt_inst_probe) the countdown runs first to the probe's access, drawn uniformly in
 * [1, w - 1], and then, from inst_sample, the rest of the window: the samples keep their
 * places (the window estimates count on their even spacing: doc/sonde-reuse.md) and the
 * probes are at random.  `rest` is set before the countdown moves, so a handler's access
 * that runs it out in between finds the probe due.
 */
static SIGSAFE void inst_begin(struct rt_thread *t, uint64_t w)
{
	uint64_t first = w;

	if (inst_probe_fn && w >= 2) {
		first = 1 + rt_rand_next(&inst_tls.probe_rng) % (w - 1);
		inst_tls.rest = w - first;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	}
	inst_countdown += first;
	t->stats.accesses += first;
}

/* The countdown reached a window's probe: the rest of the window, then the tool's hook. */
static __attribute__((noinline)) SIGSAFE void inst_probe_due(struct rt_thread *t, uint64_t addr)
{
	uint64_t rest = inst_tls.rest;

	inst_tls.rest = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	inst_countdown += rest;
	t->stats.accesses += rest;
	inst_probe_fn(t, addr);
}

/*
 * The slow path: the countdown reached 0.  Start the next window first (a handler running
 * instrumented code from here on counts against it), then deliver the access.  `frame` is
 * the callback's frame: the instrumented code's rbp, then the return address, and its rsp
 * just above them.
 */
static __attribute__((noinline, cold)) SIGSAFE void inst_sample(uint64_t addr, uint16_t len,
								uint16_t flags,
								const uint64_t *frame)
{
	struct rt_thread *t = rt_self();

	if (!t || t->stopped)
		return;
	if (inst_tls.rest) {	/* the window's probe (rt_inst_probe), not its end */
		inst_probe_due(t, addr);
		return;
	}
	/* The count stays the accesses so far + period - countdown (rt_inst_accesses): a
	 * window of w accesses adds w to both. */
	uint64_t w = inst_window(t);

	inst_begin(t, w);
	if (inst_probe_fn && w < 2)	/* a window of one access: the sample is its probe */
		inst_probe_fn(t, addr);

	/* .time 0: a tool that wants the time reads the clock itself (every tool does when it
	 * is 0); reuse --exact delivers every access and never reads it (a vDSO clock read,
	 * ~5% of its instructions) */
	struct rt_access a = {
		.ip = frame[1],
		.addr = addr,
		.weight = 1,
		.len = len,
		.flags = flags,
	};
	if (!t->busy)
		a.ip = access_ip_cached(t, frame[1], addr, flags & SONDE_MEM_STORE,
					(uint64_t)(uintptr_t)(frame + 2), frame[0]);
	/* The tool counts the sample (stats.samples), or rt_deliver_access the drop. */
	rt_deliver_access(t, &a, NULL, INST_SKIP);
}

/* rt_inst_every's tool hook, NULL when the source samples. */
static rt_inst_every_fn inst_every_fn;

/* The access's instruction from the thread's cache, inline (it hits but at a call site's
 * first access); 0 on a miss, or without the cache (then access_ip_cached's full path:
 * inst_every_miss). */
static inline SIGSAFE uint64_t inst_ip_hit(struct rt_thread *t, const uint64_t *frame)
{
	const inst_fix_set *c = t->src;
	uint64_t ret = frame[1];

	if (__builtin_expect(c != NULL, 1)) {
		const struct inst_fix *set = c[INST_FIX_SET(ret, inst_tls.fix_mask)];
		for (int w = 0; w < INST_FIX_WAYS; w++)
			if (__builtin_expect(set[w].ret == ret, 1))
				return set[w].ip;	/* never 0: access_ip gives ret or a later rip */
	}
	return 0;
}

/* inst_every's hook call when the thread's cache does not know the call site: out of line,
 * so that inst_every's own frame keeps only t across its call (registers saved and restored
 * at every access otherwise: bench/reuse.sh callgrind). */
static __attribute__((noinline)) SIGSAFE struct rt_thread *
inst_every_miss(struct rt_thread *t, uint64_t addr, uint16_t len, uint16_t flags,
		const uint64_t *frame)
{
	int store = (flags & (SONDE_MEM_STORE | SONDE_MEM_RMW)) != 0;

	return inst_every_fn(t, addr, len, flags,
			     access_ip_cached(t, frame[1], addr, store,
					      (uint64_t)(uintptr_t)(frame + 2), frame[0]));
}

/*
 * The slow path when a tool takes every access (rt_inst_every, period 1): the countdown
 * reached 0 at every access.  Count it, then hand it to the tool directly, with t's busy
 * flag raised.
 *
 * busy is raised before stopped is read, as in rt_enter, but with no fence: the
 * process's end (rt_finish_all, in another thread) raises stopped and then issues
 * rt_inst_every_barrier, a membarrier that runs a full barrier in every running thread.
 * Either this thread read stopped after that barrier (and sees it: the access is
 * dropped), or its busy store came before it and the finisher sees busy and waits for the
 * hook to return before it reads the tool's tables (thread_end).  Reading stopped first,
 * as this did before, let a finisher that read busy between the two flush and zero the
 * tool's per-thread tables (reuse's pairs and histograms) while the hook was adding to
 * them.  The tool's own record writes fence again (rt_inst_every_may_record).
 */
static inline __attribute__((always_inline)) SIGSAFE void inst_every(uint64_t addr, uint16_t len,
							 uint16_t flags, const uint64_t *frame,
							 const int decremented)
{
	struct rt_thread *t = rt_self_tls;

	/* A store of 1, not `+= 1`: a program's signal handler running instrumented code
	 * between the callback's decrement to 0 and this line wraps the count to 2^64-1
	 * (not due), and an add then left it wrapped, the thread's every later access
	 * silently not taken (a SIGALRM every 200 us whose handler loads: 57-124k accesses
	 * of 400k recorded, review of 2026-11-26; t517).  The handler's own accesses in that
	 * window are still not counted.  (The every-only path, INST_ON_EVERY, found the
	 * countdown at 1 and left it there: nothing to restore; a handler's callback that
	 * decrements it, the mode having changed meanwhile, restores it itself.) */
	if (decremented)
		__atomic_store_n(&inst_countdown, 1, __ATOMIC_RELAXED);
	if (!t)
		return;
	t->stats.accesses++;
	if (t->busy) {
		t->stats.dropped++;
		return;
	}
	t->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(t->stopped, 0)) {
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->busy = 0;
		t->stats.dropped++;
		return;
	}
	/* the instruction: the callback's last call site's (one compare; RIBench's loop, a
	 * load and a store from one site each, always hits it), else the thread's cache's,
	 * which then becomes the last (written while busy: no handler's access reads it
	 * half written), else inst_every_miss decodes it */
	struct inst_fix *last = &inst_tls.last[inst_fix_slot(len, flags)];
	uint64_t ret = frame[1], ip;
	if (__builtin_expect(last->ret == ret, 1)) {
		t = inst_every_fn(t, addr, len, flags, last->ip);
	} else if ((ip = inst_ip_hit(t, frame)) != 0) {
		last->ret = 0;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		last->ip = ip;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		last->ret = ret;
		t = inst_every_fn(t, addr, len, flags, ip);
	} else {
		t = inst_every_miss(t, addr, len, flags, frame);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->busy = 0;
}

/* The membarrier command rt_inst_every_barrier issues: the private expedited one if the
 * registration worked (Linux 4.14; a fork child keeps it, an exec'd image registers
 * again in its constructor), else the global one (4.3: slower, a grace period), 0 when
 * neither exists (then inst_every's window, between raising busy and reading stopped, is
 * unguarded: at most the one access in flight per thread). */
static int inst_barrier_cmd;

int rt_inst_every(rt_inst_every_fn fn)
{
	if (rt_source != &rt_source_inst)
		return -ENOTSUP;
	inst_period = 1;	/* after inst_start: the tool starts after its source */
	rt_cfg.period = 1;
	long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
	if (cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
	    syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
		inst_barrier_cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED;
	else if (cmds > 0 && (cmds & MEMBARRIER_CMD_GLOBAL))
		inst_barrier_cmd = MEMBARRIER_CMD_GLOBAL;
	inst_every_fn = fn;
	/* The callbacks' every-only path (watch.h), last: it calls inst_every_fn at once.
	 * From INST_ON only: once a soft data slot was armed the mode is INST_ON_WATCHED for
	 * good (watch-sig.c, slot_state), and a compare-and-swap, unlike a test of
	 * watch_soft_live followed by a store, cannot undo an arm made in between. */
	int on = INST_ON;

	__atomic_compare_exchange_n(&inst_callbacks_line.on, &on, INST_ON_EVERY, 0,
				    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
	return 0;
}

int rt_inst_probe(rt_inst_probe_fn fn)
{
	if (rt_source != &rt_source_inst || inst_every_fn)
		return -ENOTSUP;
	inst_probe_fn = fn;
	return 0;
}

int rt_inst_jitter(void)
{
	if (rt_source != &rt_source_inst)
		return -ENOTSUP;
	inst_jitter = 1;
	return 0;
}

/* rt.h: after raising other threads' stopped, before waiting for their busy. */
SIGSAFE void rt_inst_every_barrier(void)
{
	if (inst_every_fn && inst_barrier_cmd)
		syscall(SYS_membarrier, inst_barrier_cmd, 0, 0);
}

/* rt.h: the thread's exact access count so far (the access being delivered or trapped
 * included).  Exact only for the calling thread: another thread's count is off by up to
 * a window (its countdown is thread-local): it lags by at most one period without
 * jitter; with jitter it may also lead by half a period.  Before the thread's first
 * sample (with rt_inst_probe, its first probe) t->stats.accesses is below 0 modulo 2^64,
 * and so is the STATS record's `accesses` of a thread the process's end finished then:
 * comm turns jitter on and reuse probes, and neither's report reads it (reuse writes this
 * count in its own record). */
SIGSAFE uint64_t rt_inst_accesses(struct rt_thread *t)
{
	if (t == rt_self())
		return inst_active ? t->stats.accesses + inst_period - inst_countdown :
				     t->stats.accesses;
	/* another thread's, from its countdown, which it moves at every access: to the
	 * access, but at the moment its window turns (inst_sample moves the countdown, then
	 * the count: a few instructions in a window of `period` accesses), when the two
	 * reads can straddle the turn and be a window off */
	const uint64_t *cd = __atomic_load_n(&t->inst_left, __ATOMIC_ACQUIRE);
	uint64_t a = __atomic_load_n(&t->stats.accesses, __ATOMIC_RELAXED);
	if (!cd)
		return a;
	return a + inst_period - __atomic_load_n(cd, __ATOMIC_RELAXED);
}

/* A slot of the thread is armed: does this access hit it?  The accessing instruction is
 * found only on a hit.  `frame` as for inst_sample. */
static __attribute__((noinline, cold)) SIGSAFE void inst_watch_mine(struct rt_thread *t,
								    uint64_t addr, uint16_t len,
								    uint16_t flags,
								    const uint64_t *frame)
{
	int store = (flags & (SONDE_MEM_STORE | SONDE_MEM_RMW)) != 0;
	unsigned hit = watch_soft_match(t, addr, len, store);

	if (!hit)
		return;
	uint64_t ip = frame[1];
	if (!t->busy)
		ip = access_ip_cached(t, frame[1], addr, store, (uint64_t)(uintptr_t)(frame + 2),
				      frame[0]);
	watch_soft_trap(t, hit, addr, len, store, ip);
}

/* Does the thread's filter copy have a bit of the words an access of len <= 16 bytes
 * touches (len is a constant in every callback)?  Only the thread itself writes the copy: plain loads.  An access of up to 8
 * bytes within one word (the aligned ones) hashes that word alone: the second word's hash
 * and load were taken at every access near an armed slot, which is nearly every access of
 * sampled `sonde reuse` (its slots spread over the arrays). */
static inline SIGSAFE int inst_words(const struct inst_tls *x, uint64_t addr, uint32_t len)
{
	uint64_t b = watch_soft_bit(addr >> 3);
	uint64_t m = x->words[b / 64] >> (b % 64);

	if (len > 8 || __builtin_expect((addr & 7) + len > 8, 0)) {
		b = watch_soft_bit((addr + len - 1) >> 3);
		m |= x->words[b / 64] >> (b % 64);
		if (len > 8) {
			b = watch_soft_bit((addr >> 3) + 1);
			m |= x->words[b / 64] >> (b % 64);
		}
	}
	return (int)(m & 1);
}

/* Can an access at addr (of at most WATCH_SOFT_MAX_ACCESS bytes) touch the thread's armed
 * slots?  Its page's bit in the pages filter (watch_soft_pages), with nothing armed never.
 * Until 2026-11-26 this compared addr with the bounds of all the armed slots, which let
 * nearly every access through to the words filter once slots were spread over the
 * program's arrays (sampled `sonde reuse`: 4 slots in each thread, its own and the
 * other threads'): that filter's hash and load at every access were most of its cost on
 * RIBench (bench/reuse.sh, doc/sonde-reuse.md). */
static inline SIGSAFE int inst_near(const struct inst_tls *x, uint64_t addr)
{
	return watch_soft_page_has(x->pages, addr >> 12);
}

/* Refresh the thread's filter copy from its watch set: watch_soft_gen is read (acquire)
 * before the set's head, so a copy is never older than the generation it is stamped with;
 * a change by another thread after the read moves the generation again and the next
 * access refreshes.  A change of the thread's own set (watch_soft_changed_self) may come
 * from a handler interrupting this very refresh: it sets `dirty`, which is checked after
 * the stamp, so the copy is then stamped stale and refreshed again at the next access. */
static __attribute__((noinline, cold)) SIGSAFE void inst_watch_sync(struct inst_tls *x)
{
	x->dirty = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	unsigned gen = __atomic_load_n(&watch_soft_gen, __ATOMIC_ACQUIRE);
	const struct rt_thread *t = rt_self_tls;
	const struct watch_soft_head *h =
		t ? __atomic_load_n((void *const *)&t->watch, __ATOMIC_ACQUIRE) : NULL;
	uint64_t pages[WATCH_SOFT_PAGE_WORDS] = { 0 }, words[WATCH_SOFT_FILTER_WORDS] = { 0 };

	if ((uintptr_t)h > WATCH_SET_DEAD && __atomic_load_n(&h->armed, __ATOMIC_ACQUIRE)) {
		for (int i = 0; i < WATCH_SOFT_PAGE_WORDS; i++)
			pages[i] = __atomic_load_n(&h->pages[i], __ATOMIC_RELAXED);
		for (int i = 0; i < WATCH_SOFT_FILTER_WORDS; i++)
			words[i] = __atomic_load_n(&h->words[i], __ATOMIC_RELAXED);
	}
	for (int i = 0; i < WATCH_SOFT_PAGE_WORDS; i++)
		x->pages[i] = pages[i];
	for (int i = 0; i < WATCH_SOFT_FILTER_WORDS; i++)
		x->words[i] = words[i];
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	x->gen = gen;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (x->dirty)
		x->gen = ~gen;
}

/* watch.h: the calling thread changed its own soft slots; only its own copy is stale. */
SIGSAFE void watch_soft_changed_self(void)
{
	struct inst_tls *x = &inst_tls;

	x->dirty = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	x->gen = ~__atomic_load_n(&watch_soft_gen, __ATOMIC_RELAXED);
}

/* Either slow path: the countdown reached 0 (`due`), and/or the access is near the
 * thread's armed slots, and/or the filter copy is out of date (checked last, so that
 * without a sample it is a tail call). */
static __attribute__((noinline, cold)) SIGSAFE void inst_slow(uint64_t addr, uint16_t len,
							      uint16_t flags, int due,
							      const uint64_t *frame)
{
	struct inst_tls *x = &inst_tls;

	if (__builtin_expect(due, 0)) {
		if (inst_every_fn)
			inst_every(addr, len, flags, frame, 1);
		else
			inst_sample(addr, len, flags, frame);
	}
	if (x->gen != __atomic_load_n(&watch_soft_gen, __ATOMIC_RELAXED))
		inst_watch_sync(x);
	if (!inst_near(x, addr) || !inst_words(x, addr, len))
		return;
	struct rt_thread *t = rt_self();
	if (t)
		inst_watch_mine(t, addr, len, flags, frame);
}

/* The callbacks set up their frame first, on the fast path too: a sample or trap that
 * lands in one unwinds through it by frame pointer (without it, the instrumented function
 * that called it was skipped: t809 counted 1 OpenMP region instance of 200).  gcc's
 * shrink-wrapping would move the frame into the slow paths once the fast path is small
 * enough (it did, 2026-11-26, when the every-access test became one branch).  The return of
 * the "nothing to do" flag (inst_callbacks_line) comes after the frame too: returning before
 * it (6e7bc5d), a clock sample in a callback saw the leaf PC in libsonde.so and the chain
 * from the caller's caller, so the instrumented function was never picked from there, and
 * sonde variance measured main's OpenMP region of omp-names.cc (t047) in 0 of 6 runs, 1 of 5
 * with the flag and no frame on this tree; 20 of 20 with the frame (13:15-13:19 UTC). */
#define INST_FRAMED __attribute__((optimize("no-shrink-wrap")))
/* Each callback and call hook starts a 64-byte line (aligned(64) below): with the flag's
 * path 8 instructions, where they fell in their lines set the cost.  `mix` built with
 * --sonde-calls, the runtime with no sample (sonde variance -p 1e12), CPU time over native,
 * 4 alternating rounds at 13:56-13:58 UTC, load 11-12: 1.06-1.07x as linked (load8 at
 * 0x...ad0, the entry hook at 0x...5a0), 1.00-1.03x aligned; 1.00-1.01x for the build
 * before the flag (its full fast path, at other addresses). */

/*
 * One callback per width and direction.  While nothing in the process needs them
 * (inst_callbacks_line.on, watch.h: no inst source, no soft data slot ever armed: sonde
 * variance, whose clock samples and call-hook slots are not theirs) they return after one
 * load of a line nobody writes.  Else the fast path is the countdown's decrement, the
 * thread's pages filter (inst_near on its TLS copy), one load of watch_soft_gen and one
 * branch on the three, with no frame; then, in a page near an armed slot, the inline words
 * filter; with rt_inst_every's hook (due at every access) and no soft watch near (tested
 * first: 4 instructions, where the three flags' test took 9), inst_every, inline
 * (until 2026-11-26 a function of its own, called: its frame, the call and the argument
 * moves were 15 of --exact's ~256 instructions an access on RIBench, bench/reuse.sh
 * callgrind; the hook returns t so that the callback keeps no register across its call,
 * which would be pushed and popped at every access of the sampled modes too).  The frame
 * is set up first (INST_FRAMED).
 * The slow path builds a frame
 * (asked for by __builtin_frame_address), which gives inst_sample and inst_watch the
 * instrumented code's rbp, rsp and return address.  The empty asm after the call keeps it
 * from becoming a tail call, so that the callback's frame is there for the unwinder too.
 */
#define INST_CALLBACK(name, len, flags)                                                  \
	RT_EXPORT SIGSAFE INST_FRAMED __attribute__((aligned(64))) void name(void *addr)                           \
	{                                                                                \
		int on = __atomic_load_n(&inst_callbacks_line.on, __ATOMIC_RELAXED);    \
		if (__builtin_expect(!on, 1))                                            \
			return;                                                          \
		struct inst_tls *x = &inst_tls;                                          \
		uint64_t a = (uint64_t)(uintptr_t)addr;                                  \
		if (__builtin_expect(on == INST_ON_EVERY, 0) && x->countdown == 1) {    \
			inst_every(a, len, flags, __builtin_frame_address(0), 0);        \
			asm volatile("");                                                \
			return;                                                          \
		}                                                                        \
		unsigned gen = __atomic_load_n(&watch_soft_gen, __ATOMIC_RELAXED);       \
		int due = --x->countdown == 0;                                           \
		int stale = gen != x->gen;                                               \
		int watch = stale | inst_near(x, a);                                     \
		if (__builtin_expect(due | watch, 0)) {                                  \
			if (!watch) { /* due alone: every access (one branch), a sample */ \
				if (inst_every_fn) {                                     \
					inst_every(a, len, flags,                        \
						   __builtin_frame_address(0), 1);       \
					asm volatile("");                                \
					return;                                          \
				}                                                        \
			} else if (!(due | stale) && !inst_words(x, a, len)) {           \
				return;                                                  \
			}                                                                \
			inst_slow(a, len, flags, due, __builtin_frame_address(0));       \
			asm volatile("");                                                \
		}                                                                        \
	}

INST_CALLBACK(__sanitizer_cov_load1, 1, 0)
INST_CALLBACK(__sanitizer_cov_load2, 2, 0)
INST_CALLBACK(__sanitizer_cov_load4, 4, 0)
INST_CALLBACK(__sanitizer_cov_load8, 8, 0)
INST_CALLBACK(__sanitizer_cov_load16, 16, 0)
INST_CALLBACK(__sanitizer_cov_store1, 1, SONDE_MEM_STORE)
INST_CALLBACK(__sanitizer_cov_store2, 2, SONDE_MEM_STORE)
INST_CALLBACK(__sanitizer_cov_store4, 4, SONDE_MEM_STORE)
INST_CALLBACK(__sanitizer_cov_store8, 8, SONDE_MEM_STORE)
INST_CALLBACK(__sanitizer_cov_store16, 16, SONDE_MEM_STORE)

/*
 * Function entry and exit hooks of `sonde-cc --sonde-calls` (clang
 * -finstrument-functions-after-inlining: a call after the prologue and one before each
 * return of every function left after inlining).  They serve the soft backend's execute
 * breakpoints and return watches (watch.h): at entry, the call's write of the return slot
 * and then the entry itself; at exit, the return's read of the slot.  The instrumented code
 * keeps its frame pointer (sonde-cc adds -fno-omit-frame-pointer), so the hook's saved rbp
 * is the function's rbp and its return slot is the word above it.  Fast path: one load
 * of watch_soft_hooks (watch.h); the first entry also notes that the hooks exist
 * (watch_soft_calls), in the slow path.
 */
int watch_soft_calls;

static __attribute__((noinline, cold)) SIGSAFE void inst_call_slow(uint64_t fn,
								   const uint64_t *frame,
								   int entry)
{
	/* The first entry hook: the hooks exist (variance's report), and the 1 it held in
	 * the hooks' word goes (once, whichever thread comes first). */
	if (entry && __builtin_expect(!__atomic_load_n(&watch_soft_calls, __ATOMIC_RELAXED), 0) &&
	    !__atomic_exchange_n(&watch_soft_calls, 1, __ATOMIC_RELAXED))
		__atomic_fetch_sub(&watch_soft_hooks, 1, __ATOMIC_RELEASE);
	if (!(__atomic_load_n(&watch_soft_calls_live, __ATOMIC_RELAXED) |
	      __atomic_load_n(&watch_soft_live, __ATOMIC_RELAXED)))
		return;
	struct rt_thread *t = rt_self();

	if (!t || t->stopped || !frame || !frame[0])
		return;
	uint64_t slot = frame[0] + 8;
	/* Not the data filters: they leave out the WATCH_CALLS slots checked here. */
	unsigned hit = watch_soft_match(t, slot, 8, entry);
	if (hit)
		watch_soft_trap(t, hit, slot, 8, entry, fn);
	if (entry)
		watch_soft_exec(t, fn, slot);
}

RT_EXPORT SIGSAFE __attribute__((aligned(64))) void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)site;
	if (__builtin_expect(__atomic_load_n(&watch_soft_hooks, __ATOMIC_RELAXED) != 0, 0)) {
		inst_call_slow((uint64_t)(uintptr_t)fn, __builtin_frame_address(0), 1);
		asm volatile("");
	}
}

RT_EXPORT SIGSAFE __attribute__((aligned(64))) void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	if (__builtin_expect(__atomic_load_n(&watch_soft_hooks, __ATOMIC_RELAXED) != 0, 0)) {
		inst_call_slow((uint64_t)(uintptr_t)fn, __builtin_frame_address(0), 0);
		asm volatile("");
	}
}

/* ---- the source interface (never called from a handler) ---- */

static int find_stub(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *name = info->dlpi_name;
	const char *slash = name ? strrchr(name, '/') : NULL;

	(void)size;
	(void)data;
	return name && !strcmp(slash ? slash + 1 : name, "libsonde-inst.so");
}

/*
 * The source only sees code compiled by sonde-cc, which links every such program (and
 * library) against libsonde-inst.so: if that is not loaded, no callback will ever come.
 */
int rt_inst_built(void)
{
	return dl_iterate_phdr(find_stub, NULL) != 0;
}

/* sonde-cc --sonde-calls-only: the call hooks without the access callbacks (the
 * executable imports the one, none of the other), so no access to count.  Read from the
 * executable once (the probe is asked two or three times at start). */
static int calls_only(void)
{
	static const char cov[] = "__sanitizer_cov_";
	static int v = -1;
	if (v < 0)
		v = rt_exe_imports("__cyg_profile_func_enter") &&
		    !rt_exe_imports_n(cov, sizeof(cov) - 1);
	return v;
}

static int inst_probe(char *why, size_t len)
{
	int built = rt_inst_built();
	if (built && calls_only()) {
		if (why && len) {
			/* (not "without --sonde-calls-only": a plain sonde-cc build has no
			 * hooks, which variance times instances with; the review of 2026-11-30) */
			strncpy(why, "the program was built by sonde-cc --sonde-calls-only (call "
				     "hooks, no access callbacks); rebuild it with sonde-cc "
				     "--sonde-calls (both) to use the inst source", len - 1);
			why[len - 1] = 0;
		}
		return -ENOEXEC;
	}
	if (built)
		return 0;
	if (why && len) {
		strncpy(why, "the program was not built by sonde-cc (libsonde-inst.so is not loaded); "
			     "rebuild it with sonde-cc to use the inst source", len - 1);
		why[len - 1] = 0;
	}
	return -ENOENT;
}

static int inst_start(void)
{
	inst_period = rt_cfg.period ? rt_cfg.period : INST_DEFAULT_PERIOD;
	/* no decode_init (access_ip decodes without libZydis), but the code reads' pid,
	 * which decode_init set: without it every read asked getpid */
	decode_after_fork();
	/* from 0 only: never over an INST_ON_WATCHED */
	int off = 0;

	__atomic_compare_exchange_n(&inst_callbacks_line.on, &off, INST_ON, 0, __ATOMIC_RELEASE,
				    __ATOMIC_RELAXED);
	return 0;
}

/* Without its cache (arena full) the thread still samples, decoding at every sample. */
static int inst_thread_start(struct rt_thread *t)
{
	uint32_t sets = inst_every_fn || inst_period < INST_FIX_SPARSE ? INST_FIX_SETS :
								      INST_FIX_SETS_SPARSE;

	/* room for the whole cache; only the sets in use are touched */
	t->src = arena_alloc(&t->arena, INST_FIX_SETS * sizeof(inst_fix_set));
	inst_tls.fix_mask = sets - 1;
	inst_tls.fix_misses = 0;
	/* With jitter the first window is a random phase in [1, period], not a window: a
	 * window of at least period/2 would leave every thread's first period/2 accesses
	 * unsampled (about half a sample a thread missing; a thread of period accesses got
	 * half a sample where it should get one).  Without jitter it stays the period.  (The
	 * phase was withdrawn once, 9e8d7ed: it sampled main's one-time fill in commbench
	 * readonly, which comm's detector then counted 16,144 where t404 allows 11,361; the
	 * detector's over-count of that fill is mended, doc/sonde-comm.md.) */
	uint64_t w = inst_jitter ? 1 + rt_rand(t) % inst_period : inst_period;
	/* accesses + period - countdown stays the count (modulo 2^64: below 0 while the
	 * countdown runs a first window shorter than the period, or to its probe) */
	inst_tls.rest = 0;
	inst_tls.probe_rng = rt_rand_split(t, 0x70726f6265ull);
	inst_countdown = 0;
	t->stats.accesses -= inst_period;
	inst_begin(t, w);
	inst_active = 1;
	__atomic_store_n(&t->inst_left, &inst_countdown, __ATOMIC_RELEASE);
	return 0;
}

/* SONDE_DEBUG: the thread's cache size at its end (t056 checks that it grows only for a
 * program of many sites).  write(2) alone: the process's end may stop a thread from a
 * handler. */
static SIGSAFE void inst_debug_cache(const struct rt_thread *t)
{
	char line[96], *e = rt_stpcpy(line, "sonde: inst: thread ");

	e = rt_u64toa(e, (uint32_t)t->tid);
	e = rt_stpcpy(e, " cache ");
	e = rt_u64toa(e, inst_tls.fix_mask + 1);
	e = rt_stpcpy(e, " sets, ");
	e = rt_u64toa(e, inst_tls.fix_misses);
	e = rt_stpcpy(e, " misses while small\n");
	if (write(2, line, (size_t)(e - line)) < 0)
		return;
}

/*
 * Count the accesses of the last, unfinished window; then no more samples.  The exchange
 * is one instruction, so a handler's accesses around it are neither lost nor doubled.  If
 * the countdown went past 0 without a sample (the thread was being stopped), it wrapped,
 * and the subtraction modulo 2^64 still gives the right count.  A second stop adds nothing.
 */
static void inst_thread_stop(struct rt_thread *t)
{
	if (!inst_active)
		return;
	inst_active = 0;
	/* before the count moves: another thread reads the count alone from now on */
	__atomic_store_n(&t->inst_left, NULL, __ATOMIC_RELEASE);
	uint64_t left = __atomic_exchange_n(&inst_countdown, 0, __ATOMIC_RELAXED);

	inst_tls.rest = 0;
	t->stats.accesses += inst_period - left;
	if (rt_cfg.debug && t->src)
		inst_debug_cache(t);
}

/*
 * In the child the parent's window is meaningless (the runtime resets the stats): stop
 * sampling; thread_start begins a fresh window if the child is profiled.
 */
static void inst_after_fork_child(struct rt_thread *t)
{
	t->src = NULL;		/* in the arena, which the runtime renews */
	decode_after_fork();	/* the child's code reads name the child */
	inst_active = 0;
	inst_countdown = 0;
	inst_tls.rest = 0;
	t->inst_left = NULL;
}

const struct rt_source rt_source_inst = {
	.name = "inst",
	.id = SONDE_SOURCE_INST,
	.default_period = INST_DEFAULT_PERIOD,
	.probe = inst_probe,
	.start = inst_start,
	.thread_start = inst_thread_start,
	.thread_stop = inst_thread_stop,
	.after_fork_child = inst_after_fork_child,
};
