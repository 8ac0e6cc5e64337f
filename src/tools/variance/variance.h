/* SPDX-License-Identifier: MIT */
/*
 * variance.h - the variance tool's offline parts: model.c turns the INST/SAMPLE/STATS
 * records of a recording into per-(calling context, function) statistics (Welford per
 * thread, merged across threads and ranks with Chan's formula), per-thread means and a
 * bounded reservoir of instances, in the profile database; view.c exports DIR/variance/
 * CSV files, prints the ranked table and the timeline, and builds the HTML page; cmd.c is
 * `sonde variance`.
 */
#ifndef SONDE_TOOLS_VARIANCE_H
#define SONDE_TOOLS_VARIANCE_H

#include <stddef.h>
#include <stdio.h>

#include "tools/variance/format.h"

struct html;
struct profile;
struct report_opts;
struct sqlite3;

#define VAR_RESERVOIR 1000	/* instances kept per (context, function) for timelines */

/* The paper's guidance (FVSampler, Table 1): investigate iff over 10% of the time and a CV
 * over 20% within threads or over 10% across threads. */
#define VAR_SHARE_MIN 0.10
#define VAR_CV_INTRA 0.20
#define VAR_CV_INTER 0.10

/* The resolution (model.c, key_resolution): on debug registers this fraction of the traps'
 * calibrated cost, through sonde-cc's hooks this multiple of their clock reads'. */
#define VAR_RES_FRACTION 0.25
#define VAR_SOFT_RES_FRACTION 2.0

extern const char *const var_metric_name[VAR_NMETRIC];	/* "time", "cpu-time", ... */

/* The metric called name, -1 if none. */
int var_metric_find(const char *name);

int var_fill(struct sqlite3 *db, const struct profile *p, char *err, size_t errlen);
int var_export(struct sqlite3 *db, const char *dir, char *err, size_t errlen);
int var_print(struct sqlite3 *db, FILE *out, const struct report_opts *o);
int var_html(struct sqlite3 *db, struct html *page);
/* `sonde variance --timeline FUNC DIR`: 0 or an exit status. */
int var_timeline(const char *func, const char *dir, FILE *out);

#endif
