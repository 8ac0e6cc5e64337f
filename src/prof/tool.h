/* SPDX-License-Identifier: MIT */
/*
 * tool.h - a tool's offline side, and the CLI's table of tools (src/tools/tools.c).
 *
 * A tool is one folder, src/tools/<name>/: its runtime client (rt-*.c, registered in the
 * runtime's table src/rt/tools.c), and here its command, how its model is built from a
 * recording into the profile database, and its views.  `sonde <name>` runs the command;
 * `sonde report DIR` reads the recording's `tool` key and dispatches here.  Every member
 * but name, summary and cmd may be NULL (a tool with no recording of its own, such as
 * analyze, which reads perf.data).  doc/architecture.md: "Adding a tool".
 */
#ifndef SONDE_PROF_TOOL_H
#define SONDE_PROF_TOOL_H

#include <stddef.h>
#include <stdio.h>

#include "prof/report.h"

struct html;
struct profile;
struct sqlite3;

struct tool {
	const char *name;		/* the command, SONDE_TOOL and the recording's `tool` */
	const char *summary;		/* one line for 'sonde --help' */
	int (*cmd)(int argc, char **argv);	/* 'sonde <name> ...'; an exit status */
	/* Model the recording p and fill the open, empty database db: the tool's tables and
	 * `meta` (doc/profile-db.md), in one transaction.  0 or -errno (reason in err). */
	int (*fill)(struct sqlite3 *db, const struct profile *p, char *err, size_t errlen);
	/* Write the tool's CSV files into DIR/<name>/ from the database.  0 or -errno. */
	int (*export)(struct sqlite3 *db, const char *dir, char *err, size_t errlen);
	/* Print the database to out in o->format (text, csv, json).  0 or -errno (-EIO: the
	 * database could not be read; sqlite3_errmsg tells why). */
	int (*print)(struct sqlite3 *db, FILE *out, const struct report_opts *o);
	/* Add the tool's sections to page (ui/html.h: a header of facts, tables, plots, heat
	 * maps), every number read from the database.  0 or -errno (-EIO: the database could
	 * not be read; sqlite3_errmsg tells why).  `sonde report DIR --html FILE`. */
	int (*html)(struct sqlite3 *db, struct html *page);
};

/* Every tool, in the order 'sonde --help' lists them; NULL-terminated. */
extern const struct tool *const tools[];

/* The tool called name, NULL if there is none. */
const struct tool *tool_find(const char *name);

#endif
