/* SPDX-License-Identifier: MIT */
/*
 * u-reuse-stack.c - the exact reuse engine (src/tools/reuse/rt-stack.c) against a naive
 * O(n^2) one that rescans the trace for every access: random traces of 1 to 4 units over
 * small and large element sets, with loads and stores (invalidations), long enough to
 * force the stamp renumbering and the table growth; and the thesis's example.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "tools/reuse/stack.h"

#define N 6000

struct acc {
	uint32_t unit;
	uint64_t e;
	int store;
};

static struct acc tr[N];

/* Is unit v's access at position p to element e still live at position now (no store
 * by another unit to e in between)? */
static int live(int p, int now, uint32_t v, uint64_t e)
{
	for (int q = p + 1; q < now; q++)
		if (tr[q].e == e && tr[q].store && tr[q].unit != v)
			return 0;
	return 1;
}

/* The naive outcome of access i. */
static void naive(int i, uint32_t nunits, struct reuse_outcome *o)
{
	uint32_t u = tr[i].unit;
	uint64_t e = tr[i].e;
	int last = -1;

	memset(o, 0, sizeof(*o));
	for (int q = i - 1; q >= 0; q--)
		if (tr[q].unit == u && tr[q].e == e) {
			last = q;
			break;
		}
	if (last < 0)
		o->kind = REUSE_COLD;
	else if (live(last, i, u, e)) {
		o->kind = REUSE_HIT;
		for (int q = last + 1; q < i; q++) {
			if (tr[q].unit != u)
				continue;
			o->trd++;
			/* count x once: at u's last access to it before i, if still live */
			int later = 0;
			for (int r = q + 1; r < i; r++)
				if (tr[r].unit == u && tr[r].e == tr[q].e)
					later = 1;
			if (!later && live(q, i, u, tr[q].e))
				o->rd++;
		}
	}
	if (tr[i].store)
		for (uint32_t v = 0; v < nunits; v++) {
			if (v == u)
				continue;
			for (int q = i - 1; q >= 0; q--)
				if (tr[q].unit == v && tr[q].e == e) {
					o->invalidated += live(q, i, v, e);
					break;
				}
		}
}

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int compare(uint32_t nunits, uint64_t elems, int store_pct, int n)
{
	static struct reuse_stack s;
	int bad = 0;
	reuse_stack_init(&s);
	for (int i = 0; i < n; i++) {
		/* skewed: half the accesses in a small hot set */
		uint64_t e = rnd() % 2 ? rnd() % 8 : rnd() % elems;
		tr[i] = (struct acc){ (uint32_t)(rnd() % nunits), e * 3 + 1000,
				      (int)(rnd() % 100) < store_pct };
	}
	for (int i = 0; i < n && !bad; i++) {
		struct reuse_outcome a, b;
		if (reuse_stack_access(&s, tr[i].unit, tr[i].e, tr[i].store, (uint64_t)i, &a))
			bad = 1;
		naive(i, nunits, &b);
		if (a.kind != b.kind || a.invalidated != b.invalidated ||
		    (a.kind == REUSE_HIT && (a.rd != b.rd || a.trd != b.trd))) {
			printf("  access %d (unit %u, e %llu, store %d): engine kind %d rd %llu trd %llu inv %u;"
			       " naive kind %d rd %llu trd %llu inv %u\n", i, tr[i].unit,
			       (unsigned long long)tr[i].e, tr[i].store, a.kind,
			       (unsigned long long)a.rd, (unsigned long long)a.trd, a.invalidated,
			       b.kind, (unsigned long long)b.rd, (unsigned long long)b.trd,
			       b.invalidated);
			bad = 1;
		}
	}
	reuse_stack_release(&s);
	return !bad;
}

