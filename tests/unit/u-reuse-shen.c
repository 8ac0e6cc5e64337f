/* SPDX-License-Identifier: MIT */
/*
 * u-reuse-shen.c - time distance -> reuse distance (src/tools/reuse/shen.c) on histograms
 * computed by hand, the miss-ratio share, and the accuracy S.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "tools/reuse/reuse.h"

static int near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

TEST(reuse_shen_mean_cyclic)
{
	/* every time distance is 1 (bin 1 holds exactly {1}): a b a b ...  P(TRD >= 0) =
	 * P(TRD >= 1) = 1, so the mean for w = 1 is 1 element */
	double t[REUSE_BINS] = { 0 };
	t[1] = 100;
	CHECK(near(reuse_shen_mean(t, 0, 1), 1, 1e-9));
	/* by hand: half the uses have TRD 0 (bin 0), half TRD 1 (bin 1): G(0) = 1, G(1) = 0.5,
	 * G(2) = 0: mean(1) = 1, mean(2) = 1.5, mean(3) = 1.5 */
	memset(t, 0, sizeof(t));
	t[0] = 50;
	t[1] = 50;
	CHECK(near(reuse_shen_mean(t, 0, 1), 1, 1e-9));
	CHECK(near(reuse_shen_mean(t, 0, 2), 1.5, 1e-9));
	CHECK(near(reuse_shen_mean(t, 0, 3), 1.5, 1e-9));
	/* never-reused uses count as infinite: with 100 never, G(0) = 200/200, G(1) =
	 * (50 + 100)/200, G(2) = 100/200 */
	CHECK(near(reuse_shen_mean(t, 100, 3), (200 + 150 + 100) / 200.0, 1e-9));
}

TEST(reuse_shen_mean_uniform_bin)
{
	/* 4 uses in bin 3 = [4, 8): spread as one on each of 4, 5, 6, 7.  G(k) = 1 for k <= 4,
	 * then 3/4, 2/4, 1/4, 0 for k = 5..8: mean(8) = 5 + 0.75 + 0.5 + 0.25 = 6.5 */
	double t[REUSE_BINS] = { 0 };
	t[3] = 4;
	CHECK(near(reuse_shen_mean(t, 0, 8), 6.5, 1e-9));
	CHECK(near(reuse_shen_mean(t, 0, 4), 4, 1e-9));
}

TEST(reuse_points_mean_by_hand)
{
	/* time distances 1, 3, 3, 9 (weights 1): mean(w) = [sum_{t<w} (t+1) + w #{t>=w}] / 4
	 * w = 3: (2 + 3*3) / 4 = 2.75; w = 9: (2 + 4 + 4 + 9) / 4 = 4.75 */
	const uint64_t t[] = { 1, 3, 3, 9 };
	const double w[] = { 1, 1, 1, 1 };
	struct reuse_points p;
	CHECK(reuse_points_init(&p, t, w, 4, 0) == 0);
	CHECK(near(reuse_points_mean(&p, 3), 2.75, 1e-9));
	CHECK(near(reuse_points_mean(&p, 9), 4.75, 1e-9));
	CHECK(near(reuse_points_mean(&p, 1), 1, 1e-9));
	reuse_points_release(&p);
}

TEST(reuse_convert_keeps_counts)
{
	/* a cyclic sweep over 1000 elements: every time distance 999, a footprint of 1000;
	 * the converted histogram keeps the 5000 reuses, all near 999: [512, 1024) */
	double t[REUSE_BINS] = { 0 }, d[REUSE_BINS];
	t[reuse_bin(999)] = 5000;
	reuse_shen_convert(t, 1000, 1000, d);
	double sum = 0;
	for (int b = 0; b < REUSE_BINS; b++)
		sum += d[b];
	CHECK(near(sum, 5000, 1e-6));
	CHECK(d[reuse_bin(999)] + d[reuse_bin(999) - 1] > 0.99 * 5000);
}

