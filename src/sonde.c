/* SPDX-License-Identifier: MIT */
/* sonde.c - the CLI hub: one command table; help is generated from it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "prof/tool.h"


struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

/* The commands that are not tools; the tools' own come from their table (prof/tool.h). */
static const struct command commands[] = {
	{ "info", cmd_info, "what this machine offers for profiling, and what to fix" },
	{ "report", cmd_report, "show a recorded profile again (text, csv, json, html)" },
	{ "record-cycles", cmd_record_cycles, "run perf record with this CPU's cycle-accounting events" },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* The function of the command or tool called name, NULL if there is none. */
static int (*command_find(const char *name))(int, char **)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return commands[i].fn;
	const struct tool *t = tool_find(name);
	return t ? t->cmd : NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: sonde <command> [options] [-- program [args]]\n\n"
		   "Lightweight profilers for parallel programs.  Commands:\n");
	for (size_t i = 0; tools[i]; i++)
		fprintf(f, "  %-14s %s\n", tools[i]->name, tools[i]->summary);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-14s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'sonde <command> --help' describes each.  'sonde --version' prints the version.\n"
		   "Manual: man sonde (doc/sonde.md: exit statuses, environment, output files).\n");
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
			int (*fn)(int, char **) = command_find(argv[2]);
			if (fn)
				return fn(2, sub);
		}
		usage(stdout);
		return 0;
	}
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("sonde %s\n", SONDE_VERSION);
		return 0;
	}
	int (*fn)(int, char **) = command_find(name);
	if (fn)
		return fn(argc - 1, argv + 1);
	/* the compiler wrappers are not subcommands (the trial of 2026-11-29: 'sonde cc') */
	if (!strcmp(name, "cc") || !strcmp(name, "c++") || !strcmp(name, "gcc") ||
	    !strcmp(name, "clang"))
		return sonde_usage_error(NULL, "unknown command '%s': the compiler wrapper for the "
					 "inst source is sonde-cc (one word), the one for vsensor "
					 "'sonde vsensor cc'", name);
	return sonde_usage_error(NULL, "unknown command '%s'", name);
}
