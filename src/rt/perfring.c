/* SPDX-License-Identifier: MIT */
/*
 * perfring.c - perf ring-buffer records and AMD IBS op raw payloads (see perfring.h).
 * Handler-reachable: sample handlers of the hw source drain their rings through here.
 */
#include <errno.h>
#include <string.h>

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

/* A read position inside one record: reads past `end` fail softly. */
struct cursor {
	const struct perfring *r;
	uint64_t pos, end;
	int short_read;
};

static SIGSAFE void cur_read(struct cursor *c, void *dst, size_t n)
{
	if (c->end - c->pos < n) {
		memset(dst, 0, n);
		c->short_read = 1;
		c->pos = c->end;
		return;
	}
	ring_copy(c->r, c->pos, dst, n);
	c->pos += n;
}

static SIGSAFE uint64_t cur_u64(struct cursor *c)
{
	uint64_t v;
	cur_read(c, &v, sizeof(v));
	return v;
}

static SIGSAFE void cur_skip(struct cursor *c, uint64_t n)
{
	if (c->end - c->pos < n) {
		c->short_read = 1;
		c->pos = c->end;
		return;
	}
	c->pos += n;
}

static SIGSAFE void parse_raw(struct cursor *c, struct perfring_sample *s)
{
	uint32_t len;
	cur_read(c, &len, sizeof(len));
	s->raw_len = len;
	uint32_t keep = len < PERFRING_RAW_MAX ? len : PERFRING_RAW_MAX;
	cur_read(c, s->raw, keep);
	cur_skip(c, len - keep);
}

/* REGS_USER / REGS_INTR: an ABI word, then one u64 per mask bit unless the ABI is NONE. */
static SIGSAFE void skip_regs(struct cursor *c, uint64_t mask)
{
	if (cur_u64(c) != PERF_SAMPLE_REGS_ABI_NONE)
		cur_skip(c, 8ull * (uint64_t)__builtin_popcountll(mask));
}

/* The fields that come before CALLCHAIN, in the kernel's order. */
static SIGSAFE void parse_head(struct cursor *c, uint64_t st, struct perfring_sample *s)
{
	if (st & PERF_SAMPLE_IDENTIFIER)
		s->id = cur_u64(c);
	if (st & PERF_SAMPLE_IP)
		s->ip = cur_u64(c);
	if (st & PERF_SAMPLE_TID) {
		uint32_t pt[2];
		cur_read(c, pt, sizeof(pt));
		s->pid = pt[0];
		s->tid = pt[1];
	}
	if (st & PERF_SAMPLE_TIME)
		s->time = cur_u64(c);
	if (st & PERF_SAMPLE_ADDR)
		s->addr = cur_u64(c);
	if (st & PERF_SAMPLE_ID)
		s->id = cur_u64(c);
	if (st & PERF_SAMPLE_STREAM_ID)
		s->stream_id = cur_u64(c);
	if (st & PERF_SAMPLE_CPU)
		s->cpu = (uint32_t)cur_u64(c); /* u32 cpu, u32 reserved (little endian) */
	if (st & PERF_SAMPLE_PERIOD)
		s->period = cur_u64(c);
}

/* CALLCHAIN and what follows it. */
static SIGSAFE void parse_tail(struct cursor *c, const struct perfring *r,
			       struct perfring_sample *s)
{
	uint64_t st = r->sample_type;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		s->callchain_nr = cur_u64(c);
		if (s->callchain_nr > (c->end - c->pos) / 8)
			c->short_read = 1;
		else
			cur_skip(c, 8 * s->callchain_nr);
	}
	if (st & PERF_SAMPLE_RAW)
		parse_raw(c, s);
	if (st & PERF_SAMPLE_REGS_USER)
		skip_regs(c, r->regs_user_mask);
	if (st & PERF_SAMPLE_WEIGHT)
		s->weight = cur_u64(c);
	if (st & PERF_SAMPLE_WEIGHT_STRUCT)
		s->weight = cur_u64(c) & 0xffffffffu;	/* var1_dw: the latency */
	if (st & PERF_SAMPLE_DATA_SRC)
		s->data_src = cur_u64(c);
	if (st & PERF_SAMPLE_TRANSACTION)
		s->transaction = cur_u64(c);
	if (st & PERF_SAMPLE_REGS_INTR)
		skip_regs(c, r->regs_intr_mask);
	if (st & PERF_SAMPLE_PHYS_ADDR)
		s->phys_addr = cur_u64(c);
	if (st & PERF_SAMPLE_CGROUP)
		s->cgroup = cur_u64(c);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		s->data_page_size = cur_u64(c);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		s->code_page_size = cur_u64(c);
}

SIGSAFE int perfring_parse_sample(const struct perfring *r, uint64_t pos, uint16_t size,
				  struct perfring_sample *s)
{
	struct perf_event_header h;
	struct cursor c = { .r = r, .pos = pos, .end = pos + size };

	memset(s, 0, offsetof(struct perfring_sample, raw));
	cur_read(&c, &h, sizeof(h));
	s->misc = h.misc;
	parse_head(&c, r->sample_type, s);
	parse_tail(&c, r, s);
	return c.short_read ? -EINVAL : 0;
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
