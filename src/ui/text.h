/* SPDX-License-Identifier: MIT */
/*
 * text.h - aligned text tables for terminal reports.  Cells are copied; columns are as
 * wide as their widest cell; 'l' columns are left-aligned, 'r' right-aligned.  The last
 * column is never padded (long names do not push trailing spaces).
 */
#ifndef SONDE_UI_TEXT_H
#define SONDE_UI_TEXT_H

#include <stdio.h>

struct text_table;

/* A name column's longest cell before text_short_name shortens it: what stays readable
 * beside the other columns on a terminal (miniFE's variance table was 1,100 wide). */
#define TEXT_NAME_MAX 60

/*
 * A table of ncols columns with these headings and alignments (a string of ncols 'l', 'r'
 * or 'n').  NULL on allocation failure.
 */
struct text_table *text_table_new(int ncols, const char *const *headings, const char *align);

/* Append a row of ncols cells (NULL is an empty cell); 'n' cells are stored shortened.
 * 0 or -ENOMEM. */
int text_table_add(struct text_table *t, const char *const *cells);

/* Append a group's title row: printed alone from the first column (after the indent),
 * shortened as a name, taking no part in the columns' widths; the rows after it are the
 * group's.  0 or -ENOMEM. */
int text_table_add_group(struct text_table *t, const char *title);

/* Rows added so far. */
int text_table_rows(const struct text_table *t);

/* Print headings and rows, each line prefixed with indent, columns two spaces apart. */
void text_table_print(const struct text_table *t, FILE *f, const char *indent);

void text_table_free(struct text_table *t);

/*
 * name, for a table's name column ('n'), when longer than `max` characters: C++ template
 * arguments and parameter lists become "<...>" and "(...)" ("void ns::f<ns::A<int>,
 * long>(ns::A<int> const&) [clone ._omp_fn.0]" reads "void ns::f<...>(...) [clone
 * ._omp_fn.0]"); operator names ("operator()", "operator<<"), "(anonymous namespace)", a
 * note in parentheses after a space (a code location " (file.c:12)", " (nearest exported
 * symbol)": a parameter list follows its function's name without one) and the rest are
 * kept.  A call path "a > b" keeps its separators.  Returns name itself when it is short enough, else buf (a copy when there
 * was nothing to shorten; cut to len - 1 if need be).  CSV and JSON keep the full names; an
 * HTML name cell (html_td_name) shows this with the full name as its title.
 */
const char *text_short_name(const char *name, size_t max, char *buf, size_t len);

/* n names shortened as a table's name column shortens them: where two different names
 * would read alike (a template's instances) they keep what tells them apart, or are
 * numbered ("f<...> #2").  out[i] is malloc'd (to free).  0, or -ENOMEM (out freed). */
int text_short_names(const char *const *full, int n, char **out);

/* A share in percent with one decimal ("12.3%"), "<0.1%" for small non-zero values. */
void text_percent(char *buf, size_t len, double fraction);

/* s as one word of a POSIX shell command, into buf (single quotes where needed; cut to
 * fit); returns buf, or s where buf cannot hold even the quotes. */
const char *text_shell_word(const char *s, char *buf, size_t len);

/* text printed as a paragraph: words filled to lines of at most width columns (a longer
 * word alone on its line), each line starting with indent. */
void text_para(FILE *f, const char *indent, const char *text, int width);

/* The same with a first line of its own: first (a label, "  scaling: ") then the words,
 * the lines after it starting with indent (deeper, so the label stands out). */
void text_hang(FILE *f, const char *first, const char *indent, const char *text, int width);

/* text (lines ending in '\n') with each line longer than width filled again to width, its
 * own leading spaces starting every line it becomes, plus extra on the lines after its
 * first: a summary written a line a fact, fitted to a terminal. */
void text_fold(FILE *f, const char *text, int width, int extra);

/* Folding what a function prints: write to the stream text_fold_open returns (memory; out
 * itself if that cannot be had), then text_fold_close folds it onto out. */
struct text_folder {
	FILE *out, *m;
	char *buf;
	size_t len;
};
FILE *text_fold_open(struct text_folder *tf, FILE *out);
void text_fold_close(struct text_folder *tf, int width, int extra);

#endif
