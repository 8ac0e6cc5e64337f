/* SPDX-License-Identifier: MIT */
/* cmd.c - `sonde variance`: how much the instances of each function vary (FVSampler). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmds.h"
#include "cmd/launch.h"
#include "prof/report.h"
#include "prof/symbols.h"
#include "prof/tool.h"
#include "tools/variance/variance.h"

#define VAR_FUNCTIONS_MAX 8	/* --function's names */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sonde variance [options] [--] program [args]\n"
		"       sonde variance --timeline FUNCTION DIR\n\n"
		"Measures whole instances of the program's functions, from call to return, and\n"
		"ranks (calling context, function) pairs by how much their instances vary (CV =\n"
		"SD / mean, within threads and across threads) and how much of the time they take.\n"
		"A clock sample picks a function on the thread's call stack; an execute breakpoint\n"
		"catches its next call and a watch on its return-address slot its return.  Where\n"
		"debug registers do not trap, build the program with 'sonde-cc --sonde-calls-only'\n"
		"(the call hooks alone; --sonde-calls adds them to the other tools' build).\n"
		"OpenMP regions are timed at the runtime's call instead, no trap: libgomp's (gcc)\n"
		"interposed, libomp's (clang, icx, aocc) through OMPT; each region at most\n"
		"SONDE_VARIANCE_REGIONS=20 calls a second a thread.\n"
		"The table goes to stderr; the exit status is the program's.\n\n"
		"Options:\n%s"
		"  -e, --events LIST     metrics per instance, comma-separated: time, cpu-time\n"
		"                        (always), page-faults, context-switches\n"
		"      --function NAME   pick only NAME (a function of the program's executable,\n"
		"                        as 'nm -C' names it, parameters and template\n"
		"                        arguments optional, a bare name in any class; up to\n"
		"                        %d times) and wait 16 times longer for its calls\n"
		"      --timeline FUNC   print every kept instance of FUNC in DIR, in order\n"
		"                        (sparkline; DIR/variance/timeline.csv)\n"
		"  -h, --help            this text\n\n"
		"Default period here: %d ns of CPU time (variance's own).\n"
		"Output: DIR/profile.db, DIR/variance/functions.csv, threads.csv, instances.csv\n"
		"(at most %d instances kept per function and context).  Show it again with\n"
		"'sonde report DIR'.  Manual: man sonde-variance (doc/sonde-variance.md).\n",
		launch_help, VAR_FUNCTIONS_MAX, VAR_DEFAULT_PERIOD, VAR_RESERVOIR);
}

static int parse_events(const char *list, unsigned *bits)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", list);
	*bits = VAR_EV_TIME | VAR_EV_CPU;
	/* an empty list, or an empty item ("page-faults,"), is a typo, not "the defaults" */
	if (!*list || list[strlen(list) - 1] == ',' || *list == ',' || strstr(list, ",,"))
		return sonde_usage_error("variance", "-e wants metrics separated by commas (time, "
						     "cpu-time, page-faults, context-switches), not "
						     "'%s'", list);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int m = var_metric_find(tok);
		if (m < 0)
			return sonde_usage_error("variance", "unknown metric '%s' in -e (time, "
							     "cpu-time, page-faults, "
							     "context-switches)", tok);
		*bits |= 1u << m;
	}
	return 0;
}

struct var_args {
	unsigned events;
	const char *timeline;
	const char *fn[VAR_FUNCTIONS_MAX];	/* --function */
	int nfn;
};

/* variance's own options (launch_args) */
static int var_option(int opt, const char *arg, void *ctx)
{
	struct var_args *a = ctx;
	if (opt == 'e')
		return parse_events(arg, &a->events) ? EXIT_USAGE : 0;
	if (opt == 2002) {
		if (!*arg || a->nfn == VAR_FUNCTIONS_MAX)
			return sonde_usage_error("variance", !*arg ? "--function wants a name" :
						 "--function at most %d times", VAR_FUNCTIONS_MAX);
		a->fn[a->nfn++] = arg;
		return 0;
	}
	a->timeline = arg;	/* --timeline */
	return 0;
}

/*
 * --function: each name's starts in the program's executable, for the runtime
 * (rt-variance.c, only_start: "DEV:INO:ADDR,..." so that a process running another
 * executable picks none) with the names for the report.  A name the executable does not
 * define is a usage error before the run: a typo would otherwise cost a whole run that
 * times nothing.  0, or the exit status of the error (printed).
 */
