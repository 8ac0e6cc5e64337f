/* SPDX-License-Identifier: MIT */
/*
 * view.c - the reuse tool's views, read back from the profile database: DIR/reuse/ CSV
 * files, the terminal report (the histogram and the miss-ratio curve as bars, the top
 * pairs, one paragraph saying what they mean) and the HTML page.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include "prof/db.h"
#include "prof/errmsg.h"
#include "prof/report.h"
#include "tools/reuse/reuse.h"
#include "tools/reuse/stack.h"
#include "ui/csv.h"
#include "ui/html.h"
#include "ui/json.h"
#include "ui/text.h"

#define BAR 40

static double meta_num(sqlite3 *db, const char *key)
{
	char b[64];
	return strtod(db_meta(db, key, b, sizeof(b)), NULL);
}

/*
 * The source counted no access (clock): the model's "accesses" are its samples, and the
 * footprint only the pages they touched.  Databases before access_counts: counted.
 */
/* Fewer sampled outcomes than this: the shares' uncertainty is said under the histogram
 * (100: +-10 points at 95% for a share near one half). */
#define FEW_OUTCOMES 100

static int no_counts(sqlite3 *db)
{
	char b[8];
	return !strcmp(db_meta(db, "access_counts", b, sizeof(b)), "0");
}

/*
 * Into b: which processes were modelled, when the recording has several (MPI ranks,
 * forked children, a wrapper such as /usr/bin/time); "" when it has one.  Every process
 * that measured something is modelled and the models summed (since 2026-11-29, DB
 * schema 14; before, the one with the most samples).
 */
/* The accesses wider than an element, where they are 5% or more (model.c, wide_share):
 * each is modelled as its first element, which a summary of clang's vectorised loops
 * must say (the usability review of 2026-11-29, M1: 16-byte stores, a third of the
 * invalidations unseen, "fits in L1").  "" otherwise. */
#define WIDE_SHARE_SAID 0.05
static const char *wide_text(sqlite3 *db, char *b, size_t len)
{
	double w = meta_num(db, "wide_share");
	*b = 0;
	if (w >= WIDE_SHARE_SAID)
		snprintf(b, len, "%.1f%% of the %s were wider than an element (vector loads and "
			 "stores, 16 bytes): each counts as a use of its first element only, so "
			 "the footprint, the distances and the invalidations of the rest read low "
			 "(doc/sonde-reuse.md, Limits; a build with -fno-vectorize "
			 "-fno-slp-vectorize counts them whole)", 100 * w,
			 no_counts(db) ? "samples" : "accesses");
	return b;
}

static const char *process_note(sqlite3 *db, char *b, size_t len)
{
	double n = meta_num(db, "processes"), k = meta_num(db, "processes_modelled");
	double ns = meta_num(db, "processes_no_stats");
	char some[64] = "", rest[700] = "", killed[160] = "", um[600];
	*b = 0;
	if (n <= 1)
		return b;
	/* each one left out, and why (model.c, unmodelled; "" in databases before it) */
	db_meta(db, "unmodelled", um, sizeof(um));
	if (k < n) {
		snprintf(some, sizeof(some), " of the recording's %.0f", n);
		if (*um)
			snprintf(rest, sizeof(rest), "; not modelled: %s", um);
		else
			snprintf(rest, sizeof(rest), "; not modelled, %.0f that took no sample by "
				 "this source (a wrapper, a launcher)", n - k);
	}
	/* killed before their threads wrote their counts: outcomes with nothing to scale
	 * them by (the code review of 2026-11-29) */
	if (ns > 0)
		snprintf(killed, sizeof(killed), "; %.0f ended without writing %s access counts "
			 "(killed?), so %s outcomes weigh nothing", ns, ns == 1 ? "its" : "their",
			 ns == 1 ? "its" : "their");
	if (k > 1)
		snprintf(b, len, "%.0f%s, each modelled in its own address space and caches, their "
			 "histograms summed%s%s", k, some, rest, killed);
	else if (*um)
		snprintf(b, len, "pid %.0f, of the recording's %.0f processes; not modelled: %s%s",
			 meta_num(db, "pid"), n, um, killed);
	else
		snprintf(b, len, "pid %.0f, the one with the most samples of the recording's %.0f"
			 " processes (the others took none by this source: a wrapper, a "
			 "launcher)%s", meta_num(db, "pid"), n, killed);
	return b;
}

/* ---- CSV ---- */

static const char hist_sql[] =
	"SELECT kind, lo, hi, printf('%.0f', count), printf('%.6f', fraction) FROM reuse_hist"
	" ORDER BY rowid";
static const char *const hist_cols[] = { "kind", "lo", "hi", "count", "fraction" };
static const char miss_sql[] =
	"SELECT bytes, printf('%.6f', miss_ratio), printf('%.6f', miss_lo),"
	" printf('%.6f', miss_hi) FROM reuse_miss ORDER BY bytes";
static const char *const miss_cols[] = { "bytes", "miss_ratio", "miss_lo", "miss_hi" };
static const char pairs_sql[] =
	"SELECT rank, use_code, reuse_code, object, printf('%.0f', reuses),"
	" CASE WHEN long_reuses IS NULL THEN NULL ELSE printf('%.0f', long_reuses) END,"
	" median_lo, median_hi FROM reuse_pairs ORDER BY rank";
static const char *const pairs_cols[] = { "rank", "use", "reuse", "object", "reuses",
					  "long_reuses", "median_lo", "median_hi" };

static const char check_sql[] =
	"SELECT kind, lo, hi, printf('%.0f', count), printf('%.6f', fraction) FROM reuse_check"
	" ORDER BY rowid";

static const char outcomes_sql[] =
	"SELECT thread, position, kind, time_distance, printf('%.3f', weight), use_ip, reuse_ip,"
	" exact_distance, CASE WHEN estimate IS NULL THEN NULL ELSE printf('%.1f', estimate) END,"
	" estimator, pid, rank FROM reuse_outcomes ORDER BY rowid";
/* pid and rank last, as they came (2026-11-29): scripts read the columns by position */
static const char *const outcomes_cols[] = { "thread",	  "position",	    "kind",
					     "time_distance", "weight",	    "use_ip",
					     "reuse_ip",  "exact_distance", "estimate",
					     "estimator", "pid", "rank" };

/* sampled.csv: --check-sampling's estimate, in histogram.csv's columns (when there is one);
 * outcomes.csv: its outcomes one by one (databases since 2026-11-27, evening) */
int reuse_export(sqlite3 *db, const char *dir, char *err, size_t errlen)
{
	static const struct db_csv_file files[] = {
		{ "histogram.csv", hist_sql, 5, hist_cols },
		{ "missratio.csv", miss_sql, 4, miss_cols },
		{ "pairs.csv", pairs_sql, 8, pairs_cols },
		{ "sampled.csv", check_sql, 5, hist_cols },
		{ "outcomes.csv", outcomes_sql, 12, outcomes_cols },
	};
	char b[32];
	int n = 3;
	if (*db_meta(db, "check_s", b, sizeof(b))) {
		sqlite3_stmt *st;
		n = 4;
		if (!sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE name = 'reuse_outcomes'",
					-1, &st, NULL)) {
			n += sqlite3_step(st) == SQLITE_ROW;
			sqlite3_finalize(st);
		}
	}
	return db_export_csv(db, dir, "reuse", files, n, NULL, 0, err, errlen);
}

/* The pairs' long reuses are unknown (NULL: a run without distances, the clock source). */
static int long_unknown(sqlite3 *db)
{
	sqlite3_stmt *st;
	int r = 0;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM reuse_pairs WHERE long_reuses IS NULL LIMIT 1",
			       -1, &st, NULL))
		return 0;
	r = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return r;
}

