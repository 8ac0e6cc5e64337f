/* SPDX-License-Identifier: MIT */
/* mem.c - `sonde mem`: which code and which data objects do the memory accesses. */
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "cmd/launch.h"
#include "prof/errmsg.h"
#include "prof/report.h"
#include "prof/tool.h"
#include "tools/mem/mem.h"
#include "tools/mem/model.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sonde mem [options] [--] program [args]\n\n"
		"Runs the program with sampling on every thread and reports which data objects\n"
		"(heap blocks by allocation site, static variables, stacks) and which code\n"
		"locations do the memory accesses, with the load/store split and each thread's\n"
		"share.  The program's stdin, stdout and stderr are untouched; the summary goes to\n"
		"stderr; the exit status is the program's.\n\n"
		"Options:\n%s"
		"  -h, --help            this text\n\n"
		"Output: DIR/profile.db (SQLite), DIR/mem/objects.csv, code.csv, threads.csv,\n"
		"object_code.csv (which lines access each object).\n"
		"Show it again with 'sonde report DIR'.  Manual: man sonde-mem\n"
		"(doc/sonde-mem.md); environment (SONDE_EXTRA_STEPS, SONDE_CLOCK_INHERIT,\n"
		"SONDE_MAX_SIZE, ...): doc/sonde.md.\n",
		launch_help);
}

int cmd_mem(int argc, char **argv)
{
	struct launch_opts o;
	launch_opts_init(&o, "mem");
	int r = launch_args("mem", argc, argv, &o, NULL, NULL, NULL, NULL, usage);
	if (r != LAUNCH_ARGS_READ)
		return r;
	if (launch_program("mem", argc))
		return EXIT_USAGE;
	/* every access recorded: said before the run, not found on the disk after it (a
	 * half-second program wrote 12 GB: the usability review of 2026-11-27) */
	if (o.period == 1 && o.source && !strcmp(o.source, "inst") && !getenv("SONDE_MAX_SIZE") &&
	    !o.quiet)
		fprintf(stderr, "sonde: note: --period 1 records every access, 44 bytes "
				"each: a second of a loop is gigabytes (SONDE_MAX_SIZE=BYTES caps "
				"the recording; sonde(1))\n");
	return record_and_report(&o, argv + optind);
}

/* The recording's model, written into the database (struct tool's fill). */
static int mem_fill(struct sqlite3 *db, const struct profile *p, char *err, size_t errlen)
{
	struct memmodel *m;
	int r = memmodel_build(p, &m, err, errlen);
	if (r)
		return r;
	r = mem_db_fill(db, m, err, errlen);
	memmodel_free(m);
	return r;
}

const struct tool tool_mem = {
	.name = "mem",
	.summary = "which code and which data objects do the memory accesses",
	.cmd = cmd_mem,
	.fill = mem_fill,
	.export = mem_export,
	.print = mem_print,
	.html = mem_html,
};
