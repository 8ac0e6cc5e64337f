/* SPDX-License-Identifier: MIT */
/*
 * verdict.h - `sonde bench`'s verdict, kept per user and per machine, and what the other
 * commands take from it.  CLI side (never in libsonde.so).
 *
 * The file (doc/sonde-bench.md, "The verdict file") is the suite's results.csv
 * (source,interval,benchmark,measure,value) plus rows that say whose it is:
 *   *,,machine,cpu,<model name>      *,,machine,kernel,<uname -r>     *,,machine,host,<name>
 * and per source and interval `*` rows: date, period, runs, verdict (the sentence).
 * It lives at $SONDE_VERDICT, else ${XDG_CACHE_HOME:-$HOME/.cache}/sonde/bench-<host>.csv.
 * A file whose CPU model or kernel release differ from this machine's is not used.
 *
 * The recording tools (mem, comm) use it through verdict_debias (called by launch.c): with
 * the clock source they run with the SONDE_EXTRA_STEPS setting that this machine's
 * Bias-Bench found cheapest within VERDICT_MAX_POINTS points of unbiased, unless the user
 * set SONDE_EXTRA_STEPS.  Cheapest is the fewest extra steps: each one is one more access
 * the handler must reach past the sample (decoding, or a single-step trap).
 */
#ifndef SONDE_CMD_VERDICT_H
#define SONDE_CMD_VERDICT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#define VERDICT_DEFAULT_STEPS 8		/* the runtime's own default: src/rt/core.c, doc/sonde.md */
#define VERDICT_MAX_POINTS 10.0		/* every load of Bias-Bench within 10 points of 25 % */
#define VERDICT_MAX_ENTRIES 16
#define VERDICT_MAX_SETTINGS 8

/* One de-biasing setting as Bias-Bench measured it. */
struct verdict_setting {
	char bench[24];		/* the benchmark row: bias, bias-no-steps, bias-steps-N */
	int steps;		/* SONDE_EXTRA_STEPS (1 = no extra step) */
	double bias[4];		/* share of the four loads' samples on each, 0..1 */
	double worst;		/* the largest |share - 25 %|, in points; INFINITY if incomplete */
	double time_ratio;	/* NAN if not recorded */
};

/* One source at one interval. */
struct verdict_entry {
	char source[16], interval[32], date[40];
	double period;		/* ns (clock) or a count; 0 if the file does not say */
	char words[512];	/* the verdict sentence, "" if none */
	int nset;
	struct verdict_setting set[VERDICT_MAX_SETTINGS];	/* by steps, ascending */
};

struct verdict {
	char path[PATH_MAX];
	char cpu[128], kernel[128], host[128];
	int n;
	struct verdict_entry e[VERDICT_MAX_ENTRIES];
};

/* This machine's key: CPU model name and kernel release ("" when unknown). */
void verdict_machine(char *cpu, size_t cpulen, char *kernel, size_t kernlen);

/* Where the verdict file is (see above) into buf.  0, or -ENOENT when neither
 * $SONDE_VERDICT, $XDG_CACHE_HOME nor $HOME says. */
int verdict_path(char *buf, size_t len);

/* Read the verdict file at path into *v.  0, -ENOENT (no file), or -EINVAL (not a verdict
 * file: the reason in err, one line). */
int verdict_read(const char *path, struct verdict *v, char *err, size_t errlen);

/* Build a verdict from figures (sonde bench): verdict_add one row (source, interval,
 * benchmark, measure, value) at a time, then verdict_finish once.  Rows that say nothing
 * about a setting or an entry are ignored. */
void verdict_add(struct verdict *v, char *const *fields);
void verdict_finish(struct verdict *v);

/* 1 if v was measured on this machine (same CPU model and kernel release). */
int verdict_is_this_machine(const struct verdict *v);

/* The cheapest setting of e within VERDICT_MAX_POINTS of unbiased, NULL if none. */
const struct verdict_setting *verdict_choose(const struct verdict_entry *e);

/* The clock entry of v nearest to period ns (0: the runtime's default), NULL if none has
 * Bias-Bench settings. */
const struct verdict_entry *verdict_clock_entry(const struct verdict *v, uint64_t period);

/* What a recording tool does about clock's de-biasing. */
struct verdict_debias {
	int steps;		/* the setting the run uses */
	int export;		/* 1: SONDE_EXTRA_STEPS=steps must be put in the program's env */
	const char *from;	/* "user", "verdict" or "default" */
	char note[1000];	/* the sentence for the reports */
};

/*
 * Decide the setting for a run with sample source `source` (auto, clock, hw, inst) at
 * period (0 = default): the user's $SONDE_EXTRA_STEPS, else this machine's verdict, else
 * the runtime's default.  Returns 0, or -ENOENT when the source cannot be clock (nothing
 * to decide).  Reads the verdict file; prints nothing.
 */
int verdict_debias(const char *source, uint64_t period, struct verdict_debias *d);

/* The recording directory's file of meta rows from the launcher (key=value lines:
 * extra_steps, extra_steps_from, extra_steps_note), which report_build copies into the
 * profile database's meta table (prof/report.c). */
#define VERDICT_LAUNCH_FILE "launch.txt"

/* Write d into DIR/VERDICT_LAUNCH_FILE, whole or not at all (MPI ranks all write it).
 * 0 or -errno. */
int verdict_debias_save(const char *dir, const struct verdict_debias *d);

#endif
