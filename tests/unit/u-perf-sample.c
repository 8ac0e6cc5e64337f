/* SPDX-License-Identifier: MIT */
/*
 * u-perf-sample.c - the shared PERF_SAMPLE_* layout parser (rt/perf-sample.h) on sample
 * bodies built here with every field known: all the fixed fields, the READ part in both
 * forms, callchain, raw, branch stack (hw_index, counters), user/interrupt registers, user
 * stack (empty and not), weight_struct, AUX; the same body split in two pieces at every
 * byte (a record that wraps around a ring) parses the same; every truncation and every
 * count that claims more than the body holds gives -EINVAL; the sample_id trailer.
 */
#include <errno.h>
#include <linux/perf_event.h>

#include "check.h"
#include "rt/perf-sample.h"

struct body {
	uint8_t b[1024];
	size_t n;
};

static void put(struct body *x, const void *p, size_t n)
{
	memcpy(x->b + x->n, p, n);
	x->n += n;
}

static void put64(struct body *x, uint64_t v)
{
	put(x, &v, 8);
}

static void put32x2(struct body *x, uint32_t a, uint32_t b)
{
	put(x, &a, 4);
	put(x, &b, 4);
}

static struct perf_bytes whole(const struct body *x)
{
	struct perf_bytes b = { { x->b, NULL }, { x->n, 0 } };
	return b;
}

/* Every field, in the kernel's order; the READ part in group form. */
#define ALL_ST                                                                              \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |     \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |      \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |   \
	 PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |        \
	 PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |       \
	 PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |               \
	 PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX)

static const struct perf_sample_layout all_layout = {
	.sample_type = ALL_ST,
	.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
		       PERF_FORMAT_TOTAL_TIME_RUNNING,
	.branch_sample_type = (1ull << 17) | (1ull << 19),	/* HW_INDEX, COUNTERS */
	.regs_user = 0x7,	/* 3 registers */
	.regs_intr = 0x3,	/* 2 registers */
};

static void build_all(struct body *x)
{
	memset(x, 0, sizeof(*x));
	put64(x, 0x1d);				/* identifier */
	put64(x, 0x401000);			/* ip */
	put32x2(x, 10, 11);			/* pid tid */
	put64(x, 0x7133);			/* time */
	put64(x, 0xadd7);			/* addr */
	put64(x, 0x1d2);			/* id */
	put64(x, 0x5d);				/* stream_id */
	put32x2(x, 3, 0xdead);			/* cpu, reserved */
	put64(x, 1000);				/* period */
	put64(x, 2);				/* read: nr */
	put64(x, 500);				/* time_enabled */
	put64(x, 250);				/* time_running */
	put64(x, 11), put64(x, 7);		/* value, id */
	put64(x, 22), put64(x, 9);
	put64(x, 3);				/* callchain nr */
	put64(x, (uint64_t)-512), put64(x, 0x401001), put64(x, 0x402002);
	uint32_t raw_size = 12;			/* 4 + 12: 8-aligned */
	put(x, &raw_size, 4);
	put(x, "hello world!", 12);
	put64(x, 2);				/* branches: nr */
	put64(x, 77);				/* hw_idx */
	put64(x, 0x10), put64(x, 0x20), put64(x, 1);
	put64(x, 0x30), put64(x, 0x40), put64(x, 2);
	put64(x, 0xc0), put64(x, 0xc1);		/* branch counters */
	put64(x, PERF_SAMPLE_REGS_ABI_64);	/* regs_user */
	put64(x, 1), put64(x, 2), put64(x, 3);
	put64(x, 16);				/* stack_user: size */
	put64(x, 0x5151), put64(x, 0x5252);
	put64(x, 12);				/* dyn_size */
	put64(x, 0x0007000600000099ull);	/* weight struct */
	put64(x, 0xda7a);			/* data_src */
	put64(x, 0x7a);				/* transaction */
	put64(x, PERF_SAMPLE_REGS_ABI_64);	/* regs_intr */
	put64(x, 4), put64(x, 5);
	put64(x, 0xf00d);			/* phys_addr */
	put64(x, 0xc6);				/* cgroup */
	put64(x, 4096);				/* data page size */
	put64(x, 2 << 20);			/* code page size */
	put64(x, 8);				/* aux size */
	put64(x, 0xa0a0);
}