/* --check-sampling's sentence (text report and HTML page), or "" */
static const char *check_text(sqlite3 *db, char *b, size_t len)
{
	char s[32], d[32];
	int n;
	b[0] = 0;
	if (!*db_meta(db, "check_s", s, sizeof(s)))
		return b;
	db_meta(db, "check_s_sample", d, sizeof(d));
	char w[40] = "";
	if (meta_num(db, "slots") > 0)	/* (recordings before 2026-11-27: 4, not recorded) */
		snprintf(w, sizeof(w), " watching %.0f uses at once", meta_num(db, "slots"));
	n = snprintf(b, len, "a sampled run at period %.0f (accesses of a thread)%s, made inside "
		     "this one on the same accesses, observed %.0f outcomes (%.0f invalidations); ",
		     meta_num(db, "check_period"), w, meta_num(db, "check_outcomes"),
		     meta_num(db, "check_outcomes_invalidation"));
	if (n < 0 || (size_t)n >= len)
		return b;
	if (!strcmp(s, "-"))
		n += snprintf(b + n, len - (size_t)n, "no reuses on one side or both, so no "
			      "histograms to compare");
	else
		n += snprintf(b + n, len - (size_t)n, "against this exact histogram its estimate "
			      "scores S = %s and the sample alone (its reuses at their exact "
			      "distances) %s, where 1 is the same share in every bin "
			      "(reuse/sampled.csv; one random draw, --seed repeats it)", s,
			      *d ? d : "?");
	/* (absent from recordings of builds before the key; "-": no estimated reuse) */
	if (n > 0 && (size_t)n < len && *db_meta(db, "check_log_error", d, sizeof(d)) &&
	    strcmp(d, "-")) {
		double e = exp2(meta_num(db, "check_log_error")), ef;
		char far[24];
		n += snprintf(b + n, len - (size_t)n, "; each estimated reuse is off its exact "
			      "distance by a factor of %.2f (geometric mean)", e);
		/* over the reuses at distance 1 or more too, where that differs: those at 0 are
		 * exact by construction (model.c, model_check) */
		if (n > 0 && (size_t)n < len &&
		    *db_meta(db, "check_log_error_far", far, sizeof(far)) && strcmp(far, "-") &&
		    (ef = exp2(strtod(far, NULL))) >= e + 0.01)
			n += snprintf(b + n, len - (size_t)n, ", %.2f over those at distance 1 or "
				      "more (a reuse at distance 0 is exact by construction)", ef);
	}
	if (n > 0 && (size_t)n < len && *db_meta(db, "check_inv_exact", d, sizeof(d)))
		snprintf(b + n, len - (size_t)n, "; invalidations %.1f%% of the accesses estimated, "
			 "%.1f%% exact", 100 * meta_num(db, "check_inv_sampled"),
			 100 * meta_num(db, "check_inv_exact"));
	return b;
}

/* ---- reading back ---- */

struct hist {
	int n;
	char label[REUSE_BINS + 2][48];
	double frac[REUSE_BINS + 2], count[REUSE_BINS + 2];
	double lo[REUSE_BINS + 2], hi[REUSE_BINS + 2];	/* NAN: a kind's row (cold, ...) */
};

/* In the largest unit it reaches: whole where it is a multiple of it, else 3 figures
 * (until 2026-11-29 any multiple of a KiB stayed in KiB: "15628 KiB" beside "15.3 MiB",
 * the usability review of 2026-11-29). */
static void size_str(double v, char *b, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB" };
	int u = 0;
	double d = 1;
	while (u < 3 && v >= d * 1024) {
		d *= 1024;
		u++;
	}
	double x = v / d;
	int dec = !u || fmod(v, d) == 0 ? 0 : x < 10 ? 2 : x < 100 ? 1 : 0;
	snprintf(b, len, "%.*f %s", dec, x, unit[u]);
}

/* The empty power-of-2 bins between the first and the last row with a count, as rows of
 * 0: a bar chart's axis is one bar a bin, and without them [4, 8) stood beside
 * [4096, 8192) on the page (the usability review of 2026-11-29). */
static void hist_fill_gaps(struct hist *h)
{
	struct hist o;
	memset(&o, 0, sizeof(o));
	for (int i = 0; i < h->n; i++) {
		while (i > 0 && o.n < REUSE_BINS + 2 && !isnan(h->lo[i]) && !isnan(o.hi[o.n - 1]) &&
		       o.hi[o.n - 1] < h->lo[i]) {
			int k = o.n++;
			o.lo[k] = o.hi[k - 1];
			o.hi[k] = 2 * o.lo[k];
			snprintf(o.label[k], sizeof(o.label[0]), "[%.0f, %.0f)", o.lo[k], o.hi[k]);
		}
		if (o.n == REUSE_BINS + 2)
			break;
		o.lo[o.n] = h->lo[i];
		o.hi[o.n] = h->hi[i];
		o.frac[o.n] = h->frac[i];
		o.count[o.n] = h->count[i];
		memcpy(o.label[o.n++], h->label[i], sizeof(o.label[0]));
	}
	*h = o;
}

/* Rows of one kind ("reuse", "time" or "time_ns"), then invalidation and cold. */
static int read_hist(sqlite3 *db, const char *kind, struct hist *h)
{
	sqlite3_stmt *st;
	memset(h, 0, sizeof(*h));
	if (sqlite3_prepare_v2(db, "SELECT kind, lo, hi, count, fraction FROM reuse_hist WHERE kind"
				   " = ?1 OR lo IS NULL ORDER BY lo IS NULL, lo", -1, &st, NULL))
		return -EIO;
	sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW && h->n < REUSE_BINS + 2) {
		h->lo[h->n] = h->hi[h->n] = NAN;
		if (sqlite3_column_type(st, 1) == SQLITE_NULL) {
			snprintf(h->label[h->n], sizeof(h->label[0]), "%s",
				 (const char *)sqlite3_column_text(st, 0));
		} else {
			snprintf(h->label[h->n], sizeof(h->label[0]), "[%lld, %lld)",
				 sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2));
			h->lo[h->n] = sqlite3_column_double(st, 1);
			h->hi[h->n] = sqlite3_column_double(st, 2);
		}
		h->count[h->n] = sqlite3_column_double(st, 3);
		h->frac[h->n++] = sqlite3_column_double(st, 4);
	}
	sqlite3_finalize(st);
	return 0;
}

struct curve {
	int n;
	double bytes[80], miss[80];
	double lo[80], hi[80];	/* bounds where the size cuts a log-2 bin (model.c) */
};

static int read_curve(sqlite3 *db, struct curve *c)
{
	sqlite3_stmt *st;
	c->n = 0;
	if (sqlite3_prepare_v2(db, "SELECT bytes, miss_ratio, miss_lo, miss_hi FROM reuse_miss "
			       "ORDER BY bytes", -1, &st, NULL))
		return -EIO;
	while (sqlite3_step(st) == SQLITE_ROW && c->n < 80) {
		c->bytes[c->n] = (double)sqlite3_column_int64(st, 0);
		c->miss[c->n] = sqlite3_column_double(st, 1);
		c->lo[c->n] = sqlite3_column_double(st, 2);
		c->hi[c->n++] = sqlite3_column_double(st, 3);
	}
	sqlite3_finalize(st);
	return 0;
}

/* 1 and the bounds where the size at bytes cuts a log-2 bin holding half a point of the
 * accesses or more: the curve's value spreads that bin's reuses evenly over it, and they
 * may all lie on either side (the usability review of 2026-11-29: a 48 KiB L1 read 50.1%
 * for a sweep that fits in it, with --exact). */
static int curve_cut(const struct curve *c, double bytes, double *lo, double *hi)
{
	for (int i = 0; i < c->n; i++)
		if (c->bytes[i] == bytes && c->hi[i] - c->lo[i] >= 0.005) {
			*lo = c->lo[i];
			*hi = c->hi[i];
			return 1;
		}
	return 0;
}

static double curve_at(const struct curve *c, double bytes)
{
	for (int i = 0; i < c->n; i++)
		if (c->bytes[i] == bytes)
			return c->miss[i];
	return NAN;
}

/*
 * A sampled curve's point at `bytes`: where reuses within a factor 2 of it hold 10 points
 * of the accesses or more, an error in the estimated distances moves them across it (the
 * model's conversion is ~1.2x off on average, more in places), so its miss ratio may read
 * anywhere between the curve's values at 2x and at 1/2x the size (at the nearest sizes the
 * curve has beyond those): 1 and *lo, *hi then, else 0.  The usability review of
 * 2026-11-28: an OpenMP sweep's 4 MiB point read 2.6%, 2.7% and 10.8% in three sampled
 * runs against 49.4% exact, its reuses at 4 MiB, and the summary warned near L1 and L2
 * only.
 */
static int curve_uncertain(const struct curve *c, double bytes, double *lo, double *hi)
{
	int a = -1, b = -1;
	for (int i = 0; i < c->n; i++) {
		if (c->bytes[i] >= 2 * bytes && (a < 0 || c->bytes[i] < c->bytes[a]))
			a = i;
		if (c->bytes[i] <= bytes / 2 && (b < 0 || c->bytes[i] > c->bytes[b]))
			b = i;
	}
	if (a < 0 || b < 0 || isnan(c->miss[a]) || isnan(c->miss[b]) ||
	    c->miss[b] - c->miss[a] < 0.10)
		return 0;
	*lo = c->miss[a];
	*hi = c->miss[b];
	return 1;
}

/* " (between LO% and HI%: ...)" where the size cuts a bin (curve_cut) */
static void cut_note(FILE *out, const struct curve *c, double bytes)
{
	double lo, hi;
	if (bytes > 0 && curve_cut(c, bytes, &lo, &hi))
		fprintf(out, " (between %.1f%% and %.1f%%: the size cuts a power-of-2 bin of the "
			     "distances, whose reuses may lie either side)", 100 * lo, 100 * hi);
}

static const char *level_of(sqlite3 *db, double bytes)
{
	static const char *const name[] = { NULL, "L1", "L2", "L3" };
	const char *key[] = { NULL, "l1", "l2", "l3" };
	for (int l = 1; l <= 3; l++)
		if (meta_num(db, key[l]) == bytes)
			return name[l];
	return NULL;
}

