/* SPDX-License-Identifier: MIT */
/*
 * rt-stack.c - the exact reuse engine (stack.h): Olken's stack distance on a Fenwick tree,
 * one stack per unit, with the invalidation rule, callable from every thread at once (the
 * unit locks and the holders table: stack.h).  Built into libsonde.so (--exact) and linked
 * by tests/unit/u-reuse-stack.c.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>

#include "tools/reuse/stack.h"
#include "rt/sigsafe.h"

#define TAB_FIRST (1ull << 12)

/* The holders table: slots for leaves (8 MB of address space, only the touched pages
 * take memory; 3/4 of them full = 393M elements), leaves carved from 2 MB blocks. */
#define HCAP (1ull << 20)
#define HLEAF_BYTES ((sizeof(struct reuse_hleaf) + 63) & ~63ull)
#define HBLOCK (2ull << 20)
#define HLOCK (1ull << 63)

/* Engines made so far: a per-thread cache of the last leaf names the engine's generation,
 * so that it never serves a leaf of an engine released since (fork child, tests). */
static uint64_t generations;

/* The calling thread's last holders leaf (most accesses fall in the leaf of the last). */
static __thread __attribute__((tls_model("initial-exec"))) struct {
	uint64_t gen, key;
	struct reuse_hleaf *leaf;
} hcache;

/* First stamp capacity of a unit (a variable so that the tests can make renumbering
 * happen on short traces). */
uint64_t reuse_stack_fen_first = 1ull << 14;

