/* SPDX-License-Identifier: MIT */
/*
 * reuse.h - the reuse tool's offline parts: shen.c (time distance -> reuse distance, miss
 * ratio of fully associative LRU caches, the accuracy S), model.c (a recording -> the
 * profile database), view.c (DIR/reuse/ CSV files, the terminal report, the HTML page),
 * cmd.c (`sonde reuse`).  Histograms are arrays of REUSE_BINS counts over stack.h's log-2
 * bins.
 */
#ifndef SONDE_TOOLS_REUSE_H
#define SONDE_TOOLS_REUSE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/reuse/stack.h"

struct profile;
struct report_opts;
struct sqlite3;
struct html;

/*
 * E[reuse distance | time distance w]: the expected number of distinct elements among the
 * w accesses between a use and its reuse, sum over k < w of P(TRD >= k) (Shen et al.),
 * from the time-distance histogram `time` (counts per bin, spread uniformly over the bin's
 * integers) and `never`: uses that are not reused (cold, invalidated), whose TRD counts as
 * infinite.  0 when the histogram is empty.
 */
double reuse_shen_mean(const double *time, double never, double w);

/*
 * The reuse-distance histogram `dist` (REUSE_BINS, overwritten) that time histogram `time`
 * converts to, for a footprint of n elements: each time distance w gives a distance ~
 * Binomial(n, mean/n) (normal approximation), mean = reuse_shen_mean.  Counts are kept
 * (sum dist = sum time).
 */
void reuse_shen_convert(const double *time, double never, double n, double *dist);

/*
 * The distinct pages a program touched, estimated from its samples: n1 pages sampled,
 * n2 of them at least twice, n3 at least three times.  Chao1's estimator of unseen
 * classes, bias-corrected: n1 + f1 (f1 - 1) / (2 (f2 + 1)), f1 = n1 - n2 pages sampled
 * once, f2 = n2 - n3 twice (Chao 1984; Chao 2005).  With counts = 0 (a recording before
 * the repeats were counted), n1.
 */
double reuse_pages_estimate(int counts, uint64_t n1, uint64_t n2, uint64_t n3);

/*
 * The same mean from individual time distances rather than bins, exact for the sample:
 * t[0..n) ascending, each standing for wt[i] uses; the mean for w is
 * [sum over t_i < w of wt_i (t_i + 1) + w (sum over t_i >= w of wt_i + never)] / all,
 * kept within [1, w].  init: 0 or -ENOMEM; t and wt must outlive p.
 */
struct reuse_points {
	const uint64_t *t;
	double *prefix, *wprefix;
	size_t n;
	double never, all;
};
int reuse_points_init(struct reuse_points *p, const uint64_t *t, const double *wt, size_t n,
		      double never);
double reuse_points_mean(const struct reuse_points *p, double w);
void reuse_points_release(struct reuse_points *p);

/*
 * The window estimate: the distinct elements among the w accesses after a use are those
 * accessed there whose next access falls after the window.  The observed uses of the same
 * thread inside the window are a sample of its accesses, so
 *     RD ~ w x (weight of the uses inside whose reuse lands beyond the window)
 *            / (weight of the uses inside)
 * o[0..n) are one thread's observed reuses sorted by p0 (position in the thread's
 * accesses).  reuse_window_counts gives a window's counts; reuse_pool_rd the estimate,
 * a window's own where no other window pools with it.
 */
struct reuse_obs {
	uint64_t p0, trd;
	double w;
};
/* The counts of o[i]'s window: k uses inside it, their weight `in`, and the kb of
 * them whose next event lands beyond it, their weight `beyond`. */
void reuse_window_counts(const struct reuse_obs *o, size_t n, size_t i, size_t *k, size_t *kb,
			 double *in, double *beyond);

/*
 * The pooled window estimate.  One window's few observed uses make its estimate noisy
 * (relative sd ~0.2-0.3 with the 10-30 uses a window of a sampled run holds), and a
 * program's reuses often sit near a bin edge (NPB CG: 45% within 6% under 65,536).  The
 * reuses of one code pair (use site, reuse site) at like time distances are the same
 * loop's, so their windows are pooled:
 *     RD ~ trd x (sum of `beyond` over the pool) / (sum of `in` over the pool)
 * over the windows of the same pair whose time distance lies within tol (a share) of
 * this one's.  A window with fewer than min_obs uses of its own gets rd -1 (it still adds
 * to the others' pools): the local means of model.c are better there (RIBench's phases
 * reuse the same code at the same time distance but, with invalidations between, at
 * distances on either side of a bin edge).  So does one whose pool holds fewer than
 * min_beyond uses beyond (unweighted; counted once per window that holds them, so
 * overlapping windows of one pair count a use more than once): a use reused beyond a long window is seldom
 * observed (the reservoir replaces it first) and weighs for many when it is, so a few
 * such make a skewed estimate, most often far under (LULESH: a window of 1,162,276
 * accesses holding 227 observed uses, 1 beyond it, where 12.5% of its accesses are).
 * Sorts w; 0 or -ENOMEM.
 */