TEST(reuse_thesis_example)
{
	/* a b c b d d a: the reuse of a has TRD 5 and RD 3 */
	static struct reuse_stack s;
	const uint64_t t[] = { 'a', 'b', 'c', 'b', 'd', 'd', 'a' };
	struct reuse_outcome o;
	reuse_stack_init(&s);
	for (int i = 0; i < 7; i++)
		CHECK(reuse_stack_access(&s, 0, t[i], 0, 0, &o) == 0);
	CHECK(o.kind == REUSE_HIT);
	CHECK_EQ_U64(o.trd, 5);
	CHECK_EQ_U64(o.rd, 3);
	reuse_stack_release(&s);
}

TEST(reuse_one_unit_random)
{
	CHECK(compare(1, 50, 0, N));
	CHECK(compare(1, 3000, 30, N));	/* a few thousand elements: the table grows */
}

TEST(reuse_units_and_invalidations)
{
	reuse_stack_fen_first = 16;	/* renumber every few dozen accesses */
	CHECK(compare(2, 40, 30, N));
	CHECK(compare(4, 200, 50, N));
	CHECK(compare(3, 5, 90, N));		/* ping-pong-like: mostly invalidations */
	CHECK(compare(1, 3000, 30, N));
	reuse_stack_fen_first = 1ull << 14;
}

TEST(reuse_remote_read_is_neither)
{
	static struct reuse_stack s;
	struct reuse_outcome o;
	reuse_stack_init(&s);
	reuse_stack_access(&s, 0, 7, 1, 0, &o);	/* unit 0 writes */
	reuse_stack_access(&s, 1, 7, 0, 0, &o);	/* unit 1 reads: cold for it */
	CHECK(o.kind == REUSE_COLD && o.invalidated == 0);
	reuse_stack_access(&s, 0, 7, 0, 0, &o);	/* unit 0 reuses */
	CHECK(o.kind == REUSE_HIT && o.trd == 0 && o.rd == 0);
	reuse_stack_access(&s, 1, 7, 1, 0, &o);	/* unit 1 writes: invalidates unit 0 */
	CHECK(o.kind == REUSE_HIT && o.invalidated == 1);
	reuse_stack_access(&s, 0, 7, 0, 0, &o);	/* unit 0: that use ended as invalidation */
	CHECK(o.kind == REUSE_NONE);
	reuse_stack_release(&s);
}

TEST(reuse_long_sweep_renumbers)
{
	/* a cyclic sweep of 20000 elements, 20 times: 400000 stamps, more than the tree's
	 * 262144 (8 x the live elements, rounded up to a power of two), force renumbering;
	 * every reuse has RD = TRD = 19999 */
	static struct reuse_stack s;
	struct reuse_outcome o;
	uint64_t hits = 0, wrong = 0;
	reuse_stack_init(&s);
	for (int r = 0; r < 20; r++)
		for (uint64_t e = 0; e < 20000; e++) {
			reuse_stack_access(&s, 0, e, 0, 0, &o);
			if (o.kind == REUSE_HIT) {
				hits++;
				wrong += o.rd != 19999 || o.trd != 19999;
			}
		}
	CHECK_EQ_U64(hits, 380000);
	CHECK_EQ_U64(wrong, 0);
	CHECK_EQ_U64(s.lost, 0);
	reuse_stack_release(&s);
}

TEST(reuse_bins)
{
	CHECK(reuse_bin(0) == 0 && reuse_bin(1) == 1 && reuse_bin(2) == 2 && reuse_bin(3) == 2);
	CHECK(reuse_bin(1023) == 10 && reuse_bin(1024) == 11);
	CHECK_EQ_U64(reuse_bin_lo(11), 1024);
	CHECK_EQ_U64(reuse_bin_hi(11), 2048);
}

int main(void)
{
	RUN(reuse_thesis_example);
	RUN(reuse_one_unit_random);
	RUN(reuse_units_and_invalidations);
	RUN(reuse_remote_read_is_neither);
	RUN(reuse_long_sweep_renumbers);
	RUN(reuse_bins);
	return CHECK_DONE();
}
