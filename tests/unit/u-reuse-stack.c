/* SPDX-License-Identifier: MIT */
/*
 * u-reuse-stack.c - the exact reuse engine (src/tools/reuse/rt-stack.c) against a naive
 * O(n^2) one that rescans the trace for every access: random traces of 1 to 4 units over
 * small and large element sets, with loads and stores (invalidations), long enough to
 * force the stamp renumbering and the table growth; and the thesis's example.  Then the
 * engine under real threads (it has no caller lock since the holders table): private
 * sweeps beside shared reads give their exact distances, a ping-pong handed over by an
 * atomic turn gives one invalidation per store, and racing stores keep the books balanced.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "tools/reuse/stack.h"

#define N 6000

struct acc {
	uint32_t unit;
	uint64_t e;
	int store;
	uint64_t ip;
};

static struct acc tr[N];

/* The engine's unit of the k-th unit of a trace (k < 4): 0 .. 3, or with other ids units
 * from REUSE_NARROW on, whose holders bits are in the wide word. */
static const uint32_t plain_ids[4] = { 0, 1, 2, 3 };
static const uint32_t *ids = plain_ids;

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
		o->prev_ip = tr[last].ip;
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
		for (uint32_t k = 0; k < nunits; k++) {
			uint32_t v = ids[k];
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

/* The element of access i: skewed random (half the accesses in a small hot set), or with
 * `sweep` 1 a sweep over elems elements that jumps up to 50 elements back or forth now and
 * then (the engine's rank cursor serves ranks near the last one, in both directions), or
 * with `sweep` 2 a sparse matrix-vector product's loop, a[k], col[k], x[col[k]] at each
 * step: two sweeps, the 4-byte col's element reused at once by the next step, and a
 * random gather between the steps (the engine's second cursor and its ranks near the
 * newest stamp, as NPB CG makes them). */
static uint64_t pick(int i, uint64_t elems, int sweep)
{
	static uint64_t pos;

	if (!sweep)
		return rnd() % 2 ? rnd() % 8 : rnd() % elems;
	if (sweep == 2) {
		uint64_t k = (uint64_t)i / 3;
		if (i % 3 == 0)
			return k % elems;
		if (i % 3 == 1)
			return elems + k / 2 % (elems / 2);
		return 2 * elems + rnd() % (elems / 4);
	}
	if (!i)
		pos = 0;
	pos = rnd() % 8 ? pos + 1 : pos + elems + rnd() % 101 - 50;
	return pos % elems;
}

/* Code addresses in a few 16 MB windows of the engine's code table (a non-PIE program, a
 * PIE one, a library, both sides of a window's end), as a program's would be. */
static uint64_t code_at(int i)
{
	static const uint64_t base[] = { 0x401000, 0x555555554000, 0x7f1234560000, 0xfffff8 };
	return base[rnd() % 4] + (uint64_t)i % 4096;
}

/* The most groups the last compare_trace's units had at once (stack.h: the access numbers'
 * bases). */
static uint32_t max_groups;

/* Every live entry's offset is below the room (an offset of 2^32 would wrap to 0 at the
 * default room, where the traces cannot reach: so checked here, at the tests' room). */
static int counts_in_room(const struct reuse_stack *s, uint32_t nunits)
{
	for (uint32_t k = 0; k < nunits; k++) {
		const struct reuse_unit *u = &s->u[ids[k]];
		for (uint64_t i = 0; i < u->ltabsize; i++)
			for (int j = 0; u->ltab[i] && j < 64; j++)
				if (u->ltab[i]->e[j].code >= REUSE_CODE_LIVE &&
				    u->ltab[i]->e[j].count >= reuse_stack_count_room)
					return 0;
	}
	return 1;
}

static int compare_trace(uint32_t nunits, uint64_t elems, int store_pct, int n, int sweep)
{
	static struct reuse_stack s;
	int bad = 0;
	reuse_stack_init(&s);
	max_groups = 0;
	for (int i = 0; i < n; i++) {
		uint64_t e = pick(i, elems, sweep);
		tr[i] = (struct acc){ ids[rnd() % nunits], e * 3 + 1000,
				      (int)(rnd() % 100) < store_pct, code_at(i) };
	}
	for (int i = 0; i < n && !bad; i++) {
		struct reuse_outcome a, b;
		if (reuse_stack_access(&s, tr[i].unit, tr[i].e, tr[i].store, tr[i].ip, &a))
			bad = 1;
		naive(i, nunits, &b);
		if (a.kind != b.kind || a.invalidated != b.invalidated ||
		    (a.kind == REUSE_HIT &&
		     (a.rd != b.rd || a.trd != b.trd || a.prev_ip != b.prev_ip))) {
			printf("  access %d (unit %u, e %llu, store %d): engine kind %d rd %llu trd %llu"
			       " ip %#llx inv %u; naive kind %d rd %llu trd %llu ip %#llx inv %u\n",
			       i, tr[i].unit, (unsigned long long)tr[i].e, tr[i].store, a.kind,
			       (unsigned long long)a.rd, (unsigned long long)a.trd,
			       (unsigned long long)a.prev_ip, a.invalidated, b.kind,
			       (unsigned long long)b.rd, (unsigned long long)b.trd,
			       (unsigned long long)b.prev_ip, b.invalidated);
			bad = 1;
		}
		for (uint32_t k = 0; k < nunits; k++)
			if (s.u[ids[k]].ngroups > max_groups)
				max_groups = s.u[ids[k]].ngroups;
		if (reuse_stack_count_room < (1ull << 32) && i % 16 == 0 && !counts_in_room(&s, nunits)) {
			printf("  access %d: an entry's count is beyond the room\n", i);
			bad = 1;
		}
	}
	reuse_stack_release(&s);
	return !bad;
}

static int compare(uint32_t nunits, uint64_t elems, int store_pct, int n)
{
	return compare_trace(nunits, elems, store_pct, n, 0);
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

TEST(reuse_wide_units)
{
	/* units from REUSE_NARROW on keep their holders bits in the leaves' second word:
	 * alone, beside narrow units (stores of each invalidating the other's), and at the
	 * words' edges (30 and 31, the last narrow and first wide; 62, the last) */
	static const uint32_t mixed[4] = { 0, 31, 45, 62 }, edge[4] = { 30, 31, 62, 1 };
	static const uint32_t wide_only[4] = { 31, 32, 50, 62 };
	ids = mixed;
	CHECK(compare(4, 200, 50, N));
	CHECK(compare(2, 40, 30, N));
	CHECK(compare_trace(4, 300, 20, N, 1));
	ids = edge;
	CHECK(compare(4, 100, 40, N));
	CHECK(compare(2, 5, 90, N));
	ids = wide_only;
	CHECK(compare(4, 200, 30, N));
	CHECK(compare(1, 3000, 30, N));
	ids = plain_ids;
}

TEST(reuse_near_sweeps)
{
	/* reuses whose previous stamps lie near the last rank's, before and after it, with
	 * invalidations and renumberings between them */
	CHECK(compare_trace(1, 300, 0, N, 1));
	CHECK(compare_trace(2, 300, 20, N, 1));
	reuse_stack_fen_first = 16;
	CHECK(compare_trace(3, 200, 30, N, 1));
	CHECK(compare_trace(1, 1000, 10, N, 1));
	reuse_stack_fen_first = 1ull << 14;
}

TEST(reuse_gather_sweeps)
{
	/* sweeps with a random gather between their steps: ranks from the older cursor and
	 * from the newest stamp, with invalidations (stores of other units) and renumberings */
	CHECK(compare_trace(1, 300, 0, N, 2));
	CHECK(compare_trace(2, 300, 20, N, 2));
	reuse_stack_fen_first = 16;
	CHECK(compare_trace(3, 200, 30, N, 2));
	CHECK(compare_trace(1, 1000, 10, N, 2));
	reuse_stack_fen_first = 1ull << 14;
	/* sweeps shorter than 64 elements, which jump now and then: ranks near the newest
	 * stamp, with the cursor among them */
	CHECK(compare_trace(1, 40, 0, N, 1));
	CHECK(compare_trace(2, 30, 20, N, 1));
}

TEST(reuse_count_groups)
{
	/* access numbers in a room of 32 instead of 2^32: the groups split every few dozen
	 * accesses, entries older than a room keep groups of their own, and neighbours merge
	 * when their live entries go; random traces (a hot set reused soon, cold elements
	 * reused thousands of accesses later) and sweeps, with renumbering for the stamps too */
	reuse_stack_count_room = 32;
	CHECK(compare(1, 3000, 0, N));
	CHECK(max_groups > 8);		/* else the old groups went untested */
	CHECK(compare(2, 400, 30, N));
	CHECK(compare(4, 200, 50, N));
	CHECK(compare_trace(1, 1000, 10, N, 1));
	reuse_stack_fen_first = 16;
	CHECK(compare(3, 300, 20, N));
	CHECK(compare_trace(2, 300, 20, N, 1));
	reuse_stack_fen_first = 1ull << 14;
	reuse_stack_count_room = 4;	/* the least: half of it left after a renumbering */
	CHECK(compare(2, 100, 20, N));
	reuse_stack_count_room = 1ull << 32;
}

TEST(reuse_code_windows_run_out)
{
	/* codes of 255 windows of 16 MB fit the table, with their addresses given back
	 * exact; an access from a 256th is not modelled (lost), not given a wrong address */
	static struct reuse_stack s;
	struct reuse_outcome o;
	uint64_t wrong = 0;
	reuse_stack_init(&s);
	for (uint64_t w = 0; w < 255; w++)
		CHECK(reuse_stack_access(&s, 0, w, 0, (w << 24) + 77 * w, &o) == 0);
	for (uint64_t w = 0; w < 255; w++) {
		CHECK(reuse_stack_access(&s, 0, w, 0, 5, &o) == 0);
		wrong += o.kind != REUSE_HIT || o.prev_ip != (w << 24) + 77 * w;
	}
	CHECK_EQ_U64(wrong, 0);
	CHECK(reuse_stack_access(&s, 0, 1, 0, 255ull << 24, &o) == -ENOMEM);
	CHECK_EQ_U64(s.lost, 1);
	CHECK(reuse_stack_access(&s, 0, 1, 0, 7ull << 24, &o) == 0);	/* a known window */
	CHECK(o.kind == REUSE_HIT && o.prev_ip == 5 && o.trd == 253);	/* 2 .. 254 */
	reuse_stack_release(&s);
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


TEST(reuse_huge_sweep_levels)
{
	/* 300000 live elements: 2^22 stamps, five levels of counts (the blocks, then groups
	 * of 8, 64, 512, 4096 blocks), every level's sums taken from both sides of a group */
	static struct reuse_stack s;
	struct reuse_outcome o;
	uint64_t hits = 0, wrong = 0;
	reuse_stack_init(&s);
	for (int r = 0; r < 3; r++)
		for (uint64_t e = 0; e < 300000; e++) {
			reuse_stack_access(&s, 0, e, r == 2, 0, &o);
			if (o.kind == REUSE_HIT) {
				hits++;
				wrong += o.rd != 299999 || o.trd != 299999;
			}
		}
	CHECK_EQ_U64(hits, 600000);
	CHECK_EQ_U64(wrong, 0);
	CHECK(s.u[0].nlev >= 5);
	CHECK_EQ_U64(s.lost, 0);
	reuse_stack_release(&s);
}

/* ---- under threads ---- */

#define T_THREADS 4
#define T_PRIV 3000		/* private elements per thread */
#define T_SHARED 100		/* shared elements, read by all */
#define T_ROUNDS 20

static struct reuse_stack ts;
static int t_turn;

struct t_res {
	uint64_t hits, wrong, cold, none, inv;
};

/* Thread k sweeps its own elements, reading a shared one after each: between two uses
 * of a private element come its other T_PRIV - 1 and all T_SHARED shared ones; between
 * two reads of a shared element, T_SHARED private and T_SHARED - 1 shared. */
static void *t_sweeper(void *arg)
{
	uint32_t k = (uint32_t)(uintptr_t)arg;
	struct t_res *res = calloc(1, sizeof(*res));
	struct reuse_outcome o;
	for (int r = 0; r < T_ROUNDS; r++)
		for (uint64_t i = 0; i < T_PRIV; i++) {
			reuse_stack_access(&ts, k, 1000000 * (k + 1) + i, 1, 0, &o);
			if (o.kind == REUSE_HIT) {
				res->hits++;
				res->wrong += o.rd != T_PRIV + T_SHARED - 1 || o.trd != 2 * T_PRIV - 1;
			}
			res->inv += o.invalidated;
			reuse_stack_access(&ts, k, i % T_SHARED, 0, 0, &o);
			if (o.kind == REUSE_HIT && i >= T_SHARED) {
				res->hits++;
				res->wrong += o.rd != 2 * T_SHARED - 1 || o.trd != 2 * T_SHARED - 1;
			}
		}
	return res;
}

TEST(reuse_threads_private_and_read_shared)
{
	pthread_t th[T_THREADS];
	uint64_t hits = 0, wrong = 0, inv = 0;
	reuse_stack_init(&ts);
	for (uintptr_t k = 0; k < T_THREADS; k++)
		pthread_create(&th[k], NULL, t_sweeper, (void *)k);
	for (int k = 0; k < T_THREADS; k++) {
		void *r;
		pthread_join(th[k], &r);
		struct t_res *res = r;
		hits += res->hits;
		wrong += res->wrong;
		inv += res->inv;
		free(res);
	}
	/* private: every round but the first; shared: every read after the first pass
	 * through them, minus each round's first T_SHARED reads (their window spans the
	 * round's turn, whose distance the check leaves out) */
	CHECK_EQ_U64(hits, T_THREADS * ((uint64_t)(T_ROUNDS - 1) * T_PRIV +
					(uint64_t)T_ROUNDS * (T_PRIV - T_SHARED)));
	CHECK_EQ_U64(wrong, 0);
	CHECK_EQ_U64(inv, 0);		/* stores to private data, reads of shared data */
	reuse_stack_release(&ts);
}

/* Two threads store one element in turn: each store but the first two ends the other
 * thread's use (one invalidation) and finds its own invalidated (neither reuse nor cold). */
static void *t_pingpong(void *arg)
{
	uint32_t me = (uint32_t)(uintptr_t)arg;
	struct t_res *res = calloc(1, sizeof(*res));
	struct reuse_outcome o;
	for (int i = 0; i < 2000; i++) {
		while (__atomic_load_n(&t_turn, __ATOMIC_ACQUIRE) != (int)me)
			sched_yield();
		reuse_stack_access(&ts, me, 42, 1, 0, &o);
		res->inv += o.invalidated;
		res->cold += o.kind == REUSE_COLD;
		res->none += o.kind == REUSE_NONE;
		res->hits += o.kind == REUSE_HIT;
		__atomic_store_n(&t_turn, (int)!me, __ATOMIC_RELEASE);
	}
	return res;
}

TEST(reuse_threads_pingpong)
{
	pthread_t th[2];
	struct t_res sum = { 0 };
	reuse_stack_init(&ts);
	t_turn = 0;
	for (uintptr_t k = 0; k < 2; k++)
		pthread_create(&th[k], NULL, t_pingpong, (void *)k);
	for (int k = 0; k < 2; k++) {
		void *r;
		pthread_join(th[k], &r);
		struct t_res *res = r;
		sum.inv += res->inv;
		sum.cold += res->cold;
		sum.none += res->none;
		sum.hits += res->hits;
		free(res);
	}
	CHECK_EQ_U64(sum.cold, 2);
	CHECK_EQ_U64(sum.hits, 0);
	CHECK_EQ_U64(sum.none, 3998);
	CHECK_EQ_U64(sum.inv, 3999);	/* every store after the very first */
	reuse_stack_release(&ts);
}

/* Racing loads and stores on 16 shared elements: whatever the interleaving, every
 * invalidation counted by a store killed one live entry, which its unit either met
 * again (an access that is neither reuse nor cold) or still holds dead at the end; and
 * each unit's marks are its live entries. */
static void *t_racer(void *arg)
{
	uint32_t k = (uint32_t)(uintptr_t)arg;
	struct t_res *res = calloc(1, sizeof(*res));
	struct reuse_outcome o;
	uint64_t x = 0x9E3779B97F4A7C15ull * (k + 1);
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		reuse_stack_access(&ts, ids[k], x % 16, (x >> 8) % 4 == 0, 0, &o);
		res->inv += o.invalidated;
		res->none += o.kind == REUSE_NONE;
	}
	return res;
}

TEST(reuse_threads_racing_stores_balance)
{
	pthread_t th[T_THREADS];
	uint64_t inv = 0, none = 0, dead = 0;
	reuse_stack_init(&ts);
	for (uintptr_t k = 0; k < T_THREADS; k++)
		pthread_create(&th[k], NULL, t_racer, (void *)k);
	for (int k = 0; k < T_THREADS; k++) {
		void *r;
		pthread_join(th[k], &r);
		struct t_res *res = r;
		inv += res->inv;
		none += res->none;
		free(res);
	}
	for (int k = 0; k < T_THREADS; k++) {
		struct reuse_unit *u = &ts.u[ids[k]];
		uint64_t live = 0, marks = 0;
		for (uint64_t i = 0; i < u->ltabsize; i++)
			for (int j = 0; u->ltab[i] && j < 64; j++) {
				dead += u->ltab[i]->e[j].code == REUSE_CODE_SEEN;
				live += u->ltab[i]->e[j].code >= REUSE_CODE_LIVE;
			}
		for (uint64_t w = 0; w < (u->cap + 63) / 64; w++)
			marks += (uint64_t)__builtin_popcountll(u->bits[w]);
		CHECK_EQ_U64(live, u->live);
		CHECK_EQ_U64(marks, u->live);
	}
	CHECK(inv > 0);
	CHECK_EQ_U64(inv, none + dead);
	reuse_stack_release(&ts);
}

TEST(reuse_bins)
{
	CHECK(reuse_bin(0) == 0 && reuse_bin(1) == 1 && reuse_bin(2) == 2 && reuse_bin(3) == 2);
	CHECK(reuse_bin(1023) == 10 && reuse_bin(1024) == 11);
	CHECK_EQ_U64(reuse_bin_lo(11), 1024);
	CHECK_EQ_U64(reuse_bin_hi(11), 2048);
}

TEST(reuse_threads_racing_wide_units)
{
	/* the same with two narrow and two wide units: stores of each kind invalidate both */
	static const uint32_t mixed[4] = { 3, 31, 30, 62 };
	ids = mixed;
	test_reuse_threads_racing_stores_balance();
	ids = plain_ids;
}

int main(void)
{
	RUN(reuse_thesis_example);
	RUN(reuse_one_unit_random);
	RUN(reuse_units_and_invalidations);
	RUN(reuse_near_sweeps);
	RUN(reuse_gather_sweeps);
	RUN(reuse_wide_units);
	RUN(reuse_count_groups);
	RUN(reuse_code_windows_run_out);
	RUN(reuse_remote_read_is_neither);
	RUN(reuse_long_sweep_renumbers);
	RUN(reuse_huge_sweep_levels);
	RUN(reuse_threads_private_and_read_shared);
	RUN(reuse_threads_pingpong);
	RUN(reuse_threads_racing_stores_balance);
	RUN(reuse_threads_racing_wide_units);
	RUN(reuse_bins);
	return CHECK_DONE();
}