static uint64_t at64(const struct body *x, size_t off)
{
	uint64_t v;
	memcpy(&v, x->b + off, 8);
	return v;
}

static void check_all(const struct body *x, const struct perf_sample *s)
{
	CHECK_EQ_U64(s->id, 0x1d2);	/* ID comes after IDENTIFIER and wins */
	CHECK_EQ_U64(s->ip, 0x401000);
	CHECK_EQ_U64(s->pid, 10);
	CHECK_EQ_U64(s->tid, 11);
	CHECK_EQ_U64(s->time, 0x7133);
	CHECK_EQ_U64(s->addr, 0xadd7);
	CHECK_EQ_U64(s->stream_id, 0x5d);
	CHECK_EQ_U64(s->cpu, 3);
	CHECK_EQ_U64(s->period, 1000);
	CHECK_EQ_U64(s->read.nr, 2);
	CHECK_EQ_U64(s->read.stride, 16);
	CHECK_EQ_U64(s->read.time_enabled, 500);
	CHECK_EQ_U64(s->read.time_running, 250);
	CHECK_EQ_U64(at64(x, s->read.values_off + 16), 22);
	CHECK_EQ_U64(at64(x, s->read.values_off + 24), 9);
	CHECK_EQ_U64(s->nchain, 3);
	CHECK_EQ_U64(at64(x, s->chain_off + 16), 0x402002);
	CHECK_EQ_U64(s->raw_size, 12);
	CHECK(memcmp(x->b + s->raw_off, "hello world!", 12) == 0);
	CHECK_EQ_U64(s->nbranch, 2);
	CHECK_EQ_U64(s->branch_hw_idx, 77);
	CHECK_EQ_U64(at64(x, s->branch_off + 24), 0x30);
	CHECK_EQ_U64(s->regs_user_abi, PERF_SAMPLE_REGS_ABI_64);
	CHECK_EQ_U64(at64(x, s->regs_user_off + 16), 3);
	CHECK_EQ_U64(s->stack_size, 16);
	CHECK_EQ_U64(at64(x, s->stack_off + 8), 0x5252);
	CHECK_EQ_U64(s->stack_dyn_size, 12);
	CHECK_EQ_U64(s->weight, 0x0007000600000099ull);
	CHECK_EQ_U64(s->data_src, 0xda7a);
	CHECK_EQ_U64(s->transaction, 0x7a);
	CHECK_EQ_U64(s->regs_intr_abi, PERF_SAMPLE_REGS_ABI_64);
	CHECK_EQ_U64(at64(x, s->regs_intr_off + 8), 5);
	CHECK_EQ_U64(s->phys_addr, 0xf00d);
	CHECK_EQ_U64(s->cgroup, 0xc6);
	CHECK_EQ_U64(s->data_page_size, 4096);
	CHECK_EQ_U64(s->code_page_size, 2 << 20);
	CHECK_EQ_U64(s->aux_size, 8);
	CHECK_EQ_U64(at64(x, s->aux_off), 0xa0a0);
	CHECK_EQ_U64(s->aux_off + 8, x->n);	/* the last field ends the body */
}

TEST(every_field)
{
	struct body x;
	struct perf_sample s;
	build_all(&x);
	struct perf_bytes b = whole(&x);
	CHECK(perf_sample_parse(&all_layout, &b, &s) == 0);
	check_all(&x, &s);
}

