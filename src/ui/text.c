/* SPDX-License-Identifier: MIT */
/* text.c - aligned text tables.  See text.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ui/text.h"

struct text_table {
	int ncols, nrows, cap;
	char **cells;		/* (nrows + 1) * ncols: the headings first */
	char *align;
};

static char *dup_cell(const char *s)
{
	return strdup(s ? s : "");
}

/* A name cell: shortened when long (a group of 3 characters, "<a>", grows to "<...>": the
 * copy gets room for 5/3 of the name). */
static char *dup_name(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n <= TEXT_NAME_MAX)
		return dup_cell(s);
	char *buf = malloc(2 * n + 1);
	if (!buf)
		return NULL;
	text_short_name(s, TEXT_NAME_MAX, buf, 2 * n + 1);	/* buf: s is long */
	return buf;
}

struct text_table *text_table_new(int ncols, const char *const *headings, const char *align)
{
	struct text_table *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->ncols = ncols;
	t->nrows = -1;	/* the headings are stored as row -1 */
	t->align = strdup(align);
	if (!t->align || text_table_add(t, headings)) {
		text_table_free(t);
		return NULL;
	}
	return t;
}

int text_table_add(struct text_table *t, const char *const *cells)
{
	int need = (t->nrows + 2) * t->ncols;
	if (need > t->cap) {
		int cap = t->cap ? t->cap * 2 : 16 * t->ncols;
		while (cap < need)
			cap *= 2;
		char **c = realloc(t->cells, (size_t)cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		t->cells = c;
		t->cap = cap;
	}
	char **row = t->cells + (size_t)(t->nrows + 1) * t->ncols;
	for (int i = 0; i < t->ncols; i++) {
		/* the headings (row -1) as written */
		row[i] = t->nrows >= 0 && t->align[i] == 'n' ? dup_name(cells[i]) :
							       dup_cell(cells[i]);
		if (!row[i]) {
			while (i--)
				free(row[i]);
			return -ENOMEM;
		}
	}
	t->nrows++;
	return 0;
}

int text_table_rows(const struct text_table *t)
{
	return t->nrows;
}

static void print_row(const struct text_table *t, FILE *f, const char *indent, char **row,
		      const int *w)
{
	int ncols = t->ncols;
	/* trailing empty left-aligned cells would only print spaces */
	while (ncols > 1 && t->align[ncols - 1] != 'r' && !*row[ncols - 1])
		ncols--;
	fputs(indent, f);
	for (int c = 0; c < ncols; c++) {
		if (c)
			fputs("  ", f);
		if (t->align[c] == 'r')
			fprintf(f, "%*s", w[c], row[c]);
		else if (c == ncols - 1)
			fputs(row[c], f);
		else
			fprintf(f, "%-*s", w[c], row[c]);
	}
	fputc('\n', f);
}

void text_table_print(const struct text_table *t, FILE *f, const char *indent)
{
	int *w = calloc((size_t)t->ncols, sizeof(*w));
	if (!w)
		return;
	for (int r = 0; r <= t->nrows; r++)
		for (int c = 0; c < t->ncols; c++) {
			int n = (int)strlen(t->cells[(size_t)r * t->ncols + c]);
			if (n > w[c])
				w[c] = n;
		}
	for (int r = 0; r <= t->nrows; r++)
		print_row(t, f, indent, t->cells + (size_t)r * t->ncols, w);
	free(w);
}

void text_table_free(struct text_table *t)
{
	if (!t)
		return;
	if (t->cells) {
		int n = (t->nrows + 1) * t->ncols;
		for (int i = 0; i < n; i++)
			free(t->cells[i]);
	}
	free(t->cells);
	free(t->align);
	free(t);
}

void text_percent(char *buf, size_t len, double fraction)
{
	double p = fraction * 100.0;
	if (p > 0 && p < 0.05)
		snprintf(buf, len, "<0.1%%");
	else
		snprintf(buf, len, "%.1f%%", p);
}

/* The end of the bracketed group that starts at s[0] ('<' or '('), or NULL if unclosed. */
static const char *group_end(const char *s)
{
	int depth = 0;
	for (; *s; s++) {
		if (*s == '<' || *s == '(')
			depth++;
		else if ((*s == '>' || *s == ')') && --depth == 0)
			return s;
	}
	return NULL;
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && !memcmp(s + n - k, suffix, k);
}

const char *text_short_name(const char *name, size_t max, char *buf, size_t len)
{
	size_t o = 0;
	if (!name || strlen(name) <= max || !len)
		return name;
	for (const char *s = name; *s && o + 1 < len;) {
		if (ends_with(buf, o, "operator")) {
			/* the operator's own symbol: "()", "[]", or a run of punctuation */
			size_t k = (s[0] == '(' && s[1] == ')') || (s[0] == '[' && s[1] == ']') ? 2 :
				   strspn(s, "<>=!+-*/%&|^~,");
			for (size_t i = 0; i < k && o + 1 < len; i++)
				buf[o++] = *s++;
			if (k)
				continue;
		}
		const char *e = (*s == '<' || *s == '(') ? group_end(s) : NULL;
		/* a parameter list follows its name; "(" after a space opens a note the views
		 * add, " (file.c:12)", " (nearest exported symbol)": kept */
		if (!e || e == s + 1 || !strncmp(s, "(anonymous namespace)", 21) ||
		    (*s == '(' && s > name && s[-1] == ' ')) {
			buf[o++] = *s++;
			continue;
		}
		const char *g = *s == '<' ? "<...>" : "(...)";
		for (int i = 0; g[i] && o + 1 < len; i++)
			buf[o++] = g[i];
		s = e + 1;
	}
	buf[o] = 0;
	return buf;
}
