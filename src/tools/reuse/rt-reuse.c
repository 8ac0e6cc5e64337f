/* SPDX-License-Identifier: MIT */
/*
 * rt-reuse.c - the `reuse` tool's runtime client (ReuseTracker).
 *
 * Sampled mode: every sampled access is offered to GlobalWP (sampler.h).  When a slot takes
 * it, the accessed 8-byte word is watched in every profiled thread: read/write in the
 * sampling thread (the owner), write-only in the others.  A trap in the owner is a reuse,
 * whose time distance is the owner's accesses in between (exact with the inst source,
 * unknown with clock: then only the time in ns is recorded); a trap elsewhere is an
 * invalidation.  Each outcome is a SEEN record; the slot is then freed in every thread.
 * The watch engine chooses the backend (debug registers, or the soft one of sonde-cc
 * programs); where neither works every watch_arm error is counted and nothing is seen.
 *
 * --exact (SONDE_REUSE_EXACT=1, the inst source at period 1): every access goes through
 * the exact engine (stack.h), which threads on different units enter at once (its locks
 * are per unit and per element); histograms and code pairs are kept per thread and
 * written at its end.
 *
 * --exact --check-sampling (SONDE_REUSE_CHECK=1): the sampled mode runs inside the exact one,
 * on the same accesses: a sample every SONDE_REUSE_CHECK_PERIOD accesses of a thread offered
 * to GlobalWP, its word watched in software here (check_every: the owner's next access to
 * it, another thread's store), each outcome a SEEN record as the watch engine's would be.
 * The model then estimates the histogram from those outcomes and compares it with the
 * exact one of the same run (model.c, reuse_check): the estimate's own error, free of two
 * runs' different thread interleavings.  Private cache only.
 *
 * Units: a thread's private cache (default; exact for up to REUSE_UNITS threads, more
 * share units modulo), or with SONDE_REUSE_SHARED=1 the socket's shared cache (read from
 * sysfs at start).  Elements: 8-byte words, or 64-byte lines with SONDE_REUSE_SPATIAL=1.
 * Handler-reachable.
 */
/* The exact engine, compiled into this file: its access is inlined in exact_every
 * (rt-stack.c, REUSE_STACK_INLINE).  It includes rt/sigsafe.h itself, so the headers
 * below come after the poisoning, which exempts system headers. */
#define REUSE_STACK_INLINE
#include "tools/reuse/rt-stack.c"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rt/rt.h"
#include "rt/thread.h"
#include "rt/sigsafe-str.h"
#include "rt/watch.h"
#include "tools/reuse/format.h"
#include "tools/reuse/sampler.h"
#include "rt/sigsafe.h"

/* Per-thread aggregation slots of code pairs (--exact): sets of PAIR_WAYS, the least
 * recently reused way of a full set flushed (a PAIR_BINS record) for a new pair.  32
 * slots, direct-mapped, thrashed on CoMD's force loop (~1000 pairs a thread): a 424-byte
 * record every ~5 accesses, 13 GB for a 0.5 s run.  Evicting the least counted way
 * instead kept stale pairs and let two new ones evict each other at every reuse.  A
 * thread starts with PAIR_SETS0 sets (512 slots, 216 KiB of its arena, touched only as
 * pairs arrive; sampled mode uses none); once it has evicted as many pairs as it has
 * slots, the pairs thrash them (miniFE 30^3: ~4000 pairs in a thread, 600 000 evictions)
 * and the table grows PAIR_GROW times in an mmap'd one (allowed in a signal handler,
 * unlike malloc), up to PAIR_SETS_MAX sets (32768 slots, 13.3 MiB). */
#define PAIR_WAYS 8
#define PAIR_SETS0 64
#define PAIR_SETS_MAX 4096
#define PAIR_GROW 4
#define PAIRS0 (PAIR_WAYS * PAIR_SETS0)
/* Hints: the slot of the last pair found for a few (use, reuse) hashes, checked before the
 * set (pair_add).  A pair is in one slot of the table at most, so a hint whose slot holds
 * the pair is right whatever happened since; a slot holding another pair is a miss. */
#define PAIR_HINTS 64
#define MAX_LIST 256		/* threads the sampler arms at once; more are not watched */
#define MAX_CPUS 1024
/* The distinct pages sampled (note_page): a bitmap of 64 pages (256 KB of address space) a
 * region; 64 regions (16 MB) a group, whose entries lie side by side (2 KB of table), the
 * groups placed by a hash of their number: a program's footprint, a few runs of adjacent
 * regions, fills a few pages of the table.  Until 2026-11-28 a hash of each page's number
 * spread 65,536 entries of one page each over 512 KB, of which each page sampled touched
 * a random page: 248-276 KB of RIBench's peak RSS (bench/memory.sh reuse), more than a
 * fifth of what reuse adds.  (Regions placed by their own number, the first form of this,
 * put two areas equal modulo 4 GB, a heap and an mmap area under ASLR, on the same entries,
 * and the probe's end lost a quarter of the later one's pages in some layouts: review.)
 * 65,536 regions: 256 MB of footprint at one page a region, 16 GB where they are full;
 * beyond, pages are not counted (the footprint is then under-estimated, as it was past
 * 65,536 pages). */
#define PAGESET_REGIONS (1u << 16)
#define PAGESET_GROUP 64	/* regions side by side in the table */
#define PAGESET_PROBE 64	/* entries tried from a region's own: 2 KB */

/* A code pair's reuses: found by `key`, the engine's two codes in one word (struct
 * reuse_outcome's `codes`: a code is its address, window and offset, one to one), so that
 * a reuse compares one word and needs no code address; the addresses are kept for the
 * set's hash and the record.  No count: the sum of dist. */
struct pair {
	uint64_t key;		/* codes (REUSE_CODE_LIVE or more each); 0: a free slot */
	uint64_t use_ip, reuse_ip, addr;
	uint64_t time;		/* rt_now() at its first reuse, at addr (the block then) */
	uint64_t last;		/* the thread's access count (stats.samples) at its latest
				 * reuse: the least recently reused way of a set is evicted
				 * (a count of reuses alone, until 2026-11-26, kept the same
				 * order one more add an access) */
	uint64_t dist[REUSE_BINS];
};

struct reuse_thread {
	struct rt_thread *t;
	int socket;		/* shared mode: where it last took a sample (or started) */
	int ws[REUSE_SLOTS];	/* the watch slot holding each GlobalWP slot, -1 none */
	uint64_t samples, armed, arm_failures, traps, stale, lost;
	uint64_t chk_left;	/* --check-sampling: accesses to the next sample or probe */
	uint64_t chk_rest;	/* --check-sampling: the window's accesses after its probe,
				 * 0 while chk_left runs to the window's end (check_begin) */
	uint64_t chk_rng;	/* --check-sampling: the probes' draws (rt_rand_split) */
	uint32_t chk_rd;	/* --check-sampling: the engine's reuse distance + 1 of the
				 * access just modelled, 0 if it was no reuse */
	uint64_t cold, inv, reuses;
	struct pair *pair;	/* pair0, or an mmap'd table of pair_sets x PAIR_WAYS */
	uint64_t pair_sets;	/* a power of 2 */
	uint64_t pair_evicted;	/* pairs flushed for others since the table was made */
	struct pair *hint[PAIR_HINTS];	/* slots of this table (PAIR_HINTS above) */
	int watch_errno;
	/* time: 64 bins in exact mode, those from REUSE_BINS - 1 on added up at the end
	 * (exact_bin); dist in exact mode: the pairs' dist added up as they are flushed (each
	 * reuse is in one pair) */
	uint64_t time[64], dist[REUSE_BINS];
	uint64_t beyond[3];	/* --exact: reuses at exact_cache[k] or further */
	uint64_t wide;		/* accesses (--exact) or samples wider than an element */
	struct pair pair0[PAIRS0];
};

