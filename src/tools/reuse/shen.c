/* SPDX-License-Identifier: MIT */
/*
 * shen.c - from time distances to reuse distances (Shen et al., as ReuseTracker and RDX
 * use it), the miss ratio of fully associative LRU caches, and the accuracy S.
 *
 * Within a bin [lo, hi) a count is spread uniformly over the integers, so P(TRD >= k) is
 * piecewise linear and its partial sums have a closed form per bin.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/reuse/reuse.h"

static double total(const double *h)
{
	double s = 0;
	for (int b = 0; b < REUSE_BINS; b++)
		s += h[b];
	return s;
}

double reuse_shen_mean(const double *time, double never, double w)
{
	double u = total(time) + never, sum = 0, above = never;
	if (u <= 0 || w <= 0)
		return 0;
	/* above = mass of the bins after b (and the never-reused), walked from the top */
	double after[REUSE_BINS];
	for (int b = REUSE_BINS - 1; b >= 0; b--) {
		after[b] = above;
		above += time[b];
	}
	for (int b = 0; b < REUSE_BINS; b++) {
		double lo = (double)reuse_bin_lo(b), hi = (double)reuse_bin_hi(b);
		if (lo >= w)
			break;
		double m = hi < w ? hi : w, n = m - lo, width = hi - lo;
		/* sum over k = lo .. m-1 of [after + time_b (hi - k) / width] / u */
		double in_bin = time[b] / width * (n * hi - (lo + m - 1) * n / 2);
		sum += (after[b] * n + in_bin) / u;
	}
	return sum;
}

static double phi(double x)
{
	return 0.5 * erfc(-x / sqrt(2.0));
}

/* Add `count` to dist at a distance ~ Normal(mu, var) over the integers. */
static void spread(double *dist, double count, double mu, double var)
{
	if (var < 1e-6) {
		dist[reuse_bin((uint64_t)llround(mu))] += count;
		return;
	}
	double sd = sqrt(var), got = 0;
	int first = reuse_bin((uint64_t)fmax(0, mu - 6 * sd)), last = reuse_bin((uint64_t)(mu + 6 * sd));
	double share[REUSE_BINS] = { 0 };
	for (int b = first; b <= last; b++) {
		double lo = (double)reuse_bin_lo(b) - 0.5, hi = (double)reuse_bin_hi(b) - 0.5;
		share[b] = phi((hi - mu) / sd) - (b ? phi((lo - mu) / sd) : 0);
		got += share[b];
	}
	if (got <= 0) {
		dist[reuse_bin((uint64_t)llround(mu))] += count;
		return;
	}
	for (int b = first; b <= last; b++)
		dist[b] += count * share[b] / got;
}

#define SUB 16	/* points per bin */

void reuse_shen_convert(const double *time, double never, double n, double *dist)
{
	memset(dist, 0, REUSE_BINS * sizeof(*dist));
	for (int b = 0; b < REUSE_BINS; b++) {
		if (time[b] <= 0)
			continue;
		double lo = (double)reuse_bin_lo(b), width = (double)reuse_bin_hi(b) - lo;
		int pts = width < SUB ? (int)width : SUB;
		for (int j = 0; j < pts; j++) {
			double w = width < SUB ? lo + j : floor(lo + (j + 0.5) * width / SUB);
			double mu = w ? reuse_shen_mean(time, never, w) : 0;
			if (w >= 1 && mu < 1)
				mu = 1;	/* an access in between is one element at least */
			if (mu > w)
				mu = w;
			double p = n > 1 ? fmin(1, mu / n) : 1;
			spread(dist, time[b] / pts, mu, n > 1 ? n * p * (1 - p) : 0);
		}
	}
}

/* Mean distance for window w from sorted points: prefix[i] = sum of wt_j (t_j + 1), j < i. */
static double points_mean(const uint64_t *t, const double *prefix, const double *wprefix,
			  size_t n, double never, double all, double w)
{
	size_t lo = 0, hi = n;	/* first i with t[i] >= w */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if ((double)t[mid] < w)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (prefix[lo] + w * (wprefix[n] - wprefix[lo] + never)) / all;
}

void reuse_shen_points(const uint64_t *t, const double *wt, size_t n, double never, double nfoot,
		       double *dist)
{
	double *prefix = calloc(n + 1, sizeof(double)), *wprefix = calloc(n + 1, sizeof(double));
	memset(dist, 0, REUSE_BINS * sizeof(*dist));
	if (!prefix || !wprefix) {
		free(prefix);
		free(wprefix);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		prefix[i + 1] = prefix[i] + wt[i] * ((double)t[i] + 1);
		wprefix[i + 1] = wprefix[i] + wt[i];
	}
	double all = wprefix[n] + never;
	for (size_t i = 0; i < n && all > 0; i++) {
		double w = (double)t[i];
		double mu = w ? points_mean(t, prefix, wprefix, n, never, all, w) : 0;
		if (w >= 1 && mu < 1)
			mu = 1;
		if (mu > w)
			mu = w;
		double p = nfoot > 1 ? fmin(1, mu / nfoot) : 1;
		spread(dist, wt[i], mu, nfoot > 1 ? nfoot * p * (1 - p) : 0);
	}
	free(prefix);
	free(wprefix);
}

double reuse_share_beyond(const double *dist, double c)
{
	double all = total(dist), s = 0;
	if (all <= 0)
		return 0;
	for (int b = 0; b < REUSE_BINS; b++) {
		double lo = (double)reuse_bin_lo(b), hi = (double)reuse_bin_hi(b);
		if (c <= lo)
			s += dist[b];
		else if (c < hi)
			s += dist[b] * (hi - ceil(c)) / (hi - lo);
	}
	return s / all;
}

double reuse_accuracy(const double *a, const double *b, int n)
{
	double sa = 0, sb = 0, d = 0;
	for (int i = 0; i < n; i++) {
		sa += a[i];
		sb += b[i];
	}
	if (sa <= 0 && sb <= 0)
		return 1;
	if (sa <= 0 || sb <= 0)
		return 0;
	for (int i = 0; i < n; i++)
		d += fabs(a[i] / sa - b[i] / sb);
	return 1 - d / 2;
}
