/* SPDX-License-Identifier: MIT */
/*
 * u-comm.c - the comm tool's detector (src/tools/comm/rt-detect.c) on scripted
 * <thread, address, length, store, time> sequences: board hits and their true/false
 * classification, the t_prev rule, expiry, eviction, watchpoint arming and traps (scale
 * L / (D x M)), and the exact detector.  A tiny driver adds each verdict to a matrix the
 * way the runtime and the model do (cell [publisher][observer] += P, or P x scale).
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "tools/comm/detect.h"

#define P 1000		/* the period */
#define NT 4

static struct comm_entry mem[COMM_BOARD_DEFAULT];
static struct comm_board b;	/* static: its per-thread counters are 32 KiB */
static struct comm_observer o[NT];
static struct comm_counts cnt;
static uint64_t cell[2][NT][NT];	/* [false, true][src][dst] */
static struct comm_pub armed_on;
static int arms;

static void reset(uint32_t size)
{
	memset(mem, 0, sizeof(mem));
	memset(cell, 0, sizeof(cell));
	memset(&cnt, 0, sizeof(cnt));
	arms = 0;
	comm_board_init(&b, mem, size, 64);
	for (uint32_t t = 0; t < NT; t++)
		comm_board_thread(&b, t, +1, 0);	/* 4 live: the board's limit is 8 stores */
	for (uint32_t t = 0; t < NT; t++)
		comm_observer_init(&o[t], t, 0);
}

/* One sample; returns the verdict and applies it. */
static enum comm_verdict sample(uint32_t t, uint64_t addr, uint32_t len, int store,
				uint64_t time)
{
	struct comm_sample s = { .addr = addr, .ip = 0x400000 + addr, .time = time, .len = len,
				 .store = store, .cpu = (int32_t)t };
	struct comm_pub p;
	int tr = -1;
	enum comm_verdict v = comm_on_sample(&b, &o[t], &s, 0, &p, &tr, &cnt);
	if (v == COMM_COUNT)
		cell[tr][p.thread][t] += P;
	if (v == COMM_ARM) {
		armed_on = p;
		arms++;
	}
	return v;
}

/* Thread t publishes a store at addr without the sample's other effects on t's state
 * (its last_sample stays). */
static void thread_publishes(uint32_t t, uint64_t addr, uint64_t time)
{
	uint64_t last = o[t].last_sample;
	sample(t, addr, 8, 1, time);
	o[t].last_sample = last;
}

static uint64_t sym(int kind, int i, int j)
{
	return cell[kind][i][j] + cell[kind][j][i];
}

TEST(true_sharing_counts_period)
{
	reset(COMM_BOARD_DEFAULT);
	CHECK(sample(1, 0x1000, 8, 1, 100) == COMM_NOTHING);	/* publishes */
	CHECK_EQ_U64(cnt.published, 1);
	CHECK(sample(2, 0x1004, 4, 0, 110) == COMM_COUNT);	/* bytes 4..7 overlap */
	CHECK_EQ_U64(cell[1][1][2], P);
	CHECK_EQ_U64(cell[0][1][2], 0);
	CHECK_EQ_U64(sym(1, 1, 2), P);
	CHECK_EQ_U64(sym(1, 0, 1) + sym(1, 0, 2) + sym(1, 1, 1) + sym(1, 2, 2), 0);
}

TEST(false_sharing_disjoint_bytes)
{
	reset(COMM_BOARD_DEFAULT);
	sample(1, 0x1000, 8, 1, 100);
	CHECK(sample(2, 0x1008, 8, 1, 110) == COMM_COUNT);	/* same line, bytes 8..15 */
	CHECK_EQ_U64(cell[0][1][2], P);
	CHECK_EQ_U64(cell[1][1][2], 0);
	/* adjacent but not overlapping: [0x1000,0x1008) and [0x1008,0x1010) */
	CHECK(!comm_overlap(0x1000, 8, 0x1008, 8));
	CHECK(comm_overlap(0x1000, 9, 0x1008, 8));
	CHECK(comm_overlap(0x1000, 64, 0x103f, 1));
}

