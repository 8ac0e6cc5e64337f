/* SPDX-License-Identifier: MIT */
/*
 * html.h - one self-contained HTML page: the report layer every tool's page is written on
 * (`sonde report DIR --html FILE`, `sonde analyze -o DIR`'s index.html).
 *
 * A page is built in memory, then written whole: the skeleton (title, style, a navigation
 * bar of the sections), the body the writers below appended, the embedded data and the
 * scripts.  Nothing is loaded from elsewhere (no external script, style, font or image):
 * the file works offline and can be mailed.
 *
 * Writers append to the body in call order.  Text arguments are escaped here unless the
 * function says "markup" (html_raw, html_printf: the caller writes well-formed HTML).
 * Writers never fail on their own: a failed allocation is remembered and reported by
 * html_write.  Nothing here prints; nothing may run in a signal handler.
 *
 * Adding a tool's page (prof/tool.h, member html): sections with html_section, tables with
 * html_table_begin/html_td*, plots with html_bar_chart/html_line_plot/html_histogram/
 * html_heatmap, data for scripts with html_data_begin.
 */
#ifndef SONDE_UI_HTML_H
#define SONDE_UI_HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct html;
struct json;

/* ---- the page ---- */

/* A new, empty page titled title (also its <h1>).  NULL when out of memory. */
struct html *html_new(const char *title);
void html_free(struct html *h);

/* Extra CSS rules (markup: written as given into the page's <style>). */
void html_style(struct html *h, const char *css);
/* An inline script (markup), run after the body and the embedded data, in call order. */
void html_script(struct html *h, const char *js);
/* A link in the navigation bar to another page (href as given, escaped). */
void html_nav_link(struct html *h, const char *href, const char *text);

/*
 * Write the whole page to out.  0, -ENOMEM (a writer ran out of memory: the page would be
 * incomplete, nothing is written) or -EIO (out failed).  The page stays valid.
 */
int html_write(struct html *h, FILE *out);
/* html_write into a new file path; 0 or -errno with a one-line reason in err. */
int html_save(struct html *h, const char *path, char *err, size_t errlen);
/* The first plot written on h, as a standalone SVG file (the plot styles inside it; no
 * caption): for a figure a user keeps or embeds.  0, or -errno with err filled. */
int html_svg_save(struct html *h, const char *path, char *err, size_t errlen);

/* ---- text ---- */

/* s with & < > " ' as entities, on f (for text and attribute values; NULL writes ""). */
void html_escape(FILE *f, const char *s);
/* The body's stream, for markup the writers do not cover (valid until html_free). */
FILE *html_body(struct html *h);
void html_raw(struct html *h, const char *markup);
void html_printf(struct html *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Escaped text. */
void html_text(struct html *h, const char *s);
/* A paragraph of escaped text. */
void html_para(struct html *h, const char *s);
/* A section heading <h2 id=id> with a link to it in the navigation bar. */
void html_section(struct html *h, const char *id, const char *title);

/* A two-column key/value list (a header of facts): begin, one html_kv per line, end. */
void html_kv_begin(struct html *h, const char *id);
void html_kv(struct html *h, const char *key, const char *value);
void html_kv_end(struct html *h);

/* ---- tables ---- */

#define HTML_SORTABLE 1u	/* click a heading to sort by it (numbers by value) */

/*
 * A table with ncols columns: heads[i] its headings, align[i] 'l' or 'r' (NULL: first
 * column left, the others right), id the element's id (NULL: none).  Then rows:
 * html_row_begin, one html_td* per column, html_row_end; then html_table_end.
 */
void html_table_begin(struct html *h, const char *id, int ncols, const char *const *heads,
		      const char *align, unsigned flags);
void html_row_begin(struct html *h);
void html_td(struct html *h, const char *text);
/* A text cell sorted by a number (a bin "[256, 512)" by its lower end). */
void html_td_keyed(struct html *h, const char *text, double key);
/* A name cell (a function, a calling context): C++ names shortened as the terminal's
 * tables shorten them (text_short_name), the whole name in the cell's title (shown on
 * hover).  The trial of 2026-11-28: Ligra's variance page drew rows 10 lines tall. */
void html_td_name(struct html *h, const char *name);
void html_td_int(struct html *h, int64_t v);
void html_td_num(struct html *h, double v, int decimals);
/* A share (0..1) as a percentage with `decimals` digits and a bar of its width. */
void html_td_share(struct html *h, double share, int decimals);
void html_row_end(struct html *h);
void html_table_end(struct html *h);

/* ---- plots (inline SVG; values on hover) ---- */

/*
 * The colour of t in [0, 1] on the pages' sequential scale (light for 0, dark red for 1),
 * as "#rrggbb" into out[8].  Values outside are clamped.
 */
void html_colour(double t, char out[8]);

struct html_plot {
	const char *id;		/* the <svg>'s id, or NULL */
	const char *title;	/* caption above, or NULL */
	const char *xlabel, *ylabel;	/* axis titles, or NULL */
	int width, height;	/* pixels; 0: 640 x 260 */
	int decimals;		/* digits after the point in hover values */
	/* line plots: the x ticks' labels from their values (NULL: the values), and vertical
	 * marks at nmarks x values, each with its label (a cache size on a size axis) */
	void (*xfmt)(double x, char *buf, size_t len);
	size_t nmarks;
	const double *mark_x;
	const char *const *mark_label;
	int bar_series;		/* bar charts: each bar in the line plots' series colours
				 * (kinds side by side), else all in the one red */
};

/* Bars for n labelled values (negative values are drawn as 0). */
void html_bar_chart(struct html *h, const struct html_plot *p, size_t n,
		    const char *const *labels, const double *v);

struct html_series {
	const char *name;	/* legend, or NULL */
	size_t n;
	const double *x, *y;	/* n points, x ascending */
};

/* Curves of nseries series on shared axes. */
void html_line_plot(struct html *h, const struct html_plot *p, size_t nseries,
		    const struct html_series *s);

/* The distribution of n values in nbins equal bins between their minimum and maximum. */
void html_histogram(struct html *h, const struct html_plot *p, size_t n, const double *values,
		    int nbins);

struct html_heatmap {
	const char *id;		/* the <svg>'s id, or NULL */
	const char *title;	/* caption, or NULL */
	const char *xlabel, *ylabel;	/* what the columns and rows are, or NULL */
	size_t nrows, ncols;
	const char *const *rows, *const *cols;	/* labels */
	const double *v;	/* nrows * ncols values, row-major; NaN: no value (grey) */
	const char *unit;	/* after values ("%"), or NULL */
	int decimals;
	double lo, hi;		/* the colour scale's ends (lo light, hi dark; lo > hi
				 * turns the scale round); both 0: from the values */
	const unsigned char *mark;	/* nrows * ncols flags, or NULL: non-zero cells are
					 * outlined (class "cell marked"), e.g. flagged events */
};

/*
 * A matrix of coloured cells, the scale from lo to hi (else from min(0, least value) to the
 * greatest, values outside clamped), a legend,
 * each cell's row, column and value on hover (and in the cell when it is large enough).
 * Cells carry class "cell" and data-row, data-col, data-v attributes for scripts.
 */
void html_heatmap(struct html *h, const struct html_heatmap *m);

/* ---- embedded data ---- */

/*
 * Start a <script type="application/json" id=id> element and return a compact JSON writer
 * on it (ui/json.h; '<' escaped, so strings may hold "</script>").  Write one value, then
 * html_data_end.  Scripts read it with JSON.parse(document.getElementById(id).textContent).
 */
struct json *html_data_begin(struct html *h, const char *id);
void html_data_end(struct html *h);

#endif
