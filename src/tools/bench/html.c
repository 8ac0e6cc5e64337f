/* SPDX-License-Identifier: MIT */
/*
 * html.c - `sonde bench --html FILE`: the suite as one page on the shared report layer
 * (ui/html.h).  Everything on it comes from the suite's rows (bench.h, struct bench_row),
 * the same ones results.csv holds.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/bench/bench.h"
#include "ui/html.h"

#define MAX_CFG 32
#define MAX_BIAS 8

/* One source at one interval of the suite. */
struct cfg {
	const char *source;
	const char *interval;
	double period;		/* the `*` period row; NAN if skipped */
};

static int configs(const struct bench_row *rows, int n, struct cfg *c)
{
	int k = 0;
	for (int i = 0; i < n; i++) {
		int j = 0;
		while (j < k && (strcmp(c[j].source, rows[i].source) ||
				 strcmp(c[j].interval, rows[i].interval)))
			j++;
		if (j == k && k < MAX_CFG && strcmp(rows[i].source, "*"))
			c[k++] = (struct cfg){ rows[i].source, rows[i].interval, NAN };
		if (j < k && !strcmp(rows[i].bench, "*") && !strcmp(rows[i].measure, "period"))
			c[j].period = rows[i].value;
	}
	return k;
}

static const struct bench_row *find(const struct bench_row *rows, int n, const struct cfg *c,
				    const char *bench, const char *measure)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(rows[i].source, c->source) && !strcmp(rows[i].interval, c->interval) &&
		    !strcmp(rows[i].bench, bench) && !strcmp(rows[i].measure, measure))
			return &rows[i];
	return NULL;
}

static double value(const struct bench_row *rows, int n, const struct cfg *c, const char *bench,
		    const char *measure)
{
	const struct bench_row *r = find(rows, n, c, bench, measure);
	return r && !r->text[0] ? r->value : NAN;
}

static void header(struct html *h, const struct bench_facts *f)
{
	char b[64];
	html_kv_begin(h, "header");
	html_kv(h, "CPU", f->cpu);
	html_kv(h, "kernel", f->kernel);
	html_kv(h, "host", f->host);
	html_kv(h, "date", f->date);
	snprintf(b, sizeof(b), "%d per benchmark and interval", f->runs);
	html_kv(h, "runs", b);
	snprintf(b, sizeof(b), "%.0f s, load average %s", f->seconds, f->load);
	html_kv(h, "duration", b);
	html_kv(h, "verdict file", f->verdict_file && *f->verdict_file ? f->verdict_file :
		"(not saved)");
	html_kv_end(h);
}

static void verdicts(struct html *h, const struct bench_row *rows, int n)
{
	html_section(h, "verdicts", "Verdicts");
	for (int i = 0; i < n; i++)
		if (!strcmp(rows[i].bench, "*") && !strcmp(rows[i].measure, "verdict"))
			html_para(h, rows[i].text);
}

/* One Bias-Bench chart: the four shares of benchmark `bench` (a bias row) of c. */
static void bias_chart(struct html *h, const struct bench_row *rows, int n, const struct cfg *c,
		       const char *bench, const char *id)
{
	static const char *const labels[] = { "load 1", "load 2", "load 3", "load 4" };
	double v[4], worst = 0;
	for (int j = 0; j < 4; j++) {
		char m[8];
		snprintf(m, sizeof(m), "bias%d", j + 1);
		v[j] = value(rows, n, c, bench, m) * 100;
		worst = fmax(worst, fabs(v[j] - 25));
	}
	double steps = value(rows, n, c, bench, "extra_steps");
	char title[160], st[48] = "";
	if (!isnan(steps))
		snprintf(st, sizeof(st), "%.0f extra step%s: ", steps, steps == 1 ? " (none)" : "s");
	snprintf(title, sizeof(title), "%s%s at %s: %.1f points off", st, c->source, c->interval,
		 worst);
	struct html_plot p = { .id = id, .title = title, .xlabel = "load", .ylabel = "% of samples",
			       .width = 300, .height = 180, .decimals = 1 };
	html_bar_chart(h, &p, 4, labels, v);
}

struct bias_bench {
	const char *bench;
	double steps;
};

static int by_steps(const void *a, const void *b)
{
	const struct bias_bench *x = a, *y = b;
	return (x->steps > y->steps) - (x->steps < y->steps);
}

