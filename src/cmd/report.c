/* SPDX-License-Identifier: MIT */
/*
 * report.c - `sonde report DIR [--format text|csv|json] [--top N] [--quiet] [--html FILE]`:
 * print a recorded profile again, or write it as one HTML page (doc/sonde-report.md).
 * Exit: 0, 1 (no recording, corrupt data, cannot write the database or the page), 2 usage.
 */
#include <errno.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "prof/report.h"
#include "prof/tool.h"

static const char usage_text[] =
	"usage: sonde report DIR [--format text|csv|json] [--top N] [--quiet]\n"
	"       sonde report DIR --html FILE\n"
	"\n"
	"Print the profile recorded in DIR by any recording command (sonde mem, comm, reuse,\n"
	"variance -o DIR; a sonde vsensor job's directory too); the recording's tool picks\n"
	"the report.  The profile database\n"
	"DIR/profile.db and the tool's CSV files in DIR/<tool>/ are (re)built first when\n"
	"missing or older than the raw recording.\n"
	"\n"
	"  --format F   text (default: header and top tables), csv or json:\n"
	"                 mem       csv: objects, a blank line, code; json: meta, objects,\n"
	"                           code, threads\n"
	"                 comm      csv: the all-accesses thread matrix (the others are in\n"
	"                           DIR/comm/); json: totals, what to do, objects,\n"
	"                           pairs, lines, threads, the matrix cells\n"
	"                 reuse     csv: histogram.csv's rows; json: histograms, miss ratios\n"
	"                 variance  csv: functions.csv's rows; json: one object, the run's\n"
	"                           counters and 'functions', those rows as objects\n"
	"                 vsensor   csv: the events; json: events and matrices (as\n"
	"                           'sonde vsensor report --csv/--json DIR')\n"
	"  --top N      rows per table in text output (default 10)\n"
	"  --quiet      text: only the tables\n"
	"  --html FILE  write the profile as one self-contained HTML page (tables, charts,\n"
	"               heat maps; works offline) into FILE instead of printing it\n"
	"\n"
	"Exit status: 0 success, 1 no recording or corrupt data, 2 usage error.\n";

static int parse_format(const char *s, enum report_format *f)
{
	if (!strcmp(s, "text"))
		*f = REPORT_TEXT;
	else if (!strcmp(s, "csv"))
		*f = REPORT_CSV;
	else if (!strcmp(s, "json"))
		*f = REPORT_JSON;
	else
		return -1;
	return 0;
}

/* "--opt VALUE" or "--opt=VALUE": the value, NULL if absent; advances *i past it. */
static const char *opt_value(int argc, char **argv, int *i, const char *opt)
{
	size_t n = strlen(opt);
	if (strncmp(argv[*i], opt, n))
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n] || *i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

static int parse_args(int argc, char **argv, struct report_opts *o, const char **dir,
		      const char **html)
{
	int format = 0, tables = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
			tables = 1;
			o->quiet = 1;
		} else if (!strncmp(a, "--format", 8)) {
			if (!(v = opt_value(argc, argv, &i, "--format")))
				return sonde_usage_error("report", "--format needs a value");
			if (!strcmp(v, "html"))	/* a page is a file: its own option */
				return sonde_usage_error("report", "--format html: the page is written "
							 "by --html FILE (text, csv and json "
							 "go to stdout)");
			if (parse_format(v, &o->format))
				return sonde_usage_error("report", "unknown format '%s' (text, csv "
							 "or json; --html FILE for a page)", v);
			format = 1;
		} else if (!strncmp(a, "--top", 5)) {
			if (!(v = opt_value(argc, argv, &i, "--top")))
				return sonde_usage_error("report", "--top needs a value");
			if (report_parse_top(v, &o->top))
				return sonde_usage_error("report", "bad --top value '%s'", v);
			tables = 1;
		} else if (!strncmp(a, "--html", 6)) {
			if (!(v = opt_value(argc, argv, &i, "--html")) || !*v)
				return sonde_usage_error("report", "--html needs a file name");
			*html = v;
		} else if (a[0] == '-' && a[1]) {
			return sonde_usage_error("report", "unknown option '%s'", a);
		} else if (*dir) {
			return sonde_usage_error("report", "more than one directory");
		} else {
			*dir = a;
		}
	}
	if (!*dir)
		return sonde_usage_error("report", "missing recording directory");
	/* --html writes the page and prints nothing: a format or table option beside it
	 * would be ignored without a word (the usability review of 2026-11-27) */
	if (*html && (format || tables))
		return sonde_usage_error("report", "--html writes the whole page and prints "
					 "nothing: --format, --top and --quiet are for the "
					 "terminal's report (run them apart)");
	return 0;
}

