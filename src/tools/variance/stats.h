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

struct welford {
	uint64_t n;
	double mean;
	double m2;		/* sum of squared deviations from the mean */
	double min, max;
};

static inline void welford_add(struct welford *w, double x)
{
	w->n++;
	if (w->n == 1 || x < w->min)
		w->min = x;
	if (w->n == 1 || x > w->max)
		w->max = x;
	double d = x - w->mean;
	w->mean += d / (double)w->n;
	w->m2 += d * (x - w->mean);
}

/* a += b (Chan et al.'s pairwise form). */
static inline void welford_merge(struct welford *a, const struct welford *b)
{
	if (!b->n)
		return;
	if (!a->n) {
		*a = *b;
		return;
	}
	double n = (double)(a->n + b->n), d = b->mean - a->mean;
	a->m2 += b->m2 + d * d * (double)a->n * (double)b->n / n;
	a->mean += d * (double)b->n / n;
	a->min = b->min < a->min ? b->min : a->min;
	a->max = b->max > a->max ? b->max : a->max;
	a->n += b->n;
}

/* Sample standard deviation (n - 1); 0 below two values. */
static inline double welford_sd(const struct welford *w)
{
	return w->n > 1 ? sqrt(w->m2 / (double)(w->n - 1)) : 0.0;
}

/* Coefficient of variation SD / mean; NAN when the mean is 0 (no value). */
static inline double welford_cv(const struct welford *w)
{
	return w->mean != 0.0 ? welford_sd(w) / w->mean : NAN;
}

#endif
