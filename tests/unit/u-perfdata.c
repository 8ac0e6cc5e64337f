/* SPDX-License-Identifier: MIT */
/*
 * u-perfdata.c - the perf.data reader on synthetic files whose every field is known:
 * sample layouts (callchain, raw, branch stack with hw_index, group READ, weight, data_src,
 * phys_addr), attr lookup by id, file and pipe mode, and every truncation of a file giving
 * records or a clean error.
 */
#include <errno.h>
#include <unistd.h>

#include "check.h"
#include "analyze/perfdata.h"
#include "../../tools/perfdata-synth.h"

#define ST_ALL (1u | 2u | 4u | 8u | (1u << 4) | (1u << 5) | (1u << 6) | (1u << 7) | (1u << 8) | \
		(1u << 10) | (1u << 11) | (1u << 14) | (1u << 15) | (1u << 19))

static char path[64];
static const uint64_t chain[] = { (uint64_t)-512, 0x401000, 0x402000, 0x403000 };
static const uint64_t branches[] = { 0x10, 0x20, 1, 0x30, 0x40, 2 };
static const uint8_t raw[5] = { 1, 2, 3, 4, 5 };

static int write_file(int pipe)
{
	struct synth s;
	synth_init(&s, pipe);
	uint64_t ids0[2] = { 7, 8 }, ids1[1] = { 9 };
	struct synth_attr a = { .type = 4, .config = 0x1234, .period = 1000, .sample_type = ST_ALL,
				.read_format = 1 | 2 | 4 | 8, .branch_sample_type = 1ull << 17 };
	synth_attr(&s, &a, "first", ids0, 2);
	a.config = 0x5678;
	synth_attr(&s, &a, "second", ids1, 1);
	synth_comm(&s, 5, 5, "prog");
	synth_mmap2(&s, 5, 0x400000, 0x10000, 0x1000, "/bin/prog");
	for (int i = 0; i < 3; i++) {
		struct synth_sample x = {
			.ip = 0x401234 + i, .pid = 5, .tid = 6, .time = 100 + i, .addr = 0xdead,
			.id = i == 2 ? 9 : 8, .cpu = 3, .period = 1000, .en = 500, .run = 250,
			.nread = 2, .read_value = { 11, 22 }, .read_id = { 7, 9 }, .nchain = 4,
			.chain = chain, .nbranch = 2, .branches = branches, .hw_idx = 77,
			.raw_size = 5, .raw = raw, .weight = 42, .data_src = 0x99, .phys_addr = 0xabc,
		};
		synth_sample(&s, i == 2 ? 1 : 0, &x);
	}
	snprintf(path, sizeof(path), "/tmp/u-perfdata-%d.data", (int)getpid());
	int r = synth_write(&s, path);
	synth_release(&s);
	return r;
}

