/* SPDX-License-Identifier: MIT */
/*
 * u-html.c - the HTML report layer (ui/html.h): escaping of text and attributes, JSON
 * embedded in a <script> element that holds "</script>", tables, the heat map's cells and
 * colour scale, and the bar chart, line plot and histogram writers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ui/html.h"
#include "ui/json.h"

/* The page h as one string (caller frees). */
static char *page_text(struct html *h)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r = html_write(h, f);
	fclose(f);
	if (r) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int count(const char *s, const char *needle)
{
	int n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

TEST(escape)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	html_escape(f, "a<b & \"c\" 'd' >e");
	html_escape(f, NULL);
	fclose(f);
	CHECK_STR(buf, "a&lt;b &amp; &quot;c&quot; &#39;d&#39; &gt;e");
	free(buf);
}

TEST(page_text_escaped)
{
	struct html *h = html_new("t<i>tle & co");
	CHECK(h != NULL);
	html_section(h, "s1", "A <section>");
	html_para(h, "x < y && \"z\"");
	html_kv_begin(h, NULL);
	html_kv(h, "k'", "<v>");
	html_kv_end(h);
	char *p = page_text(h);
	CHECK(p != NULL);
	CHECK(strstr(p, "<title>t&lt;i&gt;tle &amp; co</title>") != NULL);
	CHECK(strstr(p, "<h1>t&lt;i&gt;tle &amp; co</h1>") != NULL);
	CHECK(strstr(p, "<h2 id=\"s1\">A &lt;section&gt;</h2>") != NULL);
	CHECK(strstr(p, "<nav><a href=\"#s1\">A &lt;section&gt;</a></nav>") != NULL);
	CHECK(strstr(p, "<p>x &lt; y &amp;&amp; &quot;z&quot;</p>") != NULL);
	CHECK(strstr(p, "<th>k&#39;</th><td>&lt;v&gt;</td>") != NULL);
	CHECK(!strstr(p, "<i>"));
	/* self-contained: nothing loaded from elsewhere */
	CHECK(!strstr(p, " src=") && !strstr(p, "<link"));
	free(p);
	html_free(h);
}

/* A name cell: a long C++ name shortened as the terminal's tables shorten it, the whole
 * name in the title (the trial of 2026-11-28: Ligra's variance page drew rows 10 lines
 * tall); a short one as it is, no title. */
TEST(name_cell_shortened)
{
	struct html *h = html_new("t");
	CHECK(h != NULL);
	static const char *const heads[] = { "function" };
	html_table_begin(h, "f", 1, heads, "l", 0);
	html_row_begin(h);
	html_td_name(h, "void Compute<symmetricVertex, PR_F<symmetricVertex>>(graph<"
			"symmetricVertex>&, commandLine) [clone ._omp_fn.0]");
	html_row_end(h);
	html_row_begin(h);
	html_td_name(h, "main");
	html_row_end(h);
	html_table_end(h);
	char *p = page_text(h);
	CHECK(p != NULL);
	CHECK(p && strstr(p, "<td class=\"name\" title=\"void Compute&lt;symmetricVertex, "
			  "PR_F&lt;symmetricVertex&gt;&gt;(graph&lt;symmetricVertex&gt;&amp;, "
			  "commandLine) [clone ._omp_fn.0]\">void Compute&lt;...&gt;(...) [clone "
			  "._omp_fn.0]</td>") != NULL);
	CHECK(p && strstr(p, "<td class=\"name\">main</td>") != NULL);
	free(p);
	html_free(h);
}

/* A long section title: whole in its heading, cut to 48 bytes with "..." in the bar, not
 * inside a UTF-8 character (a C++ calling context filled the bar: the trial of 2026-11-28). */
TEST(nav_text_cut)
{
	struct html *h = html_new("t");
	CHECK(h != NULL);
	const char *t = "#1 main > tea_solve(Settings&, Chunk*) > cg_calc_w(Chunk*, double*)";
	html_section(h, "f1", t);
	html_section(h, "f2", "01234567890123456789012345678901234567890123\xc3\xa9xyz");
	char *p = page_text(h);
	CHECK(p != NULL);
	CHECK(strstr(p, "<h2 id=\"f1\">#1 main &gt; tea_solve(Settings&amp;, Chunk*) &gt; "
			"cg_calc_w(Chunk*, double*)</h2>") != NULL);
	CHECK(strstr(p, "<a href=\"#f1\">#1 main &gt; tea_solve(Settings&amp;, Chunk*) &gt; "
			"cg_c...</a>") != NULL);
	/* 45 bytes would end inside the two-byte character: cut before it */
	CHECK(strstr(p, "<a href=\"#f2\">01234567890123456789012345678901234567890123...</a>") !=
	      NULL);
	free(p);
	html_free(h);
}

