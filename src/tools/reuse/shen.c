/* SPDX-License-Identifier: MIT */
/*
 * shen.c - from time distances to reuse distances (Shen et al., as ReuseTracker and RDX
 * use it), the miss ratio of fully associative LRU caches, and the accuracy S.
 *
 * Within a bin [lo, hi) a count is spread uniformly over the integers, so P(TRD >= k) is
 * piecewise linear and its partial sums have a closed form per bin.
 */
#include <errno.h>
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

int reuse_points_init(struct reuse_points *p, const uint64_t *t, const double *wt, size_t n,
		      double never)
{
	memset(p, 0, sizeof(*p));
	p->prefix = calloc(n + 1, sizeof(double));
	p->wprefix = calloc(n + 1, sizeof(double));
	if (!p->prefix || !p->wprefix) {
		reuse_points_release(p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		p->prefix[i + 1] = p->prefix[i] + wt[i] * ((double)t[i] + 1);
		p->wprefix[i + 1] = p->wprefix[i] + wt[i];
	}
	p->t = t;
	p->n = n;
	p->never = never;
	p->all = p->wprefix[n] + never;
	return 0;
}

void reuse_points_release(struct reuse_points *p)
{
	free(p->prefix);
	free(p->wprefix);
	p->prefix = p->wprefix = NULL;
}

double reuse_points_mean(const struct reuse_points *p, double w)
{
	size_t lo = 0, hi = p->n;	/* first i with t[i] >= w */
	if (p->all <= 0 || w <= 0)
		return 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if ((double)p->t[mid] < w)
			lo = mid + 1;
		else
			hi = mid;
	}
	double mu = (p->prefix[lo] + w * (p->wprefix[p->n] - p->wprefix[lo] + p->never)) / p->all;
	return mu < 1 ? 1 : mu > w ? w : mu;
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

void reuse_share_beyond_bounds(const double *dist, double c, double *lo, double *hi)
{
	double all = total(dist), s = 0, cut = 0;
	*lo = *hi = 0;
	if (all <= 0)
		return;
	for (int b = 0; b < REUSE_BINS; b++) {
		double blo = (double)reuse_bin_lo(b), bhi = (double)reuse_bin_hi(b);
		if (c <= blo)
			s += dist[b];
		else if (c < bhi && c > blo)
			cut += dist[b];
	}
	*lo = s / all;
	*hi = (s + cut) / all;
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

void reuse_window_counts(const struct reuse_obs *o, size_t n, size_t i, size_t *k, size_t *kb,
			 double *in, double *beyond)
{
	uint64_t start = o[i].p0, end = o[i].p0 + o[i].trd;	/* window: (start, end] */
	*k = *kb = 0;
	*in = *beyond = 0;
	for (size_t j = i + 1; j < n && o[j].p0 <= end; j++) {
		if (o[j].p0 <= start)
			continue;
		++*k;
		*in += o[j].w;
		if (o[j].p0 + o[j].trd >= end) {
			++*kb;
			*beyond += o[j].w;
		}
	}
}

static int win_cmp(const void *x, const void *y)
{
	const struct reuse_win *a = x, *b = y;
	if (a->use_ip != b->use_ip)
		return a->use_ip < b->use_ip ? -1 : 1;
	if (a->reuse_ip != b->reuse_ip)
		return a->reuse_ip < b->reuse_ip ? -1 : 1;
	return a->trd < b->trd ? -1 : a->trd > b->trd;
}

int reuse_pool_rd(struct reuse_win *w, size_t n, size_t min_obs, size_t min_beyond, double tol)
{
	double *pin = malloc((n + 1) * sizeof(*pin)), *pout = malloc((n + 1) * sizeof(*pout));
	size_t *pkb = malloc((n + 1) * sizeof(*pkb));
	if (!pin || !pout || !pkb) {
		free(pin);
		free(pout);
		free(pkb);
		return -ENOMEM;
	}
	qsort(w, n, sizeof(*w), win_cmp);
	for (size_t g = 0, e; g < n; g = e) {	/* [g, e): one code pair, by time distance */
		for (e = g; e < n && w[e].use_ip == w[g].use_ip && w[e].reuse_ip == w[g].reuse_ip;
		     e++)
			;
		/* the group's own prefix sums (one pair's large counts cannot absorb the next's) */
		pin[g] = pout[g] = 0;
		pkb[g] = 0;
		for (size_t i = g; i < e; i++) {
			pin[i + 1] = pin[i] + w[i].in;
			pout[i + 1] = pout[i] + w[i].beyond;
			pkb[i + 1] = pkb[i] + w[i].kb;
		}
		for (size_t i = g, lo = g, hi = g; i < e; i++) {
			double t = (double)w[i].trd;
			while (lo < i && (double)w[lo].trd < t * (1 - tol))
				lo++;
			if (hi < i + 1)
				hi = i + 1;
			while (hi < e && (double)w[hi].trd <= t * (1 + tol))
				hi++;
			double in = pin[hi] - pin[lo], beyond = pout[hi] - pout[lo];
			size_t kb = pkb[hi] - pkb[lo];
			/* none beyond: the estimate would be 0, where the element itself was used
			 * at both ends (RD >= 1), and such a reuse carries the weight of many (up
			 * to 3.5% of a RIBench run's reuses at distance 0: t504); not an estimate,
			 * the caller's next one (the local Shen mean) takes it */
			w[i].rd = w[i].k >= min_obs && kb >= min_beyond && in > 0 && beyond > 0
					  ? t * beyond / in
					  : -1;
		}
	}
	free(pin);
	free(pout);
	free(pkb);
	return 0;
}

struct ipt {
	uint64_t ip, trd;
	double w;
};

static int ipt_cmp(const void *x, const void *y)
{
	const struct ipt *a = x, *b = y;
	return a->ip < b->ip ? -1 : a->ip > b->ip;
}

int reuse_sites_build(const struct reuse_obs *o, const uint64_t *ip, size_t n,
		      struct reuse_site **out, size_t *nout)
{
	struct ipt *t = malloc((n ? n : 1) * sizeof(*t));
	struct reuse_site *s = malloc((n ? n : 1) * sizeof(*s));
	size_t k = 0;
	if (!t || !s) {
		free(t);
		free(s);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		t[i] = (struct ipt){ ip[i], o[i].trd, o[i].w };
	qsort(t, n, sizeof(*t), ipt_cmp);
	for (size_t i = 0; i < n; i++) {
		if (!k || s[k - 1].ip != t[i].ip)
			s[k++] = (struct reuse_site){ .ip = t[i].ip };
		struct reuse_site *x = &s[k - 1];
		x->all += t[i].w;
		for (uint64_t j = 0; j < REUSE_CODE_MAX && j <= t[i].trd; j++)
			x->ge[j] += t[i].w;
	}
	free(t);
	*out = s;
	*nout = k;
	return 0;
}

/* executed about as often: observed weights within 25% (a factor of 2 let through a
 * counter bumped on 60% of the steps, which most windows of the time distance skip: a
 * review's `twoif` and `backrand`, S -0.05 to -0.08) */
#define CODE_FREQ 1.25

double reuse_code_rd(const struct reuse_site *s, size_t ns, uint64_t use_ip, uint64_t reuse_ip,
		     uint64_t trd, uint64_t func)
{
	if (trd < 1 || trd > REUSE_CODE_MAX || use_ip >= reuse_ip || !func)
		return -1;
	size_t lo = 0, hi = ns;	/* lo: the first site after use_ip */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s[mid].ip <= use_ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || s[lo - 1].ip != use_ip || s[lo - 1].all <= 0)
		return -1;	/* the use site itself is not an observed site */
	double freq = s[lo - 1].all;
	size_t end = lo;	/* the first site at or after reuse_ip */
	while (end < ns && s[end].ip < reuse_ip && end - lo <= trd)
		end++;
	if (end - lo != trd)
		return -1;
	double rd = 0;
	for (uint64_t k = 1; k <= trd; k++) {
		const struct reuse_site *x = &s[lo + k - 1];
		if (x->all <= 0 || x->func != func || x->all > freq * CODE_FREQ ||
		    x->all * CODE_FREQ < freq)
			return -1;
		rd += x->ge[trd - k] / x->all;
	}
	return rd;
}

double reuse_local_mean(const struct reuse_obs *o, size_t n, size_t i, size_t k_min,
			double never_share, double w_alone)
{
	double w = (double)o[i].trd, centre = (double)o[i].p0 + w / 2, sum = 0, wsum = 0;
	size_t lo = i, hi = i + 1;	/* [lo, hi): the neighbours taken */
	/* every use within w of the window's centre (2w was tried on 2026-11-27: paired on
	 * the same RIBench recordings, w read S higher by 0.013 on bell, 5 of 5, and by
	 * 0.003-0.005 on dec and multi, 0.003 lower on inc: REUSE_CHECK_BEFORE=<a build with
	 * 2w> bench/reuse-check.sh, doc/sonde-reuse.md) */
	while (lo > 0 && fabs((double)o[lo - 1].p0 - centre) <= w)
		lo--;
	while (hi < n && fabs((double)o[hi].p0 - centre) <= w)
		hi++;
	/* too few for a window shorter than w_alone: the nearest others lie many window
	 * lengths away, in other code, and are too few to average (CoMD's force loop, ~50
	 * accesses a window at a period of 4001: S 0.77 against --exact where the whole
	 * program's mean gives 0.94) */
	if (hi - lo < k_min && w < w_alone)
		return -1;
	/* else the nearest ones up to k_min (a long window of a phase, as RIBench's) */
	while (hi - lo < k_min && (lo > 0 || hi < n)) {
		double dl = lo > 0 ? fabs((double)o[lo - 1].p0 - centre) : INFINITY;
		double dh = hi < n ? fabs((double)o[hi].p0 - centre) : INFINITY;
		if (dl <= dh)
			lo--;
		else
			hi++;
	}
	for (size_t j = lo; j < hi; j++) {
		double t1 = (double)o[j].trd + 1;
		sum += o[j].w * (t1 < w ? t1 : w);
		wsum += o[j].w;
	}
	if (wsum <= 0 || w <= 0)
		return 0;
	double mu = (1 - never_share) * sum / wsum + never_share * w;
	return mu < 1 ? 1 : mu > w ? w : mu;
}

double reuse_pages_estimate(int counts, uint64_t n1, uint64_t n2, uint64_t n3)
{
	if (!counts || n2 > n1 || n3 > n2)
		return (double)n1;
	double f1 = (double)(n1 - n2), f2 = (double)(n2 - n3);
	return (double)n1 + (f1 > 1 ? f1 * (f1 - 1) / (2 * (f2 + 1)) : 0);
}
