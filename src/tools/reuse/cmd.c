/* SPDX-License-Identifier: MIT */
/* cmd.c - `sonde reuse`: how far apart a program reuses its data, and what that costs in
 * each cache size (ReuseTracker). */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "cmd/launch.h"
#include "machine/machine.h"
#include "prof/report.h"
#include "prof/tool.h"
#include "rt/watch.h"
#include "sonde/period.h"
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
		"      --slots N         watched uses at once, 1 to %d (default: %d with software\n"
		"                        watchpoints, a sonde-cc program; %d with debug registers)\n"
		"      --check-sampling  --exact, and the sampled mode inside it on the same run\n"
		"                        (a sample every --period accesses of a thread, default\n"
		"                        the inst source's): reports how close the sampled\n"
		"                        estimate comes to the exact histogram (S, 1 = equal) and\n"
		"                        writes it to DIR/reuse/sampled.csv\n"
		"  -h, --help            this text\n\n"
		"Distances need an exact count of each thread's accesses: the inst source (sonde-cc)\n"
		"or a PMU (hw).  With the clock source only the reuse time (ns) is measured.\n\n"
		"Output: DIR/profile.db, DIR/reuse/histogram.csv, missratio.csv, pairs.csv\n"
		"(and sampled.csv with --check-sampling).\n"
		"Show it again with 'sonde report DIR'.  Manual: man sonde-reuse (doc/sonde-reuse.md).\n",
		launch_help, REUSE_SLOTS, REUSE_SLOTS, WATCH_HW_SLOTS);
}

/* reuse's own options (launch_args): the modes' flags into ctx (exact, shared, spatial) */
static int reuse_option(int opt, const char *arg, void *ctx)
{
	int *mode = ctx;
	unsigned long v;
	switch (opt) {
	case 2001:
	case 2002:
	case 2003:
		mode[opt - 2001] = 1;
		break;
	case 2005:
		mode[0] = mode[3] = 1;
		break;
	case 2004:
		if (!launch_number(arg, 1, REUSE_SLOTS, &v))
			return sonde_usage_error("reuse", "--slots wants 1 to %d, not '%s'",
						 REUSE_SLOTS, arg);
		setenv("SONDE_REUSE_SLOTS", arg, 1);
		break;
	}
	return 0;
}

int cmd_reuse(int argc, char **argv)
{
	static const struct option own[] = {
		{ "exact", no_argument, NULL, 2001 },
		{ "shared", no_argument, NULL, 2002 },
		{ "spatial", no_argument, NULL, 2003 },
		{ "slots", required_argument, NULL, 2004 },
		{ "check-sampling", no_argument, NULL, 2005 },
		{ 0 },
	};
	struct launch_opts o;
	int mode[4] = { 0 };	/* exact, shared, spatial, check-sampling */
	char period[24];
	launch_opts_init(&o, "reuse");
	unsetenv("SONDE_REUSE_SLOTS");
	int r = launch_args("reuse", argc, argv, &o, own, NULL, reuse_option, mode, usage);
	if (r != LAUNCH_ARGS_READ)
		return r;
	if (launch_program("reuse", argc))
		return EXIT_USAGE;
	/* --check-sampling: --period is the sampled mode's, the exact one sees every access */
	snprintf(period, sizeof(period), "%llu",
		 mode[3] ? (unsigned long long)sonde_inst_period(o.period) : 0ull);
	if (mode[3] && mode[1])
		return sonde_usage_error("reuse", "--check-sampling compares private-cache "
					 "estimates only: not with --shared");
	if (mode[3])	/* (as the inst source takes a period: sonde/period.h) */
		o.period = sonde_inst_period(o.period);
	if (mode[3] && o.period > UINT32_MAX)	/* (the stats record keeps it in 32 bits) */
		return sonde_usage_error("reuse", "--check-sampling samples at most every %u "
					 "accesses, not %llu", UINT32_MAX,
					 (unsigned long long)o.period);
	if (mode[3] && o.source && strcmp(o.source, "inst") && strcmp(o.source, "auto"))
		return sonde_usage_error("reuse", "--check-sampling runs --exact, which needs the "
					 "inst source (a program built with sonde-cc), not '%s'",
					 o.source);
	if (mode[3])
		o.period = 0;
	if (mode[0] && launch_exact(&o, "reuse"))
		return EXIT_USAGE;
	o.watch_loss = "no reuse is observed (each is a watchpoint's trap), only the footprint; "
		       "rebuild it with sonde-cc for software watchpoints";
	setenv("SONDE_REUSE_CHECK", mode[3] ? "1" : "0", 1);
	setenv("SONDE_REUSE_CHECK_PERIOD", period, 1);
	setenv("SONDE_REUSE_EXACT", mode[0] ? "1" : "0", 1);
	setenv("SONDE_REUSE_SHARED", mode[1] ? "1" : "0", 1);
	setenv("SONDE_REUSE_SPATIAL", mode[2] ? "1" : "0", 1);
	/* --exact counts the reuses beyond this machine's cache sizes (rt-reuse.c, exact_hit) */
	char caches[80];
	int64_t c1 = machine_cache_size(1), c2 = machine_cache_size(2), c3 = machine_cache_size(3);
	snprintf(caches, sizeof(caches), "%lld,%lld,%lld", (long long)(c1 > 0 ? c1 : 0),
		 (long long)(c2 > 0 ? c2 : 0), (long long)(c3 > 0 ? c3 : 0));
	setenv("SONDE_REUSE_CACHES", caches, 1);
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
