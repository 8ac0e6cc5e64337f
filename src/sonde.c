/* SPDX-License-Identifier: MIT */
/* sonde.c - the CLI hub: one command table; help is generated from it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"


struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "info", cmd_info, "what this machine offers for profiling, and what to fix" },
	{ "mem", cmd_mem, "which code and which data objects do the memory accesses" },
	{ "report", cmd_report, "show a recorded profile again (text, csv, json)" },
	{ "analyze", cmd_analyze, "cycle accounting and hot spots of a perf.data recording" },
	{ "record-cycles", cmd_record_cycles, "run perf record with this CPU's cycle-accounting events" },
	{ "vsensor", cmd_vsensor, "find fixed-work snippets in MPI programs and the ranks and times that run slow" },
};

void sonde_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("sonde: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void sonde_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("sonde: warning: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int sonde_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("sonde: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	if (cmd)
		fprintf(stderr, "try 'sonde %s --help'\n", cmd);
	else
		fprintf(stderr, "try 'sonde --help'\n");
	return EXIT_USAGE;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: sonde <command> [options] [-- program [args]]\n\n"
		   "Lightweight profilers for parallel programs.  Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-14s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'sonde <command> --help' describes each.  'sonde --version' prints the version.\n"
		   "Manual: doc/sonde.md (exit statuses, environment, output files).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		if (argc > 2 && strcmp(name, "help") == 0) {
			char *sub[] = { argv[2], "--help", NULL };
			name = argv[2];
			for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
				if (!strcmp(commands[i].name, name))
					return commands[i].fn(2, sub);
		}
		usage(stdout);
		return 0;
	}
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("sonde %s\n", SONDE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return commands[i].fn(argc - 1, argv + 1);
	return sonde_usage_error(NULL, "unknown command '%s'", name);
}
