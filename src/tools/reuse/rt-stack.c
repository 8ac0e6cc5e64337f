/* SPDX-License-Identifier: MIT */
/*
 * rt-stack.c - the exact reuse engine (stack.h): Olken's stack distance on a Fenwick tree,
 * one stack per unit, with the invalidation rule, callable from every thread at once (the
 * unit locks and the holders table: stack.h).  Built into libsonde.so (--exact) and linked
 * by tests/unit/u-reuse-stack.c.
 */
#include <emmintrin.h>
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#include "tools/reuse/stack.h"
#include "rt/sigsafe.h"

/*
 * rt-reuse.c includes this file with REUSE_STACK_INLINE defined: the engine is then static
 * in the tool's object and reuse_stack_access is inlined in its every-access hook, one
 * function from the inst callback's call to its return, instead of two calls that saved
 * and restored registers (bench/reuse.sh callgrind, doc/sonde-reuse.md).  Built on its
 * own (rt-stack.o, in librt-pure.a, not in libsonde.so: src/tools/reuse/build.mk) it
 * serves the unit tests, which check the same code against the naive engine.
 */
#ifdef REUSE_STACK_INLINE
#define REUSE_API static
#define REUSE_API_HOT static inline __attribute__((always_inline))
#else
#define REUSE_API
#define REUSE_API_HOT
#endif

#define TAB_FIRST (1ull << 10)	/* a unit's first leaf slots */
#define LBLOCK (1ull << 20)	/* a unit's leaves come from blocks of 1 MB */

/* The holders table: slots for leaves (8 MB of address space, only the touched pages
 * take memory; 3/4 of them full = 393M elements), leaves carved from 2 MB blocks. */
#define HCAP (1ull << 20)
#define HLEAF_BYTES ((sizeof(struct reuse_hleaf) + 63) & ~63ull)
#define HBLOCK (2ull << 20)
#define HLOCK (1u << 31)

/* Groups a unit can have (rt-stack.c "groups"; two lists of them are mapped: 128 KB of
 * address space a unit, one page of it touched unless a run spans many times 2^32
 * accesses). */
#define GROUPS 4096
#define WMASK ((1ull << REUSE_WINDOW_SHIFT) - 1)

/* Engines made so far: a per-thread cache of the last leaf names the engine's generation,
 * so that it never serves a leaf of an engine released since (fork child, tests). */
static uint64_t generations;

/* The calling thread's last holders leaf (most accesses fall in the leaf of the last). */
/* A unit's last leaf before it has one: key 0, which no element has (entry: no NULL test). */
static struct reuse_leaf no_leaf;

static __thread __attribute__((tls_model("initial-exec"))) struct {
	uint64_t gen, key;
	struct reuse_hleaf *leaf;
} hcache;

/* First stamp capacity of a unit (a variable so that the tests can make renumbering
 * happen on short traces); static, as the engine's functions, in a file that includes the
 * engine (rt-reuse.c, u-reuse-stack-inline). */
REUSE_API uint64_t reuse_stack_fen_first = 1ull << 14;

/* An entry's count is less than this (the tests lower it: groups then split and merge
 * every few dozen accesses). */
REUSE_API uint64_t reuse_stack_count_room = 1ull << 32;

/* The CPU has POPCNT (rank): checked when the first engine is made. */
static int have_popcnt = -1;

