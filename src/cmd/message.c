/* SPDX-License-Identifier: MIT */
/* message.c - the CLI's one-line messages on stderr (cmds.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmds.h"

/* "sonde: <prefix><message>" and a newline: every message of the CLI */
static void message(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "sonde: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void sonde_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	message("", fmt, ap);
	va_end(ap);
}

void sonde_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	message("warning: ", fmt, ap);
	va_end(ap);
}

int sonde_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	message("", fmt, ap);
	va_end(ap);
	if (cmd)
		fprintf(stderr, "try 'sonde %s --help'\n", cmd);
	else
		fprintf(stderr, "try 'sonde --help'\n");
	return EXIT_USAGE;
}
