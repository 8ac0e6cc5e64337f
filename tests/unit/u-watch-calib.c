/* SPDX-License-Identifier: MIT */
/*
 * u-watch-calib.c - the trap calibration's pick (src/rt/watch-calib.c, watch_calib_pick)
 * on hand-made rounds shaped like those a debug build of it recorded on the 2-core VM
 * (quiet rounds 14.6-15 us; rounds the thread lost the CPU in, with 20-130 us more wall
 * than CPU time and 11.5-13.4 us of CPU time; spells of clean rounds at 17-21 us).  Each
 * expected cost follows from how the rounds are built.
 */
#include <errno.h>
#include <stdint.h>

#include "check.h"
#include "rt/watch.h"

#define MAXN 170

static int64_t wall[MAXN], cpu[MAXN];
static int n;

/* add a round: CPU time c, and w more wall time than that */
static void round_add(int64_t c, int64_t w)
{
	cpu[n] = c;
	wall[n] = c + w;
	n++;
}

/* k quiet rounds: 14600, 14610, ... (clean) */
static void quiet(int k)
{
	for (int i = 0; i < k; i++)
		round_add(14600 + 10 * i, i % 3 - 1);	/* wall within 1 ns of CPU */
}

/* k clean rounds: from, from + step, ... (wall = CPU time) */
static void clean(int k, int64_t from, int64_t step)
{
	for (int i = 0; i < k; i++)
		round_add(from + step * i, 0);
}

/* the rounds so far hold quiet(k) with k >= CALIB_DENSE: their third lowest is the cost */
static void expect_quiet_cost(void)
{
	int64_t w, c;

	CHECK(watch_calib_pick(wall, cpu, n, &w, &c) == 0);
	CHECK(c == 14620);	/* the third lowest quiet round: 14600, 14610, 14620 */
	CHECK(w >= 14619 && w <= 14621);
}

TEST(quiet_rounds_third_lowest)
{
	n = 0;
	quiet(68);
	expect_quiet_cost();
}

TEST(preempted_rounds_left_out)
{
	n = 0;
	/* 10 rounds the thread lost the CPU in: low CPU time, much more wall time */
	for (int i = 0; i < 10; i++)
		round_add(11500 + 200 * i, 20000 + 10000 * i);
	quiet(58);
	expect_quiet_cost();
}

TEST(isolated_low_rounds_not_the_cost)
{
	n = 0;
	/* 5 clean rounds far under the rest (fewer than CALIB_DENSE together) */
	clean(5, 12000, 300);
	quiet(63);
	expect_quiet_cost();
}

TEST(spell_then_one_quiet_batch)
{
	n = 0;
	/* 51 clean rounds of a spell, 17000-21000 spread 80 ns apart, then one quiet batch */
	clean(51, 17000, 80);
	quiet(17);
	expect_quiet_cost();
}

TEST(spell_everywhere_asks_for_more)
{
	int64_t w, c;

	n = 0;
	/* clean rounds 100 ns apart: any CALIB_DENSE of them span 700 ns, over the window */
	clean(68, 17000, 100);
	CHECK(CALIB_WINDOW_NS < 100 * (CALIB_DENSE - 1));
	CHECK(watch_calib_pick(wall, cpu, n, &w, &c) == -EAGAIN);
	CHECK(c == 17200);	/* the third lowest clean round */
}

TEST(too_few_clean_rounds_all_count)
{
	int64_t w, c;

	n = 0;
	for (int i = 0; i < 10; i++)
		round_add(13000 + 100 * i, 50000);
	round_add(14000, 0);
	CHECK(watch_calib_pick(wall, cpu, n, &w, &c) == -EAGAIN);
	CHECK(c == 13200);	/* of all 11: 13000, 13100, 13200 */
	n = 2;
	CHECK(watch_calib_pick(wall, cpu, n, &w, &c) == -EINVAL);
}

/* All 5 batches' rounds lost the CPU (beside busy loops: 20-130 us more wall than CPU
 * time, 11.5-13.4 us of CPU time): none is clean, so none may set the cost, even where
 * their CPU times hold a dense window.  The pick says so (-EAGAIN: more batches), and
 * gives the third lowest round meanwhile. */
TEST(no_clean_round_is_no_cost)
{
	int64_t w, c;

	n = 0;
	for (int i = 0; i < 85; i++)
		round_add(11500 + 1900 * i / 84, 20000 + 110000 * i / 84);
	CHECK(watch_calib_pick(wall, cpu, n, &w, &c) == -EAGAIN);
	CHECK(c == 11500 + 1900 * 2 / 84);	/* 11500, 11522, 11545 */
}

/* The probe of the rounds the cost came from (watch_calib_probe): quiet rounds probed at
 * 170 ns, a spell's clean rounds (17.5 us) at 230, rounds that lost the CPU at 400 (all
 * three as a debug build recorded them, rounded).  Picked at the quiet cost, the quiet
 * rounds' median; at the spell's, the spell's; no round near the cost: all rounds'. */
TEST(probe_of_the_cost_rounds)
{
	int64_t probe[MAXN];

	n = 0;
	for (int i = 0; i < 20; i++) {
		probe[n] = 168 + i % 5;		/* 168 .. 172: median 170 */
		round_add(14600 + 10 * (i % 4), 0);
	}
	for (int i = 0; i < 10; i++) {
		probe[n] = 230;
		round_add(17500 + 20 * i, 0);
	}
	for (int i = 0; i < 10; i++) {
		probe[n] = 400;
		round_add(14610, 30000);	/* CPU time at the cost, but not clean */
	}
	CHECK(watch_calib_probe(wall, cpu, probe, n, 14620) == 170);
	CHECK(watch_calib_probe(wall, cpu, probe, n, 17550) == 230);
	/* nothing within CALIB_WINDOW_NS of 30 us: the median of every probe (20 of 170ish,
	 * 10 of 230, 10 of 400: the 20th of 40 sorted is the last of the quiet ones) */
	CHECK(watch_calib_probe(wall, cpu, probe, n, 30000) == 172);
	/* no probe at all */
	for (int i = 0; i < n; i++)
		probe[i] = 0;
	CHECK(watch_calib_probe(wall, cpu, probe, n, 14620) == 0);
}

int main(void)
{
	RUN(quiet_rounds_third_lowest);
	RUN(preempted_rounds_left_out);
	RUN(isolated_low_rounds_not_the_cost);
	RUN(spell_then_one_quiet_batch);
	RUN(spell_everywhere_asks_for_more);
	RUN(too_few_clean_rounds_all_count);
	RUN(no_clean_round_is_no_cost);
	RUN(probe_of_the_cost_rounds);
	return CHECK_DONE();
}
