/* SPDX-License-Identifier: MIT */
/*
 * u-perfdata-read.c - the READ part of a sample (struct read_format) in both of its
 * layouts, as the kernel ABI defines them (include/uapi/linux/perf_event.h):
 *   single: { value, [time_enabled], [time_running], [id], [lost] }
 *   group:  { nr, [time_enabled], [time_running], nr x { value, [id], [lost] } }
 * The record bytes are written here by hand, word by word, so the check does not depend
 * on the synthetic writer; the writer is then checked against the same bytes.
 */
#include <unistd.h>

#include "check.h"
#include "analyze/perfdata.h"
#include "../../tools/perfdata-synth.h"

#define ENABLED 1
#define RUNNING 2
#define ID 4
#define GROUP 8
#define SAMPLE_READ (1u << 4)

/* A pipe-mode file: header, one ATTR record, one SAMPLE whose body is `words`. */
static size_t build(uint8_t *buf, uint64_t read_format, const uint64_t *words, size_t nw,
		    uint64_t id)
{
	struct synth s;
	struct synth_attr a = { .type = 1, .config = 2, .period = 1000,
				.sample_type = SAMPLE_READ, .read_format = read_format };
	uint64_t ids[1] = { id };
	synth_init(&s, 1);
	synth_attr(&s, &a, "page-faults", ids, 1);
	synth_header(&s.data, 9 /* PERF_RECORD_SAMPLE */, 2, 8 + 8 * nw);
	for (size_t i = 0; i < nw; i++)
		synth_u64(&s.data, words[i]);
	char path[64];
	snprintf(path, sizeof(path), "/tmp/u-perfdata-read-%d", (int)getpid());
	synth_write(&s, path);
	synth_release(&s);
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(buf, 1, 65536, f) : 0;
	if (f)
		fclose(f);
	unlink(path);
	return n;
}

static int first_sample(uint8_t *buf, size_t n, struct pd_record *r, struct perfdata **pdp)
{
	int err;
	char msg[256];
	struct perfdata *pd = perfdata_open_mem(buf, n, &err, msg, sizeof(msg));
	*pdp = pd;
	if (!pd) {
		printf("  open: %s\n", msg);
		return -1;
	}
	int k;
	while ((k = perfdata_next(pd, r)) > 0)
		if (r->type == PD_SAMPLE)
			return 0;
	printf("  no sample (%d): %s\n", k, perfdata_error(pd));
	return -1;
}

TEST(single_layout)
{
	static uint8_t buf[65536];
	const uint64_t words[] = { 4609 /* value */, 72623540 /* enabled */,
				   15819530 /* running */, 634110 /* id */ };
	size_t n = build(buf, ENABLED | RUNNING | ID, words, 4, 634110);
	struct pd_record r;
	struct perfdata *pd;
	if (first_sample(buf, n, &r, &pd) == 0) {
		CHECK_EQ_U64(r.s.time_enabled, 72623540);
		CHECK_EQ_U64(r.s.time_running, 15819530);
		CHECK_EQ_U64(r.s.nread, 1);
		struct pd_read_value v = pd_read_at(r.s.read_values, r.s.read_stride,
						    ENABLED | RUNNING | ID, 0);
		CHECK_EQ_U64(v.value, 4609);
		CHECK_EQ_U64(v.id, 634110);
	} else {
		CHECK(!"sample decoded");
	}
	perfdata_free(pd);
}

TEST(group_layout)
{
	static uint8_t buf[65536];
	const uint64_t words[] = { 2 /* nr */, 500 /* enabled */, 250 /* running */,
				   11 /* value 0 */, 7 /* id 0 */, 22 /* value 1 */, 8 /* id 1 */ };
	size_t n = build(buf, ENABLED | RUNNING | ID | GROUP, words, 7, 7);
	struct pd_record r;
	struct perfdata *pd;
	if (first_sample(buf, n, &r, &pd) == 0) {
		CHECK_EQ_U64(r.s.time_enabled, 500);
		CHECK_EQ_U64(r.s.time_running, 250);
		CHECK_EQ_U64(r.s.nread, 2);
		uint64_t f = ENABLED | RUNNING | ID | GROUP;
		CHECK_EQ_U64(pd_read_at(r.s.read_values, r.s.read_stride, f, 1).value, 22);
		CHECK_EQ_U64(pd_read_at(r.s.read_values, r.s.read_stride, f, 1).id, 8);
	} else {
		CHECK(!"sample decoded");
	}
	perfdata_free(pd);
}

/* The synthetic writer lays out a single READ part exactly as the kernel does. */
TEST(writer_matches_abi)
{
	struct synth s;
	struct synth_attr a = { .type = 1, .sample_type = SAMPLE_READ,
				.read_format = ENABLED | RUNNING | ID };
	uint64_t ids[1] = { 5 };
	synth_init(&s, 1);
	synth_attr(&s, &a, "e", ids, 1);
	size_t before = s.data.n;
	struct synth_sample x = { .en = 300, .run = 100, .nread = 1 };
	x.read_value[0] = 42;
	x.read_id[0] = 5;
	synth_sample(&s, 0, &x);
	const uint8_t *body = s.data.p + before + 8;
	CHECK(s.data.n - before == 8 + 4 * 8);
	CHECK_EQ_U64(pd_u64(body), 42);
	CHECK_EQ_U64(pd_u64(body + 8), 300);
	CHECK_EQ_U64(pd_u64(body + 16), 100);
	CHECK_EQ_U64(pd_u64(body + 24), 5);
	synth_release(&s);
}

int main(void)
{
	RUN(single_layout);
	RUN(group_layout);
	RUN(writer_matches_abi);
	return CHECK_DONE();
}