TEST(reuse_share_beyond_bounds_cut_bin)
{
	/* every reuse at distance 4999 words ([4096, 8192)); a 48 KiB cache holds 6144
	 * words and cuts that bin: the even spread says half beyond, the bounds 0 and 1; a
	 * bin edge cuts nothing (the usability review of 2026-11-29) */
	double d[REUSE_BINS] = { 0 }, lo, hi;
	d[reuse_bin(4999)] = 100;
	CHECK(near(reuse_share_beyond(d, 6144), 0.5, 0.01));
	reuse_share_beyond_bounds(d, 6144, &lo, &hi);
	CHECK(near(lo, 0, 1e-12) && near(hi, 1, 1e-12));
	reuse_share_beyond_bounds(d, 8192, &lo, &hi);
	CHECK(near(lo, 0, 1e-12) && near(hi, 0, 1e-12));
	reuse_share_beyond_bounds(d, 4096, &lo, &hi);
	CHECK(near(lo, 1, 1e-12) && near(hi, 1, 1e-12));
	/* mass beyond the cut bin counts in both bounds */
	d[reuse_bin(20000)] = 100;
	reuse_share_beyond_bounds(d, 6144, &lo, &hi);
	CHECK(near(lo, 0.5, 1e-12) && near(hi, 1, 1e-12));
}

TEST(reuse_local_mean_alone)
{
	/* uses 4000 accesses apart (a period of 4000); o[5]'s window is 10 accesses long:
	 * within 10 of its centre there is no other use.  With w_alone 400 (a tenth of
	 * the period) that is -1, the caller's whole-program mean; with 0 the 4 nearest give
	 * their mean of min(t + 1, w): (10 + 10 + 3 + 10) / 4 */
	struct reuse_obs o[10];
	for (int i = 0; i < 10; i++)
		o[i] = (struct reuse_obs){ (uint64_t)i * 4000, 50, 1 };
	o[5].trd = 10;
	o[4].trd = 2;
	CHECK(reuse_local_mean(o, 10, 5, 4, 0, 400) == -1);
	CHECK(near(reuse_local_mean(o, 10, 5, 4, 0, 0), 33.0 / 4, 1e-9));
	/* a window as long as the period finds its neighbours as before: within 8000 of its
	 * centre 24000, o[4..8]: (3 + 8000 + 3 x 51) / 5 */
	o[5].trd = 8000;
	CHECK(near(reuse_local_mean(o, 10, 5, 4, 0, 400), 8156.0 / 5, 1e-9));
	/* k_min 8 (LOCAL_K) on a thread of 6 uses: the long window averages all 6, (3 + 8000
	 * + 4 x 51) / 6; the short one has fewer than 8 near it: -1 */
	CHECK(near(reuse_local_mean(o + 2, 6, 3, 8, 0, 400), 8207.0 / 6, 1e-9));
	o[5].trd = 10;
	CHECK(reuse_local_mean(o + 2, 6, 3, 8, 0, 400) == -1);
}

TEST(reuse_local_mean_phases)
{
	/* one thread: 10 uses at TRD 100 (positions 0..900), then 10 at TRD 10000 (positions
	 * 100000..190000).  The local mean of a long use sees only long neighbours:
	 * sum min(t+1, w)/n = 10000 for w = 10000; the global mean mixes in the short ones */
	struct reuse_obs o[20];
	for (int i = 0; i < 10; i++)
		o[i] = (struct reuse_obs){ (uint64_t)i * 100, 100, 1 };
	for (int i = 0; i < 10; i++)
		o[10 + i] = (struct reuse_obs){ 100000 + (uint64_t)i * 10000, 10000, 1 };
	CHECK(near(reuse_local_mean(o, 20, 15, 4, 0, 0), 10000, 1e-9));
	CHECK(near(reuse_local_mean(o, 20, 3, 4, 0, 0), 100, 1e-9));
	uint64_t t[20];
	double w[20];
	for (int i = 0; i < 20; i++) {
		t[i] = o[i].trd;
		w[i] = 1;
	}
	struct reuse_points p;
	CHECK(reuse_points_init(&p, t, w, 20, 0) == 0);
	/* global: (10 * 101 + 10 * 10000) / 20 = 5050.5 */
	CHECK(near(reuse_points_mean(&p, 10000), 5050.5, 1e-9));
	reuse_points_release(&p);
}

/* one window's own estimate: the pool of that window alone (reuse_pool_rd), or -1 */
static double window_rd(const struct reuse_obs *o, size_t n, size_t i, size_t min_obs)
{
	struct reuse_win w = { .trd = o[i].trd };
	reuse_window_counts(o, n, i, &w.k, &w.kb, &w.in, &w.beyond);
	return reuse_pool_rd(&w, 1, min_obs, 1, 0.05) ? -2 : w.rd;
}