static SIGSAFE void *map(uint64_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

SIGSAFE void reuse_stack_init(struct reuse_stack *s)
{
	memset(s, 0, sizeof(*s));
	s->gen = __atomic_add_fetch(&generations, 1, __ATOMIC_RELAXED);
}

/* The leaves' blocks are chained through their first word (a block starts with it). */
SIGSAFE void reuse_stack_release(struct reuse_stack *s)
{
	if (s->htab)
		munmap(s->htab, HCAP * sizeof(*s->htab));
	for (char *b = s->abuf ? s->abuf + s->aleft - HBLOCK : NULL; b;) {
		char *next = *(char **)b;
		munmap(b, HBLOCK);
		b = next;
	}
	for (int i = 0; i < REUSE_UNITS; i++) {
		struct reuse_unit *u = &s->u[i];
		if (u->tab)
			munmap(u->tab, u->tabsize * sizeof(*u->tab));
		if (u->fen)
			munmap(u->fen, (u->fencap + 1) * sizeof(*u->fen));
	}
	memset(s, 0, sizeof(*s));
}

/* ---- locks: test-and-test-and-set, yielding (two threads per core are common) ---- */

static SIGSAFE void spin_lock(uint32_t *l)
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

static SIGSAFE void spin_unlock(uint32_t *l)
{
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

/* ---- the Fenwick tree ---- */

static SIGSAFE void fen_add(struct reuse_unit *u, uint64_t i, int v)
{
	for (; i <= u->fencap; i += i & -i)
		u->fen[i] += (uint32_t)v;
}

/* Marked stamps in [1, i]. */
static SIGSAFE uint64_t fen_sum(const struct reuse_unit *u, uint64_t i)
{
	uint64_t s = 0;
	for (; i; i -= i & -i)
		s += u->fen[i];
	return s;
}

/* ---- the hash table ---- */

static SIGSAFE uint64_t hash(uint64_t k)
{
	k *= 0x9E3779B97F4A7C15ull;
	return k ^ (k >> 29);
}

static SIGSAFE struct reuse_entry *slot(struct reuse_entry *tab, uint64_t size, uint64_t key)
{
	for (uint64_t h = hash(key);; h++) {
		struct reuse_entry *e = &tab[h & (size - 1)];
		if (e->key == key || !e->key)
			return e;
	}
}

static SIGSAFE int grow_table(struct reuse_unit *u)
{
	uint64_t n = u->tabsize ? 2 * u->tabsize : TAB_FIRST;
	struct reuse_entry *t = map(n * sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (uint64_t i = 0; i < u->tabsize; i++)
		if (u->tab[i].key)
			*slot(t, n, u->tab[i].key) = u->tab[i];
	if (u->tab)
		munmap(u->tab, u->tabsize * sizeof(*u->tab));
	u->tab = t;
	u->tabsize = n;
	return 0;
}

/*
 * The stamps ran out: renumber the live entries by rank (their order is kept), rebuild the
 * tree with stamps 1..live, and double it first while more than an eighth of it would stay
 * in use (a renumbering, O(table + live log live), then comes every 7/8 of the tree's
 * stamps at least: amortized O(1) per access for a stable footprint).
 */
static SIGSAFE int compact(struct reuse_unit *u)
{
	uint64_t cap = u->fencap ? u->fencap : reuse_stack_fen_first;
	while (u->live + 1 > cap / 8)
		cap *= 2;
	for (uint64_t i = 0; i < u->tabsize; i++) {
		struct reuse_entry *e = &u->tab[i];
		if (e->key && e->count)
			e->stamp = fen_sum(u, e->stamp);	/* rank among the live */
	}
	if (cap != u->fencap) {
		uint32_t *f = map((cap + 1) * sizeof(*f));
		if (!f)
			return -ENOMEM;
		if (u->fen)
			munmap(u->fen, (u->fencap + 1) * sizeof(*u->fen));
		u->fen = f;
		u->fencap = cap;
	} else {
		memset(u->fen, 0, (cap + 1) * sizeof(*u->fen));
	}
	/* linear build of a tree whose leaves 1..live are 1 (every node passes its sum up) */
	for (uint64_t i = 1; i <= cap; i++) {
		u->fen[i] += i <= u->live;
		uint64_t j = i + (i & -i);
		if (j <= cap)
			u->fen[j] += u->fen[i];
	}
	u->stamp = u->live + 1;
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

static SIGSAFE struct reuse_entry *find(const struct reuse_unit *u, uint64_t key)
{
	if (!u->tab)
		return NULL;
	struct reuse_entry *e = slot(u->tab, u->tabsize, key);
	return e->key ? e : NULL;
}

/* ---- the holders table ---- */

/* A leaf from the current block, or a new block (under alloc_lock).  NULL: no memory. */
static SIGSAFE struct reuse_hleaf *hleaf_new(struct reuse_stack *s, uint64_t key)
{
	struct reuse_hleaf *l = NULL;

	spin_lock(&s->alloc_lock);
	if (s->aleft < HLEAF_BYTES) {
		char *b = map(HBLOCK);
		if (b) {
			/* the first line links to the previous block (release walks them) */
			*(char **)b = s->abuf ? s->abuf + s->aleft - HBLOCK : NULL;
			s->abuf = b + 64;
			s->aleft = HBLOCK - 64;
		}
	}
	if (s->aleft >= HLEAF_BYTES) {
		l = (struct reuse_hleaf *)(void *)s->abuf;
		s->abuf += HLEAF_BYTES;
		s->aleft -= HLEAF_BYTES;
		l->key = key;
	}
	spin_unlock(&s->alloc_lock);
	return l;
}

/* The holders word of element e, its leaf made if needed; NULL: out of memory.  Lock-free:
 * a slot goes from NULL to a leaf once (compare-and-swap); a thread that loses the race for
 * a slot with the same key takes the winner's leaf (its own stays unused in the block). */
static SIGSAFE uint64_t *holders(struct reuse_stack *s, uint64_t e)
{
	uint64_t key = (e >> 9) + 1;

	if (hcache.gen == s->gen && hcache.key == key)
		return &hcache.leaf->w[e & 511];
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

/* Invalidate unit v's live entry of key, if any (v's lock held): 1 if there was one. */
static SIGSAFE uint32_t invalidate(struct reuse_unit *v, uint64_t key)
{
	struct reuse_entry *x;

	if (!v->ok || !(x = find(v, key)) || !x->count)
		return 0;
	fen_add(v, x->stamp, -1);
	v->live--;
	x->count = 0;
	return 1;
}

/* Unit u's own access (u's lock held). */
static SIGSAFE int unit_access(struct reuse_stack *s, struct reuse_unit *u, uint64_t key,
			       uint64_t ip, struct reuse_outcome *out)
{
	if (unit_ready(u) || (4 * (u->used + 1) > 3 * u->tabsize && grow_table(u)) ||
	    (u->stamp > u->fencap && compact(u))) {
		__atomic_add_fetch(&s->lost, 1, __ATOMIC_RELAXED);
		return -ENOMEM;
	}
	u->now++;
	struct reuse_entry *x = slot(u->tab, u->tabsize, key);
	if (!x->key) {
		x->key = key;
		u->used++;
		out->kind = REUSE_COLD;
	} else if (x->count) {
		out->kind = REUSE_HIT;
		out->trd = u->now - x->count - 1;
		out->rd = u->live - fen_sum(u, x->stamp);
		out->prev_ip = x->ip;
		fen_add(u, x->stamp, -1);
		u->live--;
	}
	x->count = u->now;
	x->stamp = u->stamp++;
	x->ip = ip;
	fen_add(u, x->stamp, +1);
	u->live++;
	return 0;
}

SIGSAFE int reuse_stack_access(struct reuse_stack *s, uint32_t un, uint64_t e, int store,
			       uint64_t ip, struct reuse_outcome *out)
{
	un %= REUSE_UNITS;
	struct reuse_unit *u = &s->u[un];
	uint64_t key = e + 1, bit = 1ull << un;
	uint64_t *hw = holders(s, e);
	int r;

	memset(out, 0, sizeof(*out));
	if (!hw) {
		__atomic_add_fetch(&s->lost, 1, __ATOMIC_RELAXED);
		return -ENOMEM;
	}
	if (!store) {
		spin_lock(&u->lock);
		r = unit_access(s, u, key, ip, out);
		/* a new live entry: u holds e from now on (see stack.h) */
		if (!r && out->kind != REUSE_HIT && !(__atomic_load_n(hw, __ATOMIC_RELAXED) & bit))
			__atomic_fetch_or(hw, bit, __ATOMIC_SEQ_CST);
		spin_unlock(&u->lock);
		return r;
	}
	/* lock the element, leaving u's bit alone in its word: the others are invalidated */
	uint64_t old = __atomic_load_n(hw, __ATOMIC_RELAXED);
	for (int i = 0;; i++) {
		if (!(old & HLOCK) && __atomic_compare_exchange_n(hw, &old, HLOCK | bit, 0,
								  __ATOMIC_SEQ_CST,
								  __ATOMIC_RELAXED))
			break;
		if (i > 64)
			sched_yield();
		else
			__builtin_ia32_pause();
		old = __atomic_load_n(hw, __ATOMIC_RELAXED);
	}
	for (uint64_t victims = old & ~bit; victims; victims &= victims - 1) {
		struct reuse_unit *v = &s->u[__builtin_ctzll(victims)];
		spin_lock(&v->lock);
		out->invalidated += invalidate(v, key);
		spin_unlock(&v->lock);
	}
	spin_lock(&u->lock);
	r = unit_access(s, u, key, ip, out);
	spin_unlock(&u->lock);
	/* unlock: bits set meanwhile by loads stay */
	__atomic_fetch_and(hw, ~HLOCK, __ATOMIC_RELEASE);
	return r;
}