/* A sample of thread t by instruction ip (sample() gives each address its own). */
static enum comm_verdict sample_ip(uint32_t t, uint64_t ip, uint64_t addr, uint32_t len,
				   int store, uint64_t time, struct comm_pub *p, int *tr)
{
	struct comm_sample s = { .addr = addr, .ip = ip, .time = time, .len = len,
				 .store = store, .cpu = (int32_t)t };
	return comm_on_sample(&b, &o[t], &s, 0, p, tr, &cnt);
}

/* Which bytes did the writer write: code seen storing at every offset of its lines covers
 * the reader's bytes of a line it published at another offset (a line written whole);
 * code that keeps to one slot (a thread's own `w[me]`, or its own 4 bytes of one 8-byte
 * chunk) covers nothing else.  Evidence is kept by byte, by 128-byte block of code, and
 * read with the blocks beside it. */
TEST(writer_bytes_cover)
{
	struct comm_pub p;
	int tr = -1;
	reset(COMM_BOARD_DEFAULT);
	/* thread 1's sweeping store, sampled at each 8-byte offset of 8 other lines */
	for (uint64_t k = 0; k < 8; k++)
		CHECK_EQ_U64(comm_wmask_note(&o[1], 0x500, 0x2000 + 72 * k, 8, 64),
			     k == 7 ? ~0ull : (1ull << (8 * (k + 1))) - 1);
	sample_ip(1, 0x500, 0x3000, 8, 1, 100, &p, &tr);		/* publishes bytes 0-7 */
	CHECK(sample_ip(2, 0x900, 0x3018, 8, 0, 110, &p, &tr) == COMM_COUNT);
	CHECK(tr == 0);						/* bytes: false */
	CHECK_EQ_U64(p.wbytes, ~0ull);
	CHECK(comm_covered(&p, 0x3018, 8, 64));			/* bytes 24-31: covered */
	/* thread 3's store keeps to bytes 8-15 of its lines (w[me]) */
	for (uint64_t k = 0; k < 4; k++)
		comm_wmask_note(&o[3], 0x600, 0x5008 + 64 * k, 8, 64);
	sample_ip(3, 0x600, 0x6008, 8, 1, 200, &p, &tr);
	CHECK(sample_ip(2, 0x900, 0x6010, 8, 1, 210, &p, &tr) == COMM_COUNT);
	CHECK(tr == 0);
	CHECK_EQ_U64(p.wbytes, 0xff00);
	CHECK(!comm_covered(&p, 0x6010, 8, 64));		/* bytes 16-23: not covered */
	CHECK(comm_covered(&p, 0x600c, 4, 64));			/* inside 8-15 */
	/* an int slot: bytes 4-7 of its lines; the neighbour int at 0-3 is not covered,
	 * though both are in chunk 0 (a chunk mask covered it: the review of 2026-11-28) */
	for (uint64_t k = 0; k < 4; k++)
		comm_wmask_note(&o[0], 0xa00, 0x8004 + 64 * k, 4, 64);
	sample_ip(0, 0xa00, 0x9004, 4, 1, 300, &p, &tr);
	CHECK(sample_ip(2, 0x900, 0x9000, 4, 1, 310, &p, &tr) == COMM_COUNT);
	CHECK(tr == 0);
	CHECK_EQ_U64(p.wbytes, 0xf0);
	CHECK(!comm_covered(&p, 0x9000, 4, 64));
	/* no ip: no evidence */
	CHECK_EQ_U64(comm_wmask_note(&o[0], 0, 0x7000, 8, 64), 0);
	/* an access across an 8-byte boundary */
	CHECK_EQ_U64(comm_wmask_note(&o[0], 0x700, 0x7006, 4, 64), 0x3c0);
	/* a store by an instruction next to it (an unrolled loop: 16 bytes on) shares its
	 * block's evidence, as does one in the next block (200 bytes on) */
	CHECK_EQ_U64(comm_wmask_note(&o[0], 0x710, 0x7118, 8, 64), 0x3c0 | 0xff000000ull);
	CHECK_EQ_U64(comm_wmask_note(&o[0], 0x7c8, 0x7220, 8, 64),
		     0x3c0 | 0xff000000ull | 0xff00000000ull);
	/* code a block further away does not */
	CHECK_EQ_U64(comm_wmask_note(&o[0], 0x900, 0x7328, 8, 64), 0xff0000000000ull);
	/* another block on the same slot starts afresh (direct-mapped) */
	uint64_t key = 0x700 >> COMM_WMASK_CODE, other = key + 2;
	while (((other * 0x9E3779B97F4A7C15ull) >> 32) % COMM_WMASK !=
	       ((key * 0x9E3779B97F4A7C15ull) >> 32) % COMM_WMASK)
		other++;
	CHECK_EQ_U64(comm_wmask_note(&o[2], other << COMM_WMASK_CODE, 0x7030, 8, 64),
		     0xff000000000000ull);
	CHECK_EQ_U64(comm_wmask_note(&o[2], 0x700, 0x7000, 8, 64), 0xff);
}

