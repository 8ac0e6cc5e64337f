/* SPDX-License-Identifier: MIT */
/*
 * record.c - what every recording tool does once its options are read: run the program
 * under the runtime, then build the profile and show it (cmds.h: record_and_report).
 */
#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmds.h"
#include "cmd/launch.h"
#include "prof/report.h"

/* Bytes of per-thread streams in dir: building the profile takes about a second per 100 MiB. */
static uint64_t raw_size(const char *dir)
{
	uint64_t total = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX + 256];
	struct stat st;
	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 4 || strcmp(e->d_name + n - 4, ".sdt"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) == 0)
			total += (uint64_t)st.st_size;
	}
	if (d)
		closedir(d);
	return total;
}

/* Whether a process of the recording in dir stopped writing records (rt/out.c: the disk
 * or SONDE_MAX_SIZE): its reason ("disk", "size") in why and the bytes written then. */
static int records_stopped(const char *dir, char *why, size_t len, uint64_t *at)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX + 256], line[256];
	int found = 0;
	while (d && !found && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 6 || strcmp(e->d_name + n - 5, ".proc"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "re");
		while (f && fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = 0;
			if (!strncmp(line, "records_stopped=", 16)) {
				snprintf(why, len, "%.8s", line + 16);
				found = 1;
			} else if (!strncmp(line, "records_stopped_at=", 19)) {
				*at = strtoull(line + 19, NULL, 10);
			}
		}
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

int record_and_report(const struct launch_opts *o, char **argv)
{
	const struct report_opts ropts = { .format = REPORT_TEXT, .top = o->top }, *ro = &ropts;
	int quiet = o->quiet;
	const char *html = o->html;
	struct launch_result res;
	int r = launch_run(o, argv, &res);
	if (!res.started)
		return r;
	if (res.rank >= 0) {
		/* The ranks share the directory and end at different times: build once, later. */
		if (res.rank == 0 && !quiet)
			fprintf(stderr, "sonde: rank 0 done; recording in %s (all ranks: 'sonde report "
					"%s')\n", res.dir, res.dir);
		return launch_exit_like(res.status);
	}
	char err[512] = "", why[16];
	uint64_t at = 0;
	if (records_stopped(res.dir, why, sizeof(why), &at))
		sonde_error("warning: the recording stopped growing at %llu %s: %s; the records "
			    "after that were dropped (the report counts them)",
			    (unsigned long long)(at >= (1u << 20) ? at >> 20 : at >> 10),
			    at >= (1u << 20) ? "MiB" : "KiB",
			    !strcmp(why, "size") ? "SONDE_MAX_SIZE was reached"
						 : "the disk it is on kept its last 1% (at least "
						   "64 MiB) free for the program");
	uint64_t raw = raw_size(res.dir);
	if (raw > (64ull << 20) && !quiet)
		fprintf(stderr, "sonde: building the profile from %llu MiB of records...\n",
			(unsigned long long)(raw >> 20));
	int built = report_build(res.dir, err, sizeof(err)) >= 0;
	if (!built && strstr(err, "no .proc file")) {
		sonde_error("nothing was recorded: the runtime did not start in the program (the "
			    "reason, if it gave one, is above; a statically linked program cannot "
			    "be profiled)");
		sonde_error("the raw recording is kept in %s", res.dir);
	} else if (!built) {
		sonde_error("%s", err);
		sonde_error("the raw recording is kept in %s", res.dir);
	} else if (!quiet) {
		if (report_print(res.dir, stderr, ro, err, sizeof(err)) < 0)
			sonde_error("%s", err);
		fprintf(stderr, "sonde: profile in %s (profile.db, %s/*.csv); "
				"'sonde report %s' shows it again\n", res.dir, o->tool, res.dir);
	}
	if (html && built && report_html(res.dir, html, err, sizeof(err)) < 0)
		sonde_error("%s", err);
	return launch_exit_like(res.status);
}

int bad_option(const char *cmd, char **argv)
{
	if (optopt)
		return sonde_usage_error(cmd, "unknown or incomplete option '-%c'", optopt);
	return sonde_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}
