/* SPDX-License-Identifier: MIT */
/*
 * analyze.c - `sonde analyze [options] [perf.data]`: cycle accounting and hot spots of a
 * perf.data recording (GOoDA).  Manual: doc/sonde-analyze.md.
 * Exit statuses: 0 success, 1 the file cannot be read or is corrupt (or an output cannot be
 * written, or --function names no sampled function), 2 usage error.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmds.h"
#include "prof/profile.h"
#include "prof/tool.h"
#include "analyze/view.h"
#include "analyze/analyze.h"
#include "analyze/perfdata.h"
#include "analyze/topdown.h"

static void print_help(void)
{
	printf("usage: sonde analyze [options] [perf.data]\n\n"
	       "Cycle accounting and hot spots of a perf.data recording (default ./perf.data,\n"
	       "'-' reads a pipe): hot processes, modules and functions with the cycle-accounting\n"
	       "columns of this CPU (data/topdown/).\n\n"
	       "  --stats             records per type and samples per event, 'name count' a line\n"
	       "  --function NAME     basic blocks, assembly and source lines of function NAME\n"
	       "  -o, --output DIR    write CSV, JSON and DIR/index.html (one self-contained page)\n"
	       "  -f, --force         write into a DIR that holds other files (a new or empty\n"
	       "                      one, or an earlier analysis, needs no --force)\n"
	       "  --top N             rows per table in the terminal, and functions whose code\n"
	       "                      DIR details (default 20); DIR's CSV files and page hold\n"
	       "                      every row\n"
	       "  --depth N           levels of the accounting tree shown as columns (default 1)\n"
	       "  --cycles            accounting columns in cycle samples, not %% of cycles\n"
	       "  --event NAME        sort and share by this event (default: the cycles event,\n"
	       "                      else the first with samples)\n"
	       "  --arch NAME         accounting template (default: from the CPUID header)\n"
	       "  --topdown-dir DIR   where the templates are (default: $SONDE_TOPDOWN_DIR, else\n"
	       "                      ../data/topdown or ../share/sonde/topdown beside sonde,\n"
	       "                      else the source tree's data/topdown)\n"
	       "  -h, --help          this help\n\n"
	       "Exit status: 0 success, 1 unreadable or corrupt input, 2 usage error.\n");
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
	const char *input, *function, *outdir, *event, *arch, *tddir;
	int stats, top, depth, cycles, force;
};

/* -o DIR: new, empty, or an earlier analysis (its summary.json and processes.csv, no
 * recording), else only with --force: the usability review of 2026-11-28 wrote an
 * analysis into a sonde recording's directory, mixed in with its files.  0, or 1 with the
 * error said. */
static int outdir_ok(const char *dir, int force)
{
	struct stat sb;
	if (stat(dir, &sb))
		return 0;
	if (!S_ISDIR(sb.st_mode)) {
		sonde_error("output '%s' is not a directory", dir);
		return 1;
	}
	DIR *d = opendir(dir);
	if (!d)
		return 0;	/* unreadable: the writes say why */
	struct dirent *e;
	int files = 0, summary = 0, procs = 0, recording = 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		files++;
		summary |= !strcmp(e->d_name, "summary.json");
		procs |= !strcmp(e->d_name, "processes.csv");
		recording |= !strcmp(e->d_name, "profile.db") || prof_is_raw_name(e->d_name);
	}
	closedir(d);
	if (!files || force || (summary && procs && !recording))
		return 0;
	sonde_error("output directory '%s' is not empty (%s): analyze writes its CSV, JSON and "
		    "index.html there; use -o another directory, or --force to write beside them",
		    dir, recording ? "a sonde recording" : "files of something else");
	return 1;
}

static int int_arg(const char *s, int *v)
{
	char *end;
	long x = strtol(s, &end, 10);
	if (*end || x < 1 || x > 1000000)
		return -1;
	*v = (int)x;
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "stats", no_argument, NULL, 'S' },
		{ "function", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "top", required_argument, NULL, 't' },
		{ "depth", required_argument, NULL, 'd' },
		{ "cycles", no_argument, NULL, 'c' },
		{ "event", required_argument, NULL, 'e' },
		{ "arch", required_argument, NULL, 'a' },
		{ "topdown-dir", required_argument, NULL, 'D' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	opterr = 0;	/* bad_option says it in sonde's one line */
	/* options before or after the file (`sonde analyze perf.data --function f`, as perf
	 * takes them): no program follows, so getopt may permute */
	while ((c = getopt_long(argc, argv, "ho:f", lo, NULL)) != -1) {
		switch (c) {
		case 'f': o->force = 1; break;
		case 'S': o->stats = 1; break;
		case 'n': o->function = optarg; break;
		case 'o': o->outdir = optarg; break;
		case 'e': o->event = optarg; break;
		case 'a': o->arch = optarg; break;
		case 'D': o->tddir = optarg; break;
		case 'c': o->cycles = 1; break;
		case 't':
			if (int_arg(optarg, &o->top))
				return sonde_usage_error("analyze", "bad --top '%s'", optarg);
			break;
		case 'd':
			if (int_arg(optarg, &o->depth))
				return sonde_usage_error("analyze", "bad --depth '%s'", optarg);
			break;
		case 'h': print_help(); return -1;
		default: return bad_option("analyze", argv);
		}
	}
	if (optind < argc)
		o->input = argv[optind++];
	if (optind < argc)
		return sonde_usage_error("analyze", "unexpected argument '%s'", argv[optind]);
	return 0;
}

