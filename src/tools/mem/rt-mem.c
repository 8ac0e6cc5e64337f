/* SPDX-License-Identifier: MIT */
/*
 * rt-mem.c - the `mem` tool's runtime client: every sampled access becomes a MEM record with
 * its calling context.  Attribution to data objects happens offline (model.c)
 * from the ALLOC/FREE records, the symbol tables and the thread stacks.  Handler-reachable.
 */
#include "rt/rt.h"
#include "rt/sigsafe.h"
#include "tools/mem/format.h"

static SIGSAFE void mem_on_access(struct rt_thread *t, const struct rt_access *a,
				  const ucontext_t *uc, int skip)
{
	uint64_t ips[256];
	int max = rt_cfg.max_depth > 0 && rt_cfg.max_depth < 256 ? rt_cfg.max_depth : 256;
	int n = ctx_unwind(t, uc, skip, ips, max);
	/* The path's leaf is the accessing instruction itself, not the PC the context was
	 * taken at (a step's trap arrives after the access; the inst source's callback
	 * returns just after it). */
	if (n > 0)
		ips[0] = a->ip;
	else
		ips[n++] = a->ip;
	struct sonde_rec_mem r = {
		.h = { .type = SONDE_REC_MEM, .size = sizeof(r) },
		.ctx = ctx_intern(t, ips, n),
		.len = a->len,
		.flags = a->flags,
		.ip = a->ip,
		.addr = a->addr,
		.time = a->time ? a->time : rt_now(),
		.weight = a->weight ? a->weight : 1,
	};
	if (out_append(&t->out, &r, sizeof(r)) < 0) {
		t->stats.dropped++;
		return;
	}
	t->stats.samples++;
}

/* The thread's dropped samples by cause (the source's causes, then the writer's losses),
 * so that reports can say why samples are missing. */
static SIGSAFE void mem_thread_end(struct rt_thread *t)
{
	struct {
		struct mem_rec_drops r;
		struct mem_drop d[MEM_DROP_MAX];
	} rec;
	const char *names[MEM_DROP_MAX];
	uint64_t counts[MEM_DROP_MAX];
	int n = rt_source && rt_source->drops ? rt_source->drops(t, names, counts, MEM_DROP_MAX - 1) :
						  0;
	names[n] = "unwritten";
	counts[n++] = t->out.lost;
	for (int i = 0; i < n; i++) {
		int k = 0;
		for (; k < MEM_DROP_NAME - 1 && names[i][k]; k++)
			rec.d[i].name[k] = names[i][k];
		for (; k < MEM_DROP_NAME; k++)
			rec.d[i].name[k] = 0;
		rec.d[i].count = counts[i];
	}
	rec.r.h.type = MEM_REC_DROPS;
	rec.r.h.size = (uint16_t)(sizeof(rec.r) + (size_t)n * sizeof(rec.d[0]));
	rec.r.h.reserved = 0;
	rec.r.n = (uint32_t)n;
	rec.r.reserved = 0;
	rt_tool_record(t, &rec, rec.r.h.size);
}

const struct rt_tool rt_tool_mem = {
	.name = "mem",
	.flags = RT_TOOL_OBJECTS | RT_TOOL_SIGNAL_CONTEXT | RT_TOOL_PAST_ACCESS,
	.access = mem_on_access,
	.thread_end = mem_thread_end,
};
