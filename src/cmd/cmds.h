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

/* "sonde: <message>" on stderr, one line. */
void sonde_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "sonde: warning: <message>" on stderr. */
void sonde_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print usage error + "try 'sonde CMD --help'" and return EXIT_USAGE. */
int sonde_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