/* ---- terminal ---- */

static void bar(FILE *out, double f)
{
	int n = (int)lround(f * BAR);
	for (int i = 0; i < BAR; i++)
		fputc(i < n ? '#' : ' ', out);
}

/* ns as "512 ns", "65.5 us", "8.39 ms", "1.07 s". */
static void ns_str(double v, char *b, size_t len)
{
	if (v < 1e3)
		snprintf(b, len, "%.0f ns", v);
	else if (v < 1e6)
		snprintf(b, len, "%.3g us", v / 1e3);
	else if (v < 1e9)
		snprintf(b, len, "%.3g ms", v / 1e6);
	else
		snprintf(b, len, "%.3g s", v / 1e9);
}

/*
 * The reuse-time histogram for the terminal: bins in readable units ("[8.39, 16.8) ms"
 * read "[8388608, 16777216)"), and those ending at or under floor_ns (> 0: the debug
 * registers' resolution) merged into one row "under 65.5 us (not resolved)": a row per
 * bin there read as measured (the usability review of 2026-11-28: 93% at [16384, 32768)
 * ns for reuses 0.7 us apart).  The CSV and the database keep every bin.
 */
static void hist_time_readable(struct hist *h, double floor_ns)
{
	struct hist o;
	memset(&o, 0, sizeof(o));
	int merged = -1;
	for (int i = 0; i < h->n; i++) {
		if (!isnan(h->hi[i]) && floor_ns > 0 && h->hi[i] <= floor_ns) {
			if (merged < 0) {
				merged = o.n++;
				o.lo[merged] = 0;
				o.hi[merged] = floor_ns;
				char f[16];
				ns_str(floor_ns, f, sizeof(f));
				snprintf(o.label[merged], sizeof(o.label[0]), "under %s (not resolved)", f);
			}
			o.frac[merged] += h->frac[i];
			o.count[merged] += h->count[i];
			continue;
		}
		int k = o.n++;
		o.lo[k] = h->lo[i];
		o.hi[k] = h->hi[i];
		o.frac[k] = h->frac[i];
		o.count[k] = h->count[i];
		if (isnan(h->lo[i])) {
			memcpy(o.label[k], h->label[i], sizeof(o.label[0]));
		} else {
			char a[16], b[16];
			ns_str(h->lo[i], a, sizeof(a));
			ns_str(h->hi[i], b, sizeof(b));
			snprintf(o.label[k], sizeof(o.label[0]), "[%s, %s)", a, b);
		}
	}
	*h = o;
}

static void print_hist(FILE *out, const char *title, const struct hist *h)
{
	int w = 22;
	for (int i = 0; i < h->n; i++)
		if ((int)strlen(h->label[i]) > w)
			w = (int)strlen(h->label[i]);
	fprintf(out, "\n%s\n", title);
	for (int i = 0; i < h->n; i++) {
		fprintf(out, "  %-*s ", w, h->label[i]);
		bar(out, h->frac[i]);
		fprintf(out, " %5.1f%%\n", 100 * h->frac[i]);
	}
}

struct top {
	char use[8192], reuse[8192], object[4096];	/* whole, then shortened */
	double reuses, long_reuses, long_observed;
	int found;
};

/* Sampled: the observed reuses beyond L2 a pair needs to be named "Fix first". */
#define REUSE_FIX_MIN_OBS 3
/* ... and the share of the accesses its long reuses must be */
#define REUSE_FIX_MIN_SHARE 0.01

/* The pair to fix first: the best-ranked one whose long reuses a sampled run observed at
 * least REUSE_FIX_MIN_OBS times (any with --exact, whose counts are exact: min_obs 0);
 * with `any`, the best-ranked one whatever its observations. */
static void read_top(sqlite3 *db, struct top *t, double min_obs, int any)
{
	sqlite3_stmt *st;
	memset(t, 0, sizeof(*t));
	if (sqlite3_prepare_v2(db, any ? "SELECT use_code, reuse_code, object, reuses, long_reuses,"
					 " long_observed FROM reuse_pairs ORDER BY rank LIMIT 1" :
					 "SELECT use_code, reuse_code, object, reuses, long_reuses,"
					 " long_observed FROM reuse_pairs WHERE long_reuses > 0 AND"
					 " long_observed >= ? ORDER BY rank LIMIT 1", -1, &st, NULL))
		return;
	if (!any)
		sqlite3_bind_double(st, 1, min_obs);
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(t->use, sizeof(t->use), "%s", (const char *)sqlite3_column_text(st, 0));
		snprintf(t->reuse, sizeof(t->reuse), "%s", (const char *)sqlite3_column_text(st, 1));
		snprintf(t->object, sizeof(t->object), "%s", (const char *)sqlite3_column_text(st, 2));
		t->reuses = sqlite3_column_double(st, 3);
		t->long_reuses = sqlite3_column_double(st, 4);
		t->long_observed = sqlite3_column_double(st, 5);
		t->found = 1;
	}
	sqlite3_finalize(st);
}

/* --exact with private caches and several threads: the largest thread's own footprint
 * in bytes (what its cache holds; meta footprint_thread), else 0. */
static double thread_foot(sqlite3 *db)
{
	double ft = meta_num(db, "footprint_thread"), f = meta_num(db, "footprint");
	return ft > 0 && ft < f ? ft * meta_num(db, "element") : 0;
}

/* The footprint's words: "X", or, --exact with private caches, "X summed over the threads'
 * own data ..." (each thread's first touches: data two threads share counts twice, and
 * "all threads" read as the program's data, 4.50 MiB of three 1 MiB arrays: the trial of
 * 2026-11-29, F5); sampled, "about X (N 4 KiB pages sampled, M once: ...)". */
static void foot_str(sqlite3 *db, char *buf, size_t len)
{
	char a[32], b[32];
	double ft = thread_foot(db), pages = meta_num(db, "pages_sampled");
	double once = meta_num(db, "pages_once");
	size_str(meta_num(db, "footprint") * meta_num(db, "element"), a, sizeof(a));
	if (pages >= 10 && once >= 0.9 * pages) {
		/* nearly every page seen once: Chao1 rests on a handful of repeats (the trial
		 * of 2026-11-28: 1521 of 1522 once, 4.6 GB for Phoenix's 2.3 GB input) */
		size_str(pages * 4096, b, sizeof(b));
		snprintf(buf, len, "at least %s, the %.0f pages of 4 KiB sampled (%.0f of them "
			 "once: too few seen twice to estimate the rest; Chao1 reads %s, which may "
			 "be several times off either way)", b, pages, once, a);
	} else if (pages > 0 && once >= 0) {
		/* a lower bound, not a centre: the trial of 2026-11-28 read 4.3 MiB under the
		 * clock source for SimpleMOC, whose peak RSS was 214 MB; the trial of 2026-11-29
		 * 4.8 MiB for a SNAP rank that sweeps 32 MiB or more ("or more" since) */
		snprintf(buf, len, "about %s or more of 4 KiB pages (%.0f page%s sampled, %.0f of "
			 "them once: the unsampled ones estimated from those, Chao1, a lower bound "
			 "where some pages are touched far more often than others; a page counts "
			 "whole, however few of its words are used)", a, pages,
			 pages == 1 ? "" : "s", once);
	} else if (pages > 0) {
		snprintf(buf, len, "at least %s (the 4 KiB pages sampled)", a);
	} else if (ft > 0) {
		size_str(ft, b, sizeof(b));
		snprintf(buf, len, "%s summed over the threads' own data (what two threads both "
			 "touch counts twice); the program's data lies between the largest "
			 "thread's own, %s, and that sum", a, b);
	} else {
		snprintf(buf, len, "%s", a);
	}
}

