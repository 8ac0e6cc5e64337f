/* SPDX-License-Identifier: MIT */
/*
 * tools.c - the CLI's table of tools: one line per tool folder (src/tools/<name>/).
 * Adding a tool: doc/architecture.md, "Adding a tool".
 */
#include <string.h>

#include "prof/tool.h"

extern const struct tool tool_mem, tool_analyze;
extern const struct tool tool_comm;

const struct tool *const tools[] = {
	&tool_mem,
	&tool_analyze,
	&tool_comm,
	NULL,
};

const struct tool *tool_find(const char *name)
{
	for (int i = 0; name && tools[i]; i++)
		if (!strcmp(tools[i]->name, name))
			return tools[i];
	return NULL;
}
