/* SPDX-License-Identifier: MIT */
/*
 * stack.h - the exact reuse engine (rt-stack.c): Olken's stack distance with a Fenwick
 * tree over access stamps, one stack per cache ("unit": a thread's private cache, or a
 * socket's shared cache), and the thesis's rules for reuse and invalidation
 * (doc/sonde-reuse.md, "Exact mode").  Used by the runtime for --exact and by the unit
 * tests, which check it against a naive O(n^2) engine.
 *
 * Per unit: element -> (access number of its last use, stamp, code address of that use), in
 * 12 bytes (struct reuse_entry), in leaves of 64 consecutive elements found by a hash of
 * the leaf number, made at the unit's first access to one of them.  The stack distance
 * of a reuse is the number of stamps marked after the element's last one (each live element
 * marks only its latest stamp), counted on a bitmap of stamps with counts of its marks per
 * block and per group of 8 blocks, of 64, ... (rt-stack.c): O(log n) with a small
 * constant.  When the stamps run out the live ones are renumbered by rank
 * (O(n), amortized O(1)), and so are the groups that keep access numbers in 32 bits.
 *
 * Rules, for an access of unit u to element e:
 *   - e has a live entry in u: a reuse, time distance = u's accesses strictly between the
 *     two, reuse distance = distinct elements u accessed between them;
 *   - e's entry in u was invalidated: nothing (that use's outcome was the invalidation);
 *   - no entry: a cold access;
 *   - a store also invalidates e in every other unit holding it: one invalidation each.
 * A remote load neither reuses nor invalidates.
 *
 * Concurrency (the runtime calls it from every thread at once, with no lock of its own):
 * each unit has a spin lock, taken by its own accesses (uncontended but for the stores
 * that invalidate it), so that threads on different units never wait for each other.  The
 * invalidation rule needs to know which units hold an element: the *holders* table, one
 * 32-bit word per element (a bit per unit that accessed it since the last store of another
 * unit, and a lock bit; units from REUSE_NARROW on have their bits in a second word, made
 * for a leaf only when one of them uses it), in leaves of 512 elements found through a
 * lock-free table.
 *   - a load of u: under u's lock, the access; if it did not reuse a live entry (cold, or
 *     invalidated), u's bit is set, still under u's lock;
 *   - a store of u: the element's word is locked and, in the same atomic exchange, left
 *     with u's bit alone (the wide word, if the leaf has one, then exchanged under that
 *     lock); every unit whose bit was cleared is invalidated (under its lock), then u's
 *     own access is made and the element unlocked.  A store that finds u's bit alone
 *     (private data), read under u's lock, takes no element lock (rt-stack.c).
 * So a live entry of u always has u's bit set or an invalidation on its way, and a store
 * invalidates exactly the units that used the element before it (stores to one element
 * are serialized by its lock; a load is ordered by u's lock against the invalidations of
 * u).  Accesses of one unit are serialized by its lock, as the trees need.
 *
 * Memory comes from mmap (tables grow by doubling); no malloc.  Handler-safe (a thread's
 * handler never re-enters the engine: the runtime's rt_enter refuses it).
 */
#ifndef SONDE_TOOLS_REUSE_STACK_H
#define SONDE_TOOLS_REUSE_STACK_H

#include <stdint.h>

/* caches modelled at once (threads or sockets): one bit each in the holders words (two:
 * REUSE_NARROW units in the first, whose top bit is the element's lock, the others in the
 * second) */
#define REUSE_UNITS 63

/*
 * An element's last use in a unit: 12 bytes (24 until 2026-11-26: a 64-bit access number
 * and code address, and a `seen` word).  The access number is kept as an offset from the
 * base of its *group*, a range of stamps whose uses lie within 2^32 accesses of the
 * group's first (rt-stack.c, "groups"); the code address as a 16 MB window of code
 * (an index into the engine's table of windows) and the offset in it.
 */
struct reuse_entry {
	uint32_t stamp;		/* the last use's stamp (valid when live) */
	uint32_t count;		/* the last use's access number - its group's base (live) */
	uint32_t code;		/* the last use's code: window << 24 | offset; 0: the unit
				 * never accessed the element (a use is cold), 1: it did, the
				 * entry is not live (invalidated); else live */
};

