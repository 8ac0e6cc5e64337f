/* SPDX-License-Identifier: MIT */
/* cmd.c - `sonde reuse`: how far apart a program reuses its data, and what that costs in
 * each cache size (ReuseTracker). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "cmd/launch.h"
#include "prof/report.h"
#include "prof/tool.h"
#include "tools/reuse/reuse.h"
#include "tools/reuse/sampler.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sonde reuse [options] [--] program [args]\n\n"
		"Runs the program with sampling on every thread and measures how many accesses\n"
		"(time distance) and how many distinct data (reuse distance) lie between a use of\n"
		"a word and its next use by the same thread, and how often another thread's store\n"
		"ends it first (an invalidation): ReuseTracker's watchpoints on sampled uses.  From\n"
		"that, the miss ratio of every cache size.  The summary goes to stderr; the exit\n"
		"status is the program's.\n\n"
		"Options:\n%s"
		"      --exact           every access, exact distances (a program built with\n"
		"                        sonde-cc; implies --source inst --period 1)\n"
		"      --shared          the socket's shared cache: reuses by any thread of the\n"
		"                        socket, timed by the socket's accesses; invalidations by\n"
		"                        the other sockets\n"
		"      --spatial         cache-line (64-byte) reuse instead of 8-byte words\n"
		"                        (sampled: a program built with sonde-cc, whose software\n"
		"                        watchpoints cover a line; a debug register covers 8 bytes)\n"
		"      --slots N         watched uses at once, 1 to %d (default %d)\n"
		"  -h, --help            this text\n\n"
		"Distances need an exact count of each thread's accesses: the inst source (sonde-cc)\n"
		"or a PMU (hw).  With the clock source only the reuse time (ns) is measured.\n\n"
		"Output: DIR/profile.db, DIR/reuse/histogram.csv, missratio.csv, pairs.csv.\n"
		"Show it again with 'sonde report DIR'.  Manual: doc/sonde-reuse.md.\n",
		launch_help, REUSE_SLOTS, REUSE_SLOTS);
}

int cmd_reuse(int argc, char **argv)
{
	static const struct option longopts[] = {
		LAUNCH_LONG_OPTIONS,
		{ "exact", no_argument, NULL, 2001 },
		{ "shared", no_argument, NULL, 2002 },
		{ "spatial", no_argument, NULL, 2003 },
		{ "slots", required_argument, NULL, 2004 },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct launch_opts o;
	int exact = 0, shared = 0, spatial = 0, opt;
	char *end;
	launch_opts_init(&o, "reuse");
	optind = 1;
	opterr = 0;
	unsetenv("SONDE_REUSE_SLOTS");
	while ((opt = getopt_long(argc, argv, "+o:s:p:fqh", longopts, NULL)) != -1) {
		int r = launch_parse_option(&o, opt, optarg, "reuse");
		if (r < 0)
			return EXIT_USAGE;
		if (r)
			continue;
		switch (opt) {
		case 2001:
			exact = 1;
			break;
		case 2002:
			shared = 1;
			break;
		case 2003:
			spatial = 1;
			break;
		case 2004: {
			unsigned long v = strtoul(optarg, &end, 10);
			if (!*optarg || *end || v < 1 || v > REUSE_SLOTS)
				return sonde_usage_error("reuse", "--slots wants 1 to %d, not '%s'",
							 REUSE_SLOTS, optarg);
			setenv("SONDE_REUSE_SLOTS", optarg, 1);
			break;
		}
		case 'h':
			usage(stdout);
			return 0;
		default:
			return bad_option("reuse", argv);
		}
	}
	if (optind >= argc)
		return sonde_usage_error("reuse", "no program to run (sonde reuse [options] -- program [args])");
	if (exact) {
		if (launch_exact(&o, "reuse"))
			return EXIT_USAGE;
	}
	setenv("SONDE_REUSE_EXACT", exact ? "1" : "0", 1);
	setenv("SONDE_REUSE_SHARED", shared ? "1" : "0", 1);
	setenv("SONDE_REUSE_SPATIAL", spatial ? "1" : "0", 1);
	return record_and_report(&o, argv + optind);
}

const struct tool tool_reuse = {
	.name = "reuse",
	.summary = "reuse distances, invalidations and the miss ratio of every cache size",
	.cmd = cmd_reuse,
	.fill = reuse_fill,
	.export = reuse_export,
	.print = reuse_print,
	.html = reuse_html,
};
