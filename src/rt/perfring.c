/* SPDX-License-Identifier: MIT */
/*
 * perfring.c - perf ring-buffer records and AMD IBS op raw payloads (see perfring.h).
 * Handler-reachable: sample handlers of the hw source drain their rings through here.
 * The sample layout itself is parsed by perf-sample.c, shared with the perf.data reader.
 */
#include <errno.h>
#include <string.h>

#include "rt/perf-sample.h"
#include "rt/perfring.h"
#include "rt/sigsafe.h"

#define SAMPLE_OK_BITS                                                                      \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |     \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |      \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |                     \
	 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT |           \
	 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_REGS_INTR |           \
	 PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE |          \
	 PERF_SAMPLE_CODE_PAGE_SIZE)

SIGSAFE int perfring_sample_type_ok(uint64_t sample_type)
{
	if (sample_type & ~(uint64_t)SAMPLE_OK_BITS)
		return 0;
	/* The kernel refuses both weights at once; so do we. */
	return !((sample_type & PERF_SAMPLE_WEIGHT) && (sample_type & PERF_SAMPLE_WEIGHT_STRUCT));
}

/* Copy n bytes from absolute ring position pos, wrapping at the end of the data area. */
static SIGSAFE void ring_copy(const struct perfring *r, uint64_t pos, void *dst, size_t n)
{
	uint64_t off = pos & (r->size - 1);
	size_t first = n;
	if (first > r->size - off)
		first = r->size - off;
	memcpy(dst, r->data + off, first);
	if (n > first)
		memcpy((char *)dst + first, r->data, n - first);
}

/* The body of the record at ring position pos, len bytes: one piece, or two if it wraps. */
static SIGSAFE void ring_bytes(const struct perfring *r, uint64_t pos, size_t len,
			       struct perf_bytes *b)
{
	uint64_t off = pos & (r->size - 1);
	b->p[0] = r->data + off;
	b->n[0] = len < r->size - off ? len : (size_t)(r->size - off);
	b->p[1] = r->data;
	b->n[1] = len - b->n[0];
}

/* The fields a perfring_sample keeps, from the shared parser's sample. */
static SIGSAFE void keep_fields(struct perfring_sample *s, const struct perf_sample *p,
				uint64_t sample_type)
{
	s->id = p->id;
	s->ip = p->ip;
	s->pid = p->pid;
	s->tid = p->tid;
	s->time = p->time;
	s->addr = p->addr;
	s->stream_id = p->stream_id;
	s->cpu = p->cpu;
	s->period = p->period;
	s->callchain_nr = p->nchain;
	s->weight = p->weight;
	if (sample_type & PERF_SAMPLE_WEIGHT_STRUCT)
		s->weight &= 0xffffffffu;	/* var1_dw: the latency */
	s->data_src = p->data_src;
	s->transaction = p->transaction;
	s->phys_addr = p->phys_addr;
	s->cgroup = p->cgroup;
	s->data_page_size = p->data_page_size;
	s->code_page_size = p->code_page_size;
	s->raw_len = p->raw_size;
}

SIGSAFE int perfring_parse_sample(const struct perfring *r, uint64_t pos, uint16_t size,
				  struct perfring_sample *s)
{
	const struct perf_sample_layout l = {
		.sample_type = r->sample_type,
		.regs_user = r->regs_user_mask,
		.regs_intr = r->regs_intr_mask,
	};
	struct perf_event_header h;
	struct perf_bytes b;
	struct perf_sample p;

	memset(s, 0, offsetof(struct perfring_sample, raw));
	if (size < sizeof(h))
		return -EINVAL;
	ring_copy(r, pos, &h, sizeof(h));
	s->misc = h.misc;
	ring_bytes(r, pos + sizeof(h), size - sizeof(h), &b);
	int e = perf_sample_parse(&l, &b, &p);
	keep_fields(s, &p, r->sample_type);
	if (!e && (r->sample_type & PERF_SAMPLE_RAW)) {
		uint32_t keep = p.raw_size < PERFRING_RAW_MAX ? p.raw_size : PERFRING_RAW_MAX;
		ring_copy(r, pos + sizeof(h) + p.raw_off, s->raw, keep);
	}
	return e;
}

/* One pass over [tail, head).  Returns the new tail. */
static SIGSAFE uint64_t drain_once(struct perfring *r, uint64_t tail, uint64_t head,
				   perfring_fn fn, void *arg, struct perfring_stats *st)
{
	struct perfring_sample s;

	while (head - tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		ring_copy(r, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || (h.size & 7) || h.size > head - tail) {
			st->bad++;
			return head;
		}
		if (h.type == PERF_RECORD_SAMPLE) {
			if (perfring_parse_sample(r, tail, h.size, &s) == 0) {
				st->samples++;
				fn(arg, &s);
			} else {
				st->bad++;
			}
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			uint64_t idlost[2];
			ring_copy(r, tail + sizeof(h), idlost, sizeof(idlost));
			st->lost += idlost[1];
		} else {
			st->other++;
		}
		tail += h.size;
	}
	if (head != tail)	/* a partial header cannot happen in a sane ring */
		st->bad++;
	return head;
}

SIGSAFE int perfring_drain(struct perfring *r, perfring_fn fn, void *arg,
			   struct perfring_stats *st)
{
	uint64_t before = st->samples;
	uint64_t tail = r->page->data_tail;	/* only this reader writes it */

	/* A few passes pick up records written while we parsed; bounded so a fast producer
	 * cannot keep a signal handler here forever. */
	for (int pass = 0; pass < 4; pass++) {
		/* Acquire: the records before data_head are visible once we see it. */
		uint64_t head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
		if (head == tail)
			break;
		tail = drain_once(r, tail, head, fn, arg, st);
		/* Release: all reads of the records are done before the kernel may reuse them. */
		__atomic_store_n(&r->page->data_tail, tail, __ATOMIC_RELEASE);
	}
	return (int)(st->samples - before);
}

SIGSAFE int ibs_op_decode(const void *raw, size_t len, struct ibs_op_access *a)
{
	uint64_t reg[IBS_REG_OP_COUNT];

	memset(a, 0, sizeof(*a));
	if (len < 4 + sizeof(reg))
		return -EINVAL;
	memcpy(reg, (const char *)raw + 4, sizeof(reg));	/* after the u32 caps */

	uint64_t d3 = reg[IBS_REG_OP_DATA3];
	a->load = !!(d3 & IBS_OP_DATA3_LD_OP);
	a->store = !!(d3 & IBS_OP_DATA3_ST_OP);
	if (!(a->load || a->store) || !(d3 & IBS_OP_DATA3_LIN_ADDR_VALID))
		return 0;
	a->addr = reg[IBS_REG_DC_LIN_AD];
	a->ip = (reg[IBS_REG_OP_DATA] & IBS_OP_DATA_RIP_INVALID) ? 0 : reg[IBS_REG_OP_RIP];
	unsigned w = (d3 >> IBS_OP_DATA3_WIDTH_SHIFT) & 0xf;
	a->len = (w >= 1 && w <= 7) ? (uint16_t)(1u << (w - 1)) : 0;
	a->miss = !!(d3 & IBS_OP_DATA3_DC_MISS);
	a->latency = a->miss ? (uint32_t)((d3 >> IBS_OP_DATA3_LAT_SHIFT) & 0xffff) : 0;
	return 1;
}
