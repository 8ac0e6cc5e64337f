/* SPDX-License-Identifier: MIT */
/*
 * u-reuse-sampler.c - GlobalWP's slot logic (src/tools/reuse/rt-sampler.c) on scripted
 * samples and traps: inactive slots first, the reservoir's 1/offers replacement, the trap
 * rules (owner: time distance; other thread: invalidation), stale armings, one outcome per
 * use, and the survival counts that weight outcomes.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "tools/reuse/sampler.h"

TEST(reuse_gwp_inactive_first)
{
	struct reuse_gwp g;
	reuse_gwp_init(&g, 4);
	/* four samples fill four slots whatever the random numbers */
	for (int i = 0; i < 4; i++)
		CHECK(reuse_gwp_sample(&g, 0, 0x1000 + 8 * (uint64_t)i, 10, 0, 0, 12345) == i);
	for (int i = 0; i < 4; i++)
		CHECK(g.s[i].active && g.s[i].offers == 1);
}

/* A sample on an element a slot watches takes a slot as any other (both watch it), and each
 * slot ends at its own outcome: the older use's reuse or invalidation does not end the new
 * one's.  (Until 2026-11-28 such a sample took none: a biased drop.) */
TEST(reuse_gwp_watched_element)
{
	struct reuse_gwp g;
	struct reuse_seen s;
	reuse_gwp_init(&g, 2);
	/* thread 1 stores to 0x1000 at its access 10; thread 0 then loads it at its 20 */
	CHECK(reuse_gwp_sample(&g, 1, 0x1000, 10, 0, 0xaa, 7) == 0);
	CHECK(reuse_gwp_sample(&g, 0, 0x1000, 20, 1, 0xbb, 7) == 1);
	CHECK(g.s[1].active && g.s[1].addr == 0x1000 && g.s[1].owner == 0 && g.s[1].p0 == 20);
	CHECK(g.s[0].addr == 0x1000 && g.s[0].ip == 0xaa && g.s[0].p0 == 10);
	/* thread 0's store at its 21: its own reuse (distance 0) and thread 1's invalidation
	 * (timed by thread 1's count, 15 then) */
	CHECK(reuse_gwp_trap(&g, 1, g.s[1].gen, 0, 21, 2, &s) == 1);
	CHECK(!s.invalidation && s.trd == 0 && s.owner == 0 && s.use_ip == 0xbb);
	CHECK(reuse_gwp_trap(&g, 0, g.s[0].gen, 0, 15, 2, &s) == 1);
	CHECK(s.invalidation && s.trd == 4 && s.owner == 1 && s.use_ip == 0xaa);
	CHECK(!g.s[0].active && !g.s[1].active);
}

TEST(reuse_gwp_trap_rules)
{
	struct reuse_gwp g;
	struct reuse_seen s;
	reuse_gwp_init(&g, 2);
	int a = reuse_gwp_sample(&g, 3, 0x1000, 100, 5, 0xaa, 7);
	int b = reuse_gwp_sample(&g, 3, 0x2000, 120, 6, 0xbb, 7);
	CHECK(a == 0 && b == 1);
	/* the owner traps at its access 150: 49 accesses in between */
	CHECK(reuse_gwp_trap(&g, a, g.s[a].gen, 3, 150, 50, &s) == 1);
	CHECK(!s.invalidation && s.trd == 49 && s.owner == 3 && s.use_ip == 0xaa && s.dt == 45);
	/* one outcome per use: the slot is free, a second trap is stale */
	CHECK(reuse_gwp_trap(&g, a, g.s[a].gen, 3, 151, 51, &s) == 0);
	/* another thread's trap is an invalidation, timed by the owner's count at the
	 * store (170: the owner's accesses since the use at 120, counted as a reuse's, the
	 * store in place of the owner's access 171: 49) */
	CHECK(reuse_gwp_trap(&g, b, g.s[b].gen, 4, 170, 60, &s) == 1);
	CHECK(s.invalidation && s.owner == 3 && s.trd == 49 && s.p0 == 120);
	/* a store before the owner's next access: 0 */
	int e = reuse_gwp_sample(&g, 3, 0x5000, 300, 90, 0xdd, 7);
	CHECK(reuse_gwp_trap(&g, e, g.s[e].gen, 4, 300, 95, &s) == 1);
	CHECK(s.invalidation && s.trd == 0);
	/* the owner's count unknown (it ended): an invalidation with no time */
	int d = reuse_gwp_sample(&g, 3, 0x4000, 200, 70, 0xcc, 7);
	CHECK(reuse_gwp_trap(&g, d, g.s[d].gen, 4, UINT64_MAX, 80, &s) == 1);
	CHECK(s.invalidation && s.trd == UINT64_MAX);
	/* unknown counts (clock source): no time distance */
	int c = reuse_gwp_sample(&g, 1, 0x3000, UINT64_MAX, 10, 0, 7);
	CHECK(reuse_gwp_trap(&g, c, g.s[c].gen, 1, UINT64_MAX, 20, &s) == 1);
	CHECK(s.trd == UINT64_MAX && s.dt == 10);
}