/* The time_ns rows' [0, 1) bin's fraction, 0 if none. */
static double zero_ns_share(sqlite3 *db)
{
	sqlite3_stmt *st;
	double z = 0;
	if (sqlite3_prepare_v2(db, "SELECT fraction FROM reuse_hist WHERE kind = 'time_ns' AND"
				   " lo = 0", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			z = sqlite3_column_double(st, 0);
		sqlite3_finalize(st);
	}
	return z;
}

/* The paragraph: what the histogram and the curve mean for this program. */
static void meaning(sqlite3 *db, FILE *out, const struct curve *c, int dists)
{
	char fp[32], l2s[32];
	double foot = meta_num(db, "footprint") * meta_num(db, "element");
	double l1 = meta_num(db, "l1"), l2 = meta_num(db, "l2"), l3 = meta_num(db, "l3");
	double inv = meta_num(db, "invalidations");
	/* the histogram's denominator: the uses' outcomes (with --exact a little more than the
	 * accesses where invalidated uses are never revisited: doc/sonde-reuse.md, Output) */
	double acc = meta_num(db, "reuses") + inv + meta_num(db, "cold");
	int exact = meta_num(db, "exact") != 0;
	struct top t;

	fprintf(out, "\nWhat it means:\n  ");
	if (!dists && !no_counts(db)) {
		/* counts, but no reuse: a sampled run that observed none (a period longer than
		 * the run), or every use a first touch or ended by another thread's store */
		if (!exact && meta_num(db, "outcomes") <= 0)
			fprintf(out, "no reuse was observed (%.0f sampled uses watched, no outcome),"
				     " so there is no reuse-distance histogram: a shorter --period"
				     " takes more samples.\n", meta_num(db, "armed"));
		else if (acc <= 0)	/* (the usability review of 2026-11-29: "share less
					 * written data" for a program with no access) */
			fprintf(out, "no access was counted: no code compiled by sonde-cc read or"
				     " wrote memory (libraries it did not compile are not counted),"
				     " so there is no reuse-distance histogram.\n");
		else if (inv <= 0)
			fprintf(out, "no use was reused: each was a first touch (cold), so there is"
				     " no reuse-distance histogram and every cache size misses them"
				     " all.\n");
		else
			fprintf(out, "no use was reused: each was a first touch (cold) or ended by"
				     " another thread's store (invalidations, %.1f%% of them), so"
				     " there is no reuse-distance histogram and every cache size"
				     " misses them all; share less written data.\n",
				100 * inv / acc);
		return;
	}
	if (!dists) {
		char be[16];
		/* soft watchpoints: the program is a sonde-cc build, which has the counts */
		int cc = !strcmp(db_meta(db, "watch_backend", be, sizeof(be)), "soft");
		/* no backend: no time either (the trial of 2026-11-29: "only reuse times were
		 * measured" under a header that said nothing was observed), whether a sample
		 * was taken or not (the usability review of 2026-11-29: a run too short for one
		 * sample was told a shorter --period samples it, where no watchpoint fires) */
		if (!strcmp(db_meta(db, "watch_backend", be, sizeof(be)), "none")) {
			char why[512];
			if (!*db_meta(db, "watch_why", why, sizeof(why)))
				snprintf(why, sizeof(why), "the arm-failure line above says why");
			char *fix = strstr(why, "; ");	/* (its remedy: said below) */
			if (fix)
				*fix = 0;
			fprintf(out, "nothing was observed: no watchpoint can be armed in this "
				     "program (%s), so there is no reuse time, distance or miss "
				     "ratio: %s.\n", why,
				cc ? "this program was built by sonde-cc, run it with --source inst "
				     "(the default for it without --source)" :
				     "rebuild it with sonde-cc and run it with --source inst");
			return;
		}
		/* no sample at all: say so, not what the samples would have told (the
		 * usability review of 2026-11-28: a 1000-access run got the caveats) */
		if (meta_num(db, "samples") <= 0) {
			char u[32], thr[200] = "";
			double nt = meta_num(db, "threads");
			/* each thread's own CPU time runs its timer: 400 threads of 50 us each
			 * got none (the usability review of 2026-11-28: "ran too briefly" for
			 * 22 periods of CPU in all) */
			if (nt > 1)
				snprintf(thr, sizeof(thr), ", or each of its %.0f threads ran for less "
					 "than one period of CPU (a thread's timer counts its own time)",
					 nt);
			fprintf(out, "no sample was taken: the program ran too briefly for the "
				     "period (%.0f %s)%s; a shorter --period, or a longer run, samples "
				     "it%s.\n", meta_num(db, "period"),
				db_meta(db, "period_unit", u, sizeof(u)), thr,
				cc ? "; this program was built by sonde-cc, run it with --source "
				     "inst (the default for it without --source) for distances" : "");
			return;
		}
		fprintf(out, "only reuse times were measured (the clock source has no count of a"
			     " thread's accesses), so there is no reuse distance and no miss-ratio"
			     " curve: %s for distances.\n",
			cc ? "this program was built by sonde-cc, run it with --source inst (the"
			     " default for it without --source)" :
			     "run a program built with sonde-cc (--source inst) or on a machine with"
			     " a PMU (--source hw)");
		/* debug registers: the floor of bench/reuse-clock-floor.sh (doc/sonde-reuse.md) */
		if (!strcmp(db_meta(db, "watch_backend", be, sizeof(be)), "hw")) {
			fprintf(out, "  Times under about 50 us are not resolved: the debug register is"
				     " armed in the sample's handler and its trap takes tens of"
				     " microseconds to deliver, so a word reused every few ns reads"
				     " 8-65 us here (sonde-reuse(1)).\n");
			/* the calibrated trap cost is subtracted; what is left under 0 counts 0
			 * (the trial of 2026-11-27: SimpleMOC's 6.4% at [0, 1) unexplained), in
			 * the histogram's "under 65.5 us" row since 2026-11-28, which the
			 * sentence named as a bin of its own until the trial of that evening */
			double z = zero_ns_share(db);
			if (z > 0)
				fprintf(out, "  Of the row under 65.5 us, %.1f%% of the accesses came no"
					     " later than the trap's calibrated cost, which is subtracted"
					     " from every time (histogram.csv's [0, 1) ns bin): reuses"
					     " faster than the register can tell, not reuses in 0 ns.\n",
					100 * z);
		}
		fprintf(out, "  Counts are in samples: a sampled use whose watch was taken over"
			     " before any reuse adds its weight to the others, so the rows sum to the"
			     " samples, not the outcomes.\n");
		return;
	}
	size_str(foot, fp, sizeof(fp));
	size_str(l2, l2s, sizeof(l2s));
	/* private caches: a thread's own data against its own L2, not all threads' summed
	 * (a word every thread reads counts once in each) */
	double ft = thread_foot(db);
	if (l2 > 0) {
		double m1 = curve_at(c, l1), m2 = curve_at(c, l2), m3 = curve_at(c, l3);
		/* the smallest cache it fits in: L1 rather than L2 where it does (a 23.5 KiB
		 * footprint read "fits in the 1 MiB L2": the usability review of 2026-11-28) */
		double f = ft > 0 ? ft : foot;
		char where[64];
		if (l1 > 0 && f <= l1) {
			size_str(l1, where, sizeof(where));
			snprintf(where + strlen(where), sizeof(where) - strlen(where), " L1");
		} else {
			snprintf(where, sizeof(where), "%s L2", l2s);
		}
		if (ft > 0) {
			char fts[32];
			/* sampled, several processes: each process's pages (its ranks each on a
			 * core of their own) */
			const int procs = !exact && meta_num(db, "processes_modelled") > 1;
			size_str(ft, fts, sizeof(fts));
			fprintf(out, "the data its largest %s touches (%s; %s for all %s"
				     " together) %s the %s of its core.",
				procs ? "process" : "thread", fts, fp, procs ? "processes" : "threads",
				ft <= l2 ? "fits in" : "does not fit in", where);
		} else {
			fprintf(out, "the data it touches (%s) %s the %s.", fp,
				foot <= l2 ? "fits in" : "does not fit in", where);
		}
		fprintf(out, "  A fully associative LRU cache of L1's size would miss %.1f%% of"
			     " the accesses", 100 * (isnan(m1) ? 0 : m1));
		cut_note(out, c, l1);
		fprintf(out, ", L2's %.1f%%", 100 * (isnan(m2) ? 0 : m2));
		cut_note(out, c, l2);
		if (l3 > 0) {
			fprintf(out, ", L3's %.1f%%", 100 * (isnan(m3) ? 0 : m3));
			cut_note(out, c, l3);
			/* (the usability review of 2026-11-29, L3: `sonde info` said it) */
			if (meta_num(db, "l3_package") > 0)
				fprintf(out, " (L3 is the whole package's here, read from CPUID's "
					     "legacy leaves: a core may share only a part of it)");
		}
		/* of words, not of lines: read as the hardware's miss ratio, a sweep's "misses"
		 * were its hits in the line (the trial of 2026-11-29: NPB CG.S, L1 54.6% here,
		 * 6.0% with --spatial, cachegrind 6.3%) */
		char gran[32];
		db_meta(db, "granularity", gran, sizeof(gran));
		fprintf(out, ".%s", strcmp(gran, "spatial") ?
			"  These are reuses of 8-byte words: a word's first use in a line another "
			"word brought in counts as a miss; --spatial models 64-byte lines, as a "
			"cache holds them." : "");
		/* a sampled footprint too low for the histogram: reuses beyond L2's size the
		 * data said to fit in it (the usability review of 2026-11-28: "fits in the 1
		 * MiB L2" beside L2's 100%, at a period that sampled 6 pages of a 46 MiB sweep) */
		/* the accesses no cache size helps: first touches and other threads' stores */
		double once = acc > 0 ? (inv + meta_num(db, "cold")) / acc : 0;
		double beyond = isnan(m2) ? 0 : m2 - once;
		/* all it touches does not fit, but what it reuses does (the trial of 2026-11-28:
		 * miniBUDE's kernel, 16 KB reused, led by "does not fit in the 1 MiB L2" beside
		 * an L2 miss ratio of 0.4%, all first touches) */
		int in1 = !isnan(m1) && m1 - once < 0.01;
		if ((ft > 0 ? ft : foot) > l2 && !isnan(m2) && beyond < 0.01)
			fprintf(out, "  Yet its reuses come back within %s's size: %s's misses are "
				     "first touches and other threads' stores, %.1f%% of the "
				     "accesses; what does not fit is data used once or seldom.",
				in1 ? "L1" : "L2", in1 ? "L1" : "L2", 100 * (in1 ? m1 : m2));
		if (!exact && foot <= l2 && beyond > 0.05)
			fprintf(out, "  Yet %.1f%% of the accesses reuse beyond L2's size: the "
				     "footprint, estimated from the %.0f pages of 4 KiB sampled, is "
				     "too low to trust (a shorter --period samples more of them).",
				100 * beyond, meta_num(db, "pages_sampled"));
		/* sampled: the distances are estimates (the model's conversion, ~1.2x off on
		 * average: doc/sonde-reuse.md), so reuses within a factor 2 of a cache's size
		 * may fall on either side of it (the trial of 2026-11-28, Black-Scholes: L1's
		 * 14.5% sampled against 0.25% exact, its data at L1's size) */
		static const char *const lvl[] = { "L1", "L2", "L3" };
		const double sz[] = { l1, l2, l3 };
		for (int i = 0; i < 3 && !exact; i++) {
			double lo, hi;
			if (sz[i] <= 0 || !curve_uncertain(c, sz[i], &lo, &hi))
				continue;
			/* not bounds: estimates off by more than 2x fall outside (Black-
			 * Scholes: 3.1% exact against 5.0%-22.3% said, 15.8% sampled) */
			fprintf(out, "  %.0f%% of the accesses reuse within a factor 2 of %s's "
				     "size: an error in the sampled distances (estimates) moves them "
				     "across it, so %s's miss ratio is uncertain, from %.1f%% to "
				     "%.1f%% if they all crossed, further if the estimates are off "
				     "by more than 2x (--check-sampling measures the error).",
				100 * (hi - lo), lvl[i], lvl[i], 100 * lo, 100 * hi);
		}
	} else {
		fprintf(out, "the data it touches is %s (this machine's cache sizes are unknown).",
			fp);
	}
	if (acc > 0 && inv / acc > 0.01)
		/* where: sonde comm ranks the code and the objects (the usability review of
		 * 2026-11-29, M3: nothing said which) */
		fprintf(out, "  %.1f%% of the uses end in another thread's store (invalidations):"
			     " those misses stay whatever the cache size; share less written data"
			     " (sonde comm names the objects, and the code on both sides).",
			100 * inv / acc);
	/* a sampled pair's long reuses resting on one or two observed reuses, each standing
	 * for a period's worth of uses: not enough to name it (the helper's trial, CoMD: the
	 * sampled run named a pair that --exact did not confirm); the
	 * best-ranked pair with enough is named instead, if any (review, 2026-11-27) */
	read_top(db, &t, exact ? 0 : REUSE_FIX_MIN_OBS, 0);
	struct top t0;
	if (!t.found) {
		read_top(db, &t0, 0, 1);
		if (t0.found && t0.long_reuses > 0) {
			fprintf(out, "  The reuses beyond L2's size are too few to name a pair: the"
				     " most, from %s to %s, rest on %.0f sampled reuse(s) (a shorter"
				     " period, -p, or --exact sees more).", t0.use, t0.reuse,
				t0.long_observed);
			fprintf(out, "\n");
			return;
		}
		t = t0;
	}
	/* C++ names shortened as the pairs table shortens them (a trial's miniFE: 300
	 * characters twice in one sentence) */
	char u[2 * sizeof(t.use) + 1], r[2 * sizeof(t.reuse) + 1];
	if (t.found && t.long_reuses > 0 && acc > 0 && t.long_reuses < REUSE_FIX_MIN_SHARE * acc) {
		/* nothing worth a fix: NPB CG.S named its one-time set-up, 0.08% of the accesses,
		 * beside an L2 miss ratio of 1.9% (the trial of 2026-11-29) */
		fprintf(out, "  No code pair stands out: the most reuses beyond L2's size, from %s"
			     " to %s (%s), are %.2f%% of the accesses.",
			text_short_name(t.use, TEXT_NAME_MAX, u, sizeof(u)),
			text_short_name(t.reuse, TEXT_NAME_MAX, r, sizeof(r)), t.object,
			100 * t.long_reuses / acc);
	} else if (t.found && t.long_reuses > 0) {
		fprintf(out, "  Fix first: the reuse from %s to %s (%s), %.0f reuses beyond L2's"
			     " size; bring them closer (block or fuse the loops) or shrink the data.",
			text_short_name(t.use, TEXT_NAME_MAX, u, sizeof(u)),
			text_short_name(t.reuse, TEXT_NAME_MAX, r, sizeof(r)), t.object,
			t.long_reuses);
	}
	else if (t.found)
		fprintf(out, "  No code pair reuses data beyond L2's size: the cache holds what"
			     " the program reuses.");
	fprintf(out, "\n");
}

/* The summary's header lines (left out by --quiet). */
/* --exact, private caches, more threads than the engine's REUSE_UNITS caches: a thread's
 * cache is that of its index modulo REUSE_UNITS, so a later thread meets an earlier one's
 * data as its own (the usability review of 2026-11-28: 100 threads one after another, each
 * reading fresh data, read 37% reuses where all are cold).  The line, or "". */
static const char *units_note(sqlite3 *db, char *b, size_t len)
{
	double n = meta_num(db, "threads_process");	/* (a process's engine's) */
	char cache[32];
	b[0] = 0;
	if (meta_num(db, "exact") != 0 && n > REUSE_UNITS &&
	    !strcmp(db_meta(db, "cache", cache, sizeof(cache)), "private"))
		snprintf(b, len, "%.0f threads on the exact engine's %d private caches: threads "
			 "%d and up share those of threads 0, 1, ... (the thread's number modulo "
			 "%d), so their data read as each other's: reuses where there were none, "
			 "fewer cold accesses (doc/sonde-reuse.md, Limits)", n, REUSE_UNITS,
			 REUSE_UNITS, REUSE_UNITS);
	return b;
}

/* "8 of 819 timer signals (...)": the samples, and the signals that found no access to
 * watch where they are a tenth or more (the usability review of 2026-11-29: 96 samples of
 * 3165 signals, said as "samples 96"; a sonde-cc build spends most of its time in its
 * access hooks, sonde's own code) */
static const char *samples_of(sqlite3 *db, char *buf, size_t len)
{
	double ns = meta_num(db, "samples"), sigs = meta_num(db, "sample_signals");
	char be[16];
	if (sigs > ns && sigs - ns >= 0.1 * sigs)
		snprintf(buf, len, "%.0f of %.0f timer signals (%.1f%% gave no use to watch: no"
			 " load or store of the program where they struck, or skipped by the time"
			 " budget%s)", ns, sigs, 100 * (sigs - ns) / sigs,
			 !strcmp(db_meta(db, "watch_backend", be, sizeof(be)), "soft") ?
				 "; a sonde-cc build spends most of its time in sonde's access"
				 " hooks, which are not sampled" : "");
	else
		snprintf(buf, len, "%.0f", ns);
	return buf;
}

static void print_header(sqlite3 *db, FILE *out, int exact, int spatial)
{
	char b[4][768];

	fprintf(out, "sonde reuse: %s\n", report_program(db, b[0], sizeof(b[0])));
	if (*process_note(db, b[0], sizeof(b[0]))) {
		char line[900];
		snprintf(line, sizeof(line), "%s %s", meta_num(db, "processes_modelled") > 1 ?
			 "processes" : "process", b[0]);
		text_hang(out, "  ", "      ", line, 80);	/* (a line of 170: the review) */
	}
	fprintf(out, "  source %s, period %s %s; %s cache, %s reuse (elements: %s)\n",
		db_meta(db, "source", b[0], sizeof(b[0])), db_meta(db, "period", b[1], sizeof(b[1])),
		db_meta(db, "period_unit", b[2], sizeof(b[2])),
		db_meta(db, "cache", b[3], sizeof(b[3])), spatial ? "spatial" : "temporal",
		spatial ? "64-byte lines" : "8-byte words");
	fprintf(out, "  %s\n", exact ? "exact: every access modelled"
				     : db_meta(db, "watch", b[0], sizeof(b[0])));
	if (*units_note(db, b[0], sizeof(b[0])))
		text_hang(out, "  warning: ", "      ", b[0], 80);
	if (*wide_text(db, b[0], sizeof(b[0])))
		text_hang(out, "  wide accesses: ", "      ", b[0], 80);
	if (*check_text(db, b[0], sizeof(b[0])))
		fprintf(out, "  sampling check: %s\n", b[0]);
	if (!exact) {
		report_arm_fail_line(db, out, "  arm failures: ", "      ");
		report_switch_line(db, out, "  context switches: ", meta_num(db, "armed") > 0, NULL);
	}
	if (no_counts(db)) {
		char of[300];
		foot_str(db, b[2], sizeof(b[2]));
		fprintf(out, "  samples %s (no count of the program's accesses with this"
			     " source), footprint %s; distances: %s\n", samples_of(db, of, sizeof(of)),
			b[2], db_meta(db, "distances", b[1], sizeof(b[1])));
	} else {
		foot_str(db, b[2], sizeof(b[2]));
		fprintf(out, "  accesses %.0f, footprint %s; distances: %s\n",
			meta_num(db, "accesses"), b[2], db_meta(db, "distances", b[1], sizeof(b[1])));
	}
}

/* meaning() with the miss-ratio curve read again (print_text's is out of scope there) */
static void meaning_of(sqlite3 *db, FILE *out, int dists)
{
	struct curve c = { 0 };
	if (dists)
		read_curve(db, &c);	/* none read: c.n 0, the levels' ratios NAN */
	meaning(db, out, dists ? &c : NULL, dists);
}

/* meaning_of's text in a malloc'd string (NULL without memory), for the JSON and page. */
static char *meaning_str(sqlite3 *db, int dists)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	meaning_of(db, f, dists);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int print_text(sqlite3 *db, FILE *out, const struct report_opts *o)
{
	char b[4][768], s[32];
	int top = o->top > 0 ? o->top : 10;
	int exact = meta_num(db, "exact") != 0, spatial;
	struct hist h;
	struct curve c;

	db_meta(db, "granularity", b[3], sizeof(b[3]));
	spatial = !strcmp(b[3], "spatial");
	struct text_folder tf;
	/* folded to 80 columns: the header's facts and the closing paragraphs ran to 300 */
	if (!o->quiet) {	/* --quiet: the tables alone, as for mem and variance */
		print_header(db, text_fold_open(&tf, out), exact, spatial);
		text_fold_close(&tf, 80, 4);
	}
	int dists = 0;
	if (read_hist(db, "reuse", &h) == 0 && h.n > 2) {
		dists = 1;
		print_hist(out, "Reuse distance (distinct elements between a use and its reuse;"
				" share of accesses)", &h);
	} else if (read_hist(db, "time_ns", &h) == 0 && h.n > 2) {
		char be[16];
		/* debug registers: the floor of bench/reuse-clock-floor.sh, 8-65 us */
		int hw = !strcmp(db_meta(db, "watch_backend", be, sizeof(be)), "hw");
		hist_time_readable(&h, hw ? 65536 : 0);
		print_hist(out, "Reuse time (no access counts with this source: no distances)", &h);
	}
	/* a handful of outcomes drawn as a histogram reads as a result (the usability review
	 * of 2026-11-29: 5 outcomes as 20% / 60% / 20%, no word of their number) */
	double nout = meta_num(db, "outcomes");
	if (h.n > 2 && !exact && nout > 0 && nout < FEW_OUTCOMES)
		fprintf(out, "  only %.0f outcome%s behind these shares: each is uncertain by up to\n"
			     "  %.0f points (95%%); a longer run or a shorter --period observes"
			     " more\n", nout, nout == 1 ? "" : "s",
			100 * report_share_error(0.5, nout));
	if (dists && read_curve(db, &c) == 0 && c.n) {
		fprintf(out, "\nMiss ratio of a fully associative LRU cache, by size\n");
		int unsure = 0, cut = 0, exact = meta_num(db, "exact") != 0;
		for (int i = 0; i < c.n; i++) {
			const char *l = level_of(db, c.bytes[i]);
			char lab[48];
			double lo, hi;
			size_str(c.bytes[i], s, sizeof(s));
			snprintf(lab, sizeof(lab), "%s%s%s%s", s, l ? " (" : "", l ? l : "", l ? ")" : "");
			fprintf(out, "  %-16s ", lab);
			bar(out, c.miss[i]);
			fprintf(out, " %5.1f%%", 100 * c.miss[i]);
			if (!exact && curve_uncertain(&c, c.bytes[i], &lo, &hi)) {
				fprintf(out, "  ~ %.1f%%-%.1f%%", 100 * lo, 100 * hi);
				unsure = 1;
			} else if (curve_cut(&c, c.bytes[i], &lo, &hi)) {
				fprintf(out, "  | %.1f%%-%.1f%%", 100 * lo, 100 * hi);
				cut = 1;
			}
			fputc('\n', out);
		}
		if (cut)
			fprintf(out, "  |: that size cuts a power-of-2 bin of the distances: its "
				     "reuses, spread evenly\n     over the bin in the bar, may all lie "
				     "on either side of it (missratio.csv:\n     miss_lo, miss_hi)\n");
		if (unsure)
			fprintf(out, "  ~: 10%% of the accesses or more reuse within a factor 2 of "
				     "that size, where an\n     error in the sampled distances moves "
				     "them across it: the miss ratio if they\n     all crossed, either "
				     "way (--check-sampling measures the error)\n");
	}
	sqlite3_stmt *st;
	static const char *const ph[] = { "long", "reuses", "use", "reuse", "object" };
	struct text_table *t = text_table_new(5, ph, "rrnnn");
	/* sampled: a long count scaled up from fewer than REUSE_FIX_MIN_OBS observed long
	 * reuses is marked (the trial of 2026-11-28: miniMD's third pair, 374,593 long reuses
	 * from one observation, 11,897 exact) */
	int few = 0;
	if (t && !sqlite3_prepare_v2(db, "SELECT CASE WHEN long_reuses IS NULL THEN '-' ELSE"
					 " printf('%.0f', long_reuses) || CASE WHEN ?1 = 0 AND"
					 " long_reuses > 0 AND long_observed IS NOT NULL AND"
					 " long_observed < ?2 THEN '*' ELSE '' END END,"
					 " printf('%.0f', reuses), use_code, reuse_code, object"
					 " FROM reuse_pairs ORDER BY rank", -1, &st, NULL)) {
		const char *cells[5];
		sqlite3_bind_int(st, 1, meta_num(db, "exact") != 0);
		sqlite3_bind_int(st, 2, REUSE_FIX_MIN_OBS);
		while (sqlite3_step(st) == SQLITE_ROW && text_table_rows(t) < top) {
			for (int i = 0; i < 5; i++)
				cells[i] = (const char *)sqlite3_column_text(st, i);
			few |= cells[0] && strchr(cells[0], '*') != NULL;
			text_table_add(t, cells);
		}
		sqlite3_finalize(st);
		if (text_table_rows(t)) {
			fprintf(out, !long_unknown(db) ?
					     "\nTop reuse pairs (long: reuses beyond L2's size)\n" :
					     "\nTop reuse pairs (by reuses; long ones unknown without "
					     "distances)\n");
			text_table_print(t, out, "  ");
			if (few)
				fprintf(out, "  *: scaled from fewer than %d observed long reuses: a wide "
					     "estimate (--exact counts them)\n", REUSE_FIX_MIN_OBS);
		}
	}
	text_table_free(t);
	meaning_of(db, text_fold_open(&tf, out), dists);
	text_fold_close(&tf, 80, 0);
	return 0;
}

/* The time-distance histogram (histogram.csv's `time` rows, accesses between use and
 * reuse, or `time_ns` with the clock source, which counts no accesses): `time_unit` and
 * `time` (lo, hi, count, fraction).  A clock recording's JSON had its invalidation and
 * cold bins alone before (the trial of 2026-11-27). */
static void json_time_bins(sqlite3 *db, struct json *j)
{
	static const char *const kinds[2][2] = { { "time", "accesses" }, { "time_ns", "ns" } };
	sqlite3_stmt *st;
	int k = 0;

	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM reuse_hist WHERE kind = 'time_ns'", -1,
			       &st, NULL) == SQLITE_OK) {
		k = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0;
		sqlite3_finalize(st);
	}
	json_str(j, "time_unit", kinds[k][1]);
	json_begin_array(j, "time");
	if (sqlite3_prepare_v2(db, "SELECT lo, hi, count, fraction FROM reuse_hist WHERE kind = ?1"
				   " ORDER BY lo", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, kinds[k][0], -1, SQLITE_STATIC);
		while (sqlite3_step(st) == SQLITE_ROW) {
			json_begin_object(j, NULL);
			json_double(j, "lo", sqlite3_column_double(st, 0), 0);
			json_double(j, "hi", sqlite3_column_double(st, 1), 0);
			json_double(j, "count", sqlite3_column_double(st, 2), 0);
			json_double(j, "fraction", sqlite3_column_double(st, 3), 6);
			json_end_object(j);
		}
		sqlite3_finalize(st);
	}
	json_end_array(j);
}