TEST(reuse_window_estimate)
{
	/* a use at 0 with TRD 100; inside its window 8 uses at 10, 20, .. 80: those at 10..40
	 * are reused at 10 + 5 (inside), those at 50..80 beyond 100: RD = 100 * 4/8 = 50 */
	struct reuse_obs o[9] = { { 0, 100, 1 } };
	for (int i = 1; i <= 8; i++)
		o[i] = (struct reuse_obs){ (uint64_t)i * 10, i <= 4 ? 5 : 60, 1 };
	CHECK(near(window_rd(o, 9, 0, 8), 50, 1e-9));
	CHECK(window_rd(o, 9, 0, 9) < 0);	/* too few inside */
	/* every use inside reused inside (TRD 5): none beyond, no estimate (not 0: the
	 * element's own reuse makes RD >= 1) */
	for (int i = 1; i <= 8; i++)
		o[i].trd = 5;
	CHECK(window_rd(o, 9, 0, 8) < 0);
}

TEST(reuse_pool_estimate)
{
	/* {use_ip, reuse_ip, trd, in, beyond, k, kb, at}: weights 1 here, so in = k and
	 * beyond = kb.  Pair A (0x10 -> 0x20): windows of TRD 1000, 1020 and 1040 (within 5%
	 * of each other), each with 8 uses inside and 3, 5 and 4 beyond: one pool, 12/24
	 * beyond, so RD = TRD / 2 for each, where their own windows alone say 375, 637.5
	 * and 520 */
	struct reuse_win w[8] = {
		{ 0x10, 0x20, 1040, 8, 4, 8, 4, 0, 0 },
		{ 0x10, 0x20, 1000, 8, 3, 8, 3, 1, 0 },
		{ 0x10, 0x20, 1020, 8, 5, 8, 5, 2, 0 },
		/* pair A again at TRD 2000: another pool (1000 x 1.05 < 2000), 6 of 8 beyond */
		{ 0x10, 0x20, 2000, 8, 6, 8, 6, 3, 0 },
		/* pair B at TRD 1000: not pooled with A, 1 of 8 beyond */
		{ 0x10, 0x30, 1000, 8, 1, 8, 1, 4, 0 },
		/* pair B, a window with 2 uses of its own: no estimate of its own, but its uses
		 * (2 of 2 beyond) join the pool of the one above */
		{ 0x10, 0x30, 1010, 2, 2, 2, 2, 5, 0 },
		/* pair C: none beyond in the pool, no estimate (-1, not 0) */
		{ 0x40, 0x40, 500, 8, 0, 8, 0, 6, 0 },
		/* pair D: weighted, 1 use beyond weighing 30 of 40 */
		{ 0x50, 0x50, 800, 40, 30, 8, 1, 7, 0 },
	};
	CHECK(reuse_pool_rd(w, 8, 8, 1, 0.05) == 0);
	double want[8] = { 520, 500, 510, 1500, 1000 * 3.0 / 10, -1, -1, 600 };
	int seen = 0;
	for (int i = 0; i < 8; i++) {
		CHECK(w[i].at < 8);
		seen |= 1 << w[i].at;
		CHECK(near(w[i].rd, want[w[i].at], 1e-9));
	}
	CHECK(seen == 0xff);	/* sorted, each window once */
	/* at least 6 uses beyond a pool: A's TRD 1000 pool (12) keeps its estimate, A's
	 * TRD 2000 one (6) too, B's (3) and D's (1) have none */
	for (int i = 0; i < 8; i++)
		w[i].rd = 0;
	CHECK(reuse_pool_rd(w, 8, 8, 6, 0.05) == 0);
	double want6[8] = { 520, 500, 510, 1500, -1, -1, -1, -1 };
	for (int i = 0; i < 8; i++)
		CHECK(near(w[i].rd, want6[w[i].at], 1e-9));
	/* tolerance 0: only equal time distances pool */
	struct reuse_win v[2] = { { 1, 2, 100, 10, 2, 10, 2, 0, 0 },
				  { 1, 2, 101, 10, 8, 10, 8, 1, 0 } };
	CHECK(reuse_pool_rd(v, 2, 8, 1, 0) == 0);
	CHECK(near(v[0].rd, 20, 1e-9) && near(v[1].rd, 80.8, 1e-9));
	CHECK(reuse_pool_rd(v, 0, 8, 1, 0.05) == 0);	/* nothing to pool */
}