/* A plot's y axis ends on a labelled tick at or above its largest value, for any value
 * (the review of 2026-11-28: 16.1-17.5 ended on 15, 165 of 2000 maxima from 0.01 to 20). */
TEST(y_axis_top_tick)
{
	for (int k = 1; k <= 2000; k++) {
		double v = k / 100.0;
		const char *lab = "x";
		struct html *h = html_new("t");
		struct html_plot p = { .id = "b", .width = 400 };
		html_bar_chart(h, &p, 1, &lab, &v);
		char *page = page_text(h);
		html_free(h);
		double top = -1;
		for (const char *q = page; q && (q = strstr(q, "text-anchor=\"end\">")); q++) {
			double t = atof(q + strlen("text-anchor=\"end\">"));
			top = t > top ? t : top;
		}
		free(page);
		if (!(top >= v - 1e-9)) {
			CHECK(top >= v - 1e-9);
			printf("  maximum %.2f: top label %g\n", v, top);
			break;
		}
	}
}

TEST(embedded_json)
{
	struct html *h = html_new("data");
	struct json *j = html_data_begin(h, "d");
	json_begin_object(j, NULL);
	json_str(j, "evil", "</script><script>alert('&')</script><!--");
	json_int(j, "n", 42);
	json_end_object(j);
	html_data_end(h);
	char *p = page_text(h);
	CHECK(p != NULL);
	const char *start = strstr(p, "<script id=\"d\" type=\"application/json\">\n");
	CHECK(start != NULL);
	if (start) {
		start = strchr(start, '>') + 2;
		const char *end = strstr(start, "</script>");
		CHECK(end != NULL);
		/* the element ends where the writer ended it: right after the value */
		CHECK(end && !strncmp(end - 1, "}</script>", 10));
		CHECK(end && !memchr(start, '<', (size_t)(end - start)));
	}
	CHECK(strstr(p, "{\"evil\":\"\\u003c/script>\\u003cscript>alert('&')\\u003c/script>"
			"\\u003c!--\",\"n\":42}") != NULL);
	/* one data element, nothing else opened a script */
	CHECK(count(p, "<script") == 1);
	free(p);
	html_free(h);
}

TEST(table)
{
	static const char *const heads[] = { "name <x>", "n", "share" };
	struct html *h = html_new("t");
	html_table_begin(h, "tab", 3, heads, "lrr", HTML_SORTABLE);
	html_row_begin(h);
	html_td(h, "a&b");
	html_td_int(h, -7);
	html_td_share(h, 0.625, 2);
	html_row_end(h);
	html_table_end(h);
	char *p = page_text(h);
	CHECK(p != NULL);
	CHECK(strstr(p, "<table id=\"tab\" class=\"sortable\"><thead><tr>"
			"<th class=\"name\">name &lt;x&gt;</th><th>n</th><th>share</th>") != NULL);
	CHECK(strstr(p, "<tr><td class=\"name\">a&amp;b</td><td>-7</td>"
			"<td class=\"share\" data-v=\"0.625\" style=\"--w:62.5%\">62.50%</td></tr>") !=
	      NULL);
	/* a sortable table brings its script */
	CHECK(count(p, "<script>") == 1 && strstr(p, "table.sortable") != NULL);
	free(p);
	html_free(h);
}

TEST(colour_scale)
{
	char lo[8], mid[8], hi[8], below[8], above[8];
	html_colour(0, lo);
	html_colour(0.5, mid);
	html_colour(1, hi);
	html_colour(-3, below);
	html_colour(NAN, above);
	CHECK_STR(lo, "#fff7ec");
	CHECK_STR(hi, "#7f0000");
	CHECK_STR(below, lo);
	CHECK_STR(above, lo);
	/* darker (smaller sum of channels) as the value grows */
	unsigned a, b, c, d, e, f;
	sscanf(lo + 1, "%2x%2x%2x", &a, &b, &c);
	sscanf(mid + 1, "%2x%2x%2x", &d, &e, &f);
	CHECK(d + e + f < a + b + c);
	sscanf(hi + 1, "%2x%2x%2x", &a, &b, &c);
	CHECK(a + b + c < d + e + f);
}

