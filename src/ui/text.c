/* SPDX-License-Identifier: MIT */
/* text.c - aligned text tables.  See text.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ui/text.h"

struct text_table {
	int ncols, nrows, cap;
	char **cells;		/* (nrows + 1) * ncols: the headings first */
	char *align;
	unsigned char *group;	/* per row (the headings' first): a group's title row */
	int group_cap;
};

static char *dup_cell(const char *s)
{
	return strdup(s ? s : "");
}

/* A name cell as shown: shortened when long (a group of 3 characters, "<a>", grows to
 * "<...>": the copy gets room for 5/3 of the name). */
static char *short_name(const char *s)
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
		row[i] = dup_cell(cells[i]);	/* names shortened when printed */
		if (!row[i]) {
			while (i--)
				free(row[i]);
			return -ENOMEM;
		}
	}
	t->nrows++;
	if (t->nrows + 1 > t->group_cap) {
		int cap = t->group_cap ? 2 * t->group_cap : 16;
		unsigned char *g = realloc(t->group, (size_t)cap);
		if (!g) {
			t->nrows--;
			for (int i = 0; i < t->ncols; i++)
				free(row[i]);
			return -ENOMEM;
		}
		memset(g + t->group_cap, 0, (size_t)(cap - t->group_cap));
		t->group = g, t->group_cap = cap;
	}
	return 0;
}

int text_table_add_group(struct text_table *t, const char *title)
{
	const char **cells = calloc((size_t)t->ncols, sizeof(*cells));
	if (!cells)
		return -ENOMEM;
	cells[0] = title;
	int r = text_table_add(t, cells);
	free(cells);
	if (!r)
		t->group[t->nrows] = 1;	/* row nrows of the cells, the headings being 0 */
	return r;
}

/* Row r (0: the headings) is a group's title. */
static int is_group(const struct text_table *t, int r)
{
	return r < t->group_cap && t->group[r];
}

int text_table_rows(const struct text_table *t)
{
	return t->nrows;
}