int reuse_print(sqlite3 *db, FILE *out, const struct report_opts *o)
{
	if (o->format == REPORT_TEXT)
		return print_text(db, out, o);
	if (o->format == REPORT_CSV)
		return db_query_csv(db, out, hist_sql, 5, hist_cols, NULL, 0);
	struct json j;
	char b[256];
	struct hist h;
	struct curve c;
	json_init(&j, out);
	json_begin_object(&j, NULL);
	json_str(&j, "tool", "reuse");
	json_str(&j, "source", db_meta(db, "source", b, sizeof(b)));
	json_bool(&j, "exact", meta_num(db, "exact") != 0);
	/* what the recording is (the usability review of 2026-11-28: a script could not tell
	 * a --shared --spatial recording from a default one) */
	json_str(&j, "program", report_program(db, b, sizeof(b)));
	json_double(&j, "pid", meta_num(db, "pid"), 0);
	json_double(&j, "threads", meta_num(db, "threads"), 0);
	json_double(&j, "processes", meta_num(db, "processes_modelled"), 0);
	json_str(&j, "cache", db_meta(db, "cache", b, sizeof(b)));
	json_str(&j, "granularity", db_meta(db, "granularity", b, sizeof(b)));
	json_double(&j, "element_bytes", meta_num(db, "element"), 0);
	char w[512];
	if (*units_note(db, w, sizeof(w)))
		json_str(&j, "warning", w);
	if (no_counts(db))	/* (not the samples, as until 2026-11-29: the review's R8) */
		json_str(&j, "accesses", NULL);
	else
		json_double(&j, "accesses", meta_num(db, "accesses"), 0);
	json_double(&j, "footprint_elements", meta_num(db, "footprint"), 0);
	/* --exact, private caches: the largest cache's own (a thread's); 0: not known */
	json_double(&j, "footprint_thread_elements", meta_num(db, "footprint_thread"), 0);
	/* the run's facts, as the summary's header gives them (the usability review of
	 * 2026-11-28: the JSON had no period, uses watched, outcomes or pairs) */
	json_double(&j, "period", meta_num(db, "period"), 0);
	json_str(&j, "period_unit", db_meta(db, "period_unit", b, sizeof(b)));
	json_double(&j, "samples", meta_num(db, "samples"), 0);
	json_double(&j, "uses_watched", meta_num(db, "armed"), 0);
	json_double(&j, "outcomes", meta_num(db, "outcomes"), 0);
	json_double(&j, "outcomes_invalidation", meta_num(db, "outcomes_invalidation"), 0);
	/* the share of the accesses (samples) wider than an element: model.c */
	json_double(&j, "wide_share", meta_num(db, "wide_share"), 4);
	/* accesses, as `accesses` and `cold` (scaled by the samples' weights where sampled),
	 * not outcomes: beside `outcomes` the usability review of 2026-11-29 read the two as
	 * one unit (L2) */
	json_double(&j, "invalidations", meta_num(db, "invalidations"), 0);
	json_double(&j, "invalidation_accesses", meta_num(db, "invalidations"), 0);
	json_double(&j, "cold", meta_num(db, "cold"), 0);
	int dists = 0;
	json_begin_array(&j, "reuse");
	if (!read_hist(db, "reuse", &h)) {
		dists = h.n > 2;
		for (int i = 0; i < h.n; i++) {
			long long lo, hi;
			json_begin_object(&j, NULL);
			json_str(&j, "bin", h.label[i]);
			/* numbers as the time bins' (null for the invalidation and cold rows) */
			if (sscanf(h.label[i], "[%lld, %lld)", &lo, &hi) == 2) {
				json_int(&j, "lo", lo);
				json_int(&j, "hi", hi);
			} else {
				json_str(&j, "lo", NULL);
				json_str(&j, "hi", NULL);
			}
			json_double(&j, "count", h.count[i], 0);
			json_double(&j, "fraction", h.frac[i], 6);
			json_end_object(&j);
		}
	}
	json_end_array(&j);
	json_time_bins(db, &j);
	json_begin_array(&j, "miss_ratio");
	if (!read_curve(db, &c))
		for (int i = 0; i < c.n; i++) {
			json_begin_object(&j, NULL);
			json_double(&j, "bytes", c.bytes[i], 0);
			json_double(&j, "miss_ratio", c.miss[i], 6);
			json_double(&j, "miss_lo", c.lo[i], 6);
			json_double(&j, "miss_hi", c.hi[i], 6);
			json_end_object(&j);
		}
	json_end_array(&j);
	json_begin_array(&j, "pairs");
	sqlite3_stmt *st;
	if (!sqlite3_prepare_v2(db, "SELECT rank, use_code, reuse_code, object, reuses,"
				    " long_reuses, median_lo, median_hi FROM reuse_pairs ORDER BY rank",
				-1, &st, NULL)) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			json_begin_object(&j, NULL);
			json_int(&j, "rank", sqlite3_column_int64(st, 0));
			json_str(&j, "use", (const char *)sqlite3_column_text(st, 1));
			json_str(&j, "reuse", (const char *)sqlite3_column_text(st, 2));
			json_str(&j, "object", (const char *)sqlite3_column_text(st, 3));
			json_double(&j, "reuses", sqlite3_column_double(st, 4), 0);
			for (int k = 5; k <= 7; k++) {	/* NULL without distances */
				static const char *const keys[] = { "long_reuses", "median_lo",
								    "median_hi" };
				const char *key = keys[k - 5];
				if (sqlite3_column_type(st, k) == SQLITE_NULL)
					json_str(&j, key, NULL);
				else
					json_double(&j, key, sqlite3_column_double(st, k), 0);
			}
			json_end_object(&j);
		}
		sqlite3_finalize(st);
	}
	json_end_array(&j);
	/* the summary's closing paragraph, one line */
	char *mbuf = meaning_str(db, dists);
	if (mbuf) {
		char *w = mbuf;
		for (char *r = mbuf; *r; r++)	/* newlines and runs of blanks to one */
			if (!((*r == ' ' || *r == '\n') && (w == mbuf || w[-1] == ' ')))
				*w++ = *r == '\n' ? ' ' : *r;
		while (w > mbuf && w[-1] == ' ')
			w--;
		*w = 0;
		const char *t = mbuf;
		if (!strncmp(t, "What it means: ", 15))
			t += 15;
		json_str(&j, "what_it_means", t);
		free(mbuf);
	}
	if (*db_meta(db, "check_s", b, sizeof(b))) {	/* --check-sampling */
		json_begin_object(&j, "sampling_check");
		json_double(&j, "period", meta_num(db, "check_period"), 0);
		json_double(&j, "outcomes", meta_num(db, "check_outcomes"), 0);
		json_double(&j, "outcomes_invalidation", meta_num(db, "check_outcomes_invalidation"), 0);
		/* null: no reuses to compare */
		if (!strcmp(b, "-"))
			json_str(&j, "s", NULL);
		else
			json_double(&j, "s", meta_num(db, "check_s"), 4);
		/* null: not in the database ("-": no reuses to compare; absent: made by a
		 * build of 2026-11-27 before the key) */
		static const char *const opt[][2] = { { "s_sample", "check_s_sample" },
						      { "log2_error", "check_log_error" },
						      { "log2_error_far", "check_log_error_far" },
						      { "invalidation_share", "check_inv_sampled" },
						      { "invalidation_share_exact", "check_inv_exact" } };
		for (size_t k = 0; k < sizeof(opt) / sizeof(opt[0]); k++) {
			db_meta(db, opt[k][1], b, sizeof(b));
			if (!*b || !strcmp(b, "-"))
				json_str(&j, opt[k][0], NULL);
			else
				json_double(&j, opt[k][0], meta_num(db, opt[k][1]), 4);
		}
		json_end_object(&j);
	}
	json_end_object(&j);
	json_finish(&j);
	fputc('\n', out);
	return 0;
}