#define REUSE_CODE_SEEN 1u	/* code: accessed, not live */
#define REUSE_CODE_LIVE 2u	/* code >= this: live */
#define REUSE_WINDOW_SHIFT 24	/* code windows of 16 MB */
#define REUSE_WINDOWS 256	/* window 0 unused (codes 0 and 1 are states) */

/* The entries of elements key * 64 - 64 .. key * 64 - 1 (consecutive elements share a leaf:
 * a sweep stays in one, and its entries are neighbours in memory). */
struct reuse_leaf {
	uint64_t key;		/* element / 64 + 1 */
	struct reuse_entry e[64];
};

/* A group of stamps (rt-stack.c): the live entries with stamps from `stamp` up to the next
 * group's count their access numbers from `base`. */
struct reuse_group {
	uint64_t stamp, base;
};

/* Leaves of a unit remembered beside the last one, before its table (rt-stack.c) */
#define REUSE_LCACHE 8

#define REUSE_LEVELS 8		/* 512 x 8^7 = 2^30 stamps; 8 top counts for 2^32 */

struct reuse_unit {
	/* the fields of every access first (two lines), then the rest */
	uint32_t lock;		/* test-and-test-and-set */
	int ok;
	struct reuse_leaf *last;	/* the last leaf found (a keyless one before it) */
	uint64_t stamp;		/* next stamp to give */
	uint64_t stamp_end;	/* renumber when `stamp` reaches it (cap, or the last
				 * group's room for access numbers); 0 until the unit
				 * is ready (`ok`: one compare for both) */
	uint64_t rel;		/* accesses of the unit so far - gbase */
	uint64_t gstamp;	/* the last group's first stamp */
	uint64_t live;		/* marked stamps (live entries) */
	uint64_t *bits;		/* stamps marked (the latest use of a live element) */
	uint64_t cur_x, cur_r;	/* the last rank computed: marks in [0, cur_x] (rt-stack.c) */
	int cur_ok;		/* cur_x, cur_r valid (not since a renumbering) */
	uint32_t mv_n;		/* moves not yet counted from block mv_from to mv_to, */
	uint64_t mv_key;	/* which are mv_from | mv_to << 32 */
	uint64_t cbase;		/* the last code window: its first address, */
	uint32_t cwin;		/* and its code's top bits; */
	uint32_t cwin2;		/* the one before it: the same */
	uint64_t cbase2;
	uint64_t gbase;		/* the last group's base */
	uint32_t cap;		/* stamps (at most UINT32_MAX: compact) */
	int nlev;		/* levels in use */
	uint32_t *c[REUSE_LEVELS];	/* marks per block of 512 stamps, per 8 blocks, ...
					 * (rt-stack.c), in the bitmap's mapping */
	struct reuse_leaf **ltab;	/* leaves by key, open addressing */
	uint64_t ltabsize;	/* slots (a power of two) */
	uint32_t nleaves;	/* leaves (a 32-bit count, and ngroups beside it) */
	uint32_t ngroups;
	char *abuf;		/* the leaves' bump allocator: current block */
	uint64_t aleft;		/* bytes left in it */
	struct reuse_group *groups;	/* ngroups groups, the last one included, by stamp */
	struct reuse_group *gmap;	/* the mapping of two lists: groups is one of them */
	/* the third line: cur_r2 is kept up to date on every reuse (reuse_stack_fast,
	 * reuse_move), the rest only by the whole engine; the first two lines have no room
	 * left, and the third line cost nothing measurable on RIBench (bench/reuse-cpu.sh,
	 * 2026-11-26 08:18 UTC).  The unit is 384 bytes: s->u[un] is a multiply, not a shift. */
	uint64_t cur_x2, cur_r2;	/* the rank cursor before cur_x's (valid with cur_ok) */
	struct reuse_leaf *lcache[REUSE_LCACHE];	/* leaves found lately, by key modulo */
} __attribute__((aligned(64)));	/* one unit's lock and counters never share a line */

/* A leaf of the holders table: the words of elements key * 512 .. key * 512 + 511.  Units
 * 0 .. REUSE_NARROW - 1 have a bit in a 32-bit word (4 bytes an element; 8 until
 * 2026-11-26), the others in a second word, in an array made for the leaf when one of
 * them first holds one of its elements (rt-stack.c). */
