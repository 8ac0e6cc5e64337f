/* SPDX-License-Identifier: MIT */
/*
 * report.h - from a raw recording directory to the profile database and the views.
 * Used by `sonde mem` after the program ends and by `sonde report DIR`.
 */
#ifndef SONDE_LIB_REPORT_H
#define SONDE_LIB_REPORT_H

#include <stdint.h>
#include <stdio.h>

enum report_format { REPORT_TEXT, REPORT_CSV, REPORT_JSON };

struct report_opts {
	enum report_format format;
	int top;		/* rows per table in text output (0 = default 10) */
	int quiet;		/* text: only the tables, no header notes */
	/* report_print: after the report, each of the run's warnings (report_notes) to it;
	 * NULL: none (the recording tools gave them at the run) */
	void (*say)(const char *note);
};

/*
 * Read every process (and rank) of the raw recording in dir, symbolize it, and write
 * dir/profile.db and the tool's CSV exports (dir/mem/objects.csv, code.csv, threads.csv...).
 * Replaces earlier outputs.  0, or -errno with a one-line reason (no "sonde:" prefix, no
 * newline) in err: -ENOENT no recording there, -EINVAL corrupt (the reason names the file
 * and offset).  Truncated streams (a program that crashed) are read up to the cut, noted.
 */
int report_build(const char *dir, char *err, size_t errlen);

/* A --top value (rows per table, 1 to 1000000) into *top: 0, or -1 when s is not one. */
int report_parse_top(const char *s, int *top);

/*
 * Print the profile of dir to out in the chosen format, building the database first when
 * it is missing or older than the raw files.  Same errors as report_build.
 */
int report_print(const char *dir, FILE *out, const struct report_opts *o, char *err,
		 size_t errlen);

/*
 * Write the profile of dir as one self-contained HTML page into the file path (the tool's
 * sections, ui/html.h), building the database first as report_print does.  Same errors as
 * report_build; -EINVAL also when the recording's tool has no page; a page that cannot be
 * written gives its errno (reason in err), but -EIO for ENOENT (a missing folder), which
 * means a missing recording here.
 */
int report_html(const char *dir, const char *path, char *err, size_t errlen);

struct sqlite3;

/*
 * The report line on the clock source's de-biasing setting (SONDE_EXTRA_STEPS): prefix,
 * then the profile's meta.extra_steps_note (which setting, and whether the user, this
 * machine's `sonde bench` verdict or the default chose it: cmd/verdict.h), on out.
 * Nothing when the recording's source is not clock or the launcher noted nothing.
 */
void report_debias_line(struct sqlite3 *db, FILE *out, const char *prefix, const char *indent);
/* The same note into buf, or NULL when there is none (the HTML pages' de-bias row). */
const char *report_debias(struct sqlite3 *db, char *buf, size_t len);

/*
 * The report line on the program's context switches: prefix, then meta.switches_per_s and
 * meta.switches, and, from 1,000 a second when the tool held debug-register events (held,
 * and meta.watch_backend "hw"), that a thread pays at each, then hint (NULL: none).
 * Nothing for a recording without them.  For the tools that arm debug registers.
 */
void report_switch_line(struct sqlite3 *db, FILE *out, const char *prefix, int held,
			const char *hint);

/*
 * The report line on the arms the watch engine refused (a debugger or the program holding
 * the thread's debug registers, no descriptor left): prefix, then meta.arm_failures and,
 * when meta.watch_errno is set, the last one's errno by name and message ("12, the last
 * ENOSPC (No space left on device)").  Nothing when there were none.  For the tools that
 * arm watchpoints (comm, reuse, variance).
 */
void report_arm_fail_line(struct sqlite3 *db, FILE *out, const char *prefix,
			  const char *indent);

/* The same line's text, unwrapped (malloc'd; NULL when there were none), for a page. */
char *report_arm_fail_text(struct sqlite3 *db);

/* The note for objects lost in "[heap: untracked small blocks]": its share (0..1) of what
 * ("samples are", "communication is"), with the recording's --min-object (meta min_object,
 * the processes' largest); NULL under 10% or without min_object.  mem and comm. */
const char *report_small_blocks_text(const char *what, double share, uint64_t min_object,
				     char *buf, size_t len);

/* What the user must be told about the recording in dir, one sentence each through say:
 * its records stopped growing (rt/out.c: the disk or SONDE_MAX_SIZE; meta.records_stopped),
 * the program took over runtime descriptors (dup2 onto them: rt/interpose.c;
 * meta.fds_lost).  How many were said. */
int report_notes(const char *dir, void (*say)(const char *note));

/* The source asked for (--source, not auto) that the recording's main process could not
 * use, said through say with the runtime's reason (the header says it too, as a fallback,
 * easily missed: the trial of 2026-11-27).  How many were said (0 or 1). */
int report_source_note(const char *dir, const char *wanted, void (*say)(const char *note));

/* The same sentence (without prefix) in buf, for the HTML pages; NULL when the recording
 * has no switch counts. */
const char *report_switch_text(struct sqlite3 *db, char *buf, size_t len, int held,
			       const char *hint);

struct html;
struct sqlite3_stmt;

/*
 * End an HTML table of a query's rows, for the tools' pages: the caller stepped st,
 * showing rows while ++n <= max; rc is its last sqlite3_step.  The rows past max are
 * counted, "... N more rows in CSV" said after the table when it was cut (csv: the export
 * that holds them all, "mem/objects.csv"), else the paragraph empty (NULL: none) when
 * there was no row; st is finished.  Returns db_finish's result.
 */
int report_html_table_end(struct html *h, struct sqlite3_stmt *st, int rc, int64_t n,
			  int64_t max, const char *csv, const char *empty);

/* A cell of column col of st's row: the integer (decimals < 0) or the number with that
 * many decimals, empty where the value is NULL (not known: a rank outside MPI, a reuse
 * distance without access counts), which sqlite would read as 0. */
void report_html_td(struct html *h, struct sqlite3_stmt *st, int col, int decimals);

/* The program as it was run, for a summary's first line: meta argv (its arguments
 * separated by spaces), else meta exe, else "(unknown program)".  Returns buf. */
const char *report_program(struct sqlite3 *db, char *buf, size_t len);

/* How far a share `p` (0 to 1) of `n` independent samples may lie from the run's own, at
 * 95% (the normal approximation: 1.96 sqrt(p (1 - p) / n)), as a fraction; the most at
 * p = 1/2.  For reports that say how sure their shares are (mem's error line, reuse's
 * few outcomes). */
double report_share_error(double p, double n);

#endif
