/* SPDX-License-Identifier: MIT */
/*
 * stack.h - the exact reuse engine (rt-stack.c): Olken's stack distance with a Fenwick
 * tree over access stamps, one stack per cache ("unit": a thread's private cache, or a
 * socket's shared cache), and the thesis's rules for reuse and invalidation
 * (doc/sonde-reuse.md, "Exact mode").  Used by the runtime for --exact and by the unit
 * tests, which check it against a naive O(n^2) engine.
 *
 * Per unit: element -> (access number of its last use, stamp, code address of that use), in
 * leaves of 64 consecutive elements found by a hash of the leaf number.  The stack distance
 * of a reuse is the number of stamps marked after the element's last one (each live element
 * marks only its latest stamp), counted on a bitmap of stamps with counts of its marks per
 * block and per group of 8 blocks, of 64, ... (rt-stack.c): O(log n) with a small
 * constant.  When the stamps run out the live ones are renumbered by rank
 * (O(n), amortized O(1)).
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
 * 64-bit word per element (a bit per unit that accessed it since the last store of another
 * unit, and a lock bit), in leaves of 512 elements found through a lock-free table.
 *   - a load of u: under u's lock, the access; if it did not reuse a live entry (cold, or
 *     invalidated), u's bit is set, still under u's lock;
 *   - a store of u: the element's word is locked and, in the same atomic exchange, left
 *     with u's bit alone; every unit whose bit was cleared is invalidated (under its
 *     lock), then u's own access is made and the element unlocked.  A store that finds
 *     u's bit alone (private data) still takes the element lock: one atomic operation on a
 *     word that only u's stores write.
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

/* caches modelled at once (threads or sockets): one bit each in a holders word, whose
 * top bit is its lock */
#define REUSE_UNITS 63

struct reuse_entry {
	uint64_t count;		/* the unit's access number at the last use; 0 = not live */
	uint64_t ip;		/* code address of the last use */
	uint32_t stamp;		/* the last use's stamp (valid when count != 0) */
	uint32_t seen;		/* the unit accessed the element (else a use is cold) */
};

/* The entries of elements key * 64 - 64 .. key * 64 - 1 (consecutive elements share a leaf:
 * a sweep stays in one, and its entries are neighbours in memory). */
struct reuse_leaf {
	uint64_t key;		/* element / 64 + 1 */
	struct reuse_entry e[64];
};

#define REUSE_LEVELS 8		/* 512 x 8^7 = 2^30 stamps; 8 top counts for 2^32 */

struct reuse_unit {
	uint32_t lock;		/* test-and-test-and-set */
	struct reuse_leaf **ltab;	/* leaves by key, open addressing */
	uint64_t ltabsize, nleaves;	/* slots (a power of two), leaves */
	struct reuse_leaf *last;	/* the last leaf found */
	char *abuf;		/* the leaves' bump allocator: current block */
	uint64_t aleft;		/* bytes left in it */
	uint64_t *bits;		/* stamps marked (the latest use of a live element) */
	uint32_t *c[REUSE_LEVELS];	/* marks per block of 512 stamps, per 8 blocks, ...
					 * (rt-stack.c), in the bitmap's mapping */
	int nlev;		/* levels in use */
	uint64_t mapbytes;	/* that mapping's size */
	uint64_t cap;		/* stamps */
	uint64_t stamp;		/* next stamp to give */
	uint64_t live;		/* marked stamps (live entries) */
	uint64_t now;		/* accesses of the unit so far */
	uint64_t cur_x, cur_r;	/* the last rank computed: marks in [0, cur_x] (rt-stack.c) */
	int cur_ok;		/* cur_x, cur_r valid (not since a renumbering) */
	uint32_t mv_n;		/* moves from block mv_from to block mv_to not yet counted */
	uint64_t mv_from, mv_to;
	int ok;
} __attribute__((aligned(64)));	/* one unit's lock and counters never share a line */

/* A leaf of the holders table: the words of elements key * 512 .. key * 512 + 511. */
struct reuse_hleaf {
	uint64_t key;		/* element / 512 + 1 */
	uint64_t w[512];	/* bit u: unit u holds the element; bit 63: locked */
};

struct reuse_stack {
	struct reuse_unit u[REUSE_UNITS];
	struct reuse_hleaf **htab;	/* leaves by key, open addressing, never resized */
	uint64_t hcap;			/* slots (a power of two) */
	uint64_t hleaves;		/* leaves inserted */
	uint64_t gen;			/* this engine's generation (per-thread leaf caches) */
	uint32_t alloc_lock;		/* the leaves' bump allocator */
	char *abuf;			/* its current block */
	uint64_t aleft;			/* bytes left in it */
	uint64_t lost;		/* accesses not modelled (out of memory) */
};

enum reuse_kind { REUSE_NONE = 0, REUSE_HIT, REUSE_COLD };

struct reuse_outcome {
	int kind;		/* enum reuse_kind */
	uint64_t trd;		/* time distance (REUSE_HIT) */
	uint64_t rd;		/* reuse (stack) distance (REUSE_HIT) */
	uint64_t prev_ip;	/* the use's code address (REUSE_HIT) */
	uint32_t invalidated;	/* other units' uses this store invalidated */
};

/* The first stamp capacity of a unit (default 16384; tests lower it). */
extern uint64_t reuse_stack_fen_first;

/* Zero the engine (no memory is taken until the first access). */
void reuse_stack_init(struct reuse_stack *s);
/* Unmap every table. */
void reuse_stack_release(struct reuse_stack *s);
/* One access of unit u (< REUSE_UNITS) to element e by the code at ip.  0, or -ENOMEM
 * (not modelled, counted in s->lost).  Any thread may call it at any time. */
int reuse_stack_access(struct reuse_stack *s, uint32_t u, uint64_t e, int store, uint64_t ip,
		       struct reuse_outcome *out);

/* ---- log-2 bins shared by every histogram of the tool ---- */

#define REUSE_BINS 48
/* Bin 0 holds 0, bin b >= 1 holds [2^(b-1), 2^b). */
static inline int reuse_bin(uint64_t d)
{
	int b = d ? 64 - __builtin_clzll(d) : 0;
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