TEST(other_line_no_count)
{
	reset(COMM_BOARD_DEFAULT);
	sample(1, 0x1000, 8, 1, 100);
	CHECK(sample(2, 0x1040, 8, 0, 110) != COMM_COUNT);	/* next line */
	CHECK_EQ_U64(sym(0, 1, 2) + sym(1, 1, 2), 0);
}

TEST(own_line_arms_nothing_counts_nothing)
{
	reset(COMM_BOARD_DEFAULT);
	sample(1, 0x1000, 8, 1, 100);
	/* its own publication: neither a count nor a candidate for its watchpoints */
	CHECK(sample(1, 0x1000, 8, 0, 110) == COMM_NOTHING);
	CHECK_EQ_U64(arms, 0);
	CHECK_EQ_U64(cnt.hits, 0);
}

TEST(t_prev_no_recount)
{
	reset(COMM_BOARD_DEFAULT);
	sample(1, 0x1000, 8, 1, 100);
	CHECK(sample(2, 0x1000, 8, 0, 110) == COMM_COUNT);
	CHECK_EQ_U64(o[2].t_prev, 100);
	/* the same publication again: no count */
	CHECK(sample(2, 0x1000, 8, 0, 120) != COMM_COUNT);
	/* a publication older than t_prev on another line is not counted either */
	sample(3, 0x2000, 8, 1, 90);
	CHECK(sample(2, 0x2000, 8, 0, 130) != COMM_COUNT);
	CHECK_EQ_U64(cell[1][1][2], P);
	CHECK_EQ_U64(cell[1][3][2], 0);
	/* thread 0 has its own t_prev: it counts both */
	CHECK(sample(0, 0x1000, 8, 0, 140) == COMM_COUNT);
	CHECK(sample(0, 0x2000, 8, 0, 150) != COMM_COUNT);	/* 90 < t_prev[0] = 100 */
	CHECK_EQ_U64(cell[1][1][0], P);
}

TEST(expiry_two_store_samples_of_the_publisher)
{
	struct comm_pub e;
	reset(COMM_BOARD_DEFAULT);
	sample(1, 0x1000, 8, 1, 100);	/* thread 1's store sample #1 */
	CHECK(comm_board_find(&b, 0x1000, &e));
	CHECK_EQ_U64(e.seq, 1);
	CHECK(!comm_expired(&b, &e));
	/* an unexpired entry is not overwritten: not by thread 2 (which counts it), */
	CHECK(sample(2, 0x1008, 8, 1, 200) == COMM_COUNT);
	CHECK_EQ_U64(cell[0][1][2], P);
	/* nor by thread 1's next store sample (#2: one more store event) */
	sample(1, 0x1010, 8, 1, 250);
	CHECK(comm_board_find(&b, 0x1000, &e));
	CHECK_EQ_U64(e.time, 100);
	CHECK(!comm_expired(&b, &e));
	/* thread 1's store sample #3: two more store events, expired, replaced */
	sample(1, 0x1020, 8, 1, 260);
	CHECK(comm_board_find(&b, 0x1000, &e));
	CHECK_EQ_U64(e.thread, 1);
	CHECK_EQ_U64(e.time, 260);
	CHECK_EQ_U64(e.addr, 0x1020);
	/* thread 2 counts the new publication (260 > t_prev 100): false sharing */
	CHECK(sample(2, 0x1000, 8, 0, 270) == COMM_COUNT);
	CHECK_EQ_U64(cell[0][1][2], 2 * P);
}

