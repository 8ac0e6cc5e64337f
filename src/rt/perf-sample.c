/* SPDX-License-Identifier: MIT */
/*
 * perf-sample.c - the PERF_SAMPLE_* layout parser (see perf-sample.h).  Handler-reachable:
 * the hw source's ring drain parses its samples through here.
 */
#include <errno.h>
#include <string.h>

#include <linux/perf_event.h>

#include "rt/perf-sample.h"
#include "rt/sigsafe.h"

/* Bits newer than some kernel headers this builds with. */
#define FMT_LOST (1ull << 4)			/* PERF_FORMAT_LOST */
#define BRANCH_HW_INDEX (1ull << 17)		/* PERF_SAMPLE_BRANCH_HW_INDEX */
#define BRANCH_COUNTERS (1ull << 19)		/* PERF_SAMPLE_BRANCH_COUNTERS */

/* A read position in a body: reads past its end set `bad` and read zeros. */
struct cur {
	const struct perf_bytes *b;
	const uint8_t *p0;	/* b->p[0], b->n[0]: where nearly every read falls */
	size_t n0;
	size_t off, len;
	int bad;
};

static SIGSAFE void cur_init(struct cur *c, const struct perf_bytes *b, size_t off)
{
	c->b = b;
	c->p0 = b->p[0];
	c->n0 = b->n[0];
	c->len = perf_bytes_len(b);
	c->off = off <= c->len ? off : c->len;
	c->bad = off > c->len;
}

static SIGSAFE size_t cur_left(const struct cur *c)
{
	return c->len - c->off;
}

static SIGSAFE void cur_read(struct cur *c, void *dst, size_t n)
{
	if (cur_left(c) < n) {
		memset(dst, 0, n);
		c->bad = 1;
		c->off = c->len;
		return;
	}
	if (c->off + n <= c->n0) {
		memcpy(dst, c->p0 + c->off, n);
	} else if (c->off >= c->n0) {
		memcpy(dst, c->b->p[1] + (c->off - c->n0), n);
	} else {	/* across the wrap */
		size_t first = c->n0 - c->off;
		memcpy(dst, c->p0 + c->off, first);
		memcpy((uint8_t *)dst + first, c->b->p[1], n - first);
	}
	c->off += n;
}

/* The fixed-size reads, inline for the common case of a word inside the first piece
 * (the analyzer parses millions of samples). */
static inline SIGSAFE uint64_t cur_u64(struct cur *c)
{
	uint64_t v;
	if (c->off <= c->n0 && c->n0 - c->off >= 8) {
		memcpy(&v, c->p0 + c->off, 8);
		c->off += 8;
	} else {
		cur_read(c, &v, sizeof(v));
	}
	return v;
}

static inline SIGSAFE uint32_t cur_u32(struct cur *c)
{
	uint32_t v;
	if (c->off <= c->n0 && c->n0 - c->off >= 4) {
		memcpy(&v, c->p0 + c->off, 4);
		c->off += 4;
	} else {
		cur_read(c, &v, sizeof(v));
	}
	return v;
}

/* Skip n bytes; returns the offset they start at. */
static SIGSAFE size_t cur_skip(struct cur *c, uint64_t n)
{
	size_t at = c->off;
	if (cur_left(c) < n) {
		c->bad = 1;
		c->off = c->len;
		return at;
	}
	c->off += (size_t)n;
	return at;
}

/* Skip nr entries of `each` bytes, nr read from the record: fails before any overflow. */
static SIGSAFE size_t cur_skip_n(struct cur *c, uint64_t nr, size_t each)
{
	if (nr > cur_left(c) / each) {
		c->bad = 1;
		c->off = c->len;
		return c->off;
	}
	return cur_skip(c, nr * each);
}

/* ---- READ part ------------------------------------------------------------------------ */

/*
 * The group form is { nr, [enabled], [running], nr x { value, [id], [lost] } }; the
 * single form is { value, [enabled], [running], [id], [lost] }, whose entry is gathered
 * into r->single so that both read as one array.  Writes every field of *r.
 */