/* The event rows are sorted by: --event, else the cycles event, else the first sampled. */
static int pick_event(const struct analysis *an, const struct td_binding *td, const char *name,
		      size_t *ev)
{
	for (size_t e = 0; name && e < an->nev; e++)
		if (!strcmp(an->ev[e].name, name) || td_event_matches(&an->ev[e], name)) {
			*ev = e;
			return 0;
		}
	if (name)
		return -1;
	if (td && td->cycles_ev >= 0 && an->ev[td->cycles_ev].samples) {
		*ev = (size_t)td->cycles_ev;
		return 0;
	}
	for (size_t e = 0; e < an->nev; e++)
		if (an->ev[e].samples) {
			*ev = e;
			return 0;
		}
	*ev = 0;
	return 0;
}

static int show_function(struct av_ctx *ctx, const char *name)
{
	int f = analysis_find_function(ctx->an, name);
	if (f < 0) {
		sonde_error("no samples in a function named '%s'", name);
		return 1;
	}
	struct an_func_view v;
	int r = analysis_function(ctx->an, f, &v);
	if (r) {
		sonde_error("cannot disassemble '%s': %s", name,
			    r == -ENOENT ? "its code is not readable" : strerror(-r));
		return 1;
	}
	av_text_function(stdout, ctx, &v);
	an_func_view_release(&v);
	return 0;
}

static int analyze(struct perfdata *pd, const struct opts *o)
{
	char err[512], tdnote[512] = "";
	int e = 0, status = 0;
	const struct pd_features *f = perfdata_features(pd);
	struct symtab *as = symtab_new_files(f->osrelease);
	struct analysis *an = as ? analysis_new(pd, as, &e, err, sizeof(err)) : NULL;
	if (!an) {
		sonde_error("%s: %s", o->input, as ? err : "out of memory");
		symtab_free(as);
		return 1;
	}
	f = perfdata_features(pd);	/* pipe mode: features arrived with the records */
	struct td_model *m = td_select(o->tddir ? o->tddir : td_default_dir(), o->arch, f->cpuid,
				       tdnote, sizeof(tdnote));
	struct td_binding td = { 0 };
	if (!m && o->arch) {
		sonde_error("%s", tdnote);
		status = 1;
		goto out;
	}
	if (m)
		td_bind(m, an->ev, an->nev, &td);
	struct av_ctx ctx = { .an = an, .pd = pd, .td = m ? &td : NULL, .input = o->input,
			      .td_note = tdnote[0] ? tdnote : NULL, .top = o->top ? o->top : 20,
			      .depth = o->depth ? o->depth : 1, .cycles = o->cycles };
	if (pick_event(an, ctx.td, o->event, &ctx.ev)) {
		sonde_error("no event '%s' in %s", o->event, o->input);
		status = 1;
		goto out;
	}
	if (o->function) {
		status = show_function(&ctx, o->function);
	} else if (o->outdir) {
		if (av_write_dir(&ctx, o->outdir, err, sizeof(err))) {
			sonde_error("%s", err);
			status = 1;
		} else {	/* what the recording tools' closing line says, for analyze */
			fprintf(stderr, "sonde: analysis of %s in %s (index.html, *.csv, "
				"summary.json)\n", o->input, o->outdir);
		}
	} else {
		av_text_summary(stdout, &ctx);
	}
out:
	td_binding_release(&td);
	td_free(m);
	analysis_free(an);
	symtab_free(as);
	return status;
}

int cmd_analyze(int argc, char **argv)
{
	struct opts o = { .input = "perf.data" };
	int r = parse_opts(argc, argv, &o);
	if (r)
		return r < 0 ? 0 : r;
	if (o.outdir && !o.function && !o.stats && outdir_ok(o.outdir, o.force))
		return 1;
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
	} else {
		status = analyze(pd, &o);
	}
	perfdata_free(pd);
	return status;
}

const struct tool tool_analyze = {
	.name = "analyze",
	.summary = "cycle accounting and hot spots of a perf.data recording",
	.cmd = cmd_analyze,
};
