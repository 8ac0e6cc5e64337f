/* SPDX-License-Identifier: MIT */
/* message.c - the CLI's one-line messages on stderr (cmds.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmds.h"

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
