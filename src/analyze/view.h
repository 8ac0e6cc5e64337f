/* SPDX-License-Identifier: MIT */
/*
 * analyze-view.h - the views of `sonde analyze`: terminal tables, per-function assembly and
 * source, CSV, JSON and one self-contained HTML page.  Writers take the stream or directory
 * to write; they never print diagnostics.  Errors: -errno with a one-line reason.
 */
#ifndef SONDE_LIB_ANALYZE_VIEW_H
#define SONDE_LIB_ANALYZE_VIEW_H

#include <stdio.h>

#include "analyze/analyze.h"
#include "analyze/topdown.h"

struct av_ctx {
	struct analysis *an;
	struct perfdata *pd;
	const struct td_binding *td;	/* NULL or unbound: no accounting columns */
	const char *input;		/* the perf.data path, for headers */
	const char *td_note;		/* why there is no accounting, or NULL */
	size_t ev;			/* the event rows are sorted and shared by */
	int top;			/* rows per table (functions detailed in -o: top too) */
	int depth;			/* tree levels of terminal accounting columns */
	int cycles;			/* branches as cycle counts, not % of unhalted cycles */
};

/* Header, hot processes, modules and functions. */
void av_text_summary(FILE *out, const struct av_ctx *c);

/*
 * One function: basic blocks with their instructions, then source lines; with accounting,
 * each block, instruction and line carries the summary's columns (cycles, branches).
 */
void av_text_function(FILE *out, const struct av_ctx *c, const struct an_func_view *v);

/*
 * Write dir/{summary.json,processes.csv,modules.csv,functions.csv,callgraph.csv,cpus.csv,
 * functions-cpu.csv,functions/N.{asm,bb,src}.csv,index.html}; dir is created.  0 or -errno.
 */
int av_write_dir(const struct av_ctx *c, const char *dir, char *err, size_t errlen);

#endif