/* The same body in two pieces, cut at every byte: the same sample. */
TEST(split_anywhere)
{
	struct body x;
	struct perf_sample s, ref;
	_Static_assert(sizeof(struct perf_sample) == 8 * 28 + 4 * 4 + sizeof(struct perf_read),
		       "struct perf_sample has no padding");
	build_all(&x);
	struct perf_bytes b = whole(&x);
	CHECK(perf_sample_parse(&all_layout, &b, &ref) == 0);
	for (size_t cut = 0; cut <= x.n; cut++) {
		uint8_t a[1024], c[1024];
		memset(a, 0xa5, sizeof(a));
		memset(c, 0x5a, sizeof(c));
		memcpy(a, x.b, cut);
		memcpy(c, x.b + cut, x.n - cut);
		struct perf_bytes two = { { a, c }, { cut, x.n - cut } };
		memset(&s, 0xee, sizeof(s));	/* every byte is written */
		CHECK(perf_sample_parse(&all_layout, &two, &s) == 0);
		CHECK(memcmp(&s, &ref, sizeof(s)) == 0);
	}
}

/* Every body shorter than the layout needs is refused, whole or in two pieces. */
TEST(every_truncation)
{
	struct body x;
	struct perf_sample s;
	build_all(&x);
	for (size_t n = 0; n < x.n; n++) {
		struct perf_bytes b = { { x.b, NULL }, { n, 0 } };
		CHECK(perf_sample_parse(&all_layout, &b, &s) == -EINVAL);
		struct perf_bytes two = { { x.b, x.b + n / 2 }, { n / 2, n - n / 2 } };
		CHECK(perf_sample_parse(&all_layout, &two, &s) == -EINVAL);
	}
}

/* Counts that claim more entries than the body holds fail, without overflow. */
TEST(lying_counts)
{
	/* 3 words follow the count (28 bytes after a RAW size): 29 is one too many */
	static const uint64_t lies[] = { 29, 1000000, (uint64_t)1 << 61, ~0ull };
	for (size_t i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		const uint64_t parts[] = { PERF_SAMPLE_CALLCHAIN, PERF_SAMPLE_BRANCH_STACK,
					   PERF_SAMPLE_READ, PERF_SAMPLE_RAW, PERF_SAMPLE_STACK_USER,
					   PERF_SAMPLE_AUX };
		for (size_t k = 0; k < sizeof(parts) / sizeof(parts[0]); k++) {
			struct perf_sample_layout l = { .sample_type = PERF_SAMPLE_IP | parts[k],
							.read_format = PERF_FORMAT_GROUP };
			struct body x = { .n = 0 };
			struct perf_sample s;
			put64(&x, 0x401000);
			put64(&x, parts[k] == PERF_SAMPLE_RAW && lies[i] >> 32 ? 0xffffffffu : lies[i]);
			put64(&x, 1), put64(&x, 2), put64(&x, 3);	/* 3 words follow */
			struct perf_bytes b = whole(&x);
			CHECK(perf_sample_parse(&l, &b, &s) == -EINVAL);
		}
	}
}

/* READ without GROUP: value, enabled, running, id, lost, gathered into one entry. */
TEST(read_single)
{
	struct perf_sample_layout l = {
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_READ | PERF_SAMPLE_PERIOD,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
			       PERF_FORMAT_ID | (1ull << 4) /* LOST */,
	};
	struct body x = { .n = 0 };
	struct perf_sample s;
	put64(&x, 0x401000);
	put64(&x, 4000);			/* period */
	put64(&x, 123), put64(&x, 300), put64(&x, 100), put64(&x, 8), put64(&x, 2);
	struct perf_bytes b = whole(&x);
	CHECK(perf_sample_parse(&l, &b, &s) == 0);
	CHECK_EQ_U64(s.period, 4000);
	CHECK_EQ_U64(s.read.nr, 1);
	CHECK_EQ_U64(s.read.stride, 24);
	CHECK_EQ_U64(s.read.time_enabled, 300);
	CHECK_EQ_U64(s.read.time_running, 100);
	uint64_t e[3];
	memcpy(e, s.read.single, sizeof(e));
	CHECK_EQ_U64(e[0], 123);
	CHECK_EQ_U64(e[1], 8);
	CHECK_EQ_U64(e[2], 2);

	/* The same part as a READ record has it, after pid and tid. */
	struct body r = { .n = 0 };
	put32x2(&r, 1, 2);
	put(&r, x.b + 16, 40);
	struct perf_bytes rb = whole(&r);
	struct perf_read pr;
	size_t off = 8;
	CHECK(perf_read_parse(l.read_format, &rb, &off, &pr) == 0);
	CHECK_EQ_U64(off, 48);
	CHECK(memcmp(pr.single, s.read.single, 24) == 0);
	off = 16;
	CHECK(perf_read_parse(l.read_format, &rb, &off, &pr) == -EINVAL);
}