static void print_row(const struct text_table *t, FILE *f, const char *indent, char **row,
		      const int *w, int group)
{
	int ncols = t->ncols;
	if (group) {	/* its title alone, from the first column */
		fprintf(f, "%s%s\n", indent, row[0]);
		return;
	}
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

struct shown {
	const char *name, *full;
	size_t cell;
};

static char *distinct_names(const char *const *full, const int *whole, int n, char **out);

static int shown_cmp(const void *a, const void *b)
{
	return strcmp(((const struct shown *)a)->name, ((const struct shown *)b)->name);
}

/*
 * The cells as printed, in out (same layout as t->cells; the headings as written): the
 * names of an 'n' column shortened (text_short_name), but where two different names
 * shorten to the same string (C++ overloads, template instances) both are shown whole:
 * two rows must not look like one function.  Returns -ENOMEM.
 */
static int shown_cells(const struct text_table *t, char **out)
{
	size_t n = (size_t)(t->nrows + 1) * t->ncols;
	for (size_t i = 0; i < n; i++) {
		int named = i >= (size_t)t->ncols &&
			    (t->align[i % t->ncols] == 'n' || is_group(t, (int)(i / t->ncols)));
		if (!(out[i] = named ? short_name(t->cells[i]) : dup_cell(t->cells[i])))
			return -ENOMEM;
	}
	/* all the name columns as one pool: a name reads the same in every column (the trial
	 * of 2026-11-29: reuse's pairs wrote one function "compute_halfneigh<...>(...)" as
	 * the reuse's source and "compute_halfneigh<0, 1>(...)" as its sink, its column
	 * holding another instance) */
	struct shown *v = malloc(((size_t)t->nrows + 1) * (size_t)t->ncols * sizeof(*v));
	if (!v)
		return -ENOMEM;
	int named = 0;
	for (int c = 0; c < t->ncols; c++)
		named |= t->align[c] == 'n';
	if (named) {
		int k = 0;
		for (int r = 1; r <= t->nrows; r++)
			for (int c = 0; c < t->ncols; c++) {
				size_t i = (size_t)r * t->ncols + c;
				/* shortened */
				if (t->align[c] == 'n' && strcmp(out[i], t->cells[i]))
					v[k++] = (struct shown){ out[i], t->cells[i], i };
			}
		/* a shortened name that equals another row's unshortened one counts too */
		for (int r = 1; r <= t->nrows; r++)
			for (int c = 0; c < t->ncols; c++) {
				size_t i = (size_t)r * t->ncols + c;
				if (t->align[c] == 'n' && !strcmp(out[i], t->cells[i]))
					v[k++] = (struct shown){ out[i], t->cells[i], SIZE_MAX };
			}
		qsort(v, (size_t)k, sizeof(*v), shown_cmp);
		/* each ambiguous group's shortened cells: shortened only where the names
		 * are the same (distinct_names: the template arguments that tell two
		 * instances apart kept), else whole; v's names point into out, so the new
		 * cells are collected first and put in after */
		char **rep = calloc((size_t)k + 1, sizeof(*rep));
		const char **full = calloc((size_t)k + 1, sizeof(*full));
		int *whole = calloc((size_t)k + 1, sizeof(*whole));
		int bad = !rep || !full || !whole;
		for (int a = 0, b; a < k && !bad; a = b) {
			int differ = 0;
			for (b = a + 1; b < k && !strcmp(v[a].name, v[b].name); b++)
				differ |= strcmp(v[a].full, v[b].full) != 0;
			if (!differ)
				continue;
			for (int j = a; j < b; j++) {
				full[j - a] = v[j].full;
				whole[j - a] = v[j].cell == SIZE_MAX;
			}
			if (!distinct_names(full, whole, b - a, rep + a))
				bad = 1;
		}
		for (int j = 0; j < k && !bad; j++)
			if (rep[j] && v[j].cell != SIZE_MAX) {
				free(out[v[j].cell]);
				out[v[j].cell] = rep[j];
				rep[j] = NULL;
			}
		for (int j = 0; rep && j < k; j++)
			free(rep[j]);
		free(rep);
		free(full);
		free(whole);
		if (bad) {
			free(v);
			return -ENOMEM;
		}
	}
	free(v);
	return 0;
}

/* The terminal's width when f is one (its window size, else $COLUMNS), else 0. */
static int terminal_width(FILE *f)
{
	int fd = fileno(f);
	if (fd < 0 || !isatty(fd))
		return 0;
	struct winsize ws;
	if (!ioctl(fd, TIOCGWINSZ, &ws) && ws.ws_col > 0)
		return ws.ws_col;
	const char *c = getenv("COLUMNS");
	int n = c ? atoi(c) : 0;
	return n > 0 ? n : 0;
}

/* On a terminal, a table wider than the screen has the cells of its last column (a
 * left-aligned name: an object, a code location) cut to fit, ending in "...", as perf
 * report does; piped or redirected, every cell is whole.  At least 16 columns are left
 * to it, so a narrow screen still wraps rather than shows nothing.  Cuts shown[] in place
 * (they are the printing copies) and w[] with them. */
static void clip_last_column(const struct text_table *t, FILE *f, const char *indent,
			     char **shown, int *w)
{
	int last = t->ncols - 1, width = terminal_width(f);
	if (width <= 0 || last < 0 || t->align[last] == 'r')
		return;
	int used = (int)strlen(indent);
	for (int c = 0; c < last; c++)
		used += w[c] + 2;
	int room = width - used;
	if (room < 16)
		room = 16;
	if (w[last] <= room)
		return;
	for (int r = 0; r <= t->nrows; r++) {
		char *cell = shown[(size_t)r * t->ncols + last];
		if ((int)strlen(cell) <= room)
			continue;
		int k = room - 3;
		while (k > 0 && ((unsigned char)cell[k] & 0xc0) == 0x80)
			k--;	/* not inside a UTF-8 character */
		memcpy(cell + k, "...", 4);
	}
	w[last] = room;
}

void text_table_print(const struct text_table *t, FILE *f, const char *indent)
{
	size_t n = (size_t)(t->nrows + 1) * t->ncols;
	int *w = calloc((size_t)t->ncols, sizeof(*w));
	char **cells = calloc(n, sizeof(*cells));
	if (!w)
		goto out;
	if (!cells || shown_cells(t, cells)) {
		/* out of memory: the names whole */
		for (size_t i = 0; cells && i < n; i++)
			free(cells[i]);
		free(cells);
		cells = NULL;
	}
	char **shown = cells ? cells : t->cells;
	for (int r = 0; r <= t->nrows; r++)
		for (int c = 0; c < t->ncols && !is_group(t, r); c++) {
			int len = (int)strlen(shown[(size_t)r * t->ncols + c]);
			if (len > w[c])
				w[c] = len;
		}
	if (cells)	/* the printing copies only: never the table's own cells */
		clip_last_column(t, f, indent, cells, w);
	for (int r = 0; r <= t->nrows; r++)
		print_row(t, f, indent, shown + (size_t)r * t->ncols, w, is_group(t, r));
out:
	for (size_t i = 0; cells && i < n; i++)
		free(cells[i]);
	free(cells);
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
	free(t->group);
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

/* A call path still longer than max after its groups were shortened: its first frame,
 * " > ... > ", and as many of its last frames as fit in max (the last one at least), in
 * place (the variance table's contexts made PENNANT's rows 493 columns wide: the trial of
 * 2026-11-28).  Paths of fewer than three frames are left. */
static void elide_frames(char *buf, size_t max)
{
	static const char sep[] = " > ", dots[] = " > ... > ";
	size_t n = strlen(buf);
	char *first = strstr(buf, sep);
	if (n <= max || !first || !strstr(first + 3, sep))
		return;
	size_t head = (size_t)(first - buf);
	/* the last frames: start after a separator, as late as keeps them within max */
	const char *keep = NULL;
	for (char *p = strstr(first + 3, sep); p; p = strstr(p + 3, sep)) {
		keep = p + 3;
		if (head + strlen(dots) + strlen(keep) <= max)
			break;
	}
	if (!keep)
		return;
	memmove(buf + head + strlen(dots), keep, strlen(keep) + 1);
	memcpy(buf + head, dots, strlen(dots));
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
	elide_frames(buf, max);
	return buf;
}

/*
 * Names that shorten alike, shortened only where they are the same.  A bracketed group
 * text_short_name would shorten (a template argument or parameter list; not an empty one,
 * an operator's symbol, "(anonymous namespace)" or a note after a space) is "<...>" where
 * every name has it the same, and opened, its inside treated the same way, where they
 * differ; where the names' layout differs (other text between the groups) each is
 * shortened whole.  `std::_Function_handler<void (), main::{lambda()#1}>::_M_invoke(...)`
 * and `...{lambda()#2}...` (two std::function invokers: 700-character rows in the trial of
 * 2026-11-28) keep their lambdas.
 */
struct piece {
	const char *s;
	size_t n;
	int group;	/* a group text_short_name shortens: s[0] is its bracket */
};

/* s[0..n) cut into literal runs and shortenable groups; at most max pieces: the count, or
 * -1 when there are more. */
static int pieces(const char *s, size_t n, struct piece *p, int max)
{
	int k = 0;
	size_t lit = 0;		/* start of the current literal run */
	for (size_t i = 0; i < n;) {
		const char *c = s + i;
		if (i >= 8 && !memcmp(c - 8, "operator", 8)) {
			/* the operator's own symbol, as text_short_name keeps it */
			size_t sym = (c[0] == '(' && c[1] == ')') || (c[0] == '[' && c[1] == ']') ?
				     2 : strspn(c, "<>=!+-*/%&|^~,");
			if (sym) {
				i += sym < n - i ? sym : n - i;
				continue;
			}
		}
		const char *e = (*c == '<' || *c == '(') ? group_end(c) : NULL;
		if (!e || e >= s + n || e == c + 1 || !strncmp(c, "(anonymous namespace)", 21) ||
		    (*c == '(' && i > 0 && c[-1] == ' ')) {
			i++;
			continue;
		}
		if (k + 2 > max)
			return -1;
		if (i > lit)
			p[k++] = (struct piece){ s + lit, i - lit, 0 };
		p[k++] = (struct piece){ c, (size_t)(e - c) + 1, 1 };
		i = (size_t)(e - s) + 1;
		lit = i;
	}
	if (lit < n) {
		if (k + 1 > max)
			return -1;
		p[k++] = (struct piece){ s + lit, n - lit, 0 };
	}
	return k;
}

#define DISTINCT_PIECES 32
#define DISTINCT_NAMES 16

struct dbuf {
	char *b;
	size_t n, cap;
};

static int dput(struct dbuf *d, const char *s, size_t n)
{
	if (d->n + n + 1 > d->cap) {
		size_t cap = (d->n + n + 1) * 2;
		char *b = realloc(d->b, cap);
		if (!b)
			return -1;
		d->b = b;
		d->cap = cap;
	}
	memcpy(d->b + d->n, s, n);
	d->n += n;
	d->b[d->n] = 0;
	return 0;
}

/* Are the k forms built so far pairwise different? */
static int told_apart(const struct dbuf *out, int k)
{
	for (int i = 0; i < k; i++)
		for (int j = i + 1; j < k; j++)
			if (out[i].n == out[j].n && (!out[i].n || !memcmp(out[i].b, out[j].b, out[i].n)))
				return 0;
	return 1;
}

/* Is piece j the same text in all k names? */
static int same_piece(struct piece (*p)[DISTINCT_PIECES], int k, int j)
{
	for (int i = 1; i < k; i++)
		if (p[i][j].n != p[0][j].n || memcmp(p[i][j].s, p[0][j].s, p[0][j].n))
			return 0;
	return 1;
}

/* s[0..n) of each of the k names into out[i]; depth bounds the recursion. */
static int distinct_into(const char *const *s, const size_t *n, int k, struct dbuf *out,
			 int depth)
{
	struct piece p[DISTINCT_NAMES][DISTINCT_PIECES];
	int np = -1, same = 1, layout = depth < 8;
	for (int i = 0; i < k; i++)
		same &= n[i] == n[0] && !memcmp(s[i], s[0], n[0]);
	for (int i = 0; i < k && layout; i++) {
		int c = pieces(s[i], n[i], p[i], DISTINCT_PIECES);
		layout = c >= 0 && (np < 0 || c == np);
		np = c;
	}
	for (int j = 0; j < np && layout; j++) {
		for (int i = 1; i < k && layout; i++)
			layout = p[i][j].group == p[0][j].group &&
				 (!p[0][j].group || p[i][j].s[0] == p[0][j].s[0]);
		layout = layout && (p[0][j].group || same_piece(p, k, j));
	}
	if (same || !layout) {	/* each shortened whole */
		for (int i = 0; i < k; i++) {
			char *b = malloc(2 * n[i] + 8);
			char *c = b ? strndup(s[i], n[i]) : NULL;
			const char *sh = c ? text_short_name(c, 0, b, 2 * n[i] + 8) : NULL;
			int r = !sh || dput(&out[i], sh, strlen(sh));
			free(c);
			free(b);
			if (r)
				return -1;
		}
		return 0;
	}
	for (int j = 0; j < np; j++) {
		if (!p[0][j].group) {
			for (int i = 0; i < k; i++)
				if (dput(&out[i], p[i][j].s, p[i][j].n))
					return -1;
			continue;
		}
		/* groups after the first that tells the names apart are shortened alike
		 * (`f<double>(double const*)` and `f<double2>(double2 const*)` read
		 * `f<double>(...)` and `f<double2>(...)`) */
		int shorten = told_apart(out, k) || same_piece(p, k, j);
		const char *g = p[0][j].s[0] == '<' ? "<...>" : "(...)";
		for (int i = 0; i < k && shorten; i++)
			if (dput(&out[i], g, 5))
				return -1;
		if (shorten)
			continue;
		const char *in[DISTINCT_NAMES];
		size_t inn[DISTINCT_NAMES];
		for (int i = 0; i < k; i++) {
			in[i] = p[i][j].s + 1;
			inn[i] = p[i][j].n - 2;
			if (dput(&out[i], p[i][j].s, 1))
				return -1;
		}
		if (distinct_into(in, inn, k, out, depth + 1))
			return -1;
		for (int i = 0; i < k; i++)
			if (dput(&out[i], p[i][j].s + p[i][j].n - 1, 1))
				return -1;
	}
	return 0;
}

static const char *const *num_full;	/* number_names' qsort: the names compared */

static int num_cmp(const void *a, const void *b)
{
	return strcmp(num_full[*(const int *)a], num_full[*(const int *)b]);
}

/* For each of the n names not whole: 1 + the number of distinct names not whole before it
 * in strcmp order (malloc'd), or NULL out of memory. */
static int *number_names(const char *const *full, const int *whole, int n)
{
	int *idx = malloc(((size_t)n + 1) * sizeof(*idx)), *num = calloc((size_t)n + 1, sizeof(*num));
	int m = 0;
	if (!idx || !num) {
		free(idx);
		free(num);
		return NULL;
	}
	for (int i = 0; i < n; i++)
		if (!whole[i])
			idx[m++] = i;
	num_full = full;
	qsort(idx, (size_t)m, sizeof(*idx), num_cmp);
	for (int j = 0, k = 0; j < m; j++) {
		if (!j || strcmp(full[idx[j]], full[idx[j - 1]]))
			k++;
		num[idx[j]] = k;
	}
	free(idx);
	return num;
}

/* The longest form distinct_names keeps: past it, numbered short names (below). */
#define DISTINCT_FORM_MAX (4 * TEXT_NAME_MAX)

/* The n names' forms into out[] (malloc'd); out itself, or NULL out of memory.  A name
 * with whole[i] is shown whole anyway (its form is not used, but others' must differ from
 * it).  Forms that still read alike, or any longer than its whole name or than
 * DISTINCT_FORM_MAX, or more than DISTINCT_NAMES names: the short names numbered, "f<...>
 * #1", "f<...> #2" (until 2026-11-28 the whole names: Kripke's RAJA instances made a
 * variance table 5,000 columns wide; the CSV, JSON and page keep the whole names). */
static char *distinct_names(const char *const *full, const int *whole, int n, char **out)
{
	struct dbuf d[DISTINCT_NAMES] = { { 0 } };
	const char *s[DISTINCT_NAMES];
	size_t len[DISTINCT_NAMES];
	int ok = n <= DISTINCT_NAMES;
	for (int i = 0; i < n && ok; i++) {
		s[i] = full[i];
		len[i] = strlen(full[i]);
	}
	if (ok && distinct_into(s, len, n, d, 0)) {
		for (int i = 0; i < n; i++)
			free(d[i].b);
		return NULL;
	}
	for (int i = 0; i < n && ok; i++)
		ok = d[i].b && d[i].n <= len[i] && (whole[i] || d[i].n <= DISTINCT_FORM_MAX);
	for (int i = 0; i < n && ok; i++)
		for (int j = i + 1; j < n && ok; j++)
			ok = strcmp(full[i], full[j]) == 0 ||
			     strcmp(whole[i] ? full[i] : d[i].b, whole[j] ? full[j] : d[j].b) != 0;
	/* numbered forms: by the whole name's order among the group's distinct ones (the
	 * rows of this table that read alike: a number holds within the table) */
	int *num = ok ? NULL : number_names(full, whole, n);
	for (int i = 0; i < n; i++) {
		if (ok) {
			out[i] = d[i].b;
		} else if (whole[i]) {
			out[i] = strdup(full[i]);
		} else {
			char *sn = num ? short_name(full[i]) : NULL;	/* no num: no memory */
			size_t m = sn ? strlen(sn) + 16 : 0;
			out[i] = sn ? malloc(m) : NULL;
			if (out[i])
				snprintf(out[i], m, "%s #%d", sn, num[i]);
			free(sn);
		}
		if (!ok && i < DISTINCT_NAMES)	/* d holds DISTINCT_NAMES (the review) */
			free(d[i].b);
		if (!out[i]) {
			free(num);
			while (i--)
				free(out[i]);
			return NULL;
		}
	}
	free(num);
	return (char *)out;
}

/* A table's name column does it (shown_cells): a column of the names, read back. */
int text_short_names(const char *const *full, int n, char **out)
{
	static const char *const head[] = { "" };
	struct text_table *t = text_table_new(1, head, "n");
	char **cells = t ? calloc((size_t)n + 1, sizeof(*cells)) : NULL;
	int r = cells ? 0 : -ENOMEM;
	for (int i = 0; i < n && !r; i++)
		r = text_table_add(t, &full[i]);
	if (!r)
		r = shown_cells(t, cells);
	for (int i = 0; cells && i <= n; i++) {
		if (i && !r)
			out[i - 1] = cells[i];
		else
			free(cells[i]);
	}
	free(cells);
	if (t)
		text_table_free(t);
	return r ? -ENOMEM : 0;
}

void text_para(FILE *f, const char *indent, const char *text, int width)
{
	if (text[strspn(text, " ")])
		text_hang(f, indent, indent, text, width);
}

void text_hang(FILE *f, const char *first, const char *indent, const char *text, int width)
{
	int col = (int)strlen(first), fresh = 1;	/* fresh: no word on this line yet */
	fputs(first, f);
	for (const char *p = text; *p;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		int n = (int)strcspn(p, " ");
		if (!fresh && col + 1 + n > width) {
			fputc('\n', f);
			fputs(indent, f);
			col = (int)strlen(indent);
			fresh = 1;
		}
		if (!fresh) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, (size_t)n, f);
		col += n;
		p += n;
		fresh = 0;
	}
	fputc('\n', f);
}

void text_fold(FILE *f, const char *text, int width, int extra)
{
	char indent[96];
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n"), lead = strspn(p, " "), cut = 0;
		/* the first line as written (its aligned columns kept) to the last space that
		 * fits, the rest filled below it */
		for (size_t k = lead; k < n && (int)k <= width; k++)
			if (p[k] == ' ')
				cut = k;
		/* a first word wider than the line: cut after it (review of 2026-11-28) */
		for (size_t k = lead; !cut && (int)n > width && k < n; k++)
			if (p[k] == ' ')
				cut = k;
		if ((int)n <= width || !cut || lead + (size_t)extra >= sizeof(indent)) {
			fwrite(p, 1, n, f);
			fputc('\n', f);
		} else {
			size_t end = cut;
			while (end > lead && p[end - 1] == ' ')
				end--;
			fwrite(p, 1, end, f);
			fputc('\n', f);
			char *rest = strndup(p + cut, n - cut);
			snprintf(indent, sizeof(indent), "%*s", (int)(lead + (size_t)extra), "");
			if (rest && rest[strspn(rest, " ")])
				text_hang(f, indent, indent, rest, width);
			free(rest);
		}
		p += n;
		if (*p == '\n')
			p++;
	}
}