TEST(expiry_board_wide_when_publisher_is_silent)
{
	struct comm_pub e;
	reset(COMM_BOARD_DEFAULT);
	sample(3, 0x3000, 8, 1, 100);
	CHECK(comm_board_find(&b, 0x3000, &e));
	/* thread 3 stops sampling; the others take 2 x 4 = 8 store samples: alive */
	for (int i = 0; i < 8; i++)
		sample(i & 1 ? 0 : 2, 0x10000 + 64 * (uint64_t)i, 8, 1, 200 + (uint64_t)i);
	CHECK(!comm_expired(&b, &e));
	sample(0, 0x20000, 8, 1, 300);	/* the 9th: expired */
	CHECK(comm_expired(&b, &e));
	/* now a store of thread 1 replaces it */
	sample(1, 0x3008, 8, 1, 310);
	CHECK(comm_board_find(&b, 0x3000, &e));
	CHECK_EQ_U64(e.thread, 1);
}

/* A thread's publication is no communication of a thread started after it ended (by
 * sample or as an arming candidate); one of a thread that ran beside it still is. */
TEST(ended_publisher_not_for_later_threads)
{
	reset(COMM_BOARD_DEFAULT);
	CHECK(sample(1, 0x1000, 8, 1, 100) == COMM_NOTHING);	/* 1 publishes */
	comm_board_thread(&b, 1, -1, 150);			/* 1 ends */
	comm_observer_init(&o[3], 3, 200);			/* 3 starts after */
	CHECK(sample(3, 0x1000, 8, 0, 210) == COMM_NOTHING);	/* no count, no arming */
	CHECK_EQ_U64(sym(1, 1, 3) + sym(0, 1, 3), 0);
	CHECK(comm_gone_before(&b, 1, 200));
	CHECK(!comm_gone_before(&b, 1, 120));			/* 2 started before the end */
	CHECK(sample(2, 0x1000, 8, 0, 220) == COMM_COUNT);	/* 2 ran beside 1 */
	CHECK_EQ_U64(cell[1][1][2], P);
	comm_board_thread(&b, 1, +1, 0);			/* the index runs again */
	CHECK(!comm_gone_before(&b, 1, 200));
	/* thread 1 + COMM_TSLOTS shares 1's slot: its end is not 1's (running); and where
	 * 2 + COMM_TSLOTS took an ended 2's slot, 2 is not known to have ended (counted) */
	comm_board_thread(&b, 1 + COMM_TSLOTS, +1, 0);
	comm_board_thread(&b, 1 + COMM_TSLOTS, -1, 300);
	CHECK(comm_gone_before(&b, 1 + COMM_TSLOTS, 400));
	CHECK(!comm_gone_before(&b, 1, 400));
	comm_board_thread(&b, 2, -1, 500);			/* 2 ends... */
	comm_board_thread(&b, 2 + COMM_TSLOTS, +1, 0);		/* ...then 2 + slots starts */
	comm_board_thread(&b, 2 + COMM_TSLOTS, -1, 700);
	CHECK(!comm_gone_before(&b, 2, 600));	/* the slot is another's: not known */
}

TEST(loads_never_publish)
{
	reset(COMM_BOARD_DEFAULT);
	sample(1, 0x1000, 8, 0, 100);
	struct comm_pub e;
	CHECK(!comm_board_find(&b, 0x1000, &e));
	CHECK(sample(2, 0x1000, 8, 0, 110) == COMM_NOTHING);
	CHECK_EQ_U64(cnt.published, 0);
}

TEST(arm_on_unexpired_foreign_line)
{
	reset(COMM_BOARD_DEFAULT);
	sample(1, 0x1000, 8, 1, 100);
	/* thread 2 samples elsewhere: arm on thread 1's line */
	CHECK(sample(2, 0x5000, 8, 0, 150) == COMM_ARM);
	CHECK_EQ_U64(armed_on.thread, 1);
	CHECK_EQ_U64(armed_on.addr, 0x1000);
	comm_armed(&o[2], &armed_on, 4, 8, 150);
	/* the next sample: the watchpoints are not old yet (armed at the previous sample) */
	thread_publishes(1, 0x2000, 155);
	CHECK(sample(2, 0x5000, 8, 0, 160) == COMM_NOTHING);
	/* the one after: old (armed before the previous sample): re-arm, on the newer line
	 * (the one armed on is no candidate any more: arm_once_per_publication) */
	CHECK(sample(2, 0x5000, 8, 0, 170) == COMM_ARM);
	CHECK_EQ_U64(armed_on.addr, 0x2000);
	/* thread 1 took two more store samples (on lines of its own): expired, nothing to arm
	 * on for thread 3 */
	b.tstores[1] += 2;
	CHECK(sample(3, 0x5000, 8, 0, 301) == COMM_NOTHING);
}

