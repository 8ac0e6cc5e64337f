/* SPDX-License-Identifier: MIT */
/* analyze-viewint.h - helpers shared by the analyze views (text, files, HTML); internal. */
#ifndef SONDE_LIB_ANALYZE_VIEWINT_H
#define SONDE_LIB_ANALYZE_VIEWINT_H

#include "lib/analyze-view.h"

#define AV_COLW 9
#define AV_MAX_NODES 256

/* Share of row r in the sort event's total period, in %. */
double av_share(const struct av_ctx *c, const struct an_row *r);
int av_has_td(const struct av_ctx *c);
/* Is accounting node i shown as a column (live, within --depth)? */
int av_column(const struct av_ctx *c, size_t node);
/* Accounting of a row: vals[nnodes] and its cycles, in cycle-event samples. */
void av_eval(const struct av_ctx *c, const uint64_t *samples, int64_t *vals, int64_t *cycles);
const char *av_basename(const char *path);

#endif