FILE *text_fold_open(struct text_folder *tf, FILE *out)
{
	tf->out = out, tf->buf = NULL, tf->len = 0;
	tf->m = open_memstream(&tf->buf, &tf->len);
	return tf->m ? tf->m : out;
}

void text_fold_close(struct text_folder *tf, int width, int extra)
{
	if (!tf->m)
		return;
	if (fclose(tf->m) == 0 && tf->buf)
		text_fold(tf->out, tf->buf, width, extra);
	free(tf->buf);
	tf->m = NULL, tf->buf = NULL;
}

/* s as one word of a POSIX shell command, into buf: as it is when it holds only safe
 * characters, else in single quotes (a ' as '\''): a directory with a space in it was
 * printed bare, and the command pasted into a shell broke (the usability review of
 * 2026-11-27).  Cut to fit buf. */
const char *text_shell_word(const char *s, char *buf, size_t len)
{
	size_t n = 0;
	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "/._-+,:=@%") == strlen(s)) {
		snprintf(buf, len, "%s", s);
		return buf;
	}
	if (len < 3)
		return s;
	buf[n++] = '\'';
	for (; *s && n + 6 < len; s++) {
		if (*s == '\'') {
			memcpy(buf + n, "'\\''", 4);
			n += 4;
		} else {
			buf[n++] = *s;
		}
	}
	buf[n++] = '\'';
	buf[n] = 0;
	return buf;
}
