/* SPDX-License-Identifier: MIT */
/* cmd.c - `sonde comm`: which threads (and cores) communicate through shared cache lines. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "cmd/launch.h"
#include "prof/report.h"
#include "prof/tool.h"
#include "tools/comm/comm.h"
#include "tools/comm/detect.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sonde comm [options] [--] program [args]\n\n"
		"Runs the program with sampling on every thread and estimates how many cache lines\n"
		"each pair of threads (and of cores) moves between them, split into true sharing\n"
		"(the same bytes) and false sharing (other bytes of the same line): ComDetective's\n"
		"bulletin board, with watchpoints where the machine has them.  The summary goes to\n"
		"stderr; the exit status is the program's.\n\n"
		"Options:\n%s"
		"      --exact           every access, exact transfers (a program built with\n"
		"                        sonde-cc; implies --source inst --period 1)\n"
		"      --compare N       --exact, and the sampled detector on every Nth access of\n"
		"                        the same run (DIR/comm/sampled/): the two compared\n"
		"      --board N         bulletin board slots (default %d)\n"
		"      --dregs N         debug registers per arming: 1, 2 or 4 (default 4; a sonde-cc\n"
		"                        program's soft watch covers the whole line instead)\n"
		"      --no-watch        no watchpoints: board hits only (where they never fire);\n"
		"                        the clock then samples at --period (beside hardware\n"
		"                        watchpoints at most once a 4 ms scheduler tick)\n"
		"  -h, --help            this text\n\n"
		"Output: DIR/profile.db, DIR/comm/matrix-{all,true,false}-{thread,core}.csv,\n"
		"objects.csv, pairs.csv, lines.csv, threads.csv; under MPI (mpirun ... sonde comm) each\n"
		"rank's in DIR/comm/rank-R/ as well (several processes without MPI: proc-PID).  Show it\n"
		"again with 'sonde report DIR'.\n"
		"Manual: man sonde-comm (doc/sonde-comm.md).\n",
		launch_help, COMM_BOARD_DEFAULT);
}

/* comm's own options (launch_args) */
static int comm_option(int opt, const char *arg, void *ctx)
{
	int *exact = ctx;
	unsigned long v;
	switch (opt) {
	case 2001:
		*exact = 1;
		break;
	case 2002:
		if (!launch_number(arg, 1, 1u << 20, &v))
			return sonde_usage_error("comm", "--board wants 1 to %u slots, not '%s'",
						 1u << 20, arg);
		setenv("SONDE_COMM_BOARD", arg, 1);
		break;
	case 2003:
		if (!launch_number(arg, 1, 4, &v) || v == 3)
			return sonde_usage_error("comm", "--dregs wants 1, 2 or 4, not '%s'", arg);
		setenv("SONDE_COMM_DREGS", arg, 1);
		break;
	case 2004:
		setenv("SONDE_COMM_WATCH", "0", 1);
		break;
	case 2005:
		if (!launch_number(arg, 2, 1ul << 30, &v))
			return sonde_usage_error("comm", "--compare wants a period of 2 to %lu "
							 "accesses, not '%s'", 1ul << 30, arg);
		setenv("SONDE_COMM_COMPARE", arg, 1);
		*exact = 2;	/* --compare: --exact, named as given */
		break;
	}
	return 0;
}

int cmd_comm(int argc, char **argv)
{
	static const struct option own[] = {
		{ "exact", no_argument, NULL, 2001 },
		{ "board", required_argument, NULL, 2002 },
		{ "dregs", required_argument, NULL, 2003 },
		{ "no-watch", no_argument, NULL, 2004 },
		{ "compare", required_argument, NULL, 2005 },
		{ 0 },
	};
	struct launch_opts o;
	int exact = 0;
	launch_opts_init(&o, "comm");
	unsetenv("SONDE_COMM_WATCH");
	unsetenv("SONDE_COMM_COMPARE");
	int r = launch_args("comm", argc, argv, &o, own, NULL, comm_option, &exact, usage);
	if (r != LAUNCH_ARGS_READ)
		return r;
	if (launch_program("comm", argc))
		return EXIT_USAGE;
	if (!getenv("SONDE_COMM_WATCH"))	/* --no-watch: asked for no watchpoints */
		o.watch_loss = "communication is found only where two threads' samples meet on a "
			       "line, a small part of what watchpoints find; rebuild it with "
			       "sonde-cc for software watchpoints, or say --no-watch";
	if (exact) {
		if (exact == 2)
			o.exact_option = "--compare";
		if (launch_exact(&o, "comm"))
			return EXIT_USAGE;
		setenv("SONDE_COMM_EXACT", "1", 1);
	} else {
		unsetenv("SONDE_COMM_EXACT");
	}

	return record_and_report(&o, argv + optind);
}

const struct tool tool_comm = {
	.name = "comm",
	.summary = "which threads and cores share cache lines (true and false sharing)",
	.cmd = cmd_comm,
	.fill = comm_fill,
	.export = comm_export,
	.print = comm_print,
	.html = comm_html,
};