TEST(heatmap)
{
	static const char *const rows[] = { "obj<1>", "obj&2" };
	static const char *const cols[] = { "t0", "t1", "t\"2" };
	const double v[] = { 10, 0, 90, 50, NAN, 25 };
	struct html_heatmap m = { .id = "hm", .title = "M", .nrows = 2, .ncols = 3,
				  .rows = rows, .cols = cols, .v = v, .unit = "%",
				  .decimals = 1 };
	struct html *h = html_new("t");
	html_heatmap(h, &m);
	char *p = page_text(h);
	CHECK(p != NULL);
	CHECK(count(p, "<rect class=\"cell\"") == 6);
	/* hover text: row / column: value, escaped */
	CHECK(strstr(p, "<title>obj&lt;1&gt; / t&quot;2: 90.0%</title>") != NULL);
	CHECK(strstr(p, "<title>obj&amp;2 / t1: no value</title>") != NULL);
	/* the greatest value gets the darkest colour, 0 the lightest, NaN grey and no data-v */
	CHECK(strstr(p, "fill=\"#7f0000\" data-row=\"0\" data-col=\"2\" data-v=\"90\"") != NULL);
	CHECK(strstr(p, "fill=\"#fff7ec\" data-row=\"0\" data-col=\"1\" data-v=\"0\"") != NULL);
	CHECK(strstr(p, "fill=\"#eeeeee\" data-row=\"1\" data-col=\"1\"><title>") != NULL);
	/* a legend from the scale's ends */
	CHECK(strstr(p, ">0.0%</text>") && strstr(p, ">90.0%</text>"));
	CHECK(strstr(p, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" id=\"hm\"") !=
	      NULL);
	free(p);
	html_free(h);
}

TEST(plots)
{
	static const char *const labels[] = { "a<b", "c", "d" };
	const double v[] = { 3, 6, 1.5 };
	const double x[] = { 0, 1, 2, 3 }, y[] = { 1, 4, 9, 16 };
	const double vals[] = { 0, 1, 1, 2, 9, 10 };
	struct html_series s[2] = { { "sq", 4, x, y }, { "lin", 4, x, x } };
	struct html_plot p = { .title = "P", .decimals = 1 };
	struct html *h = html_new("t");
	html_bar_chart(h, &p, 3, labels, v);
	html_line_plot(h, &p, 2, s);
	html_histogram(h, &p, 6, vals, 2);
	char *t = page_text(h);
	CHECK(t != NULL);
	/* bars: one per value, the greatest the tallest, hover escaped */
	CHECK(count(t, "fill=\"#d7301f\" data-v=") == 3);
	CHECK(strstr(t, "<title>a&lt;b: 3.0</title>") != NULL);
	double h6 = 0, h3 = 0;
	const char *b6 = strstr(t, "data-v=\"6\"");
	const char *b3 = strstr(t, "data-v=\"3\"");
	CHECK(b6 && b3);
	if (b6 && b3) {
		const char *r6 = b6, *r3 = b3;
		while (r6 > t && strncmp(r6, "<rect", 5))
			r6--;
		while (r3 > t && strncmp(r3, "<rect", 5))
			r3--;
		sscanf(strstr(r6, "height=\"") + 8, "%lf", &h6);
		sscanf(strstr(r3, "height=\"") + 8, "%lf", &h3);
		CHECK(h6 > 1.9 * h3 && h6 < 2.1 * h3);
	}
	/* curves: one polyline of 4 points per series, points with their values */
	CHECK(count(t, "<polyline") == 2);
	CHECK(count(t, "<circle class=\"point\"") == 8);
	CHECK(strstr(t, "<title>sq (3, 16.0)</title>") != NULL);
	/* histogram: [0, 5) holds 4 values, [5, 10] holds 2 (the maximum included) */
	CHECK(strstr(t, "data-v=\"4\"><title>[0.0, 5.0): 4</title>") != NULL);
	CHECK(strstr(t, "data-v=\"2\"><title>[5.0, 10.0]: 2</title>") != NULL);
	free(t);
	html_free(h);
}

int main(void)
{
	RUN(escape);
	RUN(page_text_escaped);
	RUN(name_cell_shortened);
	RUN(nav_text_cut);
	RUN(y_axis_top_tick);
	RUN(embedded_json);
	RUN(table);
	RUN(colour_scale);
	RUN(heatmap);
	RUN(plots);
	return CHECK_DONE();
}