static void check_samples(struct perfdata *pd)
{
	struct pd_record r;
	int n = 0, comm = 0, mmap = 0, k;
	while ((k = perfdata_next(pd, &r)) > 0) {
		if (r.type == PD_COMM) {
			comm++;
			CHECK_STR(r.filename, "prog");
		}
		if (r.type == PD_MMAP2) {
			mmap++;
			CHECK_EQ_U64(r.start, 0x400000);
			CHECK_EQ_U64(r.pgoff, 0x1000);
			CHECK_STR(r.filename, "/bin/prog");
		}
		if (r.type != PD_SAMPLE)
			continue;
		const struct pd_sample *s = &r.s;
		CHECK_EQ_U64(s->attr, n == 2 ? 1 : 0);
		CHECK_EQ_U64(s->ip, 0x401234 + n);
		CHECK(s->pid == 5 && s->tid == 6 && s->cpu == 3);
		CHECK_EQ_U64(s->time, 100 + n);
		CHECK_EQ_U64(s->addr, 0xdead);
		CHECK(s->time_enabled == 500 && s->time_running == 250 && s->nread == 2);
		CHECK_EQ_U64(pd_read_at(s->read_values, s->read_stride, 15, 1).value, 22);
		CHECK_EQ_U64(pd_read_at(s->read_values, s->read_stride, 15, 1).id, 9);
		CHECK_EQ_U64(s->nchain, 4);
		CHECK_EQ_U64(pd_chain_at(s, 3), 0x403000);
		CHECK_EQ_U64(s->raw_size, 12);	/* 5 bytes padded: 4 + 12 = 16 */
		CHECK(s->raw && s->raw[4] == 5);
		CHECK_EQ_U64(s->nbranch, 2);
		CHECK_EQ_U64(s->branch_hw_idx, 77);
		CHECK_EQ_U64(pd_branch_at(s, 1).to, 0x40);
		CHECK_EQ_U64(pd_branch_at(s, 1).flags, 2);
		/* fields after the variable-size ones land right */
		CHECK_EQ_U64(s->weight, 42);
		CHECK_EQ_U64(s->data_src, 0x99);
		CHECK_EQ_U64(s->phys_addr, 0xabc);
		n++;
	}
	if (k)
		printf("  %s\n", perfdata_error(pd));
	CHECK_EQ_U64(k, 0);
	CHECK(n == 3 && comm == 1 && mmap == 1);
	CHECK_EQ_U64(perfdata_attr(pd, 0)->nsamples, 2);
	CHECK_EQ_U64(perfdata_attr(pd, 1)->nsamples, 1);
	CHECK_STR(perfdata_attr(pd, 1)->name, "second");
	CHECK_EQ_U64(perfdata_attr_of_id(pd, 7), 0);
	CHECK_EQ_U64(perfdata_attr_of_id(pd, 9), 1);
}

static void round_trip(int pipe)
{
	CHECK(write_file(pipe) == 0);
	int err = 0;
	char msg[256] = "";
	struct perfdata *pd = perfdata_open(path, &err, msg, sizeof(msg));
	CHECK(pd != NULL);
	if (pd) {
		CHECK_EQ_U64(perfdata_is_pipe(pd), pipe);
		check_samples(pd);
		perfdata_free(pd);
	} else {
		printf("  %s\n", msg);
	}
	unlink(path);
}

TEST(file_mode_fields)
{
	round_trip(0);
}

TEST(pipe_mode_fields)
{
	round_trip(1);
}

/* Every prefix of the file: open fails cleanly, or the walk ends in 0 or -EINVAL. */
TEST(every_truncation_is_clean)
{
	for (int pipe = 0; pipe < 2; pipe++) {
		CHECK(write_file(pipe) == 0);
		FILE *f = fopen(path, "rb");
		static uint8_t buf[1 << 16];
		size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;
		if (f)
			fclose(f);
		unlink(path);
		CHECK(n > 200);
		int bad = 0;
		for (size_t cut = 0; cut < n; cut++) {
			int err = 0;
			char msg[256] = "";
			struct perfdata *pd = perfdata_open_mem(buf, cut, &err, msg, sizeof(msg));
			if (!pd) {
				bad |= err != -EINVAL || !msg[0];
				continue;
			}
			int k = perfdata_scan(pd);
			bad |= !(k == 0 || (k == -EINVAL && strstr(perfdata_error(pd), "offset")));
			perfdata_free(pd);
		}
		CHECK(!bad);
	}
}

TEST(bad_magic)
{
	static const uint8_t junk[128] = "NOTPERF!";
	int err = 0;
	char msg[256] = "";
	CHECK(perfdata_open_mem(junk, sizeof(junk), &err, msg, sizeof(msg)) == NULL);
	CHECK(err == -EINVAL && strstr(msg, "not a perf.data file"));
}

int main(void)
{
	RUN(file_mode_fields);
	RUN(pipe_mode_fields);
	RUN(every_truncation_is_clean);
	RUN(bad_magic);
	return CHECK_DONE();
}