/* A publication is armed on once per observer: thread 0 publishes one line and never
 * stores again (commbench readonly's fill: the entry never expires), thread 2 samples
 * elsewhere and its watchpoints never trap.  Its first sample arms; when the watchpoints
 * are old (two samples on), the same publication is no candidate (re-arming on it at every
 * other sample made a trap all but certain); a newer publication is. */
TEST(arm_once_per_publication)
{
	reset(COMM_BOARD_DEFAULT);
	sample(0, 0x1000, 8, 1, 100);
	CHECK(sample(2, 0x9000, 8, 0, 200) == COMM_ARM);
	CHECK_EQ_U64(armed_on.addr, 0x1000);
	comm_armed(&o[2], &armed_on, 4, 8, 200);
	for (uint64_t t = 210; t < 400; t += 10)
		CHECK(sample(2, 0x9000, 8, 0, t) == COMM_NOTHING);
	CHECK_EQ_U64(arms, 1);
	/* other observers still arm on it, once each */
	CHECK(sample(3, 0x9000, 8, 0, 400) == COMM_ARM);
	comm_armed(&o[3], &armed_on, 4, 8, 400);
	CHECK(sample(3, 0x9000, 8, 0, 410) == COMM_NOTHING);
	CHECK(sample(3, 0x9000, 8, 0, 420) == COMM_NOTHING);
	/* an arming that armed nothing (no register to be had) consumes nothing */
	CHECK(sample(1, 0x9000, 8, 0, 400) == COMM_ARM);
	comm_armed(&o[1], &armed_on, 0, 8, 400);
	CHECK(sample(1, 0x9000, 8, 0, 410) == COMM_ARM);
	/* a newer publication of the same line (the old one expired) is armed on */
	b.tstores[0] += 2;
	thread_publishes(0, 0x1008, 500);
	CHECK(sample(2, 0x9000, 8, 0, 510) == COMM_ARM);
	CHECK_EQ_U64(armed_on.time, 500);
}

/* The trap estimate's expectation, scripted: thread 0 publishes one line once; each of
 * threads 1-3 then takes 20 samples elsewhere, and after each arming touches one word of
 * the line (its own random word, one 8-byte chunk): the arming's 4 random chunks catch it
 * with probability 1/2 and a trap counts L / (D x M) = 2 periods, so a reader's expected
 * count is 1 period, the transfer it makes (the paper's estimate).  Re-arming on the same
 * publication until a trap came (before) counted ~2 periods a reader.  4000 rounds x 3
 * readers of 0 or 2P each: the mean's sd is P / sqrt(12000) = 0.009 P; +-5% is 5.5 sd. */
TEST(trap_estimate_one_arming_per_publication)
{
	uint64_t total = 0, r = 0x2545f4914f6cdd1dull;
	struct comm_pub p;
	int tr;
	uint32_t scale;

	for (int round = 0; round < 4000; round++) {
		reset(COMM_BOARD_DEFAULT);
		sample(0, 0x1000, 8, 1, 100);
		for (uint32_t t = 1; t < NT; t++) {
			r ^= r << 13, r ^= r >> 7, r ^= r << 17;
			uint32_t word = (uint32_t)(r % 8), c[4];
			for (uint64_t k = 0; k < 20; k++) {
				r ^= r << 13, r ^= r >> 7, r ^= r << 17;
				if (sample(t, 0x9000, 8, 0, 200 + 10 * k) != COMM_ARM)
					continue;
				comm_pick_chunks(r, 64, 4, c);
				comm_armed(&o[t], &armed_on, 4, 8, 200 + 10 * k);
				int hit = c[0] == word || c[1] == word || c[2] == word ||
					  c[3] == word;
				if (hit && comm_on_trap(&o[t], 0x1000 + 8 * word, 8, 64, &p, &tr,
							&scale))
					total += (uint64_t)P * scale;
			}
		}
	}
	CHECK(total >= 12000ull * P * 95 / 100 && total <= 12000ull * P * 105 / 100);
}

