/* SPDX-License-Identifier: MIT */
/*
 * rt-stack.c - the exact reuse engine (stack.h): Olken's stack distance on a Fenwick tree,
 * one stack per unit, with the invalidation rule.  Built into libsonde.so (--exact) and
 * linked by tests/unit/u-reuse-stack.c.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "tools/reuse/stack.h"
#include "rt/sigsafe.h"

#define TAB_FIRST (1ull << 12)

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
}

SIGSAFE void reuse_stack_release(struct reuse_stack *s)
{
	for (int i = 0; i < REUSE_UNITS; i++) {
		struct reuse_unit *u = &s->u[i];
		if (u->tab)
			munmap(u->tab, u->tabsize * sizeof(*u->tab));
		if (u->fen)
			munmap(u->fen, (u->fencap + 1) * sizeof(*u->fen));
	}
	memset(s, 0, sizeof(*s));
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

/* Invalidate e's live entries in the units other than `me`; how many there were. */
static SIGSAFE uint32_t invalidate(struct reuse_stack *s, uint32_t me, uint32_t nunits,
				   uint64_t key)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < nunits && i < REUSE_UNITS; i++) {
		struct reuse_unit *v = &s->u[i];
		struct reuse_entry *x;
		if (i == me || !v->ok || !(x = find(v, key)) || !x->count)
			continue;
		fen_add(v, x->stamp, -1);
		v->live--;
		x->count = 0;
		n++;
	}
	return n;
}

SIGSAFE int reuse_stack_access(struct reuse_stack *s, uint32_t un, uint32_t nunits, uint64_t e,
			       int store, uint64_t ip, struct reuse_outcome *out)
{
	struct reuse_unit *u = &s->u[un % REUSE_UNITS];
	uint64_t key = e + 1;

	memset(out, 0, sizeof(*out));
	if (unit_ready(u) || (4 * (u->used + 1) > 3 * u->tabsize && grow_table(u)) ||
	    (u->stamp > u->fencap && compact(u))) {
		s->lost++;
		return -ENOMEM;
	}
	if (store)
		out->invalidated = invalidate(s, un % REUSE_UNITS, nunits, key);
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
