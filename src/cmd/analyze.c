/* SPDX-License-Identifier: MIT */
/*
 * analyze.c - `sonde analyze [options] [perf.data]`: cycle accounting and hot spots of a
 * perf.data recording (GOoDA).  Manual: doc/sonde-analyze.md.
 * Exit statuses: 0 success, 1 the file cannot be read or is corrupt, 2 usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "lib/perfdata.h"

static void print_help(void)
{
	printf("usage: sonde analyze [options] [perf.data]\n\n"
	       "Cycle accounting and hot spots of a perf.data recording (default ./perf.data,\n"
	       "'-' reads a pipe).\n\n"
	       "  --stats           records per type and samples per event, 'name count' a line\n"
	       "  -h, --help        this help\n");
}

static void stats_name(const char *prefix, const char *name)
{
	fputs(prefix, stdout);
	for (const char *p = name; *p; p++)
		putchar(*p == ' ' || *p == '\t' || *p == '\n' ? '_' : *p);
}

/* One "name count" a line: record types perf knows, then samples and lost per event. */
static void print_stats(struct perfdata *pd)
{
	const struct pd_stats *st = perfdata_stats(pd);
	printf("TOTAL %llu\n", (unsigned long long)st->total);
	for (uint32_t t = 0; t < PD_NTYPES; t++)
		if (st->records[t])
			printf("%s %llu\n", perfdata_type_name(t),
			       (unsigned long long)st->records[t]);
	if (st->unknown)
		printf("UNKNOWN %llu\n", (unsigned long long)st->unknown);
	if (st->unknown_id_samples)
		printf("SAMPLE_UNKNOWN_ID %llu\n", (unsigned long long)st->unknown_id_samples);
	for (size_t i = 0; i < perfdata_nattrs(pd); i++) {
		struct pd_attr *a = perfdata_attr(pd, i);
		stats_name("samples:", a->name);
		printf(" %llu\n", (unsigned long long)a->nsamples);
		if (a->nlost_samples) {
			stats_name("lost_samples:", a->name);
			printf(" %llu\n", (unsigned long long)a->nlost_samples);
		}
	}
}

struct opts {
	const char *input;
	int stats;
};

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "stats", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", lo, NULL)) != -1) {
		switch (c) {
		case 'S': o->stats = 1; break;
		case 'h': print_help(); return -1;
		default: return sonde_usage_error("analyze", "bad option");
		}
	}
	if (optind < argc)
		o->input = argv[optind++];
	if (optind < argc)
		return sonde_usage_error("analyze", "unexpected argument '%s'", argv[optind]);
	return 0;
}

int cmd_analyze(int argc, char **argv)
{
	struct opts o = { .input = "perf.data" };
	int r = parse_opts(argc, argv, &o);
	if (r)
		return r < 0 ? 0 : r;
	char err[300];
	int e = 0;
	struct perfdata *pd = perfdata_open(o.input, &e, err, sizeof(err));
	if (!pd) {
		sonde_error("%s: %s", o.input, err);
		return 1;
	}
	int status = 0;
	if (o.stats) {
		if (perfdata_scan(pd) < 0) {
			sonde_error("%s: %s", o.input, perfdata_error(pd));
			status = 1;
		} else {
			print_stats(pd);
		}
	}
	perfdata_free(pd);
	return status;
}