/* Bias-Bench's four shares: a row of charts per source and interval, one per setting. */
static void bias(struct html *h, const struct bench_row *rows, int n, const struct cfg *c,
		 int nc)
{
	html_section(h, "bias", "Bias-Bench");
	html_para(h, "Share of the samples on each of four identical loads in one loop (percent): "
		     "25 each is unbiased.  For clock, one chart per de-biasing setting "
		     "(SONDE_EXTRA_STEPS: 1 is none), fewest steps first; mem and comm take the "
		     "first one within 10 points of 25 on every load.");
	html_style(h, ".bias-row{display:flex;flex-wrap:wrap;gap:0 2em}\n");
	for (int k = 0; k < nc; k++) {
		struct bias_bench b[MAX_BIAS];
		int nb = 0;
		for (int i = 0; i < n && nb < MAX_BIAS; i++) {
			const struct bench_row *r = &rows[i];
			if (!strcmp(r->source, c[k].source) && !strcmp(r->interval, c[k].interval) &&
			    !strncmp(r->bench, "bias", 4) && !strcmp(r->measure, "bias1")) {
				double st = value(rows, n, &c[k], r->bench, "extra_steps");
				b[nb++] = (struct bias_bench){ r->bench, isnan(st) ? 0 : st };
			}
		}
		if (!nb)
			continue;
		qsort(b, (size_t)nb, sizeof(b[0]), by_steps);
		html_raw(h, "<div class=\"bias-row\">");
		for (int i = 0; i < nb; i++) {
			char id[64];
			snprintf(id, sizeof(id), "bias-%d-%d", k, i);
			bias_chart(h, rows, n, &c[k], b[i].bench, id);
		}
		html_raw(h, "</div>\n");
	}
}

static int by_period(const void *a, const void *b)
{
	const struct cfg *x = a, *y = b;
	return (x->period > y->period) - (x->period < y->period);
}

/* Per source: each benchmark's accuracy against the interval. */
static void accuracy(struct html *h, const struct bench_row *rows, int n, const struct cfg *c,
		     int nc)
{
	static const char *const benches[] = { "load-ratio", "locked-load", "bias", "multi-event",
					       "exec-user" };
	enum { NB = sizeof(benches) / sizeof(benches[0]) };
	html_section(h, "accuracy", "Accuracy against the interval");
	html_para(h, "Samples seen on the loop over samples expected (1 is exact), per benchmark. "
		     "clock: expected from the loop's user CPU time / interval; inst and hw: from "
		     "its accesses by construction / interval.  Run sonde bench -i with several "
		     "intervals for a curve.");
	const char *done[MAX_CFG];
	int ndone = 0;
	for (int k = 0; k < nc; k++) {
		int seen = 0;
		for (int d = 0; d < ndone; d++)
			seen |= !strcmp(done[d], c[k].source);
		if (seen || isnan(c[k].period))
			continue;
		done[ndone++] = c[k].source;
		struct cfg sc[MAX_CFG];
		int m = 0;
		for (int j = 0; j < nc; j++)
			if (!strcmp(c[j].source, c[k].source) && !isnan(c[j].period))
				sc[m++] = c[j];
		qsort(sc, (size_t)m, sizeof(sc[0]), by_period);
		int time_unit = !strcmp(c[k].source, "clock");
		double x[MAX_CFG], y[NB][MAX_CFG];
		struct html_series s[NB];
		size_t ns = 0;
		for (int j = 0; j < m; j++)
			x[j] = time_unit ? sc[j].period / 1000 : sc[j].period;
		for (int b = 0; b < NB; b++) {
			int any = 0;
			for (int j = 0; j < m; j++) {
				y[b][j] = value(rows, n, &sc[j], benches[b], "accuracy");
				any |= !isnan(y[b][j]);
			}
			if (any)
				s[ns++] = (struct html_series){ benches[b], (size_t)m, x, y[b] };
		}
		if (!ns)
			continue;
		char title[96], id[64];
		snprintf(title, sizeof(title), "%s: accuracy against the interval", c[k].source);
		snprintf(id, sizeof(id), "accuracy-%s", c[k].source);
		struct html_plot p = { .id = id, .title = title, .decimals = 3,
				       .xlabel = time_unit ? "interval (us of CPU time)" :
						 "interval (accesses or events)",
				       .ylabel = "accuracy" };
		html_line_plot(h, &p, ns, s);
	}
}

static void figures(struct html *h, const struct bench_row *rows, int n)
{
	static const char *const heads[] = { "source", "interval", "benchmark", "measure",
					     "value" };
	html_section(h, "figures", "Every figure (results.csv)");
	html_table_begin(h, "figures-table", 5, heads, "llllr", HTML_SORTABLE);
	for (int i = 0; i < n; i++) {
		const struct bench_row *r = &rows[i];
		html_row_begin(h);
		html_td(h, r->source);
		html_td(h, r->interval);
		html_td(h, r->bench);
		html_td(h, r->measure);
		if (r->text[0])
			html_td(h, r->text);
		else if (isnan(r->value))
			html_td(h, "");
		else
			html_td_num(h, r->value, 4);
		html_row_end(h);
	}
	html_table_end(h);
}

int bench_html(const struct bench_row *rows, int n, const struct bench_facts *f,
	       const char *path, char *err, size_t errlen)
{
	struct cfg c[MAX_CFG];
	int nc = configs(rows, n, c);
	struct html *h = html_new("sonde bench");
	if (!h) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	header(h, f);
	verdicts(h, rows, n);
	bias(h, rows, n, c, nc);
	accuracy(h, rows, n, c, nc);
	figures(h, rows, n);
	int r = html_save(h, path, err, errlen);
	html_free(h);
	return r;
}