static int exact_mode, shared_mode, spatial;
/* --exact: the L1, L2 and L3 data cache sizes in elements (SONDE_REUSE_CACHES, bytes, from
 * the CLI: machine.c), UINT64_MAX where unknown; each reuse at that distance or more is
 * counted (exact_hit), so that the miss ratio at the machine's own sizes is exact */
static uint64_t exact_cache[3] = { UINT64_MAX, UINT64_MAX, UINT64_MAX };
/* The calling thread's unit when it may take reuse_stack_fast (--exact, a private cache
 * whose holders bit is in the narrow word: t->index modulo REUSE_UNITS, the unit
 * exact_access gives t, below REUSE_NARROW), else NULL: a thread-local load, at a fixed offset, starts no chain of
 * loads (exact_body); and that unit's holders bit in the narrow word (1 << its number).
 * One thread-local block: one GOT load reaches both. */
static __thread __attribute__((tls_model("initial-exec"))) struct {
	struct reuse_unit *unit;
	uint32_t bit;
} fast;
static int elem_shift = 3;
static int watch_ok;
/*
 * The footprint's pages (note_page) come from the inst source's probes, one access drawn
 * at random in each sampling window (rt_inst_probe; --check-sampling's own windows alike:
 * check_begin), not from the samples, which a fixed period spaces evenly: on a sweep whose
 * length the period nearly divides they land every pass on the same few pages, or a few
 * pages on from the last pass, and Chao1, which assumes random draws, reads from them
 * nonsense.  `rbench sweep 3000000 10` (3,000,000 words) at the default period read
 * 30,000,003 (capped at the accesses): 2947 pages sampled, 2897 once, 50 twice; `sweep
 * 1000000 20` at period 100003, 11,392 (the samples on 22 pages; the usability review
 * of 2026-11-28).  Windows drawn around the period (comm's rt_inst_jitter) mend the
 * footprint but take the samples' even spacing, which the window estimates count on (a
 * trial: t522's S 0.45-0.78 against 0.99).  Other sources (the clock's, the PMU's)
 * note the samples' pages.
 */
static int probe_pages;
static uint32_t lock_word;
static struct reuse_gwp gwp;
static struct reuse_thread *list[MAX_LIST];
static int nlist;
static struct reuse_stack *stack;	/* --exact, mmap'd */
static int16_t socket_of[MAX_CPUS];
static uint32_t nsockets = 1;
struct page_region {
	uint64_t key;		/* region number + 1, 0 empty */
	uint64_t bits;		/* its pages sampled */
	uint64_t bits2, bits3;	/* sampled at least twice, three times */
};
static struct page_region *pageset;
/* sampled shared mode, per GlobalWP slot (under the lock): the owner's socket and its own
 * access count at the use (the slot's p0 is the socket's) */
static int slot_socket[REUSE_SLOTS];
static uint64_t slot_own0[REUSE_SLOTS];
static uint64_t npages, npages2, npages3;
/* --check-sampling: the sampling period (0: off), and per GlobalWP slot the watched element
 * + 1 (0: none), written under the lock, read at every access without it */
static uint64_t chk_period;
static uint64_t chk_elem[REUSE_SLOTS];
/* A filter of the watched elements (bit chk_bit(e) set for every nonzero chk_elem), read
 * at every access before the slots: 32 slots compared at every access cost more than the
 * exact engine's fast path.  A bit is set before its element is stored and the filter
 * rebuilt after one is cleared (under the lock), so a reader never misses a watched one. */
#define CHK_FILTER_WORDS 4
static uint64_t chk_filter[CHK_FILTER_WORDS];

static inline SIGSAFE unsigned chk_bit(uint64_t e)
{
	return (unsigned)((e * 0x9E3779B97F4A7C15ull) >> 56);	/* 0..255 */
}

static inline SIGSAFE int chk_maybe(uint64_t e)
{
	unsigned b = chk_bit(e);
	return (int)((__atomic_load_n(&chk_filter[b >> 6], __ATOMIC_RELAXED) >> (b & 63)) & 1);
}

/* Rebuild the filter from the slots (lock held). */
static SIGSAFE void chk_filter_rebuild(void)
{
	uint64_t f[CHK_FILTER_WORDS] = { 0 };
	for (int i = 0; i < REUSE_SLOTS; i++) {
		uint64_t e = __atomic_load_n(&chk_elem[i], __ATOMIC_RELAXED);
		if (e)
			f[chk_bit(e) >> 6] |= 1ull << (chk_bit(e) & 63);
	}
	for (int k = 0; k < CHK_FILTER_WORDS; k++)
		__atomic_store_n(&chk_filter[k], f[k], __ATOMIC_RELAXED);
}

static SIGSAFE void probe_page(struct rt_thread *t, uint64_t addr);
static SIGSAFE void check_begin(struct reuse_thread *rt, uint64_t w);
static SIGSAFE struct rt_thread *exact_every_word(struct rt_thread *t, uint64_t addr,
						  uint32_t len, uint32_t flags, uint64_t ip);
static SIGSAFE struct rt_thread *exact_every_line(struct rt_thread *t, uint64_t addr,
						  uint32_t len, uint32_t flags, uint64_t ip);
static SIGSAFE struct rt_thread *check_every_word(struct rt_thread *t, uint64_t addr,
						  uint32_t len, uint32_t flags, uint64_t ip);
static SIGSAFE struct rt_thread *check_every_line(struct rt_thread *t, uint64_t addr,
						  uint32_t len, uint32_t flags, uint64_t ip);

static uint64_t env_num(const char *name, uint64_t def)
{
	const char *v = getenv(name);
	return v && *v ? strtoull(v, NULL, 10) : def;
}

/* ---- the lock: test-and-test-and-set, yielding (2 threads per core is common) ---- */

static SIGSAFE int lock_try(int spins)
{
	for (int i = 0; i < spins; i++) {
		if (!__atomic_load_n(&lock_word, __ATOMIC_RELAXED) &&
		    !__atomic_exchange_n(&lock_word, 1, __ATOMIC_ACQUIRE))
			return 1;
		if (i > 64)
			sched_yield();
	}
	return 0;
}

static SIGSAFE void unlock(void)
{
	__atomic_store_n(&lock_word, 0, __ATOMIC_RELEASE);
}

/* ---- sockets (shared mode) ---- */

static int read_int(const char *path)
{
	char b[32];
	int fd = open(path, O_RDONLY | O_CLOEXEC), v = -1;
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (n > 0) {
		b[n] = 0;
		v = atoi(b);
	}
	return v;
}

static void read_sockets(void)
{
	char path[96] = "/sys/devices/system/cpu/cpu";
	for (int c = 0; c < MAX_CPUS; c++) {
		char *p = rt_u64toa(path + 27, (uint64_t)c);
		rt_stpcpy(p, "/topology/physical_package_id");
		int s = read_int(path);
		socket_of[c] = (int16_t)(s >= 0 && s < REUSE_UNITS ? s : 0);
		if (s >= 0 && (uint32_t)s + 1 > nsockets && s < REUSE_UNITS)
			nsockets = (uint32_t)s + 1;
	}
}

