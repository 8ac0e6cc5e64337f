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

char rt_tool_why[256];

/* Append s to rt_tool_why, cut at its size (snprintf is not for this file: sigsafe.h). */
static void why_cat(const char *s)
{
	size_t n = strlen(rt_tool_why), m = strlen(s);
	if (n + m >= sizeof(rt_tool_why))
		m = sizeof(rt_tool_why) - 1 - n;
	memcpy(rt_tool_why + n, s, m);
	rt_tool_why[n + m] = 0;
}

int rt_tool_refuse(const char *why)
{
	rt_tool_why[0] = 0;
	why_cat(why);
	return -ENOTSUP;
}

int rt_tool_need_inst(const char *tool, const char *option)
{
	if (rt_source == &rt_source_inst)
		return 0;
	rt_tool_refuse(tool);
	why_cat(" ");
	why_cat(option);
	why_cat(" sees every access through sonde-cc's callbacks, and this program was not "
		"built by sonde-cc: rebuild it with sonde-cc, or drop ");
	why_cat(option);
	why_cat(" to sample it");
	return -ENOTSUP;
}

SIGSAFE int rt_tool_record(struct rt_thread *t, const void *rec, size_t size)
{
	if (out_append(&t->out, rec, size) < 0) {
		t->stats.dropped++;
		return -ENOSPC;
	}
	return 0;
}