TEST(reuse_code_estimate)
{
	/* observed uses (site, time distance, weight), in no order: 0x110 is a load whose
	 * store follows at once 3 times in 4 (TRD 0) and once at TRD 4; 0x120 is reused far;
	 * 0x130 at TRD 1 (weight 1) and 5 (weight 3); 0x100 is the use site; each site's
	 * weight is 4 (run as often) */
	uint64_t ip[] = { 0x130, 0x110, 0x120, 0x110, 0x100, 0x130, 0x110, 0x120 };
	uint64_t trd[] = { 1, 0, 50, 0, 2, 5, 4, 50 };
	double w[] = { 1, 2, 2, 1, 4, 3, 1, 2 };
	struct reuse_obs ob[8];
	for (int i = 0; i < 8; i++)
		ob[i] = (struct reuse_obs){ (uint64_t)i, trd[i], w[i] };
	struct reuse_site *s = NULL;
	size_t ns = 0;
	const uint64_t f = 0x1000;	/* every site's function */
	CHECK(reuse_sites_build(ob, ip, 8, &s, &ns) == 0);
	CHECK(ns == 4 && s[0].ip == 0x100 && s[1].ip == 0x110 && s[3].ip == 0x130);
	CHECK(near(s[1].all, 4, 1e-12) && near(s[1].ge[0], 4, 1e-12) && near(s[1].ge[1], 1, 1e-12) &&
	      near(s[1].ge[4], 1, 1e-12) && near(s[1].ge[5], 0, 1e-12));
	CHECK(near(s[3].ge[2], 3, 1e-12) && near(s[3].ge[6], 0, 1e-12));
	CHECK(s[0].func == 0);	/* the caller's to set */
	for (size_t i = 0; i < ns; i++)
		s[i].func = f;
	/* 2 accesses between 0x100 and 0x125: the sites 0x110 and 0x120, in that order.  The
	 * first is last in the window if its TRD >= 1 (1 in 4), the second always: 1.25
	 * (Shen's mean over all the uses would count both as distinct more often) */
	CHECK(near(reuse_code_rd(s, ns, 0x100, 0x125, 2, f), 1.25, 1e-12));
	/* 3 between 0x100 and 0x140: P(TRD >= 2) + P(TRD >= 1) + 1 = 0.25 + 1 + 1 */
	CHECK(near(reuse_code_rd(s, ns, 0x100, 0x140, 3, f), 2.25, 1e-12));
	CHECK(near(reuse_code_rd(s, ns, 0x110, 0x140, 2, f), 2, 1e-12));
	/* not straight code of that length: another number of sites between, the reuse site
	 * first, a window of 0 or longer than REUSE_CODE_MAX */
	CHECK(reuse_code_rd(s, ns, 0x105, 0x140, 2, f) < 0);
	CHECK(reuse_code_rd(s, ns, 0x100, 0x140, 4, f) < 0);
	CHECK(reuse_code_rd(s, ns, 0x140, 0x100, 3, f) < 0);
	CHECK(reuse_code_rd(s, ns, 0x100, 0x100, 0, f) < 0);
	CHECK(reuse_code_rd(s, ns, 0x100, 0x125, 0, f) < 0);
	CHECK(reuse_code_rd(s, ns, 0x0, 0x1000, REUSE_CODE_MAX + 1, f) < 0);
	/* the checks of straight code: the use site must be an observed site (0x101 is not,
	 * though 2 sites lie between it and 0x125), the function known and the same for the
	 * sites between, and those executed about as often as the use site */
	CHECK(reuse_code_rd(s, ns, 0x101, 0x125, 2, f) < 0);
	CHECK(reuse_code_rd(s, ns, 0x100, 0x125, 2, 0) < 0);
	s[2].func = 0x2000;	/* 0x120 in another function */
	CHECK(reuse_code_rd(s, ns, 0x100, 0x125, 2, f) < 0);
	s[2].func = f;
	s[2].all = 5;		/* 0x120 run 1.25 times as often as 0x100: still taken */
	CHECK(reuse_code_rd(s, ns, 0x100, 0x125, 2, f) > 0);
	s[2].all = 6;		/* 1.5 times */
	CHECK(reuse_code_rd(s, ns, 0x100, 0x125, 2, f) < 0);
	s[2].all = 2.4;		/* 60% as often (a counter bumped on 60% of the steps) */
	CHECK(reuse_code_rd(s, ns, 0x100, 0x125, 2, f) < 0);
	free(s);
	CHECK(reuse_sites_build(ob, ip, 0, &s, &ns) == 0 && ns == 0);
	CHECK(reuse_code_rd(s, ns, 0x100, 0x125, 2, f) < 0);
	free(s);
}