/* Shared-cache mode: a thread of the owner's socket reuses (timed by the socket's count),
 * another socket's store invalidates. */
TEST(reuse_gwp_trap_group_rules)
{
	struct reuse_gwp g;
	struct reuse_seen s;
	reuse_gwp_init(&g, 2);
	int a = reuse_gwp_sample(&g, 3, 0x1000, 1000, 5, 0xaa, 7);
	int b = reuse_gwp_sample(&g, 3, 0x2000, 1000, 5, 0xbb, 7);
	/* thread 4, same socket, at socket access 1300: a reuse, 299 accesses between */
	CHECK(reuse_gwp_trap_group(&g, a, g.s[a].gen, 1, 1300, 40, &s) == 1);
	CHECK(!s.invalidation && s.trd == 299 && s.owner == 3 && s.dt == 35);
	/* thread 5, another socket: an invalidation, timed by the owner socket's count */
	CHECK(reuse_gwp_trap_group(&g, b, g.s[b].gen, 0, 1400, 50, &s) == 1);
	CHECK(s.invalidation && s.trd == 399);
}

TEST(reuse_gwp_stale_generation)
{
	struct reuse_gwp g;
	struct reuse_seen s;
	reuse_gwp_init(&g, 1);
	CHECK(reuse_gwp_sample(&g, 0, 0x1000, 1, 0, 0, 0) == 0);
	uint32_t old = g.s[0].gen;
	/* a replacement (offers = 2: taken when rnd % 2 == 0) re-arms the slot */
	CHECK(reuse_gwp_sample(&g, 1, 0x2000, 1, 0, 0, 2) == 0);
	CHECK(g.s[0].gen != old && g.s[0].owner == 1);
	CHECK(reuse_gwp_trap(&g, 0, old, 0, 9, 0, &s) == 0);	/* the old arming's trap */
}

TEST(reuse_gwp_reservoir_uniform)
{
	/* one slot, never trapped: after n offers each of them is the one kept with chance
	 * 1/n.  10000 trials of 10 offers: each offer kept ~1000 times; the binomial's
	 * standard deviation is 30, so 850..1150 (5 sigma) */
	uint64_t kept[10] = { 0 }, rng = 88172645463325252ull;
	for (int trial = 0; trial < 10000; trial++) {
		struct reuse_gwp g;
		reuse_gwp_init(&g, 1);
		for (uint64_t k = 0; k < 10; k++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			reuse_gwp_sample(&g, 0, k * 8 + 8, k, 0, 0, rng);
		}
		kept[g.s[0].addr / 8 - 1]++;
	}
	for (int k = 0; k < 10; k++)
		CHECK(kept[k] >= 850 && kept[k] <= 1150);
}

TEST(reuse_gwp_survival_counts)
{
	/* armed at offer 1, then 3 more offers refused (rnd % offers != 0), then the trap:
	 * n0 = 1, n1 = 4 (it survived with chance 1/4) */
	struct reuse_gwp g;
	struct reuse_seen s;
	reuse_gwp_init(&g, 1);
	CHECK(reuse_gwp_sample(&g, 0, 0x1000, 1, 0, 0, 0) == 0);
	for (int k = 2; k <= 4; k++)
		CHECK(reuse_gwp_sample(&g, 0, 0x2000, 1, 0, 0, 1) == -1);	/* 1 % k != 0 */
	CHECK(reuse_gwp_trap(&g, 0, g.s[0].gen, 0, 9, 0, &s) == 1);
	CHECK(s.n0 == 1 && s.n1 == 4);
	/* freed: the next sample takes it with certainty */
	CHECK(reuse_gwp_sample(&g, 0, 0x3000, 1, 0, 0, 1) == 0);
}

