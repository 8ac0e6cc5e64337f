/* SPDX-License-Identifier: MIT */
/*
 * bench.h - `sonde bench`'s measures, apart from the running (cmd.c): what a microbenchmark
 * says about itself (its stdout), what a recording of it holds (its profile.db), and the
 * figures and statistics made of them.  Pure functions of their inputs, so that the unit
 * test can feed them recorded or synthetic streams (the hw paths on a machine without PMU).
 */
#ifndef SONDE_TOOLS_BENCH_H
#define SONDE_TOOLS_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BENCH_MAX_SITES 8

enum { BENCH_LOAD, BENCH_STORE, BENCH_RMW, BENCH_KINDS };

/* A microbenchmark's own report (src/tools/bench/micro/bench-micro.c, "Output"). */
struct bench_prog {
	int nsites;
	char site[BENCH_MAX_SITES][16];	/* bias1, load, rmw, ... */
	uint64_t where[BENCH_MAX_SITES];	/* run-time ip, or source line if by_line */
	int by_line;
	uint64_t count[BENCH_KINDS];	/* accesses of the loop by construction */
	uint64_t cpu_ns, utime_ns, stime_ns, wall_ns;	/* the loop alone */
	long maxrss_kb;			/* the whole process, at its end */
	int has_time;
};

/* Parse the program's stdout.  0, or -EINVAL if it is not a complete report. */
int bench_prog_parse(FILE *f, struct bench_prog *p);

/* What the recording says. */
struct bench_db {
	char source[16];		/* meta.source: the source that really ran */
	char unit[16];			/* meta.period_unit: ns, events, accesses */
	double period;
	double samples, dropped;	/* weighted, all the program */
	double cpu_ns;			/* sum of threads.cpu_ns */
	double site[BENCH_MAX_SITES];	/* weighted samples on each site of the program */
	double kind[BENCH_KINDS];	/* weighted samples on the sites by access kind */
};

/* Read DIR/profile.db (path given) for the program p.  0 or -errno (reason in err). */
int bench_db_read(const char *path, const struct bench_prog *p, struct bench_db *d, char *err,
		  size_t errlen);

/* Observed / expected samples on the loop's instructions (its sites).  A time period (unit
 * ns, clock, whose cpu-clock timer counts user time only): against the loop's user CPU time
 * (the program's own getrusage) / period.  A count period (events, accesses: hw, inst):
 * against the loop's known accesses / period.  1.0 is exact; NAN if there is nothing to
 * compare with, or fewer than BENCH_MIN_EXPECTED samples were expected: one sample more or
 * less would move it by 5% or more (exec-user at 1 ms, ~1 sample expected a run on a
 * kernel where its loop is 90% system time, read 33 +- 32). */
#define BENCH_MIN_EXPECTED 20.0
double bench_accuracy(const struct bench_prog *p, const struct bench_db *d);

/* Time periods only: all the program's samples against all its threads' CPU time (user and
 * kernel, the sampling's own kernel work included) / period; NAN for count periods. */
double bench_accuracy_cpu(const struct bench_db *d);

/* Share of the sites' samples on site i (0..1), NAN without samples on the sites. */
double bench_site_share(const struct bench_db *d, int nsites, int i);

/* Accuracy of one access kind, for Multi-Event: for a count period, samples of that kind
 * times the period against the known count; for a time period (which cannot count events),
 * the kind's share of samples against its share of the accesses by construction. */
double bench_kind_accuracy(const struct bench_prog *p, const struct bench_db *d, int kind);

/* Statistics over n values (NANs skipped): mean, standard error of the mean (0 for one
 * value), median. */
double bench_mean(const double *v, int n);
double bench_stderr(const double *v, int n);
double bench_median(const double *v, int n);

/*
 * An interval as given to --interval: "900us", "0.9ms", "1ms", "500000ns" (a time, for clock)
 * or a plain number ("1", "100000": ns for clock, accesses for inst, events for hw).
 * Sets *value (ns or count) and *is_time.  0, or -EINVAL.
 */
int bench_parse_interval(const char *s, uint64_t *value, int *is_time);

/* "0.9 ms", "100 us", "every access", "1 in 1000" into buf. */
void bench_interval_name(char *buf, size_t len, uint64_t value, int time_unit);

/* One figure of a suite: a row of results.csv (source,interval,benchmark,measure,value).
 * Rows of benchmark "*" are about the source at that interval: skip, verdict, period,
 * runs, date, extra_steps_choice. */
struct bench_row {
	const char *source;
	char interval[32];
	const char *bench;
	char measure[24];
	double value;
	char text[256];		/* non-empty: a text value (skip reasons, errors) */
};

/* What the page says about the suite as a whole. */
struct bench_facts {
	const char *cpu, *kernel, *host, *date, *load, *verdict_file;
	int runs;
	double seconds;
};

/*
 * The suite as one self-contained HTML page into path (ui/html.h): the verdicts, Bias-Bench's
 * shares as bars per source, interval and setting (25 % each is unbiased), the accuracy of
 * each benchmark against the interval per source, and every figure in a table.  0, or
 * -errno with a one-line reason in err.
 */
int bench_html(const struct bench_row *rows, int n, const struct bench_facts *f,
	       const char *path, char *err, size_t errlen);

#endif
