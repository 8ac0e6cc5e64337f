/* SPDX-License-Identifier: MIT */
/*
 * stats.h - running statistics of the variance tool: Welford's online mean and sample
 * variance (FVSampler 5.3, with the printed formula's stray "/(i-1)" left out), and the
 * parallel merge of two such summaries (Chan, Golub and LeVeque), used to combine threads
 * and ranks without re-reading their instances.  Header-only, no state; unit tested in
 * tests/unit/u-variance-stats.c against two-pass results.
 */
#ifndef SONDE_TOOLS_VARIANCE_STATS_H
#define SONDE_TOOLS_VARIANCE_STATS_H

#include <math.h>
#include <stdint.h>

/*
 * Each value may carry a weight: the number of values it stands for where only a share of
 * them was measured (variance's OpenMP regions past the rate cap: the inverse of the
 * call's chance of being timed, a Horvitz-Thompson weight).  With every weight 1 the
 * figures are the plain ones, to the bit.
 */
struct welford {
	uint64_t n;		/* values */
	double wsum;		/* their weights' sum (n when all are 1) */
	double mean;		/* weighted */
	double m2;		/* weighted sum of squared deviations from the mean */
	double min, max;
};

/* West's weighted form of Welford's update */
static inline void welford_add_w(struct welford *w, double x, double weight)
{
	w->n++;
	if (w->n == 1 || x < w->min)
		w->min = x;
	if (w->n == 1 || x > w->max)
		w->max = x;
	w->wsum += weight;
	double d = x - w->mean;
	w->mean += d * weight / w->wsum;
	w->m2 += weight * d * (x - w->mean);
}

static inline void welford_add(struct welford *w, double x)
{
	welford_add_w(w, x, 1.0);
}

/* a += b (Chan et al.'s pairwise form, by weight). */
static inline void welford_merge(struct welford *a, const struct welford *b)
{
	if (!b->n)
		return;
	if (!a->n) {
		*a = *b;
		return;
	}
	double n = a->wsum + b->wsum, d = b->mean - a->mean;
	a->m2 += b->m2 + d * d * a->wsum * b->wsum / n;
	a->mean += d * b->wsum / n;
	a->min = b->min < a->min ? b->min : a->min;
	a->max = b->max > a->max ? b->max : a->max;
	a->n += b->n;
	a->wsum = n;
}

/* The weighted sum of squares as n values of weight 1 would give it (m2 x n / wsum): what
 * n - 1 degrees of freedom divide. */
static inline double welford_m2n(const struct welford *w)
{
	if (w->wsum == (double)w->n)
		return w->m2;
	return w->wsum > 0 ? w->m2 * (double)w->n / w->wsum : 0.0;
}

/* Sample standard deviation (n - 1, weights scaled to n); 0 below two values. */
static inline double welford_sd(const struct welford *w)
{
	return w->n > 1 ? sqrt(welford_m2n(w) / (double)(w->n - 1)) : 0.0;
}

/* Coefficient of variation SD / mean; NAN when the mean is 0 (no value). */
static inline double welford_cv(const struct welford *w)
{
	return w->mean != 0.0 ? welford_sd(w) / w->mean : NAN;
}

/*
 * The CV of thread means over which threads differ: FVSampler's `inter` (10%), or twice
 * the CV that the means' sampling error alone gives, if more.  Each thread's mean has a
 * standard error of (its CV) / sqrt(its instances); with the CV within threads `cv` for
 * all, the thread means scatter by cv * sqrt(mean over threads of 1 / instances), and
 * `inv_n` is that sum over `threads` threads.  Two threads doing the same work, every
 * 10th call 5x (CV within 85%), 20-40 instances each, read thread CVs of 10-29% (the
 * usability review of 2026-11-28: "threads differ" in 6 rows of 8).
 */
static inline double thread_cv_bar(double inter, double cv, double inv_n, uint32_t threads)
{
	double noise = threads > 1 && cv > 0 && inv_n > 0 ? cv * sqrt(inv_n / threads) : 0;
	return 2 * noise > inter ? 2 * noise : inter;
}

#endif