TEST(reuse_share_and_accuracy)
{
	double d[REUSE_BINS] = { 0 };
	d[reuse_bin(1000)] = 100;	/* [512, 1024): 512 integers */
	CHECK(near(reuse_share_beyond(d, 512), 1, 1e-9));
	CHECK(near(reuse_share_beyond(d, 1024), 0, 1e-9));
	CHECK(near(reuse_share_beyond(d, 768), 0.5, 1e-9));
	double a[3] = { 1, 1, 0 }, b[3] = { 0, 1, 1 };
	CHECK(near(reuse_accuracy(a, a, 3), 1, 1e-12));
	CHECK(near(reuse_accuracy(a, b, 3), 0.5, 1e-12));	/* half the mass moved */
}

TEST(reuse_window_rd_invalidated_neighbours)
{
	/* A RIBench phase of one thread: every repetition uses X1 = 30 private elements and
	 * INV = 10 shared ones (40 accesses, one each), and reuses each at the next
	 * repetition (TRD 39).  Another thread's stores take 5 of the 10 shared ones out of
	 * this thread's stack within each repetition.  Between a use and its reuse there are
	 * then 34 distinct elements in the stack (X1 + INV/2 - 1), as --exact counts them.  The model (model.c) passes the
	 * invalidated uses as neighbours with their store's time (TRD = accesses from the use
	 * to the store): inside the window, not beyond it.  Left out, as before 2026-11-27,
	 * the window counted only the uses that were reused: 39 (X1 + INV - 1). */
	struct reuse_obs o[400], r[400];
	size_t n = 0, nr = 0;
	for (uint64_t rep = 0; rep < 10; rep++)
		for (uint64_t k = 0; k < 40; k++) {
			uint64_t p0 = rep * 40 + k;
			/* shared elements 30..34 invalidated 2 accesses after their use */
			int inv = k >= 30 && k < 35;
			o[n++] = (struct reuse_obs){ p0, inv ? 2 : 39, 1 };
			if (!inv)
				r[nr++] = (struct reuse_obs){ p0, 39, 1 };
		}
	CHECK(near(window_rd(o, n, 0, 8), 34, 1e-9));
	CHECK(near(window_rd(r, nr, 0, 8), 39, 1e-9));
}

/* Chao1 by hand: 100 pages sampled, 40 at least twice, 10 at least three times: f1 = 60,
 * f2 = 30, 100 + 60 x 59 / (2 x 31) = 157.10; no repeat counted (an old recording): the
 * pages sampled; every page sampled 3 times or more (f1 = 0): nothing unseen. */
TEST(reuse_pages_chao1)
{
	CHECK(near(reuse_pages_estimate(1, 100, 40, 10), 100 + 60.0 * 59 / 62, 1e-9));
	CHECK(near(reuse_pages_estimate(0, 100, 40, 10), 100, 1e-9));
	CHECK(near(reuse_pages_estimate(1, 100, 100, 100), 100, 1e-9));
	/* all once (f2 = 0): n1 + n1 (n1 - 1) / 2 */
	CHECK(near(reuse_pages_estimate(1, 20, 0, 0), 20 + 20.0 * 19 / 2, 1e-9));
	/* inconsistent counts (n2 > n1): the pages sampled, no estimate */
	CHECK(near(reuse_pages_estimate(1, 10, 20, 0), 10, 1e-9));
	/* sampling a known population: 2000 pages, 600 samples drawn uniformly (a fixed
	 * xorshift): the estimate is nearer 2000 than the pages seen, within 25% */
	static uint8_t hits[2000];
	uint64_t x = 88172645463325252ull, n1 = 0, n2 = 0, n3 = 0;
	for (int i = 0; i < 600; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint8_t *h = &hits[x % 2000];
		if (++*h == 1)
			n1++;
		else if (*h == 2)
			n2++;
		else if (*h == 3)
			n3++;
	}
	double e = reuse_pages_estimate(1, n1, n2, n3);
	printf("    2000 pages, 600 samples: %llu seen, estimate %.0f\n", (unsigned long long)n1, e);
	CHECK(e > (double)n1 && fabs(e - 2000) < 0.25 * 2000);
}

int main(void)
{
	RUN(reuse_shen_mean_cyclic);
	RUN(reuse_share_beyond_bounds_cut_bin);
	RUN(reuse_shen_mean_uniform_bin);
	RUN(reuse_points_mean_by_hand);
	RUN(reuse_convert_keeps_counts);
	RUN(reuse_local_mean_phases);
	RUN(reuse_local_mean_alone);
	RUN(reuse_window_estimate);
	RUN(reuse_pool_estimate);
	RUN(reuse_code_estimate);
	RUN(reuse_share_and_accuracy);
	RUN(reuse_pages_chao1);
	RUN(reuse_window_rd_invalidated_neighbours);
	return CHECK_DONE();
}
