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
		"      --dregs N         watchpoints per arming: 1, 2 or 4 (default 4)\n"
		"      --no-watch        no watchpoints: board hits only (where they never fire)\n"
		"  -h, --help            this text\n\n"
		"Output: DIR/profile.db, DIR/comm/matrix-{all,true,false}-{thread,core}.csv,\n"
		"objects.csv, pairs.csv, threads.csv; under MPI (mpirun ... sonde comm) each rank's\n"
		"in DIR/comm/rank-R/ as well.  Show it again with 'sonde report DIR'.\n"
		"Manual: doc/sonde-comm.md.\n",
		launch_help, COMM_BOARD_DEFAULT);
}

static int number(const char *s, unsigned long lo, unsigned long hi, unsigned long *v)
{
	char *end;
	*v = strtoul(s, &end, 10);
	return *s && !*end && *v >= lo && *v <= hi;
}

int cmd_comm(int argc, char **argv)
{
	static const struct option longopts[] = {
		LAUNCH_LONG_OPTIONS,
		{ "exact", no_argument, NULL, 2001 },
		{ "board", required_argument, NULL, 2002 },
		{ "dregs", required_argument, NULL, 2003 },
		{ "no-watch", no_argument, NULL, 2004 },
		{ "compare", required_argument, NULL, 2005 },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct launch_opts o;
	int exact = 0, opt;
	unsigned long v;
	launch_opts_init(&o, "comm");
	unsetenv("SONDE_COMM_WATCH");
	unsetenv("SONDE_COMM_COMPARE");
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+o:s:p:fqh", longopts, NULL)) != -1) {
		int r = launch_parse_option(&o, opt, optarg, "comm");
		if (r < 0)
			return EXIT_USAGE;
		if (r)
			continue;
		switch (opt) {
		case 2001:
			exact = 1;
			break;
		case 2002:
			if (!number(optarg, 1, 1u << 20, &v))
				return sonde_usage_error("comm", "--board wants 1 to %u slots, not '%s'",
							 1u << 20, optarg);
			setenv("SONDE_COMM_BOARD", optarg, 1);
			break;
		case 2003:
			if (!number(optarg, 1, 4, &v) || v == 3)
				return sonde_usage_error("comm", "--dregs wants 1, 2 or 4, not '%s'",
							 optarg);
			setenv("SONDE_COMM_DREGS", optarg, 1);
			break;
		case 2004:
			setenv("SONDE_COMM_WATCH", "0", 1);
			break;
		case 2005:
			if (!number(optarg, 2, 1ul << 30, &v))
				return sonde_usage_error("comm", "--compare wants a period of 2 to %lu "
								 "accesses, not '%s'", 1ul << 30, optarg);
			setenv("SONDE_COMM_COMPARE", optarg, 1);
			exact = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return bad_option("comm", argv);
		}
	}
	if (optind >= argc)
		return sonde_usage_error("comm", "no program to run (sonde comm [options] -- program [args])");
	if (exact) {
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
