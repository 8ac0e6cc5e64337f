/* SPDX-License-Identifier: MIT */
/*
 * tools.c - the CLI's table of tools: one line per tool folder (src/tools/<name>/).
 * Adding a tool: doc/architecture.md, "Adding a tool".
 */
#include <string.h>

#include "prof/tool.h"

/* one declaration and one entry per tool */
extern const struct tool tool_mem;
extern const struct tool tool_comm;
extern const struct tool tool_reuse;
extern const struct tool tool_variance;
extern const struct tool tool_analyze;
extern const struct tool tool_vsensor;
extern const struct tool tool_bench;

const struct tool *const tools[] = {
	&tool_mem,
	&tool_comm,
	&tool_reuse,
	&tool_variance,
	&tool_analyze,
	&tool_vsensor,
	&tool_bench,
	NULL,
};

const struct tool *tool_find(const char *name)
{
	for (int i = 0; name && tools[i]; i++)
		if (!strcmp(tools[i]->name, name))
			return tools[i];
	return NULL;
}
