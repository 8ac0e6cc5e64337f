/* SPDX-License-Identifier: MIT */
/*
 * tools.c - the runtime's table of tools: one line per tool with a runtime client
 * (src/tools/<tool>/rt-*.c).  Adding a tool: doc/architecture.md, "Adding a tool".
 */
#include <errno.h>
#include <string.h>

#include "rt/rt.h"
#include "rt/sigsafe.h"

extern const struct rt_tool rt_tool_mem;
extern const struct rt_tool rt_tool_comm;
extern const struct rt_tool rt_tool_reuse;
extern const struct rt_tool rt_tool_variance;

const struct rt_tool *const rt_tools[] = {
	&rt_tool_mem,
	&rt_tool_comm,
	&rt_tool_reuse,
	&rt_tool_variance,
	NULL,
};

const struct rt_tool *rt_tool_find(const char *name)
{
	for (int i = 0; rt_tools[i]; i++)
		if (!strcmp(rt_tools[i]->name, name))
			return rt_tools[i];
	return NULL;
}

SIGSAFE int rt_tool_record(struct rt_thread *t, const void *rec, size_t size)
{
	if (out_append(&t->out, rec, size) < 0) {
		t->stats.dropped++;
		return -ENOSPC;
	}
	return 0;
}