/* ---- HTML ---- */

/* A tick of the miss-ratio plot's axis, log2 bytes, as a size: 12 -> "4K", 20 -> "1M". */
static void size_tick(double x, char *buf, size_t len)
{
	static const char unit[] = "BKMGTP";
	double v = exp2(x);
	int u = 0;
	while (v >= 1024 && u < 5)
		v /= 1024, u++;
	if (fabs(v - round(v)) < 1e-6)
		snprintf(buf, len, "%.0f%c", v, unit[u]);
	else
		snprintf(buf, len, "%.3g%c", v, unit[u]);
	if (!u && len > 1)	/* plain bytes: the number alone */
		buf[strlen(buf) - 1] = 0;
}

/* A bin's label for the page's narrow bars: "[512K, 1M)" for "[524288, 1048576)" (the
 * usability review of 2026-11-28: the long ones were cut to "[524288, 1048..."). */
static void short_bin(const char *label, char *buf, size_t len)
{
	long long lo, hi;
	char a[16], b[16];
	/* from 1K up, every bin (until 2026-11-29 from 10000: "[4096, 8192)" beside
	 * "[8K, 16K)", the usability review) */
	if (sscanf(label, "[%lld, %lld)", &lo, &hi) != 2 || lo < 1024) {
		snprintf(buf, len, "%s", label);
		return;
	}
	size_tick(log2((double)(lo > 0 ? lo : 1)), a, sizeof(a));
	size_tick(log2((double)hi), b, sizeof(b));
	snprintf(buf, len, "[%s, %s)", lo > 0 ? a : "0", b);
}