/* A sonde vsensor job's directory (its ranks' files or its matrices, no .proc file): its
 * report is `sonde vsensor report`'s, which `sonde report` runs (the trial of 2026-11-28:
 * `sonde report DIR` only pointed there). */
static int is_vsensor_dir(const char *dir)
{
	char path[4096];
	DIR *d = opendir(dir);	/* (not glob: the path's own '*' or '[' are not patterns) */
	struct dirent *e;
	int procs = 0;
	while (d && !procs && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		procs = n > 5 && !strcmp(e->d_name + n - 5, ".proc");
	}
	if (d)
		closedir(d);
	if (procs)
		return 0;
	static const char *const marks[] = { "rank-0.rec", "matrix-compute.csv" };
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, marks[i]);
		if (access(path, F_OK) == 0)
			return 1;
	}
	return 0;
}

static int vsensor_report(const char *dir, const struct report_opts *o, const char *html)
{
	const struct tool *t = tool_find("vsensor");
	char *av[10], top[16];
	int ac = 0;
	av[ac++] = (char *)"vsensor";
	av[ac++] = (char *)"report";
	if (o->top) {
		snprintf(top, sizeof(top), "%d", o->top);
		av[ac++] = (char *)"--top";
		av[ac++] = top;
	}
	if (o->quiet)
		av[ac++] = (char *)"--quiet";
	if (html) {
		av[ac++] = (char *)"--html";
		av[ac++] = (char *)html;
	} else if (o->format == REPORT_CSV) {
		av[ac++] = (char *)"--csv";
	} else if (o->format == REPORT_JSON) {
		av[ac++] = (char *)"--json";
	}
	av[ac++] = (char *)dir;
	av[ac] = NULL;
	return t && t->cmd ? t->cmd(ac, av) : 1;
}

static void report_warn_note(const char *note)
{
	sonde_warn("%s", note);
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { .format = REPORT_TEXT };
	const char *dir = NULL, *html = NULL;
	char err[1024] = "";

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return 0;
		}
	int r = parse_args(argc, argv, &o, &dir, &html);
	if (r)
		return r;
	/* the run's warnings (allocations untracked, threads unsampled, ...) as the recording
	 * tool gave them, on stderr after the report: under mpirun this is the first the user
	 * sees of them (the trial of 2026-11-28: 591,157 untracked allocations, never said) */
	if (is_vsensor_dir(dir))
		return vsensor_report(dir, &o, html);
	if (!o.quiet)
		o.say = report_warn_note;
	if (html)
		r = report_html(dir, html, err, sizeof(err));
	else
		r = report_print(dir, stdout, &o, err, sizeof(err));
	if (fflush(stdout) && !r) {
		sonde_error("cannot write the report: %s", strerror(errno));
		return 1;
	}
	if (r == -ENOENT)
		sonde_error("no recording in '%s': %s", dir, err);
	else if (r)
		sonde_error("%s", err);
	else if (html)	/* where, as a recording's --html says it (the trial of 2026-11-29) */
		fprintf(stderr, "sonde: page in %s\n", html);
	return r ? 1 : 0;
}