/* A watch of the whole line (the soft backend's) catches the observer's first access to
 * the line: scale 1, and the trapping access's own bytes classify it. */
TEST(trap_whole_line_scale_1)
{
	struct comm_pub p;
	int tr = -1;
	uint32_t scale = 0;
	reset(COMM_BOARD_DEFAULT);
	sample(1, 0x1000, 8, 1, 100);
	CHECK(sample(2, 0x5000, 8, 0, 150) == COMM_ARM);
	comm_armed(&o[2], &armed_on, 1, 64, 150);
	CHECK(comm_on_trap(&o[2], 0x1038, 8, 64, &p, &tr, &scale) == 1);
	CHECK_EQ_U64(scale, 1);
	CHECK_EQ_U64(tr, 0);		/* bytes 0x38..0x3f against the published 0..7 */
	reset(COMM_BOARD_DEFAULT);
	sample(1, 0x1000, 8, 1, 100);
	sample(2, 0x5000, 8, 0, 150);
	comm_armed(&o[2], &armed_on, 1, 64, 150);
	CHECK(comm_on_trap(&o[2], 0x1004, 2, 64, &p, &tr, &scale) == 1);
	CHECK_EQ_U64(tr, 1);
	/* two chunks of 8: L / 16 = 4 */
	reset(COMM_BOARD_DEFAULT);
	sample(1, 0x1000, 8, 1, 100);
	sample(2, 0x5000, 8, 0, 150);
	comm_armed(&o[2], &armed_on, 2, 8, 150);
	CHECK(comm_on_trap(&o[2], 0x1000, 8, 64, &p, &tr, &scale) == 1);
	CHECK_EQ_U64(scale, 4);
}

/* TryArmWP draws its line uniformly among the candidates.  Threads 0, 1 and 3 publish one
 * line each, on consecutive addresses (consecutive board slots); thread 2's arming
 * decisions (6000, each with its own random number) must take each about 2000 times.
 * Picking the first candidate from a random slot on took the lowest line whenever the
 * start fell in the 124 empty slots: ~5900 of 6000.  Tolerance: the count is
 * binomial(6000, 1/3), sd 36.5; 1800..2200 is 5.5 sd either way. */
TEST(arm_pick_uniform_among_candidates)
{
	static const uint32_t pub[3] = { 0, 1, 3 };
	uint64_t n[3] = { 0 }, r = 0x9e3779b97f4a7c15ull;

	reset(COMM_BOARD_DEFAULT);
	for (int i = 0; i < 3; i++)
		sample(pub[i], 0x1000 + 64 * (uint64_t)i, 8, 1, 100 + (uint64_t)i);
	for (int k = 0; k < 6000; k++) {
		struct comm_sample s = { .addr = 0x9000, .time = 200, .len = 8 };
		struct comm_pub p;
		int tr;
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		comm_observer_init(&o[2], 2, 0);	/* a first arming decision each time */
		CHECK(comm_on_sample(&b, &o[2], &s, r, &p, &tr, &cnt) == COMM_ARM);
		uint64_t i = (p.addr - 0x1000) / 64;
		CHECK(i < 3 && p.thread == pub[i < 3 ? i : 0]);
		n[i < 3 ? i : 0]++;
	}
	for (int i = 0; i < 3; i++)
		CHECK(n[i] >= 1800 && n[i] <= 2200);
}

/* The sampling window: within [p - p/2, p + p/2], both ends reached, mean p (the weight a
 * sample stands for).  Mean of 200000 uniform draws over 1009 values: sd 0.65; 1009 +- 5
 * is 7.7 sd.  Period 1 stays 1 (exact mode). */
TEST(window_around_period)
{
	uint64_t r = 1, lo = ~0ull, hi = 0, sum = 0;

	for (int k = 0; k < 200000; k++) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		uint64_t w = comm_window(1009, r);
		lo = w < lo ? w : lo;
		hi = w > hi ? w : hi;
		sum += w;
	}
	CHECK_EQ_U64(lo, 1009 - 504);
	CHECK_EQ_U64(hi, 1009 + 504);
	CHECK(sum >= 200000ull * 1004 && sum <= 200000ull * 1014);
	CHECK_EQ_U64(comm_window(1, r), 1);
	CHECK_EQ_U64(comm_window(2, 0), 1);
	CHECK_EQ_U64(comm_window(2, 2), 3);
}