/* The chance that a sample is armed: 1 while a slot is free, else 1 - prod over the active
 * slots of offers / (offers + 1), carried from the sample to its outcome. */
TEST(reuse_gwp_arm_chance)
{
	struct reuse_gwp g;
	struct reuse_seen s;
	reuse_gwp_init(&g, 2);
	CHECK(reuse_gwp_arm_chance(&g) == REUSE_ARM_ONE);
	CHECK(reuse_gwp_sample(&g, 0, 0x1000, 1, 0, 0, 0) == 0);
	CHECK(reuse_gwp_arm_chance(&g) == REUSE_ARM_ONE);	/* slot 1 free */
	CHECK(reuse_gwp_sample(&g, 0, 0x2000, 2, 0, 0, 0) == 1);
	CHECK(g.s[0].arm_q == REUSE_ARM_ONE && g.s[1].arm_q == REUSE_ARM_ONE);
	/* both active at 1 offer: each refuses with 1/2, so armed with 3/4 */
	CHECK(reuse_gwp_arm_chance(&g) == REUSE_ARM_ONE / 4 * 3);
	/* taken by slot 0 at its 2nd offer (0 % 2 == 0): its outcome carries that chance */
	CHECK(reuse_gwp_sample(&g, 0, 0x3000, 3, 0, 0, 0) == 0);
	CHECK(reuse_gwp_trap(&g, 0, g.s[0].gen, 0, 9, 0, &s) == 1);
	CHECK(s.arm_q == REUSE_ARM_ONE / 4 * 3 && s.n0 == 2 && s.n1 == 2);
	CHECK(reuse_gwp_trap(&g, 1, g.s[1].gen, 0, 9, 0, &s) == 1);
	CHECK(s.arm_q == REUSE_ARM_ONE && s.n0 == 1 && s.n1 == 1);
	/* offers 2 and 3: refused with 2/3 x 3/4, armed with 1/2 (x 2^32, rounded at each
	 * step: within 2) */
	g.s[0] = (struct reuse_slot){ .active = 1, .offers = 2 };
	g.s[1] = (struct reuse_slot){ .active = 1, .offers = 3 };
	uint64_t q = reuse_gwp_arm_chance(&g);
	CHECK(q >= REUSE_ARM_ONE / 2 - 2 && q <= REUSE_ARM_ONE / 2 + 2);
}

/* One slot, 40 samples offered while it is taken, then its trap: whichever sample it kept
 * (taken at offer k: armed with chance 1/k, surviving with k/40) stands for the 40 offered,
 * and n1 / n0 / arm chance says 40.  The survival weight alone, 40 / k with k uniform over
 * 1..40, says H(40) = 4.28 on average: a phase whose long reuses keep the slots taken
 * counted as a tenth of a phase of short ones that leave them free (the badpair review). */
TEST(reuse_gwp_arm_weight_unbiased)
{
	uint64_t rng = 88172645463325252ull;
	double sum = 0;
	int trials = 4000;
	for (int trial = 0; trial < trials; trial++) {
		struct reuse_gwp g;
		struct reuse_seen s;
		reuse_gwp_init(&g, 1);
		for (uint64_t k = 0; k < 40; k++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			reuse_gwp_sample(&g, 0, k * 8 + 8, k, 0, 0, rng);
		}
		CHECK(reuse_gwp_trap(&g, 0, g.s[0].gen, 0, 99, 0, &s) == 1);
		double w = (double)s.n1 / (double)s.n0 * (double)REUSE_ARM_ONE / (double)s.arm_q;
		CHECK(w > 39.99 && w < 40.01);
		sum += (double)s.n1 / (double)s.n0;
	}
	/* the survival weight alone: n1 / n0 = 40 / n0 with n0 uniform over 1..40, whose mean
	 * is 40 H(40) / 40 = 4.28: the phase would count as 4.28 samples, not 40 */
	CHECK(sum / trials > 3.5 && sum / trials < 5.1);
}

int main(void)
{
	RUN(reuse_gwp_inactive_first);
	RUN(reuse_gwp_watched_element);
	RUN(reuse_gwp_trap_rules);
	RUN(reuse_gwp_trap_group_rules);
	RUN(reuse_gwp_stale_generation);
	RUN(reuse_gwp_reservoir_uniform);
	RUN(reuse_gwp_survival_counts);
	RUN(reuse_gwp_arm_chance);
	RUN(reuse_gwp_arm_weight_unbiased);
	return CHECK_DONE();
}
