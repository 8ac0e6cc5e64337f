/* SPDX-License-Identifier: MIT */
/*
 * launch.h - running a program under the runtime: the part every recording tool
 * (mem, and later comm, reuse, variance) shares.  CLI side.
 */
#ifndef SONDE_CMD_LAUNCH_H
#define SONDE_CMD_LAUNCH_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

struct launch_opts {
	const char *tool;		/* SONDE_TOOL */
	const char *dir;		/* -o; NULL = default name */
	const char *source;		/* auto|clock|hw|inst */
	uint64_t period;		/* 0 = the source's default */
	uint64_t min_object;		/* 0 = runtime default */
	int max_depth;			/* 0 = runtime default */
	int follow_exec, follow_fork;	/* 1 by default */
	int force;			/* reuse a non-empty output directory */
	uint64_t seed;
	int debug;
	int exact;			/* a tool's --exact (launch_exact) */
	const char *exact_option;	/* the option that asked for it: "--exact" (default), or
					 * one that implies it (comm's "--compare") */
	const char *watch_loss;		/* what a run loses where the debug registers do not
					 * trap and the program has no sonde-cc callbacks (said
					 * before it runs); NULL: the run does not use them */
	int needs_calls;		/* the run times calls (variance): a sonde-cc program
					 * has software breakpoints only if built with
					 * --sonde-calls (its function hooks) */
	/* after the run (record_and_report): */
	int quiet;			/* -q: no summary */
	int top;			/* --top: rows per table in the summary (default 10) */
	const char *html;		/* --html FILE: also write the HTML page */
};

struct launch_result {
	char dir[PATH_MAX];	/* absolute output directory */
	int rank;		/* MPI rank, -1 if none */
	int status;		/* wait status of the program */
	int started;		/* the program was executed */
	int created;		/* the launcher made dir (else the user's, kept) */
};

/* Common option table entries for recording tools (the run, and the summary after it:
 * -q, --top, --html): parse one option.  Returns 1 if it
 * was consumed (optarg used), 0 if not ours, -1 on a bad value (message printed). */
int launch_parse_option(struct launch_opts *o, int opt, const char *arg, const char *cmd);

/* The getopt_long entries launch_parse_option understands (terminated by a zero entry
 * that the caller may extend), and their help text. */
extern const char launch_help[];
#define LAUNCH_LONG_OPTIONS                                        \
	{ "output", required_argument, NULL, 'o' },                 \
	{ "source", required_argument, NULL, 's' },                 \
	{ "period", required_argument, NULL, 'p' },                 \
	{ "min-object", required_argument, NULL, 1001 },            \
	{ "max-depth", required_argument, NULL, 1002 },             \
	{ "no-follow-exec", no_argument, NULL, 1003 },              \
	{ "no-follow-fork", no_argument, NULL, 1004 },              \
	{ "force", no_argument, NULL, 'f' },                        \
	{ "seed", required_argument, NULL, 1005 },                  \
	{ "debug", no_argument, NULL, 1006 },                       \
	{ "quiet", no_argument, NULL, 'q' },                        \
	{ "top", required_argument, NULL, 1007 },                   \
	{ "html", required_argument, NULL, 1008 }

void launch_opts_init(struct launch_opts *o, const char *tool);

struct option;

/*
 * A recording tool's command line (sonde mem, comm, reuse, variance: all read alike),
 * from argv[1]: the shared options into o (launch_parse_option), -h/--help (usage on
 * stdout), and the tool's own: own (its getopt_long entries, zero-terminated; NULL: none)
 * and own_short (its short options besides "o:s:p:fqh"; NULL: none), each handed to
 * own_option(opt, optarg, ctx), which returns 0, or the exit status of a usage error it
 * printed.  Stops at the first operand (the program) or "--".  Returns LAUNCH_ARGS_READ
 * with optind at the program (argc if none: launch_program), else the exit status to
 * give: 0 after --help, EXIT_USAGE after a usage error (printed).
 */
#define LAUNCH_ARGS_READ (-1)
int launch_args(const char *cmd, int argc, char **argv, struct launch_opts *o,
		const struct option *own, const char *own_short,
		int (*own_option)(int opt, const char *arg, void *ctx), void *ctx,
		void (*usage)(FILE *f));

/* After launch_args: 0 when argv[optind] names a program, else the usage error
 * "no program to run" (printed; returns EXIT_USAGE). */
int launch_program(const char *cmd, int argc);

/* s as a whole decimal number in [lo, hi] into *v: 1, else 0 (an option's value). */
int launch_number(const char *s, unsigned long lo, unsigned long hi, unsigned long *v);

/* A tool's --exact: every access of a program built with sonde-cc (source inst, period 1).
 * A usage error (printed; returns EXIT_USAGE) when -s or -p asked for something else;
 * else 0. */
int launch_exact(struct launch_opts *o, const char *cmd);

/* -o DIR given and there, but unusable (not a directory, not empty without --force):
 * said, 1; else 0.  Asked before a run's warnings, so that the one line that matters is
 * not after them (the usability review of 2026-11-29); launch_run checks it again. */
int launch_dir_refused(const struct launch_opts *o);

/*
 * Prepare the output directory and run argv[0] with the runtime preloaded, waiting for it.
 * Returns 0 when the program ran (its wait status in res->status), or an exit status for
 * the CLI: 127 not found, 126 not executable, 1 other failures (message printed).
 */
int launch_run(const struct launch_opts *o, char **argv, struct launch_result *res);

/* The program `name` would run as (a path, else searched in PATH as execvp does) into out:
 * 0, else the errno a shell would report (ENOENT, EACCES, EISDIR). */
int launch_find_program(const char *name, char *out, size_t len);

/* The path of one of sonde's libraries (libsonde.so, libsonde-vsensor.a) into out: from
 * $SONDE_LIBDIR, else beside the sonde executable (a build tree), else in its
 * ../lib/sonde (an installed tree).  0, or -ENOENT. */
int launch_find_lib(const char *name, char *out, size_t len);

/* Exit like the program did: its exit code, or the same signal (no core dump). */
int launch_exit_like(int status);

/* MPI rank from the launcher's environment (Open MPI, PMIx, MPICH/PMI, Slurm), or -1. */
int launch_mpi_rank(void);

#endif