TEST(trap_scale_and_disarm)
{
	struct comm_pub p;
	int tr = -1;
	uint32_t scale = 0;
	reset(COMM_BOARD_DEFAULT);
	sample(1, 0x1000, 8, 1, 100);
	CHECK(sample(2, 0x5000, 8, 0, 150) == COMM_ARM);
	comm_armed(&o[2], &armed_on, 4, 8, 150);
	CHECK(comm_on_trap(&o[2], 0x1000, 8, 64, &p, &tr, &scale) == 1);
	CHECK_EQ_U64(p.thread, 1);
	CHECK_EQ_U64(tr, 1);
	CHECK_EQ_U64(scale, 2);		/* L / (D x M) = 64 / (4 x 8) */
	CHECK_EQ_U64((uint64_t)P * scale, 2 * P);
	CHECK_EQ_U64(o[2].wp_n, 0);
	/* a second trap of the same arming does not count */
	CHECK(comm_on_trap(&o[2], 0x1000, 8, 64, &p, &tr, &scale) == 0);
	/* nor a trap on a publication already counted by a sample (t_prev) */
	reset(COMM_BOARD_DEFAULT);
	sample(1, 0x1000, 8, 1, 100);
	sample(2, 0x5000, 8, 0, 150);
	comm_armed(&o[2], &armed_on, 1, 8, 150);
	CHECK(sample(2, 0x1000, 8, 0, 160) == COMM_COUNT);
	CHECK(comm_on_trap(&o[2], 0x1008, 8, 64, &p, &tr, &scale) == 0);
	/* one register: scale 8 = 8P; a disjoint trapping chunk is false sharing */
	reset(COMM_BOARD_DEFAULT);
	sample(1, 0x1000, 8, 1, 100);
	sample(2, 0x5000, 8, 0, 150);
	comm_armed(&o[2], &armed_on, 1, 8, 150);
	CHECK(comm_on_trap(&o[2], 0x1030, 8, 64, &p, &tr, &scale) == 1);
	CHECK_EQ_U64(scale, 8);
	CHECK_EQ_U64(tr, 0);
}

TEST(chunks_distinct_random)
{
	uint32_t seen[8] = { 0 };
	for (uint64_t r = 1; r < 2000; r++) {
		uint32_t c[4];
		comm_pick_chunks(r * 0x9e3779b97f4a7c15ull, 64, 4, c);
		for (int i = 0; i < 4; i++) {
			CHECK(c[i] < 8);
			seen[c[i] % 8]++;
			for (int j = 0; j < i; j++)
				CHECK(c[i] != c[j]);
		}
	}
	for (int i = 0; i < 8; i++)	/* every chunk is picked, about half the time */
		CHECK(seen[i] > 700 && seen[i] < 1300);
}

TEST(eviction_small_board)
{
	reset(1);
	sample(1, 0x1000, 8, 1, 100);
	sample(2, 0x2000, 8, 1, 150);	/* no stale slot: lost */
	CHECK_EQ_U64(cnt.publish_lost, 1);
	struct comm_pub e;
	CHECK(!comm_board_find(&b, 0x2000, &e));
	b.tstores[1] += 2;		/* thread 1 stored twice more: expired */
	sample(2, 0x2000, 8, 1, 350);	/* evicted */
	CHECK(comm_board_find(&b, 0x2000, &e));
	CHECK(!comm_board_find(&b, 0x1000, &e));
	CHECK(sample(1, 0x2000, 8, 0, 360) == COMM_COUNT);
}

TEST(seqlock_hides_entry_being_written)
{
	reset(COMM_BOARD_DEFAULT);
	sample(1, 0x1000, 8, 1, 100);
	struct comm_pub e;
	for (int i = 0; i < COMM_BOARD_DEFAULT; i++)
		if (mem[i].line)
			mem[i].seq++;	/* a writer is in the middle of it */
	CHECK(!comm_board_find(&b, 0x1000, &e));
	CHECK(sample(2, 0x1000, 8, 0, 110) != COMM_COUNT);
	/* and a publish into it is dropped, not waited for */
	CHECK(comm_board_publish(&b, &(struct comm_pub){ .addr = 0x1000, .len = 8, .thread = 3,
							 .time = 1000, .seq = 1 }) < 0);
}