/* No registers for ABI NONE; an empty user stack has no dyn_size; WEIGHT is one word. */
TEST(empty_parts)
{
	struct perf_sample_layout l = {
		.sample_type = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
			       PERF_SAMPLE_WEIGHT | PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_CGROUP,
		.regs_user = 0xff, .regs_intr = 0xff,
	};
	struct body x = { .n = 0 };
	struct perf_sample s;
	put64(&x, PERF_SAMPLE_REGS_ABI_NONE);
	put64(&x, 0);		/* stack size 0: nothing follows */
	put64(&x, 42);		/* weight */
	put64(&x, PERF_SAMPLE_REGS_ABI_NONE);
	put64(&x, 0xc6);	/* cgroup */
	struct perf_bytes b = whole(&x);
	CHECK(perf_sample_parse(&l, &b, &s) == 0);
	CHECK_EQ_U64(s.regs_user_abi, 0);
	CHECK_EQ_U64(s.stack_size, 0);
	CHECK_EQ_U64(s.weight, 42);
	CHECK_EQ_U64(s.cgroup, 0xc6);
}

/* The trailer of non-sample records, and where the event's id is. */
TEST(sample_id)
{
	uint64_t t = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU |
		     PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
	struct body x = { .n = 0 };
	struct perf_sample s;
	put64(&x, 0xbbbb);		/* the record's own body */
	put32x2(&x, 5, 6);
	put64(&x, 777);
	put64(&x, 99);
	put32x2(&x, 1, 0);
	CHECK_EQ_U64(perf_sample_id_size(t), 32);
	struct perf_bytes b = whole(&x);
	CHECK(perf_sample_id_parse(t, &b, &s) == 0);
	CHECK_EQ_U64(s.pid, 5);
	CHECK_EQ_U64(s.tid, 6);
	CHECK_EQ_U64(s.time, 777);
	CHECK_EQ_U64(s.id, 99);
	CHECK_EQ_U64(s.cpu, 1);
	b.n[0] = 31;
	CHECK(perf_sample_id_parse(t, &b, &s) == -EINVAL);

	CHECK(perf_sample_id_pos(t, 1) == 8 * 4);	/* after IP TID TIME ADDR */
	CHECK(perf_sample_id_pos(t, 0) == 16);		/* ID, CPU from the end */
	CHECK(perf_sample_id_pos(t | PERF_SAMPLE_IDENTIFIER, 1) == 0);
	CHECK(perf_sample_id_pos(t | PERF_SAMPLE_IDENTIFIER, 0) == 8);
	CHECK(perf_sample_id_pos(PERF_SAMPLE_IP, 1) == -1);
	CHECK(perf_sample_id_pos(PERF_SAMPLE_IP, 0) == -1);
}

int main(void)
{
	RUN(every_field);
	RUN(split_anywhere);
	RUN(every_truncation);
	RUN(lying_counts);
	RUN(read_single);
	RUN(empty_parts);
	RUN(sample_id);
	return CHECK_DONE();
}