#define REUSE_NARROW 31
struct reuse_hleaf {
	uint64_t key;		/* element / 512 + 1 */
	uint32_t *wide;		/* bit u - REUSE_NARROW: unit u >= REUSE_NARROW holds it */
	uint32_t w[512];	/* bit u < REUSE_NARROW: unit u holds the element; bit 31:
				 * locked (the lock covers the wide word too) */
};

struct reuse_stack {
	struct reuse_unit u[REUSE_UNITS];
	struct reuse_hleaf **htab;	/* leaves by key, open addressing, never resized */
	uint64_t hcap;			/* slots (a power of two) */
	uint64_t hleaves;		/* leaves inserted */
	uint32_t nwide;			/* wide arrays made (0: no unit >= REUSE_NARROW yet) */
	uint64_t gen;			/* this engine's generation (per-thread leaf caches) */
	uint32_t alloc_lock;		/* the leaves' bump allocator */
	char *abuf;			/* its current block */
	uint64_t aleft;			/* bytes left in it */
	uint64_t lost;		/* accesses not modelled (out of memory) */
	uint64_t win[REUSE_WINDOWS];	/* code windows: their first addresses */
	uint32_t nwin;			/* windows 1 .. nwin in use (under alloc_lock) */
};

enum reuse_kind { REUSE_NONE = 0, REUSE_HIT, REUSE_COLD };

struct reuse_outcome {
	int kind;		/* enum reuse_kind */
	uint64_t trd;		/* time distance (REUSE_HIT) */
	uint64_t rd;		/* reuse (stack) distance (REUSE_HIT) */
	uint64_t prev_ip;	/* the use's code address (REUSE_HIT) */
	uint64_t codes;		/* the use's code (struct reuse_entry's) | the reuse's << 32
				 * (REUSE_HIT): the code pair in one word, known without the
				 * window table's load that prev_ip needs (rt-reuse.c) */
	uint32_t invalidated;	/* other units' uses this store invalidated */
};

/* The code address of a code (struct reuse_entry's, >= REUSE_CODE_LIVE) of engine s. */
#define REUSE_CODE_IP(s, c) ((s)->win[(uint32_t)(c) >> REUSE_WINDOW_SHIFT] + \
			     ((uint32_t)(c) & ((1u << REUSE_WINDOW_SHIFT) - 1)))

/* The two variables and three functions below: rt-reuse.c compiles the engine into its own
 * file (REUSE_STACK_INLINE, then they are static there: rt-stack.c) so that its
 * every-access hook and the engine are one function; the unit tests link rt-stack.o's. */
#ifndef REUSE_STACK_INLINE
/* The first stamp capacity of a unit (default 16384; tests lower it). */
extern uint64_t reuse_stack_fen_first;
/* An entry's count is less than this (default 2^32: 32 bits; tests lower it so that groups
 * split and merge on short traces). */
extern uint64_t reuse_stack_count_room;
/* Zero the engine (no memory is taken until the first access). */
void reuse_stack_init(struct reuse_stack *s);
/* Unmap every table. */
void reuse_stack_release(struct reuse_stack *s);
/* One access of unit u (< REUSE_UNITS) to element e by the code at ip.  0, or -ENOMEM
 * (not modelled, counted in s->lost: out of memory, or code in more than
 * REUSE_WINDOWS - 1 windows of 16 MB).  Any thread may call it at any time. */
int reuse_stack_access(struct reuse_stack *s, uint32_t u, uint64_t e, int store, uint64_t ip,
		       struct reuse_outcome *out);
#endif

/* ---- log-2 bins shared by every histogram of the tool ---- */

#define REUSE_BINS 48
/* Bin 0 holds 0, bin b >= 1 holds [2^(b-1), 2^b). */
static inline int reuse_bin(uint64_t d)
{
	int b = d ? 64 - __builtin_clzll(d) : 0;
	return b < REUSE_BINS ? b : REUSE_BINS - 1;
}
/* reuse_bin for d < 2^63 (the engine's distances), without the branch on 0: the bin is
 * the top bit's index of 2d + 1. */
static inline int reuse_bin_small(uint64_t d)
{
	int b = 63 ^ __builtin_clzll(2 * d + 1);	/* (63 ^: one bsr, 63 -: three) */
	return b < REUSE_BINS ? b : REUSE_BINS - 1;
}
static inline uint64_t reuse_bin_lo(int b)
{
	return b ? 1ull << (b - 1) : 0;
}
static inline uint64_t reuse_bin_hi(int b)
{
	return 1ull << b;
}

#endif