static SIGSAFE void read_part(struct cur *c, uint64_t fmt, struct perf_read *r)
{
	r->stride = 8 * (1 + !!(fmt & PERF_FORMAT_ID) + !!(fmt & FMT_LOST));
	if (!(fmt & PERF_FORMAT_GROUP)) {
		uint64_t value = cur_u64(c);
		r->time_enabled = fmt & PERF_FORMAT_TOTAL_TIME_ENABLED ? cur_u64(c) : 0;
		r->time_running = fmt & PERF_FORMAT_TOTAL_TIME_RUNNING ? cur_u64(c) : 0;
		memset(r->single, 0, sizeof(r->single));
		memcpy(r->single, &value, 8);
		cur_read(c, r->single + 8, r->stride - 8);
		r->values_off = 0;
		r->nr = !c->bad;
		return;
	}
	uint64_t nr = cur_u64(c);
	r->time_enabled = fmt & PERF_FORMAT_TOTAL_TIME_ENABLED ? cur_u64(c) : 0;
	r->time_running = fmt & PERF_FORMAT_TOTAL_TIME_RUNNING ? cur_u64(c) : 0;
	memset(r->single, 0, sizeof(r->single));
	r->values_off = cur_skip_n(c, nr, r->stride);
	r->nr = c->bad ? 0 : nr;
}

SIGSAFE int perf_read_parse(uint64_t fmt, const struct perf_bytes *b, size_t *off,
			    struct perf_read *r)
{
	struct cur c;
	cur_init(&c, b, *off);
	read_part(&c, fmt, r);
	*off = c.off;
	return c.bad ? -EINVAL : 0;
}

/* ---- samples -------------------------------------------------------------------------- */

/*
 * The parts below write every field of the sample, 0 for what sample_type leaves out (no
 * memset first: the analyzer parses millions of samples).  After a failed read the cursor
 * stays at the end, so the rest reads as 0 and the sample is refused.
 */

/* REGS_USER / REGS_INTR: an ABI word, then one u64 per mask bit unless the ABI is NONE. */
static SIGSAFE void regs(struct cur *c, int present, uint64_t mask, uint64_t *abi, size_t *off)
{
	*abi = present ? cur_u64(c) : 0;
	*off = *abi != PERF_SAMPLE_REGS_ABI_NONE ?
		       cur_skip(c, 8ull * (uint64_t)__builtin_popcountll(mask)) : 0;
}

static SIGSAFE void branches(struct cur *c, uint64_t bst, struct perf_sample *s)
{
	uint64_t nr = cur_u64(c);
	s->branch_hw_idx = bst & BRANCH_HW_INDEX ? cur_u64(c) : ~0ull;
	s->branch_off = cur_skip_n(c, nr, 24);
	s->nbranch = c->bad ? 0 : nr;
	if (bst & BRANCH_COUNTERS)
		cur_skip_n(c, s->nbranch, 8);
}

/* The fields up to READ, in the kernel's order (perf_output_sample()). */
static SIGSAFE void sample_head(struct cur *c, const struct perf_sample_layout *l,
				struct perf_sample *s)
{
	uint64_t t = l->sample_type;
	uint64_t identifier = t & PERF_SAMPLE_IDENTIFIER ? cur_u64(c) : 0;
	s->ip = t & PERF_SAMPLE_IP ? cur_u64(c) : 0;
	s->pid = t & PERF_SAMPLE_TID ? cur_u32(c) : 0;
	s->tid = t & PERF_SAMPLE_TID ? cur_u32(c) : 0;
	s->time = t & PERF_SAMPLE_TIME ? cur_u64(c) : 0;
	s->addr = t & PERF_SAMPLE_ADDR ? cur_u64(c) : 0;
	s->id = t & PERF_SAMPLE_ID ? cur_u64(c) : identifier;
	s->stream_id = t & PERF_SAMPLE_STREAM_ID ? cur_u64(c) : 0;
	s->cpu = t & PERF_SAMPLE_CPU ? (uint32_t)cur_u64(c) : 0; /* u32 cpu, u32 reserved */
	s->period = t & PERF_SAMPLE_PERIOD ? cur_u64(c) : 0;
	if (t & PERF_SAMPLE_READ)
		read_part(c, l->read_format, &s->read);
	else
		memset(&s->read, 0, sizeof(s->read));
}