TEST(exact_detector)
{
	static struct comm_xline xm[1024];
	struct comm_exact x;
	struct comm_xfer f;
	comm_exact_init(&x, xm, 1024, 64);
	CHECK(comm_exact_access(&x, 1, 0, 0x1000, 8, 1, &f) == 0);	/* first write */
	CHECK(comm_exact_access(&x, 1, 0, 0x1000, 8, 0, &f) == 0);	/* own line */
	CHECK(comm_exact_access(&x, 2, 1, 0x1004, 4, 0, &f) == 1);	/* fetch: true */
	CHECK_EQ_U64(f.src, 1);
	CHECK_EQ_U64(f.src_cpu, 0);
	CHECK_EQ_U64(f.is_true, 1);
	CHECK(comm_exact_access(&x, 2, 1, 0x1000, 8, 0, &f) == 0);	/* already has it */
	CHECK(comm_exact_access(&x, 3, 1, 0x1010, 8, 0, &f) == 1);	/* other bytes: false */
	CHECK_EQ_U64(f.is_true, 0);
	/* thread 1 writes again after others fetched: a new version */
	CHECK(comm_exact_access(&x, 1, 0, 0x1020, 8, 1, &f) == 0);
	CHECK(comm_exact_access(&x, 2, 1, 0x1000, 8, 0, &f) == 1);
	CHECK_EQ_U64(f.is_true, 0);	/* the new version's written bytes are 0x20..0x27 */
	/* thread 2 takes the line over by writing: thread 1 fetches from 2 */
	CHECK(comm_exact_access(&x, 2, 1, 0x1020, 4, 1, &f) == 0);
	CHECK(comm_exact_access(&x, 1, 0, 0x1020, 8, 0, &f) == 1);
	CHECK_EQ_U64(f.src, 2);
	CHECK_EQ_U64(f.is_true, 1);
	/* repeated writes by one thread with no reader in between: one version */
	CHECK(comm_exact_access(&x, 3, 1, 0x2000, 8, 1, &f) == 0);
	CHECK(comm_exact_access(&x, 3, 1, 0x2008, 8, 1, &f) == 0);
	CHECK(comm_exact_access(&x, 0, 0, 0x2010, 8, 0, &f) == 1);
	CHECK_EQ_U64(f.is_true, 0);
	CHECK(comm_exact_access(&x, 0, 0, 0x2008, 8, 0, &f) == 0);
}

TEST(exact_ping_pong_counts)
{
	static struct comm_xline xm[64];
	struct comm_exact x;
	struct comm_xfer f;
	uint64_t n[2] = { 0, 0 };
	comm_exact_init(&x, xm, 64, 64);
	/* N strict hand-offs of a token: each side reads the other's write, then writes */
	for (int i = 0; i < 100; i++) {
		uint32_t me = 1 + (i & 1);
		int r = comm_exact_access(&x, me, 0, 0x3000, 8, 0, &f);
		if (r == 1)
			n[f.is_true]++;
		comm_exact_access(&x, me, 0, 0x3000, 8, 1, &f);
	}
	CHECK_EQ_U64(n[1], 99);
	CHECK_EQ_U64(n[0], 0);
}

int main(void)
{
	RUN(true_sharing_counts_period);
	RUN(false_sharing_disjoint_bytes);
	RUN(writer_bytes_cover);
	RUN(other_line_no_count);
	RUN(own_line_arms_nothing_counts_nothing);
	RUN(t_prev_no_recount);
	RUN(expiry_two_store_samples_of_the_publisher);
	RUN(expiry_board_wide_when_publisher_is_silent);
	RUN(ended_publisher_not_for_later_threads);
	RUN(loads_never_publish);
	RUN(arm_on_unexpired_foreign_line);
	RUN(arm_once_per_publication);
	RUN(trap_estimate_one_arming_per_publication);
	RUN(trap_whole_line_scale_1);
	RUN(arm_pick_uniform_among_candidates);
	RUN(window_around_period);
	RUN(trap_scale_and_disarm);
	RUN(chunks_distinct_random);
	RUN(eviction_small_board);
	RUN(seqlock_hides_entry_being_written);
	RUN(exact_detector);
	RUN(exact_ping_pong_counts);
	return CHECK_DONE();
}