static SIGSAFE void *map(uint64_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

REUSE_API SIGSAFE void reuse_stack_init(struct reuse_stack *s)
{
	memset(s, 0, sizeof(*s));
	s->gen = __atomic_add_fetch(&generations, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < REUSE_UNITS; i++) {
		s->u[i].cbase = 1ull << 63;	/* no code window yet: no user address is in it */
		s->u[i].cbase2 = 1ull << 63;
		s->u[i].last = &no_leaf;
	}
	if (have_popcnt < 0) {
		__builtin_cpu_init();
		have_popcnt = __builtin_cpu_supports("popcnt") != 0;
	}
}

/* The leaves' blocks are chained through their first word (a block starts with it). */
/* Blocks of a bump allocator are chained through their first line. */
static SIGSAFE void blocks_free(char *cur, uint64_t left, uint64_t block)
{
	for (char *b = cur ? cur + left - block : NULL; b;) {
		char *next = *(char **)b;
		munmap(b, block);
		b = next;
	}
}

/* `bytes` from the bump allocator (cur, left) of `block`-sized blocks; NULL: no memory. */
static SIGSAFE void *bump(char **cur, uint64_t *left, uint64_t block, uint64_t bytes)
{
	if (*left < bytes) {
		char *b = map(block);
		if (!b)
			return NULL;
		*(char **)b = *cur ? *cur + *left - block : NULL;
		*cur = b + 64;
		*left = block - 64;
	}
	void *p = *cur;
	*cur += bytes;
	*left -= bytes;
	return p;
}

static SIGSAFE uint64_t layout(struct reuse_unit *u, uint64_t cap, uint64_t *base);

static SIGSAFE void bits_free(struct reuse_unit *u)
{
	if (u->bits)
		munmap(u->bits, layout(u, u->cap, NULL));
	u->bits = NULL;
	u->nlev = 0;
}

REUSE_API SIGSAFE void reuse_stack_release(struct reuse_stack *s)
{
	if (s->htab)
		munmap(s->htab, HCAP * sizeof(*s->htab));
	blocks_free(s->abuf, s->aleft, HBLOCK);
	for (int i = 0; i < REUSE_UNITS; i++) {
		struct reuse_unit *u = &s->u[i];
		if (u->ltab)
			munmap(u->ltab, u->ltabsize * sizeof(*u->ltab));
		blocks_free(u->abuf, u->aleft, LBLOCK);
		bits_free(u);
		if (u->gmap)
			munmap(u->gmap, 2 * GROUPS * sizeof(*u->gmap));
	}
	memset(s, 0, sizeof(*s));
}

/* ---- locks: test-and-test-and-set, yielding (two threads per core are common) ---- */

static __attribute__((noinline)) SIGSAFE void spin_wait(uint32_t *l)
{
	for (int i = 0;; i++) {
		if (!__atomic_load_n(l, __ATOMIC_RELAXED) &&
		    !__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
			return;
		if (i > 64)
			sched_yield();
		else
			__builtin_ia32_pause();
	}
}

/* Inline: taken twice an access, almost always free. */
static inline SIGSAFE void spin_lock(uint32_t *l)
{
	if (__builtin_expect(__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE) != 0, 0))
		spin_wait(l);
}

static inline SIGSAFE void spin_unlock(uint32_t *l)
{
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

/*
 * ---- the stack: a bitmap of stamps, with counts of its marks per block ----
 *
 * Stamp x (0-based) is marked when it is the latest use of a live element.  The marked
 * stamps after x are the live ones minus those up to x, its rank.  Counts of marks are
 * kept per block of 512 stamps (level 0), per 8 blocks (level 1), per 8 of those, and so
 * on up to a level of at most 8 counts: the rank sums, at each level, the counts before
 * x's in its group of 8 (masked SSE2 additions: which side of its group a stamp falls is
 * random, and a branch on it mispredicts), then at most 7 words of bits.  A mark is one
 * bit and a count per level (4 levels for 32768 live elements); a reuse moves its mark to
 * the newest stamp, up to the first level where both are in one group.  The bitmap is
 * small (cap / 8 bytes: 32 KB for 32768 live elements, against 1 MB for a Fenwick tree
 * over the stamps) and a program that sweeps its data marks and unmarks neighbouring
 * stamps.  On RIBench this and the element leaves took the engine from 2.6 s to 1.0 s
 * of CPU (bench/reuse.sh's program on one thread, the runtime's share included).
 */

#define BLOCK 512ull		/* stamps per level-0 count */

/* The levels of stamp capacity cap: sets u's pointers (base != NULL) and returns the
 * mapping's bytes.  Each level is padded to whole groups of 8 (zero). */
static SIGSAFE uint64_t layout(struct reuse_unit *u, uint64_t cap, uint64_t *base)
{
	uint64_t n = (cap / BLOCK + 1 + 7) & ~7ull, words = n * BLOCK / 64;
	uint64_t off = words * 8;
	int k = 0;

	if (base)
		u->bits = base;
	for (;;) {
		if (base)
			u->c[k] = (uint32_t *)(void *)((char *)base + off);
		off += n * 4;
		k++;
		if (n <= 8 || k == REUSE_LEVELS)
			break;
		n = (n / 8 + 7) & ~7ull;
	}
	if (base)
		u->nlev = k;
	return off;
}

static SIGSAFE void mark(struct reuse_unit *u, uint64_t x)
{
	u->bits[x / 64] |= 1ull << (x % 64);
	x /= BLOCK;
	for (int k = 0; k < u->nlev; k++, x /= 8)
		u->c[k][x]++;
}

static SIGSAFE void unmark(struct reuse_unit *u, uint64_t x)
{
	u->cur_r -= x <= u->cur_x;	/* the rank cursors (rank_body) */
	u->cur_r2 -= x <= u->cur_x2;
	u->bits[x / 64] &= ~(1ull << (x % 64));
	x /= BLOCK;
	for (int k = 0; k < u->nlev; k++, x /= 8)
		u->c[k][x]--;
}

/* w with bit n % 64 cleared, set: one instruction each (the shifts, not and and or that
 * the compiler makes of the same in C without BMI2 took 4 more instructions an access on
 * reuse_stack_fast's path) */
static inline __attribute__((always_inline)) uint64_t bit_clear(uint64_t w, uint64_t n)
{
	__asm__("btrq %1, %0" : "+r"(w) : "r"(n) : "cc");
	return w;
}

static inline __attribute__((always_inline)) uint64_t bit_set(uint64_t w, uint64_t n)
{
	__asm__("btsq %1, %0" : "+r"(w) : "r"(n) : "cc");
	return w;
}

/* c[0] + ... + c[n - 1] for n < 8, c 16-byte aligned with 8 readable counts:
 * branchless (which side of a group x falls is random, a branch on it mispredicts). */
static inline __attribute__((always_inline)) uint32_t sum8(const uint32_t *c, uint64_t n)
{
	const __m128i *v = (const __m128i *)(const void *)c;
	__m128i k = _mm_set1_epi32((int)n);
	__m128i a = _mm_and_si128(_mm_load_si128(v), _mm_cmplt_epi32(_mm_setr_epi32(0, 1, 2, 3), k));
	__m128i b = _mm_and_si128(_mm_load_si128(v + 1),
				  _mm_cmplt_epi32(_mm_setr_epi32(4, 5, 6, 7), k));
	a = _mm_add_epi32(a, b);
	a = _mm_add_epi32(a, _mm_shuffle_epi32(a, 0x4E));
	a = _mm_add_epi32(a, _mm_shuffle_epi32(a, 0xB1));
	return (uint32_t)_mm_cvtsi128_si32(a);
}

/* Apply the pending moves to the counts (before they are read: rank_full, compact). */
static SIGSAFE void moves_flush(struct reuse_unit *u)
{
	uint64_t x = (uint32_t)u->mv_key, y = u->mv_key >> 32;
	uint32_t n = u->mv_n;

	for (int k = 0; n && k < u->nlev && x != y; k++, x /= 8, y /= 8) {
		u->c[k][x] -= n;
		u->c[k][y] += n;
	}
	u->mv_n = 0;
}

/*
 * A live element's mark moves from its stamp to the newest (reuse_move, below): its bit at
 * once, its counts later.  The counts of the groups holding both stay; in the others the
 * moves from one block to another are added up (mv_n) and applied when a move between two
 * other blocks comes, or before the counts are read.  A sweep moves its marks from one
 * block of old stamps to the block of the newest ~500 times in a row: one addition
 * instead of a count update per level.  Marks and unmarks change the counts at once (sums
 * commute).
 */

/* Marked stamps in [a, b] (b - a < 64: at most two words). */
static inline __attribute__((always_inline)) uint64_t marks_near(const uint64_t *bits,
								  uint64_t a, uint64_t b)
{
	uint64_t hi = b % 64 == 63 ? ~0ull : (2ull << (b % 64)) - 1;
	uint64_t lo = ~((1ull << (a % 64)) - 1);

	if (a / 64 == b / 64)
		return (uint64_t)__builtin_popcountll(bits[b / 64] & hi & lo);
	return (uint64_t)__builtin_popcountll(bits[a / 64] & lo) +
	       (uint64_t)__builtin_popcountll(bits[b / 64] & hi);
}

/* Marked stamps in [0, x], from scratch. */
static inline __attribute__((always_inline)) uint64_t rank_full(struct reuse_unit *u,
								 uint64_t x);

/* The rank of x from a cursor (cx, cr: cr marks in [0, cx]) within 64 stamps of it. */
static inline __attribute__((always_inline)) uint64_t rank_near(const uint64_t *bits, uint64_t cx,
								 uint64_t cr, uint64_t x)
{
	if (x >= cx)
		return cr + (x > cx ? marks_near(bits, cx + 1, x) : 0);
	return cr - marks_near(bits, x + 1, cx);
}

/*
 * Marked stamps in [0, x].  The unit keeps the last two ranks it computed (the cursors,
 * kept exact by every mark, unmark and move: a mark that leaves [0, cur_x] lowers it, a
 * new mark is always beyond it); a rank within 64 stamps of one is the cursor's plus or
 * minus the marks in between.  A program that sweeps its data reuses its elements in the
 * order of their previous stamps, each a stamp or two after the last: on RIBench nearly
 * every rank is that, ~10 instructions instead of ~150 (and the very next stamp is
 * rank_next, inline in the access).  The second cursor is for a sweep with a scattered
 * access between its steps (a sparse matrix-vector product's gather, x[col[k]], between
 * a[k] and a[k + 1]): with one cursor the gather moved it away and both ranks took the
 * full path.  cur_x is the newer cursor; one found near by the older one becomes the
 * newer, and a full rank pushes the newer one back in place of the older.
 */
static inline __attribute__((always_inline)) uint64_t rank_body(struct reuse_unit *u,
								 uint64_t x)
{
	uint64_t r;

	if (u->cur_ok && x - u->cur_x + 63 < 127) {	/* |x - cur_x| < 64 */
		r = rank_near(u->bits, u->cur_x, u->cur_r, x);
	} else if (u->cur_ok && x - u->cur_x2 + 63 < 127) {
		r = rank_near(u->bits, u->cur_x2, u->cur_r2, x);
		u->cur_x2 = u->cur_x;
		u->cur_r2 = u->cur_r;
	} else {
		r = rank_full(u, x);
		if (u->cur_ok) {
			u->cur_x2 = u->cur_x;
			u->cur_r2 = u->cur_r;
		} else {
			u->cur_x2 = x;
			u->cur_r2 = r;
		}
	}
	u->cur_x = x;
	u->cur_r = r;
	u->cur_ok = 1;
	return r;
}

static inline __attribute__((always_inline)) uint64_t rank_full(struct reuse_unit *u,
								 uint64_t x)
{
	uint64_t r = 0, w = x / 64, i = x / BLOCK;

	if (u->mv_n)
		moves_flush(u);
	int top = u->nlev - 1;

	for (int k = 0; k < top; k++, i /= 8)
		r += sum8(u->c[k] + (i & ~7ull), i % 8);
	if (i < 8) {
		r += sum8(u->c[top], i);
	} else {
		for (uint64_t j = 0; j < i; j++)	/* more than 2^32 stamps: not met */
			r += u->c[top][j];
	}
	/* words of x's block before x's: a sweep (stamps in order) keeps this loop's count
	 * for 64 ranks in a row, which the branch predictor follows (a loop over all 8 words
	 * with masks instead took 40% more instructions and was no faster) */
	uint64_t m = x % 64 == 63 ? ~0ull : (2ull << (x % 64)) - 1;
	for (uint64_t j = w & ~7ull; j < w; j++)
		r += (uint64_t)__builtin_popcountll(u->bits[j]);
	r += (uint64_t)__builtin_popcountll(u->bits[w] & m);
	return r;
}

/* The same with the POPCNT instruction (the build targets x86-64 without it, where
 * __builtin_popcountll is a call to libgcc's table code: 12% of the instructions). */
static __attribute__((target("popcnt"))) SIGSAFE uint64_t rank_popcnt(struct reuse_unit *u,
								      uint64_t x)
{
	return rank_body(u, x);
}

static SIGSAFE uint64_t rank_plain(struct reuse_unit *u, uint64_t x)
{
	return rank_body(u, x);
}

static SIGSAFE uint64_t rank(struct reuse_unit *u, uint64_t x)
{
	return have_popcnt ? rank_popcnt(u, x) : rank_plain(u, x);
}

/* marks_near with the POPCNT instruction where there is one (rank_popcnt) */
static __attribute__((target("popcnt"))) SIGSAFE uint64_t marks_popcnt(const uint64_t *bits,
									uint64_t a, uint64_t b)
{
	return marks_near(bits, a, b);
}

static SIGSAFE uint64_t marks_plain(const uint64_t *bits, uint64_t a, uint64_t b)
{
	return marks_near(bits, a, b);
}

static SIGSAFE uint64_t marks_top(const uint64_t *bits, uint64_t a, uint64_t b)
{
	return have_popcnt ? marks_popcnt(bits, a, b) : marks_plain(bits, a, b);
}

/*
 * A live element's reuse: its rank, then its mark moved to the newest stamp y (u's
 * fields read once into locals: a store to the bitmap could be one to u for the compiler,
 * which then reloaded them after each).  The mark at xs is set (the element is live),
 * so the rank of xs is the cursor's plus one when xs follows the cursor's stamp (a
 * sweep's usual next rank: no call), and the move then takes that mark out of [0, xs]
 * again: the cursor moves to xs with its count unchanged.  Returns the marks after xs.
 */
static inline __attribute__((always_inline)) SIGSAFE uint64_t
reuse_move(struct reuse_unit *u, uint64_t xs, uint64_t y)
{
	uint64_t *bits = u->bits, after;

	/* (cur_x is ~1 while cur_ok is 0: no stamp follows it) */
	if (__builtin_expect(xs == u->cur_x + 1, 1)) {
		after = u->live - u->cur_r - 1;
		u->cur_x = xs;
	} else if (y - xs <= 64) {
		/* a recent stamp: the marks after it are the few up to the newest, y - 1
		 * (every mark is below y), and the cursors stay where a sweep left them (NPB
		 * CG: a 4-byte index's second half, its 8-byte element's reuse 3 accesses on,
		 * between steps of the sweep; the full rank took 20% of --exact's CPU) */
		after = xs + 1 < y ? marks_top(bits, xs + 1, y - 1) : 0;
		/* (never true while the cursor is valid: rank sets it only more than 64
		 * stamps behind y, and it moves a stamp an access at most, as y does) */
		u->cur_r -= xs <= u->cur_x;
	} else {
		after = u->live - rank(u, xs);
		u->cur_r--;	/* rank set the cursor at xs; its mark leaves [0, xs] */
	}
	u->cur_r2 -= xs <= u->cur_x2;	/* (and [0, cur_x2] if it was in it) */
	bits[xs / 64] &= ~(1ull << (xs % 64));
	bits[y / 64] |= 1ull << (y % 64);
	uint64_t bx = xs / BLOCK, by = y / BLOCK, key = bx | by << 32;	/* stamps: 32-bit */
	if (bx == by)
		return after;
	/* (with mv_n 0, the same key too: its count starts from 0 as a new one would) */
	if (__builtin_expect(u->mv_key == key, 1)) {
		u->mv_n++;
		return after;
	}
	moves_flush(u);
	u->mv_key = key;
	u->mv_n = 1;
	return after;
}

/* ---- the elements: leaves of 64 consecutive elements, by a hash of leaf numbers ---- */

static SIGSAFE uint64_t hash(uint64_t k)
{
	k *= 0x9E3779B97F4A7C15ull;
	return k ^ (k >> 29);
}

static SIGSAFE struct reuse_leaf **lslot(struct reuse_leaf **tab, uint64_t size, uint64_t key)
{
	for (uint64_t h = hash(key);; h++) {
		struct reuse_leaf **l = &tab[h & (size - 1)];
		if (!*l || (*l)->key == key)
			return l;
	}
}

static SIGSAFE int grow_table(struct reuse_unit *u)
{
	uint64_t n = u->ltabsize ? 2 * u->ltabsize : TAB_FIRST;
	struct reuse_leaf **t = map(n * sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (uint64_t i = 0; i < u->ltabsize; i++)
		if (u->ltab[i])
			*lslot(t, n, u->ltab[i]->key) = u->ltab[i];
	if (u->ltab)
		munmap(u->ltab, u->ltabsize * sizeof(*u->ltab));
	u->ltab = t;
	u->ltabsize = n;
	return 0;
}

/* Element e's entry in u, its leaf not the last one found; made (zero: never seen) when
 * `make`.  NULL: none, or no memory. */
static __attribute__((noinline)) SIGSAFE struct reuse_entry *entry_slow(struct reuse_unit *u,
									uint64_t e, int make)
{
	uint64_t key = e / 64 + 1;

	if (!u->ltab)
		return NULL;
	/* a few leaves found lately first: a sweep of two arrays, or one with a scattered
	 * access between its steps, leaves the last leaf at nearly every access (NPB CG:
	 * 15% of --exact's CPU in the table's lookups) */
	struct reuse_leaf **c = &u->lcache[key % REUSE_LCACHE];
	if (*c && (*c)->key == key) {
		u->last = *c;
		return &u->last->e[e % 64];
	}
	struct reuse_leaf **p = lslot(u->ltab, u->ltabsize, key);
	if (!*p) {
		if (!make || (4 * ((uint64_t)u->nleaves + 1) > 3 * u->ltabsize && grow_table(u)))
			return NULL;
		p = lslot(u->ltab, u->ltabsize, key);
		struct reuse_leaf *l = bump(&u->abuf, &u->aleft, LBLOCK, sizeof(*l));
		if (!l)
			return NULL;
		l->key = key;
		*p = l;
		u->nleaves++;
	}
	u->last = *p;
	*c = *p;
	return &u->last->e[e % 64];
}

static inline SIGSAFE struct reuse_entry *entry(struct reuse_unit *u, uint64_t e, int make)
{
	struct reuse_leaf *l = u->last;

	if (__builtin_expect(l->key == e / 64 + 1, 1))	/* (no_leaf before the first) */
		return &l->e[e % 64];
	return entry_slow(u, e, make);
}

/*
 * ---- groups: the access numbers of the last uses in 32 bits ----
 *
 * An entry keeps its last use's access number (`count`) as an offset from the base of
 * its group, a range of stamps.  Stamps follow the access numbers in order (each access
 * takes the next stamp, and a renumbering keeps their order), so the live entries of one
 * range of stamps have access numbers in one range too: a group is a first stamp and a
 * base, the entries from that stamp up to the next group's count from the base, and the
 * offsets stay below reuse_stack_count_room (2^32).  New uses go to the last group.  The
 * renumbering (compact) rebuilds the list: it drops groups left with no live entry,
 * merges neighbours whose access numbers all fit within the room of the first one's base,
 * keeps the last group for the next uses if it has half its room left, else opens one
 * based at the current access, and ends the next run of stamps before the last group's
 * room runs out.  A program of fewer than 2^31 accesses a unit has one group, based at 0:
 * the offset is the access number.  Only an entry older than that, still live, keeps a
 * group of its own: at most one every 2^31 accesses of the unit, found by a binary search
 * (the last group needs one compare, in the access).
 */

/* The group of stamp x among g[0 .. n-1] (n >= 1, g[0].stamp <= x). */
static SIGSAFE const struct reuse_group *group_of(const struct reuse_group *g, uint32_t n,
						  uint64_t x)
{
	uint32_t lo = 0, hi = n;	/* g[lo].stamp <= x, and x < g[hi].stamp if hi < n */

	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;
		if (g[mid].stamp <= x)
			lo = mid;
		else
			hi = mid;
	}
	return &g[lo];
}

/* The accesses of u since live entry x's last use, that use included. */
static inline __attribute__((always_inline)) SIGSAFE uint64_t
entry_age(const struct reuse_unit *u, const struct reuse_entry *x)
{
	if (__builtin_expect(x->stamp >= u->gstamp, 1))
		return u->rel - x->count;
	return u->gbase + u->rel - group_of(u->groups, u->ngroups, x->stamp)->base - x->count;
}

/*
 * compact's renumbering of the live entries: each one's new stamp is its rank - 1 (and its
 * count moves to its new group unless `same`).  The ranks come from pre[w], the marks in
 * the bitmap's words before w (counted here, nw words), plus those of the entry's word up
 * to its stamp: the leaves come in the table's hash order, where rank()'s cursor seldom
 * helps (its full path: ~50 instructions an entry, 3% of --exact's on RIBench).
 */
static inline __attribute__((always_inline)) SIGSAFE void
renumber_body(struct reuse_unit *u, uint32_t *pre, uint64_t nw, const struct reuse_group *old,
	      uint32_t m, const struct reuse_group *ng, uint32_t k, int same)
{
	const uint64_t *bits = u->bits;

	if (pre) {
		uint32_t acc = 0;
		for (uint64_t w = 0; w < nw; w++) {
			pre[w] = acc;
			acc += (uint32_t)__builtin_popcountll(bits[w]);
		}
	}
	for (uint64_t i = 0; i < u->ltabsize; i++) {
		struct reuse_leaf *l = u->ltab[i];
		for (int j = 0; l && j < 64; j++) {
			struct reuse_entry *x = &l->e[j];
			if (x->code < REUSE_CODE_LIVE)
				continue;
			uint64_t xs = x->stamp, w = xs / 64, st;
			if (pre)	/* (2 << 63 is 0: the mask is then all ones) */
				st = pre[w] + (uint64_t)__builtin_popcountll(bits[w] &
									     ((2ull << (xs % 64)) - 1)) - 1;
			else
				st = rank(u, xs) - 1;
			if (!same) {
				uint64_t n = group_of(old, m, xs)->base + x->count;
				x->count = (uint32_t)(n - group_of(ng, k, st)->base);
			}
			x->stamp = (uint32_t)st;
		}
	}
}

static __attribute__((target("popcnt"))) SIGSAFE void
renumber_popcnt(struct reuse_unit *u, uint32_t *pre, uint64_t nw, const struct reuse_group *old,
		uint32_t m, const struct reuse_group *ng, uint32_t k, int same)
{
	renumber_body(u, pre, nw, old, m, ng, k, same);
}

static SIGSAFE void renumber_plain(struct reuse_unit *u, uint32_t *pre, uint64_t nw,
				   const struct reuse_group *old, uint32_t m,
				   const struct reuse_group *ng, uint32_t k, int same)
{
	renumber_body(u, pre, nw, old, m, ng, k, same);
}

/*
 * The stamps ran out (or the last group's room): renumber the live entries by rank (their
 * order is kept), rebuild the bitmap with stamps 0..live-1 and the groups (above), and
 * double the bitmap first while more than an eighth of it would stay in use (a
 * renumbering, O(elements + cap / 64), then comes every 7/8 of the stamps at least:
 * amortized O(1) per access for a stable footprint).  Nothing changes before the last
 * point where it can fail (-ENOMEM) but the pending moves and the rank cursor.
 */
static SIGSAFE int compact(struct reuse_unit *u)
{
	uint64_t cap = u->cap ? u->cap : reuse_stack_fen_first;
	while (u->live + 1 > cap / 8)
		cap *= 2;
	if (cap > UINT32_MAX)
		return -ENOMEM;		/* stamps are 32-bit: 2^28 (268M) live elements a cache */
	uint64_t bytes = layout(u, cap, NULL), room = reuse_stack_count_room;
	uint64_t now = u->gbase + u->rel;	/* accesses so far */
	uint64_t *bits = u->bits;

	if (!u->gmap && !(u->gmap = map(2 * GROUPS * sizeof(*u->gmap))))
		return -ENOMEM;
	moves_flush(u);		/* the ranks below read the counts (rank_full flushes too) */

	/* the new groups, in the list not in use: first each old one's new first stamp (the
	 * marks before its old one), then the empty ones dropped and neighbours merged */
	struct reuse_group *old = u->groups, *ng = old == u->gmap ? u->gmap + GROUPS : u->gmap;
	uint32_t m = u->ngroups, k = 0;

	for (uint32_t i = 0; i < m; i++) {
		ng[i].stamp = old[i].stamp ? rank(u, old[i].stamp - 1) : 0;
		ng[i].base = old[i].base;
	}
	for (uint32_t i = 0; i < m; i++) {
		uint64_t first = ng[i].stamp, base = ng[i].base;
		uint64_t end = i + 1 < m ? ng[i + 1].stamp : u->live;
		/* its access numbers are at most the next group's base (that group began
		 * after them), or now */
		uint64_t top = i + 1 < m ? ng[i + 1].base : now;

		if (end == first)
			continue;	/* no live entry left */
		if (k && top - ng[k - 1].base < room)
			continue;	/* fits in the previous group */
		ng[k].stamp = k ? first : 0;
		ng[k].base = base;
		k++;
	}
	/* the next uses: in the last group while it has half its room, else a new one */
	if (!k || now - ng[k - 1].base >= room / 2) {
		if (k == GROUPS)
			return -ENOMEM;	/* 2^43 accesses with live uses all along */
		ng[k].stamp = u->live;
		ng[k].base = now;
		k++;
	}
	if (cap != u->cap && !(bits = map(bytes)))
		return -ENOMEM;
	/* one group before and after, the same base (a run of fewer than 2^31 accesses): the
	 * offsets stay */
	int same = m == 1 && k == 1 && old[0].base == ng[0].base;
	/* the marks before each word of the bitmap, for the entries' ranks (NULL: no memory
	 * for them, rank() then) */
	uint64_t nw = u->stamp / 64 + 1, pbytes = nw * sizeof(uint32_t);
	uint32_t *pre = u->live ? map(pbytes) : NULL;
	if (have_popcnt)
		renumber_popcnt(u, pre, nw, old, m, ng, k, same);
	else
		renumber_plain(u, pre, nw, old, m, ng, k, same);
	if (pre)
		munmap(pre, pbytes);
	if (cap != u->cap) {
		bits_free(u);
		u->cap = (uint32_t)cap;	/* (at most UINT32_MAX, above) */
	} else {
		memset(bits, 0, bytes);
	}
	layout(u, cap, bits);
	/* stamps 0..live-1 marked */
	for (uint64_t x = 0; x < u->live; x++)
		u->bits[x / 64] |= 1ull << (x % 64);
	uint64_t size = BLOCK;
	for (int j = 0; j < u->nlev; j++, size *= 8)
		for (uint64_t i = 0; i * size < u->live; i++)
			u->c[j][i] = (uint32_t)(u->live - i * size < size ? u->live - i * size : size);
	u->stamp = u->live;
	u->groups = ng;
	u->ngroups = k;
	u->gstamp = ng[k - 1].stamp;
	u->gbase = ng[k - 1].base;
	u->rel = now - u->gbase;
	/* the last use before the next renumbering takes stamp_end - 1 and access number
	 * now + stamp_end - live: its offset must stay below the room */
	u->stamp_end = u->live + (room - 1 - (now - u->gbase));
	if (u->stamp_end > cap)
		u->stamp_end = cap;
	u->cur_ok = 0;		/* renumbered */
	u->cur_x = ~1ull;	/* (reuse_move reads cur_x alone) */
	u->cur_x2 = ~1ull;
	u->mv_n = 0;		/* the counts are rebuilt whole */
	return 0;
}

static SIGSAFE int unit_ready(struct reuse_unit *u)
{
	if (u->ok)
		return 0;
	if (grow_table(u) || compact(u))
		return -ENOMEM;
	u->ok = 1;
	return 0;
}

/* ---- the holders table ---- */

/* A leaf from the current block, or a new block (under alloc_lock).  NULL: no memory. */
static SIGSAFE struct reuse_hleaf *hleaf_new(struct reuse_stack *s, uint64_t key)
{
	spin_lock(&s->alloc_lock);
	struct reuse_hleaf *l = bump(&s->abuf, &s->aleft, HBLOCK, HLEAF_BYTES);
	if (l)
		l->key = key;
	spin_unlock(&s->alloc_lock);
	return l;
}

/* The (narrow) holders word of element e, its leaf made if needed; NULL: out of memory.  Lock-free:
 * a slot goes from NULL to a leaf once (compare-and-swap); a thread that loses the race for
 * a slot with the same key takes the winner's leaf (its own stays unused in the block). */
static __attribute__((noinline)) SIGSAFE uint32_t *holders_slow(struct reuse_stack *s,
								 uint64_t e)
{
	uint64_t key = (e >> 9) + 1;
	struct reuse_hleaf **tab = __atomic_load_n(&s->htab, __ATOMIC_ACQUIRE);
	if (!tab) {
		struct reuse_hleaf **t = map(HCAP * sizeof(*t)), **none = NULL;
		if (!t)
			return NULL;
		if (!__atomic_compare_exchange_n(&s->htab, &none, t, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE)) {
			munmap(t, HCAP * sizeof(*t));
			t = none;
		}
		tab = t;
	}
	struct reuse_hleaf *mine = NULL;
	/* nearby addresses in nearby slots: a program's pages share the table's pages */
	for (uint64_t h = key ^ (key >> 20), n = 0; n < HCAP; h++, n++) {
		struct reuse_hleaf **slotp = &tab[h & (HCAP - 1)];
		struct reuse_hleaf *l = __atomic_load_n(slotp, __ATOMIC_ACQUIRE);
		if (!l) {
			if (__atomic_load_n(&s->hleaves, __ATOMIC_RELAXED) >= HCAP / 4 * 3)
				return NULL;
			if (!mine && !(mine = hleaf_new(s, key)))
				return NULL;
			if (__atomic_compare_exchange_n(slotp, &l, mine, 0, __ATOMIC_ACQ_REL,
							__ATOMIC_ACQUIRE)) {
				__atomic_add_fetch(&s->hleaves, 1, __ATOMIC_RELAXED);
				l = mine;
			}
		}
		if (l->key == key) {
			hcache.gen = s->gen;
			hcache.key = key;
			hcache.leaf = l;
			return &l->w[e & 511];
		}
	}
	return NULL;
}

/* The thread's last leaf inline (most accesses), else holders_slow. */
static inline SIGSAFE uint32_t *holders(struct reuse_stack *s, uint64_t e)
{
	if (__builtin_expect(hcache.key == (e >> 9) + 1 && hcache.gen == s->gen, 1))
		return &hcache.leaf->w[e & 511];
	return holders_slow(s, e);
}

/* The wide word of element e, whose narrow word is hw: its leaf's array made if `make`
 * (under alloc_lock).  NULL: no array (not made), or no memory.  The array pointer is
 * written and read sequentially consistent: a store that locks the narrow word and then
 * finds no array has no wide holder to invalidate (a wide load's bit set after its array
 * was published comes after that lock in the order of the three). */
static SIGSAFE uint32_t *wide_word(struct reuse_stack *s, uint32_t *hw, uint64_t e, int make)
{
	struct reuse_hleaf *l = (struct reuse_hleaf *)(void *)((char *)(hw - (e & 511)) -
							       offsetof(struct reuse_hleaf, w));
	uint32_t *w = __atomic_load_n(&l->wide, __ATOMIC_SEQ_CST);

	if (!w && make) {
		spin_lock(&s->alloc_lock);
		w = __atomic_load_n(&l->wide, __ATOMIC_RELAXED);
		if (!w && (w = bump(&s->abuf, &s->aleft, HBLOCK, 512 * sizeof(*w)))) {
			__atomic_store_n(&l->wide, w, __ATOMIC_SEQ_CST);
			__atomic_add_fetch(&s->nwide, 1, __ATOMIC_SEQ_CST);
		}
		spin_unlock(&s->alloc_lock);
	}
	return w ? &w[e & 511] : NULL;
}

/* Element e (narrow word hw) has no wide holder. */
static __attribute__((noinline)) SIGSAFE int wide_clear(struct reuse_stack *s, uint32_t *hw,
							 uint64_t e)
{
	uint32_t *ww = wide_word(s, hw, e, 0);

	return !ww || !__atomic_load_n(ww, __ATOMIC_ACQUIRE);
}

/* Invalidate unit v's live entry of e, if any (v's lock held): 1 if there was one. */
static SIGSAFE uint32_t invalidate(struct reuse_unit *v, uint64_t e)
{
	struct reuse_entry *x;

	if (!v->ok || !(x = entry(v, e, 0)) || x->code < REUSE_CODE_LIVE)
		return 0;
	unmark(v, x->stamp);
	v->live--;
	x->code = REUSE_CODE_SEEN;
	return 1;
}

/* Element e's entry in u for an access, stamps and tables ready (u's lock held); NULL:
 * no memory (counted lost). */
static inline __attribute__((always_inline)) SIGSAFE struct reuse_entry *
unit_entry(struct reuse_stack *s, struct reuse_unit *u, uint64_t e)
{
	struct reuse_entry *x;

	/* a unit not ready yet has stamp_end 0 */
	if ((__builtin_expect(u->stamp >= u->stamp_end, 0) && (u->ok ? compact(u) : unit_ready(u))) ||
	    !(x = entry(u, e, 1))) {
		__atomic_add_fetch(&s->lost, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	return x;
}

/* Unit u's reuse of its live entry x by the code `code` (u's lock held). */
static inline __attribute__((always_inline)) SIGSAFE void
unit_reuse(const struct reuse_stack *s, struct reuse_unit *u, struct reuse_entry *x,
	   uint32_t code, struct reuse_outcome *out)
{
	uint64_t rel = ++u->rel, y = u->stamp;

	out->kind = REUSE_HIT;
	out->trd = entry_age(u, x) - 1;
	out->prev_ip = s->win[x->code >> REUSE_WINDOW_SHIFT] + (x->code & WMASK);
	out->codes = x->code | (uint64_t)code << 32;
	out->rd = reuse_move(u, x->stamp, y);
	u->stamp = y + 1;
	x->count = (uint32_t)rel;
	x->stamp = (uint32_t)y;
	x->code = code;
}

/* Unit u's own access to its entry x by the code `code` (u's lock held). */
static inline __attribute__((always_inline)) SIGSAFE void
unit_use(const struct reuse_stack *s, struct reuse_unit *u, struct reuse_entry *x,
	 uint32_t code, struct reuse_outcome *out)
{
	if (__builtin_expect(x->code >= REUSE_CODE_LIVE, 1)) {
		unit_reuse(s, u, x, code, out);
		return;
	}
	uint64_t rel = ++u->rel;
	if (!x->code)
		out->kind = REUSE_COLD;
	x->count = (uint32_t)rel;
	x->stamp = (uint32_t)u->stamp++;
	x->code = code;
	mark(u, x->stamp);
	u->live++;
}

/* unit_entry and unit_use: 0, or -ENOMEM. */
static inline __attribute__((always_inline)) SIGSAFE int
unit_access(struct reuse_stack *s, struct reuse_unit *u, uint64_t e, uint32_t code,
	    struct reuse_outcome *out)
{
	struct reuse_entry *x = unit_entry(s, u, e);

	if (!x)
		return -ENOMEM;
	unit_use(s, u, x, code, out);
	return 0;
}

/* ---- code addresses: a window of 16 MB (its index in s->win) and the offset in it ---- */

/* The code of ip, its window not u's last two: the window's index, added to the table if
 * new (under alloc_lock; read without it: a slot is written before nwin counts it), made
 * u's last (the last one its second).  0: the table is full. */
static __attribute__((noinline)) SIGSAFE uint32_t code_slow(struct reuse_stack *s,
							    struct reuse_unit *u, uint64_t ip)
{
	uint64_t base = ip & ~WMASK;
	uint32_t n = __atomic_load_n(&s->nwin, __ATOMIC_ACQUIRE), w;

	for (w = 1; w <= n && s->win[w] != base; w++)
		;
	if (w > n) {
		spin_lock(&s->alloc_lock);
		n = s->nwin;
		for (w = 1; w <= n && s->win[w] != base; w++)
			;
		if (w > n && w < REUSE_WINDOWS) {
			s->win[w] = base;
			__atomic_store_n(&s->nwin, w, __ATOMIC_RELEASE);
		}
		spin_unlock(&s->alloc_lock);
		if (w >= REUSE_WINDOWS)
			return 0;
	}
	u->cbase2 = u->cbase;
	u->cwin2 = u->cwin;
	u->cbase = base;
	u->cwin = w << REUSE_WINDOW_SHIFT;
	return u->cwin + (uint32_t)(ip - base);
}

/* The code of ip in *code (u's lock held): u's last two windows inline (nearly every
 * access; the second for a program whose code alternates between two windows, a shared
 * library's and the program's: with one, code_slow took 46 more instructions an access,
 * bench/reuse-window.sh), else code_slow.  0: not representable (the windows ran out). */
static inline __attribute__((always_inline)) SIGSAFE int
code_of(struct reuse_stack *s, struct reuse_unit *u, uint64_t ip, uint32_t *code)
{
	uint64_t d = ip - u->cbase;

	if (__builtin_expect(d <= WMASK, 1)) {
		*code = u->cwin + (uint32_t)d;
		return 1;
	}
	d = ip - u->cbase2;
	if (d <= WMASK) {
		*code = u->cwin2 + (uint32_t)d;
		return 1;
	}
	return (*code = code_slow(s, u, ip)) != 0;
}

/* A load of unit u that makes a new live entry x of e (cold, or after an invalidation),
 * u's lock held: the access, then u's bit (`ubit`, in the wide word if `wide`) in e's
 * holders word.  Out of line: a load that reuses is the inline path. */
static __attribute__((noinline)) SIGSAFE int load_new(struct reuse_stack *s,
						      struct reuse_unit *u, struct reuse_entry *x,
						      uint64_t e, uint32_t code,
						      struct reuse_outcome *out, uint32_t ubit,
						      int wide)
{
	uint32_t bit = 1u << ubit, *hw = holders(s, e);

	if (hw && wide)
		hw = wide_word(s, hw, e, 1);
	if (!hw) {
		__atomic_add_fetch(&s->lost, 1, __ATOMIC_RELAXED);
		return -ENOMEM;
	}
	unit_use(s, u, x, code, out);
	if (!(__atomic_load_n(hw, __ATOMIC_RELAXED) & bit))
		__atomic_fetch_or(hw, bit, __ATOMIC_SEQ_CST);
	return 0;
}

/* Invalidate e in units first + i for each bit i of `victims` (one holders word's bits),
 * each under its lock: the live entries it ended. */
static SIGSAFE uint32_t invalidate_units(struct reuse_stack *s, uint32_t first, uint32_t victims,
					 uint64_t e)
{
	uint32_t n = 0;

	for (; victims; victims &= victims - 1) {
		struct reuse_unit *v = &s->u[first + __builtin_ctz(victims)];
		spin_lock(&v->lock);
		n += invalidate(v, e);
		spin_unlock(&v->lock);
	}
	return n;
}

/* A store of unit u (its bit `bit` in the narrow word, or in the wide one if `wide`) to
 * element e (holders words hw and, for a wide unit, ww) that is not private (other holders,
 * or a store under way): out of line, the inline path is the private store's. */
static __attribute__((noinline)) SIGSAFE int store_shared(struct reuse_stack *s,
							  struct reuse_unit *u, uint64_t e,
							  uint32_t *hw, uint32_t *ww, uint32_t code,
							  struct reuse_outcome *out, uint32_t ubit,
							  int wide)
{
	uint32_t bit = 1u << ubit;
	int r;

	/* lock the element, leaving u's bit alone in its words: the others are invalidated */
	uint32_t old = __atomic_load_n(hw, __ATOMIC_RELAXED), oldw = 0, nbit = wide ? 0 : bit;
	for (int i = 0;; i++) {
		if (!(old & HLOCK) && __atomic_compare_exchange_n(hw, &old, HLOCK | nbit, 0,
								  __ATOMIC_SEQ_CST,
								  __ATOMIC_RELAXED))
			break;
		if (i > 64)
			sched_yield();
		else
			__builtin_ia32_pause();
		old = __atomic_load_n(hw, __ATOMIC_RELAXED);
	}
	if (!wide)
		ww = wide_word(s, hw, e, 0);	/* after the lock (wide_word) */
	if (ww)
		oldw = __atomic_exchange_n(ww, wide ? bit : 0, __ATOMIC_SEQ_CST);
	out->invalidated += invalidate_units(s, 0, old & ~nbit, e);
	out->invalidated += invalidate_units(s, REUSE_NARROW, oldw & ~(wide ? bit : 0), e);
	spin_lock(&u->lock);
	r = unit_access(s, u, e, code, out);
	spin_unlock(&u->lock);
	/* unlock: bits set meanwhile by loads stay */
	__atomic_fetch_and(hw, ~HLOCK, __ATOMIC_RELEASE);
	return r;
}

/* reuse_stack_access for unit un, with `wide` a constant: un >= REUSE_NARROW (its bit in
 * the wide holders word), compiled once each way. */
static inline __attribute__((always_inline)) SIGSAFE int
access_body(struct reuse_stack *s, uint32_t un, uint64_t e, int store, uint64_t ip,
	    struct reuse_outcome *out, const int wide)
{
	struct reuse_unit *u = &s->u[un];
	uint32_t bit = 1u << (wide ? un - REUSE_NARROW : un);
	uint32_t *hw = NULL, *ww = NULL;
	uint32_t code;
	int r;

	out->kind = REUSE_NONE;
	out->invalidated = 0;
	if (!store) {
		spin_lock(&u->lock);
		struct reuse_entry *x = unit_entry(s, u, e);
		if (x && __builtin_expect(!code_of(s, u, ip, &code), 0)) {
			__atomic_add_fetch(&s->lost, 1, __ATOMIC_RELAXED);
			x = NULL;
		}
		/* a load that reuses a live entry leaves the holders alone: their word is
		 * looked up only for a new live entry, which u holds from now on (stack.h) */
		r = -ENOMEM;
		if (x && __builtin_expect(x->code >= REUSE_CODE_LIVE, 1)) {
			unit_use(s, u, x, code, out);
			r = 0;
		} else if (x) {
			/* (the out-of-line paths fill a copy: `out` whose address no call
			 * takes stays in registers in the inlined hook) */
			struct reuse_outcome o = *out;
			r = load_new(s, u, x, e, code, &o, wide ? un - REUSE_NARROW : un, wide);
			*out = o;
		}
		spin_unlock(&u->lock);
		return r;
	}
	if (!(hw = holders(s, e)) || (wide && !(ww = wide_word(s, hw, e, 1)))) {
		__atomic_add_fetch(&s->lost, 1, __ATOMIC_RELAXED);
		return -ENOMEM;
	}
	/*
	 * Private data: u's bit alone in the word (no other holder, no store of e under way),
	 * read under u's lock, needs no element lock.  A store of another unit that locks the
	 * word after this read finds u's bit and invalidates u's entry under u's lock, so
	 * after this access: it is ordered after this store, as it should.  A load of another
	 * unit that sets its bit after the read is ordered after it too, and its entry rightly
	 * stays live.  So the store is made at the read: two atomic operations saved.  With
	 * two words, u's bit alone in its own and nothing in the other (the narrow word first:
	 * a store under way holds its lock bit); a wide load that sets its bit after the read
	 * of the wide word is ordered after this store like any other load.
	 */
	spin_lock(&u->lock);
	if (__builtin_expect(!code_of(s, u, ip, &code), 0)) {
		spin_unlock(&u->lock);
		__atomic_add_fetch(&s->lost, 1, __ATOMIC_RELAXED);
		return -ENOMEM;
	}
	uint32_t n0 = __atomic_load_n(hw, __ATOMIC_ACQUIRE);
	if (wide ? !n0 && __atomic_load_n(ww, __ATOMIC_ACQUIRE) == bit
		 : n0 == bit && (__builtin_expect(!__atomic_load_n(&s->nwide, __ATOMIC_RELAXED), 1) ||
				 wide_clear(s, hw, e))) {
		r = unit_access(s, u, e, code, out);
		spin_unlock(&u->lock);
		return r;
	}
	spin_unlock(&u->lock);
	struct reuse_outcome o = *out;
	r = store_shared(s, u, e, hw, ww, code, &o, wide ? un - REUSE_NARROW : un, wide);
	*out = o;
	return r;
}

#ifdef REUSE_STACK_INLINE
/*
 * The common access alone, for the every-access hook: narrow unit u (its bit `bit` in the
 * holders words) reuses a live entry of
 * its last leaf from code in one of its last two windows, the unit needs no renumbering,
 * and a store's element is private (its holders word in the thread's cached leaf, u's bit
 * alone, no wide word anywhere).  The checks are those of access_body's paths, all made
 * before anything changes: 1 when the access was made (out as reuse_stack_access fills
 * it, a REUSE_HIT), 0 when nothing changed and the caller must call reuse_stack_access.
 * Its own function (no store_shared, load_new, compact, ... beside it): the inlined
 * access_body spilled a dozen values to its frame for those paths' calls, at every access
 * (bench/reuse.sh callgrind, doc/sonde-reuse.md).
 */
static inline __attribute__((always_inline)) SIGSAFE int
reuse_stack_fast(struct reuse_stack *const *sp, struct reuse_unit *u, const uint32_t *bitp,
		 uint64_t e, int store, uint64_t ip, struct reuse_outcome *out)
{
	/* (64 bits, a 32-bit value: spilled as 32 bits and reloaded as 64 for the code pair,
	 * the reload could not take the store's value and waited for it, 30% of --exact's
	 * CPU: bench/reuse-cpu.sh) */
	uint64_t code;

	/* held (a store of another unit invalidating u's entries): the whole path waits */
	if (__builtin_expect(__atomic_exchange_n(&u->lock, 1, __ATOMIC_ACQUIRE) != 0, 0))
		return 0;
	struct reuse_entry *x = &u->last->e[e % 64];
	uint64_t d = ip - u->cbase;
	if (__builtin_expect(u->stamp >= u->stamp_end || u->last->key != e / 64 + 1, 0))
		goto no;
	if (__builtin_expect(d <= WMASK, 1))
		code = (uint32_t)(u->cwin + (uint32_t)d);
	else if ((d = ip - u->cbase2) <= WMASK)
		code = (uint32_t)(u->cwin2 + (uint32_t)d);
	else
		goto no;
	/* live, in the last group (entry_age), the stamp after the cursor's (reuse_move's
	 * rank without rank()), its move between the blocks of the pending ones (or in one
	 * block: no moves_flush).  The stamp is then the cursor's + 1, and the bitmap's words
	 * and blocks are found from that: the addresses do not wait for the entry's load (a
	 * chain of dependent loads is what an access costs: bench/reuse.sh, doc) */
	uint32_t c = x->code;
	uint64_t xs = u->cur_x + 1, y = u->stamp;
	if (__builtin_expect(c < REUSE_CODE_LIVE || x->stamp < u->gstamp || x->stamp != xs, 0))
		goto no;
	__asm__("" : "+r"(xs));	/* (xs stays the cursor's, not the entry's, for the compiler) */
	/* a store: private (access_body's comment), read under u's lock as there; its holders
	 * word from the thread's cached leaf (holders' inline path: holders_slow may allocate,
	 * reuse_stack_access's job).  Looked up here, after the entry's checks, not before
	 * the lock: the word's address, the unit's bit and the engine's address then take no
	 * register across them (until 2026-11-26 they did, with the hook's frame: bench/reuse.sh
	 * callgrind) */
	if (store) {
		/* (the engine and the bit through pointers, read here: loaded before the lock,
		 * as values, they took two registers across it) */
		struct reuse_stack *s = *sp;
		if (__builtin_expect(hcache.key != (e >> 9) + 1 || hcache.gen != s->gen, 0))
			goto no;
		const uint32_t *hw = &hcache.leaf->w[e & 511];
		if (__builtin_expect(__atomic_load_n(hw, __ATOMIC_ACQUIRE) != *bitp ||
				     __atomic_load_n(&s->nwide, __ATOMIC_RELAXED), 0))
			goto no;
	}
	/* the last check, and the first change: a move between two blocks (a sweep's usual
	 * case: its marks move from a block of old stamps to the newest's) is counted at
	 * once (a flag kept for after the checks took 4 more instructions an access) */
	uint64_t bx = xs / BLOCK, by = y / BLOCK;
	if (bx != by) {
		if (u->mv_key != (bx | by << 32))
			goto no;
		u->mv_n++;
	}
	/* unit_reuse and reuse_move on that path, with no call left in it: without one, the
	 * hook that inlines this needs no frame of its own */
	/* (in this order: the entry written, and the values it needs done with, first; the
	 * order of the source is the order the registers are given in, and the values alive
	 * at once beyond the caller-saved registers are pushed, popped or spilled at every
	 * access, where the memory operations bound its time: callgrind --cache-sim counted
	 * ~60 loads and ~36 stores an access, 2026-11-26) */
	uint64_t rel = ++u->rel;
	out->trd = rel - x->count - 1;
	out->codes = c | code << 32;
	x->count = (uint32_t)rel;
	x->stamp = (uint32_t)y;
	x->code = (uint32_t)code;
	out->kind = REUSE_HIT;
	out->invalidated = 0;
	out->prev_ip = (*sp)->win[c >> REUSE_WINDOW_SHIFT] + (c & WMASK);
	out->rd = u->live - u->cur_r - 1;
	uint64_t *bits = u->bits;
	u->cur_x = xs;
	u->cur_r2 -= xs <= u->cur_x2;	/* (reuse_move) */
	bits[xs / 64] = bit_clear(bits[xs / 64], xs);
	bits[y / 64] = bit_set(bits[y / 64], y);
	u->stamp = y + 1;
	spin_unlock(&u->lock);
	return 1;
no:
	spin_unlock(&u->lock);
	return 0;
}
#endif

static __attribute__((noinline)) SIGSAFE int access_wide(struct reuse_stack *s, uint32_t un,
							 uint64_t e, int store, uint64_t ip,
							 struct reuse_outcome *out)
{
	return access_body(s, un, e, store, ip, out, 1);
}

REUSE_API_HOT SIGSAFE int reuse_stack_access(struct reuse_stack *s, uint32_t un, uint64_t e, int store,
			       uint64_t ip, struct reuse_outcome *out)
{
	if (un >= REUSE_UNITS)
		un %= REUSE_UNITS;
	if (__builtin_expect(un < REUSE_NARROW, 1))
		return access_body(s, un, e, store, ip, out, 0);
	return access_wide(s, un, e, store, ip, out);
}