/* The variable-length parts (CALLCHAIN onwards) and what follows them. */
static SIGSAFE void sample_tail(struct cur *c, const struct perf_sample_layout *l,
				struct perf_sample *s)
{
	uint64_t t = l->sample_type;
	uint64_t nr = t & PERF_SAMPLE_CALLCHAIN ? cur_u64(c) : 0;
	s->chain_off = t & PERF_SAMPLE_CALLCHAIN ? cur_skip_n(c, nr, 8) : 0;
	s->nchain = c->bad ? 0 : nr;
	s->raw_size = t & PERF_SAMPLE_RAW ? cur_u32(c) : 0;
	s->raw_off = t & PERF_SAMPLE_RAW ? cur_skip(c, s->raw_size) : 0;
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		branches(c, l->branch_sample_type, s);
	} else {
		s->nbranch = s->branch_off = 0;
		s->branch_hw_idx = 0;
	}
	regs(c, !!(t & PERF_SAMPLE_REGS_USER), l->regs_user, &s->regs_user_abi,
	     &s->regs_user_off);
	s->stack_size = t & PERF_SAMPLE_STACK_USER ? cur_u64(c) : 0;
	s->stack_off = t & PERF_SAMPLE_STACK_USER ? cur_skip(c, s->stack_size) : 0;
	s->stack_dyn_size = s->stack_size ? cur_u64(c) : 0; /* only after a non-empty stack */
	s->weight = t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT) ? cur_u64(c) : 0;
	s->data_src = t & PERF_SAMPLE_DATA_SRC ? cur_u64(c) : 0;
	s->transaction = t & PERF_SAMPLE_TRANSACTION ? cur_u64(c) : 0;
	regs(c, !!(t & PERF_SAMPLE_REGS_INTR), l->regs_intr, &s->regs_intr_abi,
	     &s->regs_intr_off);
	s->phys_addr = t & PERF_SAMPLE_PHYS_ADDR ? cur_u64(c) : 0;
	s->cgroup = t & PERF_SAMPLE_CGROUP ? cur_u64(c) : 0;
	s->data_page_size = t & PERF_SAMPLE_DATA_PAGE_SIZE ? cur_u64(c) : 0;
	s->code_page_size = t & PERF_SAMPLE_CODE_PAGE_SIZE ? cur_u64(c) : 0;
	s->aux_size = t & PERF_SAMPLE_AUX ? cur_u64(c) : 0;
	s->aux_off = t & PERF_SAMPLE_AUX ? cur_skip(c, s->aux_size) : 0;
}

SIGSAFE int perf_sample_parse(const struct perf_sample_layout *l, const struct perf_bytes *b,
			      struct perf_sample *s)
{
	struct cur c;
	cur_init(&c, b, 0);
	sample_head(&c, l, s);
	sample_tail(&c, l, s);
	return c.bad ? -EINVAL : 0;
}

/* ---- the sample_id trailer ------------------------------------------------------------ */

SIGSAFE size_t perf_sample_id_size(uint64_t t)
{
	return 8 * (size_t)(!!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) +
			    !!(t & PERF_SAMPLE_ID) + !!(t & PERF_SAMPLE_STREAM_ID) +
			    !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_IDENTIFIER));
}

SIGSAFE int perf_sample_id_parse(uint64_t t, const struct perf_bytes *b, struct perf_sample *s)
{
	size_t n = perf_bytes_len(b), size = perf_sample_id_size(t);
	struct cur c;

	memset(s, 0, sizeof(*s));
	if (size > n)
		return -EINVAL;
	cur_init(&c, b, n - size);
	if (t & PERF_SAMPLE_TID) {
		s->pid = cur_u32(&c);
		s->tid = cur_u32(&c);
	}
	if (t & PERF_SAMPLE_TIME)
		s->time = cur_u64(&c);
	if (t & PERF_SAMPLE_ID)
		s->id = cur_u64(&c);
	if (t & PERF_SAMPLE_STREAM_ID)
		s->stream_id = cur_u64(&c);
	if (t & PERF_SAMPLE_CPU) {
		s->cpu = cur_u32(&c);
		cur_u32(&c);
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		s->id = cur_u64(&c);
	return 0;
}

SIGSAFE long perf_sample_id_pos(uint64_t t, int is_sample)
{
	if (is_sample) {
		if (t & PERF_SAMPLE_IDENTIFIER)
			return 0;
		if (!(t & PERF_SAMPLE_ID))
			return -1;
		return 8 * (!!(t & PERF_SAMPLE_IP) + !!(t & PERF_SAMPLE_TID) +
			    !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ADDR));
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		return 8;
	if (!(t & PERF_SAMPLE_ID))
		return -1;
	return 8 * (1 + !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_STREAM_ID));
}