int reuse_html(sqlite3 *db, struct html *page)
{
	char b[768];
	struct hist h;
	struct curve c;
	int dists;

	/* without an access count (the clock source) times, counted in samples (the
	 * usability review of 2026-11-28: "Reuse distance" and "% of accesses" there) */
	html_section(page, "reuse", no_counts(db) ? "Reuse time" : "Reuse distance");
	html_kv_begin(page, "reuse-facts");
	html_kv(page, "program", report_program(db, b, sizeof(b)));
	if (*process_note(db, b, sizeof(b)))
		html_kv(page, meta_num(db, "processes_modelled") > 1 ? "processes" : "process", b);
	html_kv(page, "source", db_meta(db, "source", b, sizeof(b)));
	html_kv(page, "mode", meta_num(db, "exact") ? "exact (every access)" : "sampled");
	if (*units_note(db, b, sizeof(b)))
		html_kv(page, "warning", b);
	html_kv(page, "cache", db_meta(db, "cache", b, sizeof(b)));
	html_kv(page, "granularity", db_meta(db, "granularity", b, sizeof(b)));
	html_kv(page, "distances", db_meta(db, "distances", b, sizeof(b)));
	html_kv(page, "watchpoints", db_meta(db, "watch", b, sizeof(b)));
	/* the row "watchpoints" points at (the usability review of 2026-11-29, L1: only the
	 * terminal had it) */
	if (*wide_text(db, b, sizeof(b)))
		html_kv(page, "wide accesses", b);
	char *af = report_arm_fail_text(db);
	if (af)
		html_kv(page, "arm failures", af);
	free(af);
	if (*check_text(db, b, sizeof(b)))
		html_kv(page, "sampling check", b);
	if (!meta_num(db, "exact") &&
	    report_switch_text(db, b, sizeof(b), meta_num(db, "armed") > 0, NULL))
		html_kv(page, "context switches", b);
	snprintf(b, sizeof(b), "%.0f", meta_num(db, "accesses"));
	if (no_counts(db)) {
		char of[300];
		html_kv(page, "samples", samples_of(db, of, sizeof(of)));
		html_kv(page, "accesses", "not counted by this source");
	} else {
		html_kv(page, "accesses", b);
	}
	foot_str(db, b, sizeof(b));
	html_kv(page, "footprint", b);
	html_kv_end(page);

	dists = read_hist(db, "reuse", &h) == 0 && h.n > 2;
	if (!dists && read_hist(db, "time_ns", &h))
		return -EIO;
	hist_fill_gaps(&h);
	const char *labels[REUSE_BINS + 2];
	double pct[REUSE_BINS + 2];
	char shortl[REUSE_BINS + 2][48];
	for (int i = 0; i < h.n; i++) {
		/* distances only: binary prefixes on ns would misread (the review) */
		if (dists)
			short_bin(h.label[i], shortl[i], sizeof(shortl[i]));
		else
			snprintf(shortl[i], sizeof(shortl[i]), "%s", h.label[i]);
		labels[i] = shortl[i];
		pct[i] = 100 * h.frac[i];
	}
	struct html_plot hp = {
		.id = "reuse-histogram",
		.title = dists ? "Reuse distance: share of accesses per bin" :
				 "Reuse time (ns): share of accesses per bin",
		.xlabel = dists ? "distinct elements between use and reuse" : "ns between use and reuse",
		.ylabel = no_counts(db) ? "% of samples" : "% of accesses", .width = 760,
		.decimals = 2,
	};
	double any = 0;
	for (int i = 0; i < h.n; i++)
		any += pct[i];
	if (any > 0)
		html_bar_chart(page, &hp, (size_t)h.n, labels, pct);
	else	/* (an empty chart on a 0-1 axis: the usability review of 2026-11-29, L1) */
		html_para(page, "No histogram: nothing was observed (What it means, below, says "
			  "why).");

	if (dists && !read_curve(db, &c) && c.n) {
		double x[80], y[80], mx[3];
		static const char *const ml[3] = { "L1", "L2", "L3" };
		static const char *const mk[3] = { "l1", "l2", "l3" };
		size_t nm = 0;
		for (int i = 0; i < 3; i++)
			if (meta_num(db, mk[i]) > 0)
				mx[nm++] = log2(meta_num(db, mk[i]));
		/* the range the summary gives a size, drawn (the usability review of
		 * 2026-11-29: the ~ and | ranges were in the text alone): where the size cuts a
		 * bin, its reuses all under or all beyond it; sampled, where the estimated
		 * distances may move them across it (curve_uncertain) */
		double ylo[80], yhi[80];
		int ranged = 0, exact = meta_num(db, "exact") != 0;
		for (int i = 0; i < c.n; i++) {
			double lo = c.lo[i], hi = c.hi[i], ulo, uhi;
			x[i] = log2(c.bytes[i]);
			y[i] = 100 * c.miss[i];
			if (isnan(lo) || isnan(hi))
				lo = hi = c.miss[i];
			if (!exact && curve_uncertain(&c, c.bytes[i], &ulo, &uhi)) {
				lo = fmin(lo, ulo);
				hi = fmax(hi, uhi);
			}
			ylo[i] = 100 * lo;
			yhi[i] = 100 * hi;
			ranged |= yhi[i] - ylo[i] >= 0.5;
		}
		struct html_series ser[3] = {
			{ .name = "miss ratio", .n = (size_t)c.n, .x = x, .y = y },
			{ .name = "upper end", .n = (size_t)c.n, .x = x, .y = yhi },
			{ .name = "lower end", .n = (size_t)c.n, .x = x, .y = ylo },
		};
		struct html_plot mp = {
			.id = "reuse-missratio",
			.title = "Miss ratio of a fully associative LRU cache",
			.xlabel = "cache size (bytes; this machine's L1, L2 and L3 marked)",
			.ylabel = "% of accesses missed", .width = 760, .decimals = 2,
			.xfmt = size_tick, .nmarks = nm, .mark_x = mx, .mark_label = ml,
		};
		html_line_plot(page, &mp, ranged ? 3 : 1, ser);
		if (ranged)
			html_para(page, "Where the summary gives a miss ratio as a range (its ~ and | "
				  "marks), the upper and lower ends are drawn: the reuses of a "
				  "power-of-2 bin a size cuts all under or all beyond it, and, sampled, "
				  "the estimated distances off by up to 2x.");
		char l[3][32];
		for (int i = 0; i < 3; i++)
			size_str(meta_num(db, mk[i]), l[i], sizeof(l[i]));
		html_printf(page, "<p>This machine: L1 %s, L2 %s, L3 %s%s.</p>\n", l[0], l[1], l[2],
			    meta_num(db, "l3_package") > 0 ? " (the whole package's, read from "
			    "CPUID's legacy leaves: a core may share only a part of it)" : "");
	}

	/* the summary's closing paragraphs, the same words: with the clock source they say
	 * what the times cannot tell (the usability review of 2026-11-28: the page showed a
	 * histogram below the registers' resolution without the caveat the terminal gave) */
	char *mbuf = meaning_str(db, dists);
	if (mbuf) {
		html_section(page, "reuse-meaning", "What it means");
		char *save = NULL;
		for (char *l = strtok_r(mbuf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			l += strspn(l, " ");
			if (*l && strcmp(l, "What it means:"))
				html_para(page, l);
		}
		free(mbuf);
	}

	static const char *const heads[] = { "rank", "use", "reuse", "object", "reuses",
					     "long reuses", "median distance in" };
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT rank, use_code, reuse_code, object, reuses, long_reuses,"
				   " median_lo, median_hi FROM reuse_pairs ORDER BY rank", -1, &st,
				NULL))
		return -EIO;
	html_section(page, "reuse-pairs", !long_unknown(db) ?
						  "Reuse pairs (long: beyond L2's size)" :
						  "Reuse pairs (long ones unknown without distances)");
	html_table_begin(page, "reuse-pairs-table", 7, heads, "rllllrr", HTML_SORTABLE);
	int npairs = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		npairs++;
		html_row_begin(page);
		html_td_int(page, sqlite3_column_int64(st, 0));
		for (int i = 1; i <= 3; i++)	/* use, reuse (code), object */
			html_td_name(page, (const char *)sqlite3_column_text(st, i));
		html_td_num(page, sqlite3_column_double(st, 4), 0);
		/* unknown without distances (the clock source): empty, not 0 (until 2026-11-28) */
		report_html_td(page, st, 5, 0);
		if (sqlite3_column_type(st, 6) == SQLITE_NULL) {
			html_td(page, "");
		} else {	/* the bin, as the histogram's rows give it */
			char bin[64], sb[64];
			snprintf(bin, sizeof(bin), "[%lld, %lld)", sqlite3_column_int64(st, 6),
				 sqlite3_column_int64(st, 7));
			short_bin(bin, sb, sizeof(sb));	/* as the histogram's bars read */
			html_td_keyed(page, sb, sqlite3_column_double(st, 6));
		}
		html_row_end(page);
	}
	sqlite3_finalize(st);
	html_table_end(page);
	if (!npairs)
		html_para(page, "No reuse pair: no reuse was observed.");
	return 0;
}
