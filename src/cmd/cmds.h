/* SPDX-License-Identifier: MIT */
/*
 * cmds.h - subcommands of the sonde CLI (one file each in src/cmd/) and the helpers they
 * share.  Exit statuses (doc/sonde.md): 0 success, 1 failure, 2 usage error,
 * 126/127 the program cannot be run / was not found (as a shell), otherwise the profiled
 * program's own status.
 */
#ifndef SONDE_CMDS_H
#define SONDE_CMDS_H

#include <stdarg.h>

#define EXIT_USAGE 2

int cmd_info(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_record_cycles(int argc, char **argv);

struct launch_opts;
struct report_opts;

/*
 * A recording tool's run once its options are read (record.c): run argv under the
 * runtime with o, then build the profile (its database and CSV files), print it to stderr
 * (o->top rows per table) unless o->quiet, write the HTML page to o->html when set.  Under
 * MPI only rank 0 speaks and nothing is built (`sonde report DIR` does it).  Returns the
 * exit status to give: the program's, or 126/127/1 when it could not run.
 */
int record_and_report(const struct launch_opts *o, char **argv);
/* The usage error for the option getopt_long just refused (optopt, argv[optind - 1]). */
int bad_option(const char *cmd, char **argv);

/* "sonde: <message>" on stderr, one line. */
void sonde_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "sonde: warning: <message>" on stderr. */
void sonde_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print usage error + "try 'sonde CMD --help'" and return EXIT_USAGE. */
int sonde_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