static SIGSAFE int socket_now(void)
{
	int cpu = sched_getcpu();
	return cpu >= 0 && cpu < MAX_CPUS ? socket_of[cpu] : 0;
}

/* Shared mode's clock: the accesses of every listed thread last seen on `socket` (lock
 * held; another thread's count moves a sampling period at a time), UINT64_MAX without
 * counts (clock source). */
static SIGSAFE uint64_t socket_count(int socket)
{
	if (rt_source != &rt_source_inst)
		return UINT64_MAX;
	uint64_t n = 0;
	for (int k = 0; k < nlist; k++)
		if (list[k]->socket == socket)
			n += rt_inst_accesses(list[k]->t);
	return n;
}

/*
 * GlobalWP's slots: --slots (SONDE_REUSE_SLOTS), else as many as a thread's watch set has
 * under the backend: 4 debug registers, or REUSE_SLOTS software watchpoints in a sonde-cc
 * program.  More watched uses at once is more of the long reuses seen, with lighter
 * reservoir weights: NPB CG.S's estimate against --exact read 0.59-0.62 with 4, 0.78-0.83
 * with 32 (doc/sonde-reuse.md, "Slots").  --check-sampling (`check`) watches in software
 * itself: any number up to REUSE_SLOTS, by default what a sampled run would have.  0 or a
 * refusal.
 */
static int slots_init(int check)
{
	static char why[240];
	int have = watch_slots_max() < REUSE_SLOTS ? watch_slots_max() : REUSE_SLOTS;
	int max = check ? REUSE_SLOTS : have;
	int n = (int)env_num("SONDE_REUSE_SLOTS", (uint64_t)have);

	if (n > max) {
		/* a sonde-cc program whose debug registers SONDE_WATCH=hw chose */
		int forced = rt_source_inst.probe(NULL, 0) == 0;
		char *p = rt_stpcpy(why, "reuse --slots ");
		p = rt_u64toa(p, (uint64_t)n);
		p = rt_stpcpy(p, ": debug registers watch ");
		p = rt_u64toa(p, (uint64_t)max);
		rt_stpcpy(p, forced ? " words in a thread, and SONDE_WATCH=hw chose them: unset it "
				      "for the software watchpoints of this sonde-cc program" :
				      " words in a thread; more need software watchpoints, in a "
				      "program built with sonde-cc");
		return rt_tool_refuse(why);
	}
	reuse_gwp_init(&gwp, n);
	return 0;
}