static int only_env(const struct var_args *a, const char *prog)
{
	char path[PATH_MAX], addrs[VAR_ONLY_MAX * 20 + 48], names[400] = "";
	struct stat st;
	unsetenv("SONDE_VARIANCE_ONLY");
	unsetenv("SONDE_VARIANCE_ONLY_NAMES");
	if (!a->nfn || launch_find_program(prog, path, sizeof(path)) || stat(path, &st))
		return 0;	/* (not found: launch_run says so) */
	size_t k = (size_t)snprintf(addrs, sizeof(addrs), "%llu:%llu:",
				    (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	int total = 0;
	for (int i = 0; i < a->nfn; i++) {
		uint64_t ad[VAR_ONLY_MAX];
		if (!strcmp(a->fn[i], "main"))
			return sonde_usage_error("variance", "--function main: main is called once "
							     "and never timed; name a function it "
							     "calls");
		int n = sym_function_addrs(path, a->fn[i], ad, VAR_ONLY_MAX);
		if (n < 0)
			return sonde_usage_error("variance", "--function: cannot read the "
							     "functions of '%s' (%s); it needs the "
							     "symbol table of an x86-64 executable",
						 path, strerror(-n));
		if (!n)
			return sonde_usage_error("variance", "--function: no function '%s' in %s "
							     "('nm -C %s' lists them; one inlined "
							     "everywhere has none, and a shared "
							     "library's are not picked)",
						 a->fn[i], path, path);
		if (total + n > VAR_ONLY_MAX)	/* (an overloaded name, clones) */
			return sonde_usage_error("variance", "--function: the names given stand "
							     "for more than %d functions ('%s' for "
							     "%d); give their full names (nm -C)",
						 VAR_ONLY_MAX, a->fn[i], n);
		for (int j = 0; j < n; j++, total++)
			k += (size_t)snprintf(addrs + k, sizeof(addrs) - k, "%s%" PRIx64,
					      total ? "," : "", ad[j]);
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 i ? "; " : "", a->fn[i]);
	}
	setenv("SONDE_VARIANCE_ONLY", addrs, 1);
	setenv("SONDE_VARIANCE_ONLY_NAMES", names, 1);
	return 0;
}

int cmd_variance(int argc, char **argv)
{
	static const struct option own[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "timeline", required_argument, NULL, 2001 },
		{ "function", required_argument, NULL, 2002 },
		{ 0 },
	};
	struct launch_opts o;
	struct var_args a = { .events = VAR_EV_TIME | VAR_EV_CPU };
	launch_opts_init(&o, "variance");
	int r = launch_args("variance", argc, argv, &o, own, "e:", var_option, &a, usage);
	if (r != LAUNCH_ARGS_READ)
		return r;
	if (a.timeline) {
		if (optind != argc - 1)
			return sonde_usage_error("variance", "--timeline wants FUNCTION and one "
							     "recording directory");
		if (a.nfn)
			return sonde_usage_error("variance", "--function is for a run, not with "
							     "--timeline");
		return var_timeline(a.timeline, argv[optind], stdout);
	}
	if (launch_program("variance", argc))
		return EXIT_USAGE;
	r = only_env(&a, argv[optind]);
	if (r)
		return r;
	if (o.source && !strcmp(o.source, "auto"))
		o.source = "clock";
	if (o.source && !strcmp(o.source, "hw"))
		return sonde_usage_error("variance", "--source hw (sampling calls with PEBS/IBS) is "
						     "not implemented: use clock (the default) or inst");
	if (!o.period && !strcmp(o.source, "clock"))
		o.period = VAR_DEFAULT_PERIOD;
	char ev[16];
	snprintf(ev, sizeof(ev), "%u", a.events);
	/* (not "the samples' shares": no row is made without an instance, the usability
	 * review of 2026-11-30, M2) */
	o.watch_loss = "no function's instance is timed (each starts and ends at a "
		       "breakpoint's trap), only OpenMP regions (timed at the runtime's "
		       "calls); rebuild it with 'sonde-cc --sonde-calls-only' to time "
		       "instances with hooks";
	o.needs_calls = 1;
	setenv("SONDE_VARIANCE_EVENTS", ev, 1);
	return record_and_report(&o, argv + optind);
}

const struct tool tool_variance = {
	.name = "variance",
	.summary = "how much each function's instances vary, with calling contexts (FVSampler)",
	.cmd = cmd_variance,
	.fill = var_fill,
	.export = var_export,
	.print = var_print,
	.html = var_html,
};