struct reuse_win {
	uint64_t use_ip, reuse_ip, trd;
	double in, beyond;
	size_t k, kb;
	size_t at;	/* the caller's index */
	double rd;	/* out: the estimate, or -1 */
};
int reuse_pool_rd(struct reuse_win *w, size_t n, size_t min_obs, size_t min_beyond, double tol);

/*
 * The code-order estimate of a short window.  Shen's mean takes the accesses inside a
 * window as independent draws from the program's time distances; in a tight loop they
 * are not: NPB IS's `key_buff[k]++` is a load and a store of one element, so a window of
 * those 2 accesses holds 1 element, where the mean says 1 + P(TRD >= 1) = 1.6 (2 once
 * rounded, the next bin).  Where the use's site lies before the reuse's in the code
 * and exactly trd other sampled use sites lie between them, the window is taken to be
 * one run through that straight code, those sites in address order:
 *     RD = sum over k = 1..trd of P_k(TRD >= trd - k)
 * P_k from the observed uses of the k-th site.  `sites` (reuse_sites_build) are the
 * observed use sites with their time distances' tail weights up to REUSE_CODE_MAX, and
 * the function each lies in (`func`, set by the caller; 0 unknown).  Straight code is
 * a guess, checked as far as the sample allows: the use site is an observed site, and
 * every site between lies in `func`, the use's and the reuse's function (nonzero), and
 * is executed about as often as the use site (its observed weight within 25% of the use
 * site's).  Reviews' counterexamples, which looser checks let through: a counter
 * incremented every 8th iteration between the use and the reuse, so its 2 sites stand
 * between but the window skips them (S 0.88 -> 0.67); the same across the loop's back
 * edge (0.83 -> 0.50); a function of another phase laid out between the use's and the
 * reuse's (0.995 -> 0.77); with a factor of 2 for the frequency, a counter bumped on 60%
 * of the steps (0.98 -> 0.93).  A path that skips the sites between and makes as many
 * accesses elsewhere (in a call) still fools it.  -1 where it does not apply (a longer window, a reuse site
 * before the use's, another number of sites between, or a check above fails).  Since
 * 2026-11-27.
 */
#define REUSE_CODE_MAX 8
struct reuse_site {
	uint64_t ip;
	uint64_t func;			/* start of its function (0: unknown) */
	double all;			/* weight of the site's observed uses */
	double ge[REUSE_CODE_MAX];	/* ge[j]: of those with time distance >= j */
};
/* o[0..n): observed uses (their time distances and weights; any order), ip[0..n) their
 * sites; *out (malloc'd, sorted by ip) and *nout; 0 or -ENOMEM */
int reuse_sites_build(const struct reuse_obs *o, const uint64_t *ip, size_t n,
		      struct reuse_site **out, size_t *nout);
double reuse_code_rd(const struct reuse_site *s, size_t ns, uint64_t use_ip, uint64_t reuse_ip,
		     uint64_t trd, uint64_t func);

/*
 * The Shen mean for o[i] from its neighbours only: the observed uses of the same thread
 * whose position lies within w (= o[i].trd) of the centre of o[i]'s window, and at
 * least k_min of the nearest ones.  A program's phases reuse at different distances; the
 * whole program's distribution (reuse_points_mean) mixes them and underestimates the
 * distances of the phases with long ones.  But a window shorter than w_alone (a tenth of
 * the sampling period: the model) whose span holds fewer than k_min uses gets -1: its
 * nearest neighbours describe other code, and the caller takes the whole program's mean.
 * never_share: the share of uses never reused (cold, invalidated), as an infinite time
 * distance.
 */
double reuse_local_mean(const struct reuse_obs *o, size_t n, size_t i, size_t k_min,
			double never_share, double w_alone);

/* The share of the reuses of `dist` at distance >= c elements (uniform inside bins). */
double reuse_share_beyond(const double *dist, double c);
/* The bounds of that share where c cuts a log-2 bin: its reuses all under c (*lo) or all
 * beyond (*hi); equal where c is a bin's edge.  (The share itself spreads them evenly
 * over the bin: at a 48 KiB L1, 6144 words, a sweep of 4999 read 50.1% for 0.25%, the
 * usability review of 2026-11-29.) */
void reuse_share_beyond_bounds(const double *dist, double c, double *lo, double *hi);

/* Accuracy S = 1 - sum |a_i - b_i| / 2 of two histograms, each normalised to fractions
 * (1 when both are empty, 0 when one is). */
double reuse_accuracy(const double *a, const double *b, int n);

/* ---- the CLI side ---- */

int reuse_fill(struct sqlite3 *db, const struct profile *p, char *err, size_t errlen);
int reuse_export(struct sqlite3 *db, const char *dir, char *err, size_t errlen);
int reuse_print(struct sqlite3 *db, FILE *out, const struct report_opts *o);
int reuse_html(struct sqlite3 *db, struct html *page);
int cmd_reuse(int argc, char **argv);

#endif