static int reuse_start(void)
{
	exact_mode = env_num("SONDE_REUSE_EXACT", 0) != 0;
	shared_mode = env_num("SONDE_REUSE_SHARED", 0) != 0;
	spatial = env_num("SONDE_REUSE_SPATIAL", 0) != 0;
	elem_shift = spatial ? 6 : 3;
	const char *cs = getenv("SONDE_REUSE_CACHES");
	for (int k = 0; k < 3 && cs && *cs; k++) {
		char *end;
		uint64_t b = strtoull(cs, &end, 10);
		exact_cache[k] = b >> elem_shift ? b >> elem_shift : UINT64_MAX;
		cs = *end == ',' ? end + 1 : "";
	}
	if (exact_mode && env_num("SONDE_REUSE_CHECK", 0) && rt_source != &rt_source_inst)
		return rt_tool_refuse("reuse --check-sampling runs --exact, which sees every access "
				      "through sonde-cc's callbacks, and this program was not built "
				      "by sonde-cc: rebuild it with sonde-cc (a plain build has no "
				      "exact histogram to check the sampled one against)");
	if (exact_mode && rt_tool_need_inst("reuse", "--exact"))
		return -ENOTSUP;
	/* sampled lines: a watchpoint on the whole 64-byte line, which only the soft backend
	 * has (a debug register covers at most 8 bytes) */
	if (spatial && !exact_mode && watch_backend() != WATCH_BACKEND_SOFT)
		return rt_tool_refuse("reuse --spatial without --exact watches whole 64-byte lines, "
				      "which only software watchpoints can (a debug register covers 8 "
				      "bytes): build the program with sonde-cc (--exact needs it too)");
	if (shared_mode)
		read_sockets();
	void *m = mmap(NULL, PAGESET_REGIONS * sizeof(*pageset), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return -ENOMEM;
	pageset = m;
	rt_add_owned_range((uint64_t)(uintptr_t)m,
			   (uint64_t)(uintptr_t)m + PAGESET_REGIONS * sizeof(*pageset));
	if (exact_mode) {
		m = mmap(NULL, sizeof(*stack), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		if (m == MAP_FAILED)
			return -ENOMEM;
		stack = m;
		reuse_stack_init(stack);
		if (env_num("SONDE_REUSE_CHECK", 0) && !shared_mode) {
			chk_period = env_num("SONDE_REUSE_CHECK_PERIOD", 0);
			if (!chk_period)
				chk_period = rt_source_inst.default_period;
			int r = slots_init(1);
			if (r)
				return r;
			return rt_inst_every(spatial ? check_every_line : check_every_word);
		}
		return rt_inst_every(spatial ? exact_every_line : exact_every_word);
	}
	int r = slots_init(0);
	if (r)
		return r;
	probe_pages = rt_inst_probe(probe_page) == 0;
	watch_ok = watch_start() == 0;
	return 0;
}

/* Measured in the first thread to start (watch_trap_cost wants a thread). */
static int64_t trap_cost_ns;

static int reuse_thread_start(struct rt_thread *t)
{
	struct reuse_thread *rt = arena_alloc(&t->arena, sizeof(*rt));
	if (!rt)
		return -ENOMEM;
	rt->t = t;
	rt->pair = rt->pair0;
	rt->pair_sets = PAIR_SETS0;
	for (int i = 0; i < PAIR_HINTS; i++)
		rt->hint[i] = rt->pair;
	for (int i = 0; i < REUSE_SLOTS; i++)
		rt->ws[i] = -1;
	rt->socket = shared_mode ? socket_now() : 0;
	/* the fast path serves a private cache whose holders bit is in the narrow word (the
	 * unit exact_access gives t: t->index modulo REUSE_UNITS, when that is below
	 * REUSE_NARROW: not t->index alone, or a program that starts new workers in each
	 * phase lost the fast path for good after its first 31 threads); t's own thread runs
	 * this (rt_thread_start), a fork child's in the child (reuse_fork_child) */
	unsigned un = (unsigned)t->index % REUSE_UNITS;
	fast.unit = exact_mode && !shared_mode && un < REUSE_NARROW ? &stack->u[un] : NULL;
	fast.bit = 1u << (un < REUSE_NARROW ? un : 0);
	/* the first sample at a random phase of the period: threads that run the same loop
	 * do not all sample its same access */
	rt->chk_left = chk_period ? 1 + rt_rand(t) % chk_period : 0;
	rt->chk_rng = rt_rand_split(t, 0x70726f6265ull);
	if (chk_period)
		check_begin(rt, rt->chk_left);
	t->tool = rt;
	/* a soft set uses 4 slots unless told: GlobalWP's are armed in every thread */
	if (!exact_mode && watch_ok && gwp.nslots > WATCH_HW_SLOTS)
		(void)watch_limit(t, gwp.nslots);
	if (!exact_mode && watch_ok)
		watch_trap_cost(t, &trap_cost_ns, NULL);
	if ((!exact_mode || chk_period) && lock_try(1 << 20)) {
		if (nlist < MAX_LIST)
			list[nlist++] = rt;
		unlock();
	}
	return 0;
}

static void reuse_thread_stop(struct rt_thread *t)
{
	struct reuse_thread *rt = t->tool;
	if (!rt || (exact_mode && !chk_period) || !lock_try(1 << 20))
		return;
	for (int i = 0; i < nlist; i++)
		if (list[i] == rt) {
			list[i] = list[--nlist];
			break;
		}
	unlock();
}

/* Remember the page of a sample (the footprint estimate: distinct pages x 4 KiB). */
static SIGSAFE void note_page(uint64_t addr)
{
	uint64_t page = addr >> 12, region = page >> 6, key = region + 1, bit = 1ull << (page & 63);
	uint64_t at = ((region / PAGESET_GROUP) * 0x9E3779B97F4A7C15ull >> 40) * PAGESET_GROUP +
		      region % PAGESET_GROUP;
	for (uint32_t i = 0; i < PAGESET_PROBE; i++) {
		struct page_region *e = &pageset[(at + i) & (PAGESET_REGIONS - 1)];
		uint64_t k = __atomic_load_n(&e->key, __ATOMIC_RELAXED);
		if (!k) {
			uint64_t zero = 0;
			k = __atomic_compare_exchange_n(&e->key, &zero, key, 0, __ATOMIC_RELAXED,
							__ATOMIC_RELAXED)
				    ? key
				    : zero;	/* taken meanwhile: by this region, or another */
		}
		if (k == key) {
			/* the page's first, second, third sample: a count of each (how many
			 * pages were sampled once and twice estimates the unsampled ones) */
			if (!(__atomic_fetch_or(&e->bits, bit, __ATOMIC_RELAXED) & bit))
				__atomic_add_fetch(&npages, 1, __ATOMIC_RELAXED);
			else if (!(__atomic_fetch_or(&e->bits2, bit, __ATOMIC_RELAXED) & bit))
				__atomic_add_fetch(&npages2, 1, __ATOMIC_RELAXED);
			else if (!(__atomic_load_n(&e->bits3, __ATOMIC_RELAXED) & bit) &&
				 !(__atomic_fetch_or(&e->bits3, bit, __ATOMIC_RELAXED) & bit))
				__atomic_add_fetch(&npages3, 1, __ATOMIC_RELAXED);
			return;
		}
	}
}

/* rt_inst_probe's hook: an access drawn at random in the window, the footprint's page. */
static SIGSAFE void probe_page(struct rt_thread *t, uint64_t addr)
{
	if (t->tool)
		note_page(addr);
}

/* --check-sampling's window of w accesses, as the inst source's (inst_begin): chk_left
 * runs first to its probe, drawn in [1, w - 1], then (check_sample) to its end. */
static SIGSAFE void check_begin(struct reuse_thread *rt, uint64_t w)
{
	rt->chk_rest = 0;
	if (w >= 2) {
		uint64_t first = 1 + rt_rand_next(&rt->chk_rng) % (w - 1);
		rt->chk_rest = w - first;
		w = first;
	}
	rt->chk_left = w;
}

/* The calling thread's access count, UINT64_MAX when the source has none. */
static SIGSAFE uint64_t count_now(struct rt_thread *t)
{
	return rt_source == &rt_source_inst ? rt_inst_accesses(t) : UINT64_MAX;
}

/* The access count of the listed thread of index `owner` (lock held), UINT64_MAX if it
 * is not listed (ended) or the source has no counts. */
static SIGSAFE uint64_t owner_count(uint32_t owner)
{
	if (rt_source != &rt_source_inst)
		return UINT64_MAX;
	for (int k = 0; k < nlist; k++)
		if (list[k]->t->index == owner)
			return rt_inst_accesses(list[k]->t);
	return UINT64_MAX;
}

/* ---- sampled mode ---- */

static SIGSAFE void *cookie(int slot, uint32_t gen)
{
	return (void *)(uintptr_t)(((uint64_t)gen << 8) | (uint64_t)(slot + 1));
}

/* Disarm GlobalWP slot i in every thread (lock held).  A disarm the engine refused (its
 * set busy past SPIN_ARM tries: -EAGAIN, which a loaded machine makes likelier) leaves
 * that watch armed, with the old cookie (its traps are stale): the slot it holds is kept
 * in ws, and the next arm of i there re-arms it in place (arm_one).  Until 2026-11-28 it
 * was forgotten: the register stayed taken for the rest of the thread's life, and a later
 * arm of the same word met it (EEXIST). */
static SIGSAFE void disarm_everywhere(int i)
{
	for (int k = 0; k < nlist; k++)
		if (list[k]->ws[i] >= 0 && watch_disarm(list[k]->t, list[k]->ws[i]) == 0)
			list[k]->ws[i] = -1;
}

/* Arm GlobalWP slot i in thread o for the use of `me` (lock held): RW in the owner (and,
 * shared mode, in the threads of its socket), W in the others.  1 if armed, else 0 with the
 * error counted. */
static SIGSAFE int arm_one(struct reuse_thread *me, struct reuse_thread *o, int i)
{
	const struct reuse_slot *s = &gwp.s[i];
	struct watch_req r = {
		.addr = s->addr,
		.len = 1u << elem_shift,
		/* shared mode: any thread of the owner's socket reuses the socket's cache (read
		 * or write), one of another socket invalidates (a store) */
		.type = o == me || (shared_mode && o->socket == me->socket) ? WATCH_RW : WATCH_W,
		.flags = WATCH_PERSIST | WATCH_OVERLAP,
		.policy = WATCH_REFUSE,
		.cookie = cookie(i, s->gen),
	};
	/* a watch whose disarm was refused is re-armed in its own slot (disarm_everywhere) */
	int w = watch_rearm(o->t, o->ws[i], &r);
	if (w < 0) {
		/* a kept slot stays named only where the engine left its watch as it was (set
		 * busy, or EEXIST: an overlap refused under sigtrap delivery, watch.h): another
		 * error may have closed it, and a slot named by two GlobalWP slots would have
		 * its watch disarmed or moved by the other (review) */
		if (w != -EAGAIN && w != -EDEADLK && w != -EEXIST)
			o->ws[i] = -1;
		me->arm_failures++;
		me->watch_errno = -w;
		return 0;
	}
	o->ws[i] = w;
	return 1;
}

/* Arm GlobalWP slot i on its word in every thread (lock held).  Where every arm is refused
 * nothing can be seen of the use, and it is not counted as watched (until 2026-11-27 it
 * was: a run whose arms all failed said "N uses watched, 0 outcomes").  Private caches:
 * the owner first, and where its arm is refused none other (the use has no reuse to
 * give, only the others' stores: watched there alone, it counted as watched and could
 * end only as an invalidation, until 2026-11-27).  The slot stays taken all the same, to
 * be replaced as the reservoir replaces any: freed, it took every next sample first, and
 * where a thread had fewer free registers than slots the slots that did arm were never
 * offered one again (review). */
static SIGSAFE void arm_everywhere(struct reuse_thread *me, int i)
{
	int armed = 0, mine = -1;
	disarm_everywhere(i);
	if (!shared_mode) {
		for (int k = 0; k < nlist; k++)
			if (list[k] == me)
				mine = k;
		/* an owner not listed (more than MAX_LIST threads) could not be disarmed again:
		 * not armed, and its sample counted as lost (the summary's "lost") */
		if (mine < 0) {
			me->lost++;
			return;
		}
		if (!arm_one(me, me, i))
			return;
		armed = 1;
	}
	for (int k = 0; k < nlist; k++)
		if (k != mine)
			armed += arm_one(me, list[k], i);
	if (armed)
		me->armed++;
}

static SIGSAFE void sampled_access(struct rt_thread *t, struct reuse_thread *rt,
				   const struct rt_access *a)
{
	/* an access of the runtime's own code (a clock sample in a sonde-cc callback): not
	 * the program's, and never reused by instrumented code */
	if (rt_owns_address(a->ip)) {
		rt->lost++;
		return;
	}
	if (!watch_ok || !lock_try(64)) {	/* busy: drop the sample, never yield here */
		rt->lost++;
		return;
	}
	uint64_t word = a->addr & ~((1ull << elem_shift) - 1);
	if (shared_mode)
		rt->socket = socket_now();
	uint64_t own = count_now(t);
	int i = reuse_gwp_sample(&gwp, t->index, word, shared_mode ? socket_count(rt->socket) : own,
				 a->time ? a->time : rt_now(), a->ip, rt_rand(t));
	if (i >= 0 && i < REUSE_SLOTS) {
		slot_socket[i] = rt->socket;
		slot_own0[i] = own;
	}
	if (i >= 0) {
		arm_everywhere(rt, i);
		/* the use's time: after the arming, which a clock sample spends with the
		 * program stopped (~30 us a thread with debug registers), not before */
		if (gwp.s[i].active) {
			gwp.s[i].t0 = rt_now();
			/* the clock source and the inst callbacks name an access still to come;
			 * a PMU sample (hw) one already made */
			gwp.s[i].self_pending = watch_backend() == WATCH_BACKEND_HW &&
						rt_source != &rt_source_hw;
		}
	}
	unlock();
}

/* An observed outcome, in t's stream (t: the thread that trapped; reuse_ip its access). */
static SIGSAFE void record_seen(struct rt_thread *t, struct reuse_thread *rt,
				const struct reuse_seen *seen, uint64_t reuse_ip, uint32_t exact_rd)
{
	rt->traps++;
	struct reuse_rec_seen rec = {
		.h = { .type = REUSE_REC_SEEN, .size = sizeof(rec) },
		.owner = seen->owner,
		.thread = t->index,
		.flags = (seen->invalidation ? REUSE_F_INVALIDATION : 0) |
			 (seen->trd != UINT64_MAX ? REUSE_F_TRD : 0),
		.trd = seen->trd,
		.dt = seen->dt,
		.use_ip = seen->use_ip,
		.reuse_ip = reuse_ip,
		.addr = seen->addr,
		.n0 = seen->n0,
		.n1 = seen->n1,
		.p0 = seen->p0,
		.arm_q = seen->arm_q,
		.exact_rd = exact_rd,
		.time = rt_now(),
	};
	rt_tool_record(t, &rec, sizeof(rec));
}

static SIGSAFE void reuse_trap_hook(struct rt_thread *t, const struct watch_trap *w,
				    const ucontext_t *uc)
{
	struct reuse_thread *rt = t->tool;
	uint64_t c = (uint64_t)(uintptr_t)w->cookie;
	struct reuse_seen seen;
	int slot = (int)(c & 0xff) - 1;
	uint32_t gen = (uint32_t)(c >> 8);
	uint64_t p = count_now(t), now = rt_now();
	/* hw: the kernel's part of the sample's return and of this trap's delivery is no
	 * program time (watch_trap_cost; 0 for soft traps, which are calls) */
	if (!w->soft && now > (uint64_t)trap_cost_ns)
		now -= (uint64_t)trap_cost_ns;

	if (!rt || slot < 0)
		return;
	/* a soft trap names the access: one wider than an element that only overlaps the
	 * watched one (a 16-byte load starting 8 bytes before it) is a use of its first
	 * element, as --exact and --check-sampling count it, not a reuse of this one (NPB MG's
	 * vectorized stencil: time distance 0 in 1.1% of the sampled reuses, 0.15% exact;
	 * trial of 2026-11-27).  The watch stays armed for the element's own next access.
	 * Told apart before the lock, by the watched block (meta `stale` counts them). */
	if (w->soft && w->access_len && (w->access_addr >> elem_shift) != (w->addr >> elem_shift)) {
		rt->stale++;
		return;
	}
	if (rt_enter(t))
		return;
	if (!lock_try(1 << 16)) {
		rt->stale++;
		rt_leave(t);
		return;
	}
	/* the owner's sampled access itself, not a reuse: a soft trap comes before the
	 * access, right after the sample armed it (same count); a hw trap after it, the
	 * owner's first, at the sampled instruction (RIP just past it; a rep string
	 * instruction traps with RIP on it) */
	struct reuse_slot *s = &gwp.s[slot < REUSE_SLOTS ? slot : 0];
	int mine = s->active && s->gen == gen && s->owner == t->index;
	if (mine && p != UINT64_MAX && p == (shared_mode ? slot_own0[slot] : s->p0)) {
		/* the self trap seen: the next trap of that instruction is a reuse (left set,
		 * a hw watch on a sonde-cc program dropped it as the self trap: distances read
		 * 2x, the review of 2026-11-28) */
		s->self_pending = 0;
		unlock();
		rt_leave(t);
		return;
	}
	if (mine && s->self_pending && !w->soft) {
		uint64_t rip = uc ? (uint64_t)uc->uc_mcontext.gregs[REG_RIP] : 0;
		s->self_pending = 0;
		if (rip >= s->ip && rip <= s->ip + 15) {
			unlock();
			rt_leave(t);
			return;
		}
	}
	int r;
	if (shared_mode) {
		rt->socket = socket_now();
		/* a trap of the owner's socket (RW armed there) reuses, another socket's (W)
		 * invalidates; either timed by the owner socket's accesses */
		int same = rt->socket == slot_socket[slot];
		r = reuse_gwp_trap_group(&gwp, slot, gen, same, socket_count(slot_socket[slot]),
					 now, &seen);
	} else {
		/* another thread's store invalidates: timed by the owner's accesses (the
		 * model takes the use out of the owner's stack there) */
		r = reuse_gwp_trap(&gwp, slot, gen, t->index,
				   s->owner == t->index ? p : owner_count(s->owner), now, &seen);
	}
	if (r)
		disarm_everywhere(slot);
	unlock();
	if (!r) {
		rt->stale++;
		rt_leave(t);
		return;
	}
	record_seen(t, rt, &seen, w->ip, 0);
	rt_leave(t);
}

/* ---- exact mode ---- */

/* Write p's reuses as a REUSE_REC_PAIR_BINS_T record (its nonzero bins), add them to rt's
 * histogram, and empty it. */
static SIGSAFE void pair_flush(struct rt_thread *t, struct reuse_thread *rt, struct pair *p)
{
	struct {
		struct reuse_rec_pair_bins_t r;
		uint64_t bin[REUSE_BINS];
	} x;
	uint32_t n = 0;

	x.r.use_ip = p->use_ip;
	x.r.reuse_ip = p->reuse_ip;
	x.r.addr = p->addr;
	x.r.time = p->time;
	for (int b = 0; b < REUSE_BINS; b++) {
		rt->dist[b] += p->dist[b];
		if (p->dist[b])
			x.bin[n++] = REUSE_PB_WORD(b, p->dist[b]);
	}
	size_t size = sizeof(x.r) + n * sizeof(x.bin[0]);
	x.r.h = (struct sonde_rec_hdr){ .type = REUSE_REC_PAIR_BINS_T, .size = (uint16_t)size };
	rt_tool_record(t, &x, size);
	memset(p, 0, sizeof(*p));
}

/* The set of pair (use_ip, ip) in rt's table. */
static inline SIGSAFE struct pair *pair_set(const struct reuse_thread *rt, uint64_t use_ip,
					    uint64_t ip)
{
	uint64_t h = (use_ip * 31 + ip) * 0x9E3779B97F4A7C15ull;
	return &rt->pair[((h >> 40) & (rt->pair_sets - 1)) * PAIR_WAYS];
}

/*
 * Move rt's pairs to a table PAIR_GROW times larger (from the every-access hook: t's own
 * table, which no one else touches meanwhile).  Every pair finds a free way: the pairs of
 * a new set all come from one old set (the set count stays a power of 2), at most
 * PAIR_WAYS of them.  0, or -ENOMEM (the table stays as it was).
 */
static SIGSAFE int pair_grow(struct reuse_thread *rt)
{
	uint64_t sets = rt->pair_sets * PAIR_GROW, n = rt->pair_sets * PAIR_WAYS;
	struct pair *old = rt->pair;
	void *m = map(sets * PAIR_WAYS * sizeof(struct pair));	/* the engine's (rt-stack.c) */
	if (!m) {
		rt->pair_evicted = 0;	/* try again after as many evictions, not at each */
		return -ENOMEM;
	}
	rt->pair = m;
	rt->pair_sets = sets;
	rt->pair_evicted = 0;
	for (int i = 0; i < PAIR_HINTS; i++)
		rt->hint[i] = rt->pair;	/* the old table goes */
	for (uint64_t i = 0; i < n; i++) {
		if (!old[i].key)
			continue;
		struct pair *set = pair_set(rt, old[i].use_ip, old[i].reuse_ip);
		for (int w = 0; w < PAIR_WAYS; w++)
			if (!set[w].key) {
				set[w] = old[i];
				break;
			}
	}
	if (old != rt->pair0)
		munmap(old, n * sizeof(struct pair));
	return 0;
}

/* The hint of the pair of codes `key` (the use's code | the reuse's << 32). */
static inline SIGSAFE struct pair **pair_hint(struct reuse_thread *rt, uint64_t key)
{
	/* (the reuse's code >> 1 ^ the use's >> 5, as the addresses were until 2026-11-26:
	 * ip ^ use_ip >> 3 over 16 hints put a pair and its reverse, load -> store and store
	 * -> load, on one hint in bench/reuse-window.sh's far build: a miss at every access) */
	return &rt->hint[((key >> 33) ^ (key >> 5)) & (PAIR_HINTS - 1)];
}

/* A reuse of a pair its hint did not find: in its set, else take a free way, else grow
 * the table if the pairs thrash it, else flush the set's least recently reused way.  Out
 * of line: the hint's path of pair_add stays small enough to inline in the every-access
 * hook. */
static __attribute__((noinline)) SIGSAFE struct rt_thread *
pair_miss(struct rt_thread *t, struct reuse_thread *rt, uint64_t key, uint64_t addr, uint64_t bin)
{
	uint64_t use_ip = REUSE_CODE_IP(stack, key), ip = REUSE_CODE_IP(stack, key >> 32);
	struct pair *set = pair_set(rt, use_ip, ip), *p = NULL, *oldest = set;
	for (int w = 0; w < PAIR_WAYS; w++)
		if (set[w].key == key) {	/* (a free way's is 0, which no pair has) */
			p = &set[w];
			goto add;
		}
	for (int w = 0; w < PAIR_WAYS && !p; w++)
		if (!set[w].key)
			p = &set[w];
	if (!p && rt->pair_evicted >= rt->pair_sets * PAIR_WAYS &&
	    rt->pair_sets < PAIR_SETS_MAX && !pair_grow(rt)) {
		set = pair_set(rt, use_ip, ip);
		oldest = set;
		for (int w = 0; w < PAIR_WAYS && !p; w++)
			if (!set[w].key)
				p = &set[w];
		/* (else a full set again: its least recently reused way below) */
	}
	if (!p) {
		for (int w = 1; w < PAIR_WAYS; w++)
			if (set[w].last < oldest->last)
				oldest = &set[w];
		/* from the every-access hook, t is not claimed by a fence (rt_inst_every): a
		 * thread being finished keeps its pairs for the finisher (the reuse is still
		 * in the histogram) */
		if (!rt_inst_every_may_record(t)) {
			rt->dist[bin]++;
			return t;
		}
		pair_flush(t, rt, oldest);
		rt->pair_evicted++;
		p = oldest;
	}
	p->key = key;
	p->use_ip = use_ip;
	p->reuse_ip = ip;
	p->addr = addr;
	p->time = rt_now();	/* once a pair: a miss, not every reuse */
add:
	*pair_hint(rt, key) = p;
	p->last = t->stats.samples;
	p->dist[bin]++;
	return t;
}

/* A reuse of the code pair `key` (struct reuse_outcome's codes) in reuse distance bin
 * `bin`.  The hint's path: one compare, one store, one add. */
static inline SIGSAFE struct rt_thread *pair_add(struct rt_thread *t, struct reuse_thread *rt,
						 uint64_t key, uint64_t addr, uint64_t bin)
{
	struct pair *p = *pair_hint(rt, key);

	if (__builtin_expect(p->key == key, 1)) {
		p->last = t->stats.samples;
		p->dist[bin]++;
		return t;
	}
	return pair_miss(t, rt, key, addr, bin);
}

/* reuse_bin_small without the clamp: a time distance's bin, in 64 (rt->time); a 64-bit
 * result straight from bsr (an int from __builtin_clzll took a sign extension more before
 * each use as an index) */
static inline SIGSAFE uint64_t exact_bin(uint64_t d)
{
	uint64_t b;

	__asm__("bsrq %1, %0" : "=r"(b) : "r"(2 * d + 1) : "cc");	/* (2d + 1 > 0) */
	return b;
}

/* A reuse's bins and code pair (exact_access, exact_every). */
static inline __attribute__((always_inline)) SIGSAFE struct rt_thread *
exact_hit(struct rt_thread *t, struct reuse_thread *rt, const struct reuse_outcome *o,
	  uint64_t addr, const int keep)
{
	if (keep)	/* --check-sampling: the distance for check_every */
		rt->chk_rd = (uint32_t)o->rd + 1;
	/* (the reuses: the sum of dist, at the end) a reuse distance is less than the marked
	 * stamps, which are 32-bit: its low 32 bits are all of it, and their bin is at most
	 * 32, within dist[] whatever the engine's bookkeeping (a bin past it would write into
	 * the pairs; this took a clamp, three instructions, until 2026-11-26) */
	uint64_t b = exact_bin((uint32_t)o->rd);
	rt->time[exact_bin(o->trd)]++;
	rt->beyond[0] += o->rd >= exact_cache[0];
	rt->beyond[1] += o->rd >= exact_cache[1];
	rt->beyond[2] += o->rd >= exact_cache[2];
	return pair_add(t, rt, o->codes, addr, b);	/* (rt->dist: the pairs', pair_flush) */
}

/* Any access, through the whole engine (exact_every when reuse_stack_fast did not make
 * it): out of line, so that its paths' registers are not saved and restored around the
 * fast one. */
static __attribute__((noinline)) SIGSAFE struct rt_thread *
exact_access(struct rt_thread *t, struct reuse_thread *rt, uint64_t addr, uint32_t flags,
	     uint64_t ip, int keep)
{
	int store = (flags & (SONDE_MEM_STORE | SONDE_MEM_RMW)) != 0;
	uint32_t unit;
	struct reuse_outcome o;

	if (shared_mode) {
		int cpu = sched_getcpu();
		unit = cpu >= 0 && cpu < MAX_CPUS ? (uint32_t)socket_of[cpu] : 0;
	} else {
		unit = t->index;	/* the engine takes it modulo REUSE_UNITS */
	}
	/* no lock here: the engine's are per unit and per element (stack.h) */
	/* a failure is counted in stack->lost by the engine (every -ENOMEM path), added to
	 * thread 0's STATS once: counting it in rt->lost too made meta's lost twice the truth */
	if (reuse_stack_access(stack, unit, addr >> elem_shift, store, ip, &o))
		return t;
	rt->inv += o.invalidated;
	if (__builtin_expect(o.kind == REUSE_HIT, 1))
		return keep ? exact_hit(t, rt, &o, addr, 1) : exact_hit(t, rt, &o, addr, 0);
	if (o.kind == REUSE_COLD)
		rt->cold++;
	return t;
}

/* An access of exact_every: the common one (a private reuse: reuse_stack_fast), else the
 * whole engine.  No call but in tail position, each returning t, the hook's own return
 * value (until 2026-11-26 they returned nothing, and t was kept in a callee-saved
 * register across them: exact_every then had a frame, 6 registers pushed and popped and 3
 * values spilled at every access). */
static inline __attribute__((always_inline)) SIGSAFE struct rt_thread *
exact_body(struct rt_thread *t, struct reuse_thread *rt, uint64_t addr, uint32_t flags,
	   uint64_t ip, const int shift, const int keep)
{
	/* (the unit from a thread-local: a pointer to it in rt, loaded after rt, made a longer
	 * chain of dependent loads and cost ~9% of --exact's CPU on one thread, t->index
	 * beside the engine's address ~4%: bench/reuse-cpu.sh, doc/sonde-reuse.md) */
	struct reuse_unit *u = fast.unit;
	if (__builtin_expect(u != NULL, 1)) {
		struct reuse_outcome o;
		int store = (flags & (SONDE_MEM_STORE | SONDE_MEM_RMW)) != 0;
		if (__builtin_expect(reuse_stack_fast(&stack, u, &fast.bit, addr >> shift, store,
						      ip, &o), 1))
			return exact_hit(t, rt, &o, addr, keep);
	}
	return exact_access(t, rt, addr, flags, ip, keep);
}

/* exact_every's access that notes an observation first (once in 64): out of line, its call
 * would give exact_every a frame. */
static __attribute__((noinline)) SIGSAFE struct rt_thread *
exact_note(struct rt_thread *t, struct reuse_thread *rt, uint64_t addr, uint32_t flags,
	   uint64_t ip, int keep)
{
	rt_obs_note();
	return keep ? exact_body(t, rt, addr, flags, ip, elem_shift, 1) :
		      exact_body(t, rt, addr, flags, ip, elem_shift, 0);
}

/* rt_inst_every's hook: --exact's every access, straight from the inst callbacks; shift:
 * elem_shift, a constant (exact_every_word, exact_every_line: the variable's load and shift
 * by cl took 3 instructions an access, and rcx); keep: a constant, 1 for check_every (the
 * access's distance kept in rt->chk_rd) */
static inline __attribute__((always_inline)) SIGSAFE struct rt_thread *
exact_every(struct rt_thread *t, uint64_t addr, uint32_t len, uint32_t flags, uint64_t ip,
	    const int shift, const int keep)
{
	struct reuse_thread *rt = t->tool;

	if (!rt)
		return t;
	rt->wide += len > (1u << shift);
	/* an observation for the allocation summary (rt_obs_epoch, interpose.c), once per 64
	 * accesses of the thread rather than at each: an atomic add on one line that every
	 * thread writes.  (rt->samples stays 0: t's count is the same, reuse_thread_end) */
	if (keep)
		rt->chk_rd = 0;
	if (__builtin_expect(!(t->stats.samples++ & 63), 0))
		return exact_note(t, rt, addr, flags, ip, keep);
	return exact_body(t, rt, addr, flags, ip, shift, keep);
}

/* Without a frame of their own (EXACT_NO_FRAME): an access no longer pushes, sets up and
 * pops rbp.  That is the whole gain: gcc does not give the engine the register it frees
 * (no %rbp in exact_every_word's code, objdump -d libsonde.so at ad58234).  Nothing
 * unwinds from here: --exact takes no sample and arms no trap. */
#define EXACT_NO_FRAME __attribute__((optimize("omit-frame-pointer")))

static SIGSAFE EXACT_NO_FRAME struct rt_thread *exact_every_word(struct rt_thread *t, uint64_t addr,
								 uint32_t len, uint32_t flags,
								 uint64_t ip)
{
	return exact_every(t, addr, len, flags, ip, 3, 0);
}

static SIGSAFE EXACT_NO_FRAME struct rt_thread *exact_every_line(struct rt_thread *t, uint64_t addr,
								 uint32_t len, uint32_t flags,
								 uint64_t ip)
{
	return exact_every(t, addr, len, flags, ip, 6, 0);
}

/* ---- --check-sampling: the sampled mode inside the exact one ---- */

/* An access of t to element e - 1, which GlobalWP slot i watches (seen without the lock):
 * the outcome the soft backend's trap would give.  The owner's access (load or store) is a
 * reuse, another thread's store an invalidation, another's load nothing (armed RW in the
 * owner, W elsewhere, as arm_everywhere arms). */
static __attribute__((noinline)) SIGSAFE void check_match(struct rt_thread *t,
							 struct reuse_thread *rt, int i,
							 uint64_t e, uint32_t flags, uint64_t ip)
{
	struct reuse_slot *s = &gwp.s[i];
	struct reuse_seen seen;
	int store = (flags & (SONDE_MEM_STORE | SONDE_MEM_RMW)) != 0;

	/* another thread's load: nothing, seen without the lock (the slot's owner is read
	 * again under it) */
	if (!store && __atomic_load_n(&s->owner, __ATOMIC_RELAXED) != t->index)
		return;
	if (!lock_try(1 << 16)) {	/* (stale: outcomes and samples the check dropped) */
		rt->stale++;
		return;
	}
	int mine = s->owner == t->index;
	if (!s->active || chk_elem[i] != e || (!mine && !store)) {
		unlock();
		return;
	}
	uint64_t p = mine ? count_now(t) : owner_count(s->owner);
	if (mine && p == s->p0) {	/* (the use itself: not reached, check_every looks first) */
		unlock();
		return;
	}
	int r = reuse_gwp_trap(&gwp, i, s->gen, t->index, p, rt_now(), &seen);
	if (r) {
		__atomic_store_n(&chk_elem[i], 0, __ATOMIC_RELAXED);
		chk_filter_rebuild();
	}
	unlock();
	/* a thread being finished (its hook not fenced) keeps its stream for the finisher */
	if (r && rt_inst_every_may_record(t))
		record_seen(t, rt, &seen, ip, mine && !seen.invalidation ? rt->chk_rd : 0);
}

/* t's sample: offered to GlobalWP; the slot that takes it watches element e - 1. */
static __attribute__((noinline)) SIGSAFE void check_sample(struct rt_thread *t,
							  struct reuse_thread *rt, uint64_t addr,
							  uint64_t e, uint64_t ip)
{
	if (rt->chk_rest) {	/* the window's probe: its page, and the rest of it */
		rt->chk_left = rt->chk_rest;
		rt->chk_rest = 0;
		note_page(addr);
		return;
	}
	check_begin(rt, chk_period);
	if (chk_period < 2)	/* a window of one access: the sample is its probe */
		note_page(addr);
	/* not a signal handler: it may wait (sampled_access drops a sample at once; a check
	 * that dropped them would skew the reservoir's weights, as review found with 4
	 * threads at a short period) */
	if (!lock_try(1 << 16)) {
		rt->stale++;
		return;
	}
	uint64_t word = addr & ~((1ull << elem_shift) - 1), now = rt_now();
	int i = reuse_gwp_sample(&gwp, t->index, word, count_now(t), now, ip, rt_rand(t));
	if (i >= 0 && i < REUSE_SLOTS) {
		unsigned b = chk_bit(e);
		__atomic_fetch_or(&chk_filter[b >> 6], 1ull << (b & 63), __ATOMIC_RELAXED);
		__atomic_store_n(&chk_elem[i], e, __ATOMIC_RELAXED);
		chk_filter_rebuild();	/* (the element it replaced, if any, out) */
		rt->armed++;
	}
	unlock();
}

/* rt_inst_every's hook with --check-sampling: the exact engine (keeping the access's
 * distance), then the watched slots, then the sampling countdown.  The slots are looked at
 * before the sample, so that the sampled access is not its own reuse. */
static inline __attribute__((always_inline)) SIGSAFE struct rt_thread *
check_every(struct rt_thread *t, uint64_t addr, uint32_t len, uint32_t flags, uint64_t ip,
	    const int shift)
{
	t = exact_every(t, addr, len, flags, ip, shift, 1);
	struct reuse_thread *rt = t->tool;
	if (!rt)
		return t;
	uint64_t e = (addr >> shift) + 1;
	if (__builtin_expect(chk_maybe(e), 0))
		for (int i = 0; i < gwp.nslots; i++)
			if (__atomic_load_n(&chk_elem[i], __ATOMIC_RELAXED) == e)
				check_match(t, rt, i, e, flags, ip);
	if (__builtin_expect(!--rt->chk_left, 0))
		check_sample(t, rt, addr, e, ip);
	return t;
}

static SIGSAFE struct rt_thread *check_every_word(struct rt_thread *t, uint64_t addr, uint32_t len,
						  uint32_t flags, uint64_t ip)
{
	return check_every(t, addr, len, flags, ip, 3);
}

static SIGSAFE struct rt_thread *check_every_line(struct rt_thread *t, uint64_t addr, uint32_t len,
						  uint32_t flags, uint64_t ip)
{
	return check_every(t, addr, len, flags, ip, 6);
}

static SIGSAFE void reuse_on_access(struct rt_thread *t, const struct rt_access *a,
				    const ucontext_t *uc, int skip)
{
	struct reuse_thread *rt = t->tool;
	(void)uc;
	(void)skip;
	if (!rt)
		return;
	t->stats.samples++;
	rt->samples++;
	rt->wide += a->len > (1u << elem_shift);
	if (exact_mode) {
		(void)exact_access(t, rt, a->addr, a->flags, a->ip, 0);	/* (not reached: rt_inst_every) */
		return;
	}
	if (!probe_pages)
		note_page(a->addr);
	sampled_access(t, rt, a);
}

/*
 * Run by t itself at its end, or by the thread finishing the process while t may still
 * run: then t's --exact hook is not adding to rt's pairs and histograms meanwhile (the
 * finisher waits for t's busy after a membarrier: rt_inst_every, source-inst.c); other
 * threads' hooks touch only their own tables and the engine.
 */
static SIGSAFE void reuse_thread_end(struct rt_thread *t)
{
	struct reuse_thread *rt = t->tool;
	if (!rt)
		return;
	if (exact_mode) {	/* (counted once, not at every access: exact_every) */
		for (int b = REUSE_BINS; b < 64; b++) {
			rt->time[REUSE_BINS - 1] += rt->time[b];
			rt->time[b] = 0;
		}
		rt->samples = t->stats.samples;
	}
	for (uint64_t i = 0; i < rt->pair_sets * PAIR_WAYS; i++)
		if (rt->pair[i].key)
			pair_flush(t, rt, &rt->pair[i]);	/* (their dist into rt's) */
	if (exact_mode) {
		rt->reuses = 0;
		for (int b = 0; b < REUSE_BINS; b++)
			rt->reuses += rt->dist[b];
	}
	struct reuse_rec_stats r = {
		.h = { .type = REUSE_REC_STATS, .size = sizeof(r) },
		.mode = (exact_mode ? REUSE_M_EXACT : 0) | (shared_mode ? REUSE_M_SHARED : 0) |
			(spatial ? REUSE_M_SPATIAL : 0) |
			(rt_source == &rt_source_inst ? REUSE_M_COUNTS : 0) |
			(chk_period ? REUSE_M_CHECK : 0),
		.check_period = (uint32_t)(chk_period < UINT32_MAX ? chk_period : UINT32_MAX),
		.element = 1u << elem_shift,
		.samples = rt->samples,
		.armed = rt->armed,
		.arm_failures = rt->arm_failures,
		.traps = rt->traps,
		.stale = rt->stale,
		.lost = rt->lost + (exact_mode && t->index == 0 ? stack->lost : 0),
		.watch_errno = rt->watch_errno,
		.pages = __atomic_load_n(&npages, __ATOMIC_RELAXED),
		.pages2 = __atomic_load_n(&npages2, __ATOMIC_RELAXED),
		.pages3 = __atomic_load_n(&npages3, __ATOMIC_RELAXED),
		.cold = rt->cold,
		.invalidations = rt->inv,
		.reuses = rt->reuses,
		.slots = exact_mode && !chk_period ? 0 : (uint32_t)gwp.nslots,
	};
	uint64_t n = count_now(t);
	r.accesses = n != UINT64_MAX ? n : t->stats.accesses;
	memcpy(r.time, rt->time, sizeof(r.time));
	memcpy(r.dist, rt->dist, sizeof(r.dist));
	r.wide = rt->wide;
	for (int k = 0; k < 3 && exact_mode; k++) {
		r.cache_elements[k] = exact_cache[k] != UINT64_MAX ? exact_cache[k] : 0;
		r.beyond[k] = r.cache_elements[k] ? rt->beyond[k] : 0;
	}
	rt_tool_record(t, &r, sizeof(r));
}

/* In a fork child the parent's threads and tables are gone: start empty. */
static void reuse_fork_child(struct rt_thread *t)
{
	nlist = 0;
	lock_word = 0;
	if (exact_mode) {
		reuse_stack_release(stack);
		reuse_stack_init(stack);
	}
	if (!exact_mode || chk_period) {
		reuse_gwp_init(&gwp, gwp.nslots);
		memset(chk_elem, 0, sizeof(chk_elem));
		memset(chk_filter, 0, sizeof(chk_filter));
	}
	/* emptied without touching it (a memset made all of it resident in every child) */
	madvise(pageset, PAGESET_REGIONS * sizeof(*pageset), MADV_DONTNEED);
	npages = npages2 = npages3 = 0;
	reuse_thread_start(t);
}

const struct rt_tool rt_tool_reuse = {
	.name = "reuse",
	.flags = RT_TOOL_OBJECTS,
	.start = reuse_start,
	.thread_start = reuse_thread_start,
	.thread_stop = reuse_thread_stop,
	.access = reuse_on_access,
	.trap = reuse_trap_hook,
	.fork_child = reuse_fork_child,
	.thread_end = reuse_thread_end,
};
