/* SPDX-License-Identifier: MIT */
/* analyze-viewint.h - helpers shared by the analyze views (text, files, HTML); internal. */
#ifndef SONDE_LIB_ANALYZE_VIEWINT_H
#define SONDE_LIB_ANALYZE_VIEWINT_H

#include "analyze/view.h"

#define AV_MAX_NODES 256
#define AV_LABW 24		/* a column label, NUL included */
#define AV_LEAFMAX 16		/* longest label made from one branch name */

/* The accounting columns shown in the terminal: live nodes within --depth, in tree order. */
struct av_cols {
	size_t n;
	int node[AV_MAX_NODES];		/* template node of each column */
	int width[AV_MAX_NODES];	/* cell width: the label's, at least 7 (9 with --cycles) */
	char label[AV_MAX_NODES][AV_LABW];
};

/* Share of row r in the sort event's total period, in %. */
double av_share(const struct av_ctx *c, const struct an_row *r);
int av_has_td(const struct av_ctx *c);
/* Is accounting node i shown as a column (live, within --depth)? */
int av_column(const struct av_ctx *c, size_t node);
/* Accounting of a row: vals[nnodes] and its cycles, in cycle-event samples. */
void av_eval(const struct av_ctx *c, const uint64_t *samples, int64_t *vals, int64_t *cycles);
const char *av_basename(const char *path);

/*
 * Short column labels of every node of m, unique in m whatever --depth shows: the branch
 * name with its words abbreviated ("stalled/load_latency" -> "load_lat"), prefixed by its
 * parents' labels where two branches would read the same ("dtlb/stlb_hit").  labels has
 * m->nnodes entries (at most AV_MAX_NODES are labelled).
 */
void av_labels(const struct td_model *m, char (*labels)[AV_LABW]);
/* The columns of c (n = 0 without accounting). */
void av_cols_init(const struct av_ctx *c, struct av_cols *cols);

#endif
