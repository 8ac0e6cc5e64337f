/* SPDX-License-Identifier: MIT */
/*
 * comm.h - the comm tool's offline parts: model.c turns the EVENT/EXACT/STATS records of a
 * recording into communication matrices (thread- and core-indexed; all, true and false
 * sharing), object and pair rankings, and writes them to the profile database; view.c
 * exports DIR/comm/ CSV files and prints the report; cmd.c is `sonde comm`.
 */
#ifndef SONDE_TOOLS_COMM_H
#define SONDE_TOOLS_COMM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct profile;
struct report_opts;
struct sqlite3;

enum { COMM_ALL, COMM_TRUE, COMM_FALSE, COMM_NKIND };
enum { COMM_BY_THREAD, COMM_BY_CORE, COMM_NUNIT };

extern const char *const comm_kind_name[COMM_NKIND];	/* "all", "true", "false" */
extern const char *const comm_unit_name[COMM_NUNIT];	/* "thread", "core" */

/* A square symmetric matrix of n x n cells. */
struct comm_matrix {
	uint32_t n;
	uint64_t *cell;		/* n * n */
};

/* Fill db from the recording p (struct tool's fill, model.c). */
int comm_fill(struct sqlite3 *db, const struct profile *p, char *err, size_t errlen);

/* Read matrix unit x kind of part (-1: merged, else the process's index in the recording)
 * back from db (view.c); 0 or -EIO / -ENOMEM.  Free m->cell. */
int comm_db_matrix(struct sqlite3 *db, int part, int unit, int kind, struct comm_matrix *m);
/* The side of part's matrices of unit (view.c). */
uint32_t comm_db_side(struct sqlite3 *db, int part, int unit);
/* The output folder name of part >= 0: "rank-R", or "proc-PID" without a rank; 0 or -EIO
 * (no such part: a recording of one process has none). */
int comm_part_name(struct sqlite3 *db, int part, char *buf, size_t len);

/* DIR/comm/ CSV files (view.c). */
int comm_export(struct sqlite3 *db, const char *dir, char *err, size_t errlen);
/* The report in o->format (view.c). */
int comm_print(struct sqlite3 *db, FILE *out, const struct report_opts *o);
/* The context-switch sentence (prof/report.h) in buf for a run that sampled (not --exact
 * alone), with the watchpoint warning when it armed some; NULL otherwise (view.c). */
const char *comm_switch_text(struct sqlite3 *db, char *buf, size_t len);
/* A sampled recording's warning when it rests on few communication events (and what
 * sampling reaches), into buf; NULL when there is none to give. */
const char *comm_few_text(struct sqlite3 *db, char *buf, size_t len);
/* Where a tenth of the communication or more was between two threads on one CPU at the
 * time of both accesses (no line moved; the core matrix leaves it out: the usability
 * review of 2026-11-29, two threads pinned to one CPU read 343 transfers), that share
 * said, into buf; NULL otherwise (view.c). */
const char *comm_same_cpu_text(struct sqlite3 *db, char *buf, size_t len);
/* "What to do: ..." for the object with the most communication (or the run), into buf:
 * the remedy of its larger kind, undecided where the two readings of a sampled split
 * disagree, nothing to pad where the busiest pair is the OpenMP runtime's, no remedy from
 * fewer than 30 events; NULL where nothing was communicated (view.c). */
const char *comm_what_to_do(struct sqlite3 *db, char *buf, size_t len);
/* A sampled run's second reading of its split (detect.h, comm_covered): the false-sharing
 * share when the chunks each writing instruction is seen storing to count as written, with
 * the byte rule's, into buf; NULL where the two differ by less than COMM_COVERED_POINTS
 * or the run is exact (view.c).  `sampled_`: the --compare run's sampled detector. */
#define COMM_COVERED_POINTS 10.0
const char *comm_covered_text(struct sqlite3 *db, int sampled_keys, char *buf, size_t len);
/* --compare: where the sampled run agrees with the exact one, judged apart: volume within
 * 2x, false-sharing share within 20 points (by the byte rule, and by the second reading
 * where it differs), the thread pattern at a cosine of 0.9 or more (-1: fewer than two
 * thread pairs, not judged).  0 without --compare (view.c). */
struct comm_compare {
	double ratio, exact_false, sampled_false, sampled_covered, cosine;
	int pairs, has_covered, volume_ok, split_ok, covered_ok, pattern_ok;
};
int comm_compare_judge(struct sqlite3 *db, struct comm_compare *c);
/* The verdict as a sentence with the figures ("sampling agrees with the exact count on
 * this run in ...; not in ..."), into buf; NULL without --compare. */
const char *comm_compare_verdict(struct sqlite3 *db, char *buf, size_t len);
/* Whether the recording has a sampled detector's events, with their addresses and code:
 * a sampled run, or --compare's (--exact alone keeps counts only). */
int comm_sampled(struct sqlite3 *db);

/* An --exact run (not --compare) whose objects, lines and code come from one transfer in
 * COMM_XSAMPLE_EVERY recorded whole (since 2026-11-29): 1, else 0. */
int comm_exact_placed(struct sqlite3 *db);
/* --compare whose objects, lines and code are the sampled detector's (not the exact run's:
 * meta names_exact, where the sampled found none) */
int comm_names_sampled(struct sqlite3 *db);
/* The clock's time budget stretched the period: the sampled hits between threads weigh
 * over 5% more than one period each (the unit says "periods", and a shorter --period takes
 * no more samples). */
static inline int comm_stretched(uint64_t hits, uint64_t weight)
{
	return weight * 20 > hits * 21;
}
/* "cosine similarity of the thread matrices: all X, true Y, false Z" into buf (n/a where
 * fewer than two thread pairs communicate in a kind's matrices). */
const char *comm_cosine_text(struct sqlite3 *db, char *buf, size_t len);
/* The tool's HTML page (html.c; struct tool's html). */
struct html;
int comm_html(struct sqlite3 *db, struct html *page);
/* sonde comm (cmd.c). */
int cmd_comm(int argc, char **argv);

#endif
