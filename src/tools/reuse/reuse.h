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
 * The same from individual time distances rather than bins: t[0..n) ascending, each with
 * weight wt[i] (uses it stands for).  The mean for w is then exact for the sample:
 * [sum over t_i < w of wt_i (t_i + 1) + w (sum over t_i >= w of wt_i + never)] / all,
 * and each sample converts at its own distance, not at points spread over its bin.
 */
void reuse_shen_points(const uint64_t *t, const double *wt, size_t n, double never, double nfoot,
		       double *dist);

/* The share of the reuses of `dist` at distance >= c elements (uniform inside bins). */
double reuse_share_beyond(const double *dist, double c);

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
