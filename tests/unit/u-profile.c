/* SPDX-License-Identifier: MIT */
/*
 * u-profile.c - the raw recording reader (src/prof/profile.c): synthetic recordings written
 * here with format.h's structs are read back field by field; every truncation of a small
 * stream and thousands of random corruptions read cleanly or fail with a one-line error.
 *
 * `u-profile --write-fixtures DIR` writes the checked-in fixtures of tests/fixtures/profile
 * (valid, truncated, corrupt); the test `fixtures_current` checks they still match.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "prof/profile.h"
#include "sonde/format.h"

/* ---- a minimal writer of format.h streams ---- */

static void mktmp(void)
{
	check_mktmp("u-profile");
}

static void rmtmp(void)
{
	check_rmtmp();
}

/* A stream whose header is header_size bytes: the fields up to there, then 0xee bytes. */
static FILE *w_stream_sized(const char *dir, const char *prefix, int pid, int tid,
			    uint32_t index, uint64_t lo, uint64_t hi, uint32_t header_size)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s-%d.sdt", dir, prefix, tid);
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	struct sonde_file_header h = {
		.version = SONDE_FORMAT_VERSION,
		.header_size = header_size,
		.endian = SONDE_ENDIAN_TAG,
		.source = SONDE_SOURCE_CLOCK,
		.period = 1000000,
		.pid = pid,
		.tid = tid,
		.rank = -1,
		.thread_index = index,
		.start_ns = 1000,
		.stack_lo = lo,
		.stack_hi = hi,
	};
	memcpy(h.magic, SONDE_MAGIC, SONDE_MAGIC_LEN);
	fwrite(&h, header_size < sizeof(h) ? header_size : sizeof(h), 1, f);
	for (uint32_t i = sizeof(h); i < header_size; i++)
		fputc(0xee, f);
	return f;
}

static FILE *w_stream(const char *dir, const char *prefix, int pid, int tid, uint32_t index,
		      uint64_t lo, uint64_t hi, uint32_t extra_header)
{
	return w_stream_sized(dir, prefix, pid, tid, index, lo, hi,
			      (uint32_t)sizeof(struct sonde_file_header) + extra_header);
}

/* The fixtures keep the header as version 1 first had it (72 bytes, before the TLS range):
 * t080-t082 read a recording of that writer. */
#define FIXTURE_HEADER ((uint32_t)offsetof(struct sonde_file_header, tls_lo))

static void w_rec(FILE *f, void *rec, uint16_t type, size_t size, size_t padded)
{
	struct sonde_rec_hdr *h = rec;
	h->type = type;
	h->size = (uint16_t)padded;
	h->reserved = 0;
	fwrite(rec, size, 1, f);
	for (size_t i = size; i < padded; i++)
		fputc(0, f);
}

static void w_ctx(FILE *f, uint32_t id, uint32_t parent, uint64_t ip)
{
	struct sonde_rec_ctx r = { .id = id, .parent = parent, .ip = ip };
	w_rec(f, &r, SONDE_REC_CTX, sizeof(r), sizeof(r));
}

static void w_mem(FILE *f, uint32_t ctx, uint64_t ip, uint64_t addr, uint64_t time,
		  uint16_t flags, uint64_t weight)
{
	struct sonde_rec_mem r = { .ctx = ctx, .len = 8, .flags = flags, .ip = ip, .addr = addr,
				   .time = time, .weight = weight };
	w_rec(f, &r, SONDE_REC_MEM, sizeof(r), sizeof(r));
}

static void w_alloc(FILE *f, uint32_t ctx, uint64_t addr, uint64_t size, uint64_t time)
{
	struct sonde_rec_alloc r = { .ctx = ctx, .addr = addr, .size = size, .time = time };
	w_rec(f, &r, SONDE_REC_ALLOC, sizeof(r), sizeof(r));
}

static void w_free(FILE *f, uint64_t addr, uint64_t time)
{
	struct sonde_rec_free r = { .addr = addr, .time = time };
	w_rec(f, &r, SONDE_REC_FREE, sizeof(r), sizeof(r));
}

static void w_stats(FILE *f, uint64_t samples, uint64_t dropped)
{
	struct sonde_rec_stats r = { .samples = samples, .dropped = dropped, .signals = 7,
				     .steps = 8, .traps = 9, .accesses = 10, .cpu_ns = 11,
				     .unwind_fail = 12 };
	w_rec(f, &r, SONDE_REC_STATS, sizeof(r), sizeof(r));
}

static void w_end(FILE *f, int signo, uint64_t time)
{
	struct sonde_rec_end r = { .signo = signo, .time = time };
	w_rec(f, &r, SONDE_REC_END, sizeof(r), sizeof(r));
}

static void w_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

static void w_proc(const char *dir, const char *prefix, const char *extra)
{
	char name[128], text[1024];
	snprintf(name, sizeof(name), "%s.proc", prefix);
	snprintf(text, sizeof(text),
		 "format=1\nprefix=%s\npid=1234\nppid=1\nrank=-1\nhost=node1\n"
		 "exe=/usr/bin/demo\nargv=demo\x1f-n\x1f" "3\ntool=mem\nsource=clock\n"
		 "source_why=no PMU\nperiod=1000000\nperiod_unit=ns\nstart_ns=1000\n"
		 "min_object=4096\nmax_depth=64\n%s",
		 prefix, extra);
	w_file(dir, name, text);
}

/* ---- the fixtures (see tests/fixtures/profile/README) ---- */

/*
 * Process 1234, two threads.  Main (tid 1234, index 0, stack [0x7ff000000, 0x7ff100000)):
 * site A (ctx 3, ip 0x401100) allocates [0x10000, +4096) at t=100, site B (ctx 4, ip
 * 0x401200) [0x20000, +8192) at t=110; A's block is freed at t=300 and B reuses its
 * address ([0x10000, +1024)) at t=310.  Samples (ip 0x401300 "code X" unless said):
 *   t=200..205: 6 on A's block (2 of them stores)
 *   t=210..212: 3 on B's first block
 *   t=220,221:  2 on the main stack (ip 0x401400, "code Y")
 *   t=230:      1 on 0x5000 (no mapping: "[unknown]")
 *   t=320:      1 on 0x10010, now B's second block
 * Thread 1 (tid 1240, index 1, stack [0x7fe000000, 0x7fe100000)):
 *   t=400,401:  2 records of weight 2 on B's first block (loads), ip 0x401400
 *   t=402:      1 on its own stack, ip 0x401400
 * So: B 3+1+4 = 8, A 6, stack of thread 0: 2, stack of thread 1: 1, [unknown] 1; total 18.
 */
static void fixture_main(const char *dir, int truncated)
{
	FILE *f = w_stream_sized(dir, "1234", 1234, 1234, 0, 0x7ff000000, 0x7ff100000,
				 FIXTURE_HEADER);
	w_ctx(f, 1, 0, 0);
	w_ctx(f, 2, 1, 0x401000);
	w_ctx(f, 3, 2, 0x401100);
	w_ctx(f, 4, 2, 0x401200);
	w_ctx(f, 5, 2, 0x401300);
	w_ctx(f, 6, 2, 0x401400);
	w_alloc(f, 3, 0x10000, 4096, 100);
	w_alloc(f, 4, 0x20000, 8192, 110);
	for (int i = 0; i < 6; i++)
		w_mem(f, 5, 0x401300, 0x10000 + 64 * i, 200 + i, i < 2 ? SONDE_MEM_STORE : 0, 1);
	for (int i = 0; i < 3; i++)
		w_mem(f, 5, 0x401300, 0x20000 + 8 * i, 210 + i, 0, 1);
	w_mem(f, 6, 0x401400, 0x7ff0fff00, 220, SONDE_MEM_STORE, 1);
	w_mem(f, 6, 0x401400, 0x7ff0fff08, 221, 0, 1);
	w_mem(f, 5, 0x401300, 0x5000, 230, 0, 1);
	w_free(f, 0x10000, 300);
	w_alloc(f, 4, 0x10000, 1024, 310);
	w_mem(f, 5, 0x401300, 0x10010, 320, 0, 1);
	w_stats(f, 13, 2);
	if (!truncated)
		w_end(f, 0, 1000);
	fclose(f);
}

static void fixture_thread1(const char *dir, int truncated)
{
	FILE *f = w_stream_sized(dir, "1234", 1234, 1240, 1, 0x7fe000000, 0x7fe100000,
				 FIXTURE_HEADER);
	w_ctx(f, 1, 0, 0);
	w_ctx(f, 2, 1, 0x401400);
	w_mem(f, 2, 0x401400, 0x20100, 400, 0, 2);
	w_mem(f, 2, 0x401400, 0x20108, 401, 0, 2);
	w_mem(f, 2, 0x401400, 0x7fe0ff000, 402, 0, 1);
	if (truncated) {
		/* the process died while this record was being written: half of it is there */
		struct sonde_rec_mem r = { .ctx = 2, .ip = 0x401400, .addr = 0x20000, .time = 403 };
		r.h.type = SONDE_REC_MEM;
		r.h.size = sizeof(r);
		fwrite(&r, 20, 1, f);
	} else {
		w_stats(f, 3, 0);
		w_end(f, 0, 1000);
	}
	fclose(f);
}

/* Offset of the corrupted record in the corrupt fixture's 1234-1240.sdt: its third MEM. */
#define CORRUPT_OFFSET (FIXTURE_HEADER + 2 * sizeof(struct sonde_rec_ctx) + \
			2 * sizeof(struct sonde_rec_mem))

static void write_fixture(const char *dir, const char *kind)
{
	int trunc = !strcmp(kind, "truncated");
	mkdir(dir, 0755);
	w_proc(dir, "1234", trunc ? "end_ns=5000\nend=signal\nsigno=11\nthreads=2\n"
				  : "end_ns=5000\nend=exit\nsigno=0\nthreads=2\n");
	w_file(dir, "1234.maps", "");
	fixture_main(dir, trunc);
	fixture_thread1(dir, trunc);
	if (!strcmp(kind, "corrupt")) {
		char path[512];
		snprintf(path, sizeof(path), "%s/1234-1240.sdt", dir);
		FILE *f = fopen(path, "r+b");
		uint16_t bad = 12;	/* not a multiple of 8 */
		fseek(f, (long)CORRUPT_OFFSET + 2, SEEK_SET);
		fwrite(&bad, 2, 1, f);
		fclose(f);
	}
}

static int write_fixtures(const char *dir)
{
	static const char *const kinds[] = { "valid", "truncated", "corrupt" };
	char sub[512];
	mkdir(dir, 0755);
	for (int i = 0; i < 3; i++) {
		snprintf(sub, sizeof(sub), "%s/%s", dir, kinds[i]);
		write_fixture(sub, kinds[i]);
	}
	return 0;
}

/* ---- reading back ---- */

static struct profile *read_ok(const char *dir)
{
	struct profile *p = NULL;
	char err[512] = "";
	int r = profile_read(dir, &p, err, sizeof(err));
	if (r)
		printf("  profile_read: %d %s\n", r, err);
	CHECK(r == 0);
	return p;
}

TEST(roundtrip)
{
	mktmp();
	write_fixture(tmpdir, "valid");
	struct profile *p = read_ok(tmpdir);
	if (!p)
		return rmtmp();
	CHECK_EQ_U64(p->nproc, 1);
	const struct prof_process *pr = &p->proc[0];
	CHECK_STR(pr->prefix, "1234");
	CHECK_EQ_U64(pr->pid, 1234);
	CHECK_EQ_U64(pr->ppid, 1);
	CHECK(pr->rank == -1);
	CHECK_STR(pr->host, "node1");
	CHECK_STR(pr->exe, "/usr/bin/demo");
	CHECK_STR(pr->argv, "demo\x1f-n\x1f" "3");
	CHECK_STR(pr->tool, "mem");
	CHECK_STR(pr->source, "clock");
	CHECK_STR(pr->source_why, "no PMU");
	CHECK_STR(pr->period_unit, "ns");
	CHECK_STR(pr->end, "exit");
	CHECK_EQ_U64(pr->period, 1000000);
	CHECK_EQ_U64(pr->start_ns, 1000);
	CHECK_EQ_U64(pr->end_ns, 5000);
	CHECK_EQ_U64(pr->min_object, 4096);
	CHECK_EQ_U64(pr->max_depth, 64);
	CHECK_EQ_U64(pr->threads, 2);
	CHECK(pr->maps_path == NULL);	/* the maps copy is empty */
	CHECK_EQ_U64(pr->nthread, 2);
	const struct prof_thread *t0 = &pr->thread[0], *t1 = &pr->thread[1];
	CHECK_EQ_U64(t0->hdr.tid, 1234);
	CHECK_EQ_U64(t1->hdr.tid, 1240);
	CHECK_EQ_U64(t1->hdr.thread_index, 1);
	CHECK_EQ_U64(t0->hdr.stack_lo, 0x7ff000000);
	CHECK_EQ_U64(t0->hdr.stack_hi, 0x7ff100000);
	CHECK_EQ_U64(t0->hdr.period, 1000000);
	CHECK_EQ_U64(t0->hdr.source, SONDE_SOURCE_CLOCK);
	CHECK_EQ_U64(t0->nctx, 6);
	CHECK_EQ_U64(t0->nmem, 13);
	CHECK_EQ_U64(t0->nalloc, 3);
	CHECK_EQ_U64(t0->nfree, 1);
	CHECK_EQ_U64(t1->nmem, 3);
	CHECK_EQ_U64(t0->mem[0].addr, 0x10000);
	CHECK_EQ_U64(t0->mem[0].flags, SONDE_MEM_STORE);
	CHECK_EQ_U64(t0->mem[0].ctx, 5);
	CHECK_EQ_U64(t0->mem[0].len, 8);
	CHECK_EQ_U64(t0->mem[0].ip, 0x401300);
	CHECK_EQ_U64(t0->mem[0].time, 200);
	CHECK_EQ_U64(t1->mem[0].weight, 2);
	CHECK_EQ_U64(t0->alloc[2].addr, 0x10000);
	CHECK_EQ_U64(t0->alloc[2].size, 1024);
	CHECK_EQ_U64(t0->alloc[2].ctx, 4);
	CHECK_EQ_U64(t0->alloc[2].time, 310);
	CHECK_EQ_U64(t0->free[0].addr, 0x10000);
	CHECK_EQ_U64(t0->free[0].time, 300);
	CHECK(t0->has_stats && t0->has_end && !t0->truncated);
	CHECK_EQ_U64(t0->stats.samples, 13);
	CHECK_EQ_U64(t0->stats.dropped, 2);
	CHECK_EQ_U64(t0->stats.signals, 7);
	CHECK_EQ_U64(t0->stats.unwind_fail, 12);
	CHECK_EQ_U64(t0->end_time, 1000);
	CHECK_EQ_U64(t0->unknown, 0);
	uint64_t ips[8];
	int n = prof_ctx_path(t0, 3, ips, 8);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(ips[0], 0x401100);
	CHECK_EQ_U64(ips[1], 0x401000);
	profile_free(p);
	rmtmp();
}

/* Unknown record types, records longer than their type and a longer header are skipped;
 * records of the tool's range (>= SONDE_REC_TOOL) are kept whole for the tool. */
TEST(forward_compatible)
{
	mktmp();
	w_proc(tmpdir, "77", "");
	FILE *f = w_stream(tmpdir, "77", 77, 77, 0, 0, 0, 16);
	struct { struct sonde_rec_hdr h; uint64_t x[3]; } unk = { .x = { 1, 2, 3 } };
	w_rec(f, &unk, 50, sizeof(unk), sizeof(unk));		/* a core type not known yet */
	w_rec(f, &unk, SONDE_REC_TOOL + 35, sizeof(unk), sizeof(unk));	/* the tool's */
	struct { struct sonde_rec_mem m; uint64_t extra; } big = {
		.m = { .ctx = 0, .ip = 5, .addr = 6, .time = 7, .weight = 1 }, .extra = ~0ULL };
	w_rec(f, &big, SONDE_REC_MEM, sizeof(big), sizeof(big));
	w_rec(f, &unk, 0, sizeof(unk.h), sizeof(unk.h));	/* type 0: unknown, 8 bytes */
	w_end(f, 0, 9);
	fclose(f);
	struct profile *p = read_ok(tmpdir);
	if (p) {
		const struct prof_thread *t = &p->proc[0].thread[0];
		CHECK_EQ_U64(t->unknown, 2);
		CHECK_EQ_U64(t->ntool, 1);
		size_t off = 0;
		const struct sonde_rec_hdr *h = prof_tool_next(t, &off);
		CHECK(h != NULL);
		if (h) {
			CHECK_EQ_U64(h->type, SONDE_REC_TOOL + 35);
			CHECK_EQ_U64(h->size, sizeof(unk));
			CHECK_EQ_U64(((const uint64_t *)(h + 1))[2], 3);
		}
		CHECK(prof_tool_next(t, &off) == NULL);
		CHECK_EQ_U64(t->nmem, 1);
		CHECK_EQ_U64(t->mem[0].addr, 6);
		CHECK_EQ_U64(t->mem[0].time, 7);
		CHECK(!t->truncated);
	}
	profile_free(p);
	rmtmp();
}

/* A header written before the TLS range (72 bytes): the range reads 0, the records after
 * it whole. */
TEST(header_before_tls)
{
	mktmp();
	w_proc(tmpdir, "78", "");
	char path[512];
	snprintf(path, sizeof(path), "%s/78-78.sdt", tmpdir);
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	size_t old = offsetof(struct sonde_file_header, tls_lo);
	struct sonde_file_header h = {
		.version = 1, .header_size = (uint32_t)old, .endian = SONDE_ENDIAN_TAG,
		.source = SONDE_SOURCE_CLOCK, .period = 5, .pid = 78, .tid = 78, .rank = -1,
		.stack_lo = 0x1000, .stack_hi = 0x2000,
	};
	memcpy(h.magic, SONDE_MAGIC, SONDE_MAGIC_LEN);
	fwrite(&h, old, 1, f);
	w_ctx(f, 1, 0, 0x401000);
	w_end(f, 0, 9);
	fclose(f);
	CHECK_EQ_U64(old, 72);
	struct profile *p = read_ok(tmpdir);
	if (p) {
		const struct prof_thread *t = &p->proc[0].thread[0];
		CHECK_EQ_U64(t->hdr.stack_hi, 0x2000);
		CHECK_EQ_U64(t->hdr.tls_lo, 0);
		CHECK_EQ_U64(t->hdr.tls_hi, 0);
		CHECK_EQ_U64(t->nctx, 1);
		CHECK_EQ_U64(t->ctx[0].ip, 0x401000);
		CHECK(!t->truncated);
	}
	profile_free(p);
	rmtmp();
}

static uint32_t be32(uint32_t v)
{
	return __builtin_bswap32(v);
}

static uint64_t be64(uint64_t v)
{
	return __builtin_bswap64(v);
}

/* A stream written in the other byte order reads the same, swapped. */
TEST(other_byte_order)
{
	mktmp();
	w_proc(tmpdir, "5", "");
	char path[512];
	snprintf(path, sizeof(path), "%s/5-6.sdt", tmpdir);
	FILE *f = fopen(path, "wb");
	struct sonde_file_header h = {
		.version = be32(1), .header_size = be32(sizeof(h)),
		.endian = be32(SONDE_ENDIAN_TAG),
		.source = be32(SONDE_SOURCE_INST), .period = be64(10), .pid = (int32_t)be32(5),
		.tid = (int32_t)be32(6), .rank = (int32_t)be32(3), .thread_index = be32(2),
		.start_ns = be64(11), .stack_lo = be64(0x1000), .stack_hi = be64(0x2000),
		.tls_lo = be64(0x1e00), .tls_hi = be64(0x1f80),
	};
	memcpy(h.magic, SONDE_MAGIC, SONDE_MAGIC_LEN);
	fwrite(&h, sizeof(h), 1, f);
	struct sonde_rec_ctx c = { .h = { __builtin_bswap16(SONDE_REC_CTX),
					  __builtin_bswap16(sizeof(c)), 0 },
				   .id = be32(1), .parent = 0, .ip = be64(0x401234) };
	fwrite(&c, sizeof(c), 1, f);
	struct sonde_rec_mem m = { .h = { __builtin_bswap16(SONDE_REC_MEM),
					  __builtin_bswap16(sizeof(m)), 0 },
				   .ctx = be32(1), .len = __builtin_bswap16(4),
				   .flags = __builtin_bswap16(SONDE_MEM_STORE),
				   .ip = be64(0x401234),
				   .addr = be64(0xabcdef), .time = be64(99), .weight = be64(3) };
	fwrite(&m, sizeof(m), 1, f);
	struct sonde_rec_end e = { .h = { __builtin_bswap16(SONDE_REC_END),
					  __builtin_bswap16(sizeof(e)), 0 },
				   .signo = (int32_t)be32(11), .time = be64(100) };
	fwrite(&e, sizeof(e), 1, f);
	fclose(f);
	struct profile *p = read_ok(tmpdir);
	if (p) {
		const struct prof_thread *t = &p->proc[0].thread[0];
		CHECK(t->swapped);
		CHECK_EQ_U64(t->hdr.tid, 6);
		CHECK_EQ_U64(t->hdr.rank, 3);
		CHECK_EQ_U64(t->hdr.thread_index, 2);
		CHECK_EQ_U64(t->hdr.period, 10);
		CHECK_EQ_U64(t->hdr.stack_hi, 0x2000);
		CHECK_EQ_U64(t->hdr.tls_lo, 0x1e00);
		CHECK_EQ_U64(t->hdr.tls_hi, 0x1f80);
		CHECK_EQ_U64(t->nctx, 1);
		CHECK_EQ_U64(t->ctx[0].ip, 0x401234);
		CHECK_EQ_U64(t->nmem, 1);
		CHECK_EQ_U64(t->mem[0].len, 4);
		CHECK_EQ_U64(t->mem[0].flags, SONDE_MEM_STORE);
		CHECK_EQ_U64(t->mem[0].addr, 0xabcdef);
		CHECK_EQ_U64(t->mem[0].weight, 3);
		CHECK_EQ_U64(t->end_signo, 11);
	}
	profile_free(p);
	rmtmp();
}

static int read_stream(const char *path, struct prof_thread *t, char *err, size_t len)
{
	err[0] = 0;
	return prof_thread_read(path, t, err, len);
}

/* The error message is one line naming the file and a byte offset. */
static void check_error_line(const char *err, const char *path)
{
	CHECK(strstr(err, path) != NULL);
	CHECK(strstr(err, "offset ") != NULL);
	CHECK(strchr(err, '\n') == NULL);
}

static void patch(const char *path, long off, const void *bytes, size_t n)
{
	FILE *f = fopen(path, "r+b");
	fseek(f, off, SEEK_SET);
	fwrite(bytes, n, 1, f);
	fclose(f);
}

TEST(corrupt_headers)
{
	struct prof_thread t;
	char err[512], path[512];
	static const struct {
		long off;
		uint32_t val;
		const char *what;
	} cases[] = {
		{ 0, 0x41414141, "magic" },
		{ offsetof(struct sonde_file_header, version), 2, "version" },
		{ offsetof(struct sonde_file_header, version), 0, "version" },
		{ offsetof(struct sonde_file_header, endian), 0x04030201 + 1, "byte-order" },
		{ offsetof(struct sonde_file_header, header_size), 12, "header size" },
		{ offsetof(struct sonde_file_header, header_size), 1u << 30, "header size" },
	};
	mktmp();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_fixture(tmpdir, "valid");
		snprintf(path, sizeof(path), "%s/1234-1240.sdt", tmpdir);
		patch(path, cases[i].off, &cases[i].val, 4);
		int r = read_stream(path, &t, err, sizeof(err));
		CHECK(r == -EINVAL);
		check_error_line(err, path);
		const char *what = cases[i].what;
		if (!strstr(err, what))
			printf("  case %zu: '%s'\n", i, err);
		CHECK(strstr(err, what) != NULL);
		prof_thread_release(&t);
	}
	/* the checked-in corrupt fixture's error, offset known by construction */
	write_fixture(tmpdir, "corrupt");
	struct profile *p = NULL;
	int r = profile_read(tmpdir, &p, err, sizeof(err));
	CHECK(r == -EINVAL);
	char want[64];
	snprintf(want, sizeof(want), "1234-1240.sdt: offset %zu: ", CORRUPT_OFFSET);
	if (!strstr(err, want))
		printf("  '%s' lacks '%s'\n", err, want);
	CHECK(strstr(err, want) != NULL);
	CHECK(p == NULL);
	rmtmp();
}

static long file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) < 0 ? 0 : (long)st.st_size;
}

/* Cut a stream at every byte: a clean partial read (flagged truncated) or a clean error. */
TEST(truncation_every_offset)
{
	char src[512], dst[512], err[512];
	struct prof_thread full, t;
	mktmp();
	write_fixture(tmpdir, "valid");
	snprintf(src, sizeof(src), "%s/1234-1234.sdt", tmpdir);
	snprintf(dst, sizeof(dst), "%s/cut.sdt", tmpdir);
	CHECK(read_stream(src, &full, err, sizeof(err)) == 0);
	long size = file_size(src);
	char *buf = malloc((size_t)size + 1);
	FILE *f = fopen(src, "rb");
	CHECK(fread(buf, 1, (size_t)size, f) == (size_t)size);
	fclose(f);
	int partial = 0, errors = 0;
	for (long cut = 0; cut < size; cut++) {
		/* a new file each time: rewriting a truncated one makes ext4 flush it */
		unlink(dst);
		f = fopen(dst, "wb");
		fwrite(buf, 1, (size_t)cut, f);
		fclose(f);
		int r = read_stream(dst, &t, err, sizeof(err));
		if (r == 0) {
			partial++;
			CHECK(t.truncated);
			CHECK(t.nmem <= full.nmem && t.nctx <= full.nctx);
			CHECK(t.cut_offset <= (uint64_t)cut);
			if (t.nmem)
				CHECK(!memcmp(t.mem, full.mem, t.nmem * sizeof(*t.mem)));
		} else {
			errors++;
			CHECK(r == -EINVAL);
			check_error_line(err, dst);
			/* only a cut inside the file header is an error */
			CHECK(cut < (long)FIXTURE_HEADER);
		}
		prof_thread_release(&t);
	}
	CHECK_EQ_U64(errors, FIXTURE_HEADER);
	CHECK(partial > 0);
	prof_thread_release(&full);
	free(buf);
	rmtmp();
}

/* Thousands of seeded random corruptions: never a crash, a hang or a huge allocation. */
TEST(random_corruption)
{
	char src[512], dst[512], err[512];
	struct prof_thread t;
	uint64_t rng = 0x1234567;
	mktmp();
	write_fixture(tmpdir, "valid");
	snprintf(src, sizeof(src), "%s/1234-1234.sdt", tmpdir);
	snprintf(dst, sizeof(dst), "%s/bad.sdt", tmpdir);
	long size = file_size(src);
	char *orig = malloc((size_t)size + 1), *buf = malloc((size_t)size + 1);
	FILE *f = fopen(src, "rb");
	CHECK(fread(orig, 1, (size_t)size, f) == (size_t)size);
	fclose(f);
	int ok = 0, bad = 0;
	for (int iter = 0; iter < 4000; iter++) {
		memcpy(buf, orig, (size_t)size);
		int flips = 1 + (int)(rng % 4);
		for (int k = 0; k < flips; k++) {
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			/* half the time hit the first 96 bytes: header and first records */
			long at = (long)((rng >> 8) % (uint64_t)(rng & 1 ? 96 : size));
			buf[at] = (char)(rng >> 40);
		}
		unlink(dst);
		f = fopen(dst, "wb");
		fwrite(buf, 1, (size_t)size, f);
		fclose(f);
		int r = read_stream(dst, &t, err, sizeof(err));
		if (r == 0) {
			ok++;
			uint64_t ips[64];
			/* walking every sample's path terminates */
			for (size_t i = 0; i < t.nmem; i++)
				prof_ctx_path(&t, t.mem[i].ctx, ips, 64);
			CHECK(t.nmem + t.nctx + t.nalloc + t.nfree <= (size_t)size / 8);
		} else {
			bad++;
			CHECK(r == -EINVAL);
			check_error_line(err, dst);
		}
		prof_thread_release(&t);
	}
	CHECK(ok > 0 && bad > 0);
	free(orig);
	free(buf);
	rmtmp();
}

TEST(ctx_paths)
{
	struct prof_ctx nodes[] = {
		{ 1, 0, 0 }, { 2, 1, 0x10 }, { 3, 2, 0x20 },
		{ 5, 6, 0x50 }, { 6, 5, 0x60 },		/* a cycle */
		{ 7, 9, 0x70 },				/* parent missing */
	};
	struct prof_thread t = { .ctx = nodes, .nctx = 6 };
	uint64_t ips[8];
	CHECK_EQ_U64(prof_ctx_path(&t, 3, ips, 8), 2);
	CHECK_EQ_U64(ips[0], 0x20);
	CHECK_EQ_U64(ips[1], 0x10);
	CHECK_EQ_U64(prof_ctx_path(&t, 3, ips, 1), 1);
	CHECK(prof_ctx_path(&t, 5, ips, 8) <= 7);
	CHECK_EQ_U64(prof_ctx_path(&t, 7, ips, 8), 1);
	CHECK_EQ_U64(prof_ctx_path(&t, 4, ips, 8), 0);
	CHECK_EQ_U64(prof_ctx_path(&t, 0, ips, 8), 0);
	CHECK(prof_ctx_find(&t, 6) == &nodes[4]);
	CHECK(prof_ctx_find(&t, 8) == NULL);
}

TEST(truncated_recording)
{
	mktmp();
	write_fixture(tmpdir, "truncated");
	struct profile *p = read_ok(tmpdir);
	if (p) {
		const struct prof_process *pr = &p->proc[0];
		CHECK_STR(pr->end, "signal");
		CHECK_EQ_U64(pr->signo, 11);
		CHECK(pr->thread[0].truncated);		/* no END */
		CHECK(pr->thread[1].truncated);		/* no END, last record cut */
		CHECK_EQ_U64(pr->thread[0].nmem, 13);
		CHECK_EQ_U64(pr->thread[1].nmem, 3);
		CHECK_EQ_U64(pr->thread[1].cut_offset,
			     CORRUPT_OFFSET + sizeof(struct sonde_rec_mem));
	}
	profile_free(p);
	rmtmp();
}

TEST(missing_recordings)
{
	struct profile *p = NULL;
	char err[512];
	CHECK(profile_read("/nonexistent/sonde-dir", &p, err, sizeof(err)) == -ENOENT);
	CHECK(p == NULL);
	mktmp();
	CHECK(profile_read(tmpdir, &p, err, sizeof(err)) == -ENOENT);
	CHECK(strstr(err, ".proc") != NULL);
	/* streams without a .proc file are ignored, counted */
	w_proc(tmpdir, "1", "");
	fclose(w_stream(tmpdir, "2", 2, 2, 0, 0, 0, 0));
	p = read_ok(tmpdir);
	if (p) {
		CHECK_EQ_U64(p->ignored_streams, 1);
		CHECK_EQ_U64(p->proc[0].nthread, 0);
	}
	profile_free(p);
	rmtmp();
}

/* Ranks sharing a directory: processes sorted by rank; a later key wins. */
TEST(ranks)
{
	mktmp();
	w_file(tmpdir, "r1.20.proc", "pid=20\nrank=1\nperiod=5\nperiod=7\n");
	w_file(tmpdir, "r0.30.proc", "pid=30\nrank=0\nnot a pair\n=x\nfuture_key=1\n");
	fclose(w_stream(tmpdir, "r1.20", 20, 21, 0, 0, 0, 0));
	fclose(w_stream(tmpdir, "r0.30", 30, 31, 0, 0, 0, 0));
	struct profile *p = read_ok(tmpdir);
	if (p) {
		CHECK_EQ_U64(p->nproc, 2);
		CHECK_STR(p->proc[0].prefix, "r0.30");
		CHECK_EQ_U64(p->proc[1].rank, 1);
		CHECK_EQ_U64(p->proc[1].period, 7);
		CHECK_EQ_U64(p->proc[0].nthread, 1);
		CHECK_EQ_U64(p->proc[0].thread[0].hdr.tid, 31);
		CHECK_STR(p->proc[0].exe, "");
	}
	profile_free(p);
	rmtmp();
}

static int same_file(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	int same = fa && fb;
	while (same) {
		int ca = fgetc(fa), cb = fgetc(fb);
		same = ca == cb;
		if (ca == EOF)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

/* The checked-in fixtures are what this writer produces (regenerate: --write-fixtures). */
TEST(fixtures_current)
{
	const char *top = getenv("SONDE_TOP");
	static const char *const files[] = { "valid/1234.proc", "valid/1234-1234.sdt",
					     "valid/1234-1240.sdt", "truncated/1234-1240.sdt",
					     "truncated/1234.proc", "corrupt/1234-1240.sdt" };
	char a[512], b[512];
	if (!top)
		SKIP("SONDE_TOP not set (run through tests/run.sh)");
	mktmp();
	write_fixtures(tmpdir);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(a, sizeof(a), "%s/%s", tmpdir, files[i]);
		snprintf(b, sizeof(b), "%s/tests/fixtures/profile/%s", top, files[i]);
		if (!same_file(a, b))
			printf("  %s differs from the writer's output\n", b);
		CHECK(same_file(a, b));
	}
	rmtmp();
}

/* The runtime's raw file names (rt/init.c stem_set, rt/thread.c) and lookalikes a user may
 * keep in the directory: `sonde report` rebuilds on the first, --force removes only them. */
TEST(raw_names)
{
	static const char *const raw[] = { "1234.proc", "1234-1240.sdt", "1234-1240.sdt.tmp",
					   "1234.maps", "1234.maps.start", "r3.77.proc",
					   "r0.77-78.sdt", "1234.e2.proc", "1234.e2-1240.sdt",
					   "r1.5.e1.maps" };
	static const char *const other[] = { "profile.db", "run.txt", "notes.maps", "x1234.proc",
					     "r.55.proc", "r5.proc", "1234.proc.bak", "1234-.sdt",
					     "1234.e.proc", "1234-12a.sdt", ".proc", "1234", "" };
	for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++)
		if (!prof_is_raw_name(raw[i])) {
			printf("  %s: not taken for a raw file\n", raw[i]);
			CHECK(0);
		}
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		if (prof_is_raw_name(other[i])) {
			printf("  %s: taken for a raw file\n", other[i]);
			CHECK(0);
		}
}

/* profile_main_process: the most samples; among equals (all 0: a short run that forked and
 * exec'd) the first started, a start of 0 (not known) never first (t831: variance named
 * an exec'd child "program: true" where all had 0 samples).  Processes without threads. */
TEST(main_process_tie)
{
	struct prof_process pr[3];
	memset(pr, 0, sizeof(pr));
	pr[0].start_ns = 300;
	pr[1].start_ns = 100;
	pr[2].start_ns = 0;
	struct profile p;
	memset(&p, 0, sizeof(p));
	p.proc = pr;
	p.nproc = 3;
	CHECK(profile_main_process(&p) == &pr[1]);
	pr[0].start_ns = 0;	/* the first listed not known: the known one */
	CHECK(profile_main_process(&p) == &pr[1]);
	p.nproc = 0;
	CHECK(profile_main_process(&p) == NULL);
}

/* Counts that cannot be told apart (2 sd of Poisson counts) are equals: the program at 0
 * samples, started first, and an exec'd child at 1 on a slow machine (t831 in CI named
 * the child); a wrapper at 0 and its program at 5 or more are told apart. */
TEST(main_process_alike)
{
	struct prof_thread th[3];
	struct prof_process pr[3];
	memset(th, 0, sizeof(th));
	memset(pr, 0, sizeof(pr));
	for (int i = 0; i < 3; i++) {
		th[i].has_stats = 1;
		pr[i].thread = &th[i];
		pr[i].nthread = 1;
		pr[i].start_ns = 100 * (i + 1);
	}
	struct profile p;
	memset(&p, 0, sizeof(p));
	p.proc = pr;
	p.nproc = 3;
	th[2].stats.samples = 1;
	CHECK(profile_main_process(&p) == &pr[0]);
	th[2].stats.samples = 4;
	CHECK(profile_main_process(&p) == &pr[0]);
	th[2].stats.samples = 5;
	CHECK(profile_main_process(&p) == &pr[2]);
	th[0].stats.samples = 10;
	th[2].stats.samples = 21;
	CHECK(profile_main_process(&p) == &pr[0]);
	th[2].stats.samples = 22;
	CHECK(profile_main_process(&p) == &pr[2]);
	th[1].stats.samples = 22;	/* two alike at the most: the first started */
	CHECK(profile_main_process(&p) == &pr[1]);
	pr[1].start_ns = 0;	/* not known: the known one */
	CHECK(profile_main_process(&p) == &pr[2]);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--write-fixtures"))
		return write_fixtures(argv[2]);
	RUN(roundtrip);
	RUN(forward_compatible);
	RUN(header_before_tls);
	RUN(other_byte_order);
	RUN(corrupt_headers);
	RUN(truncation_every_offset);
	RUN(random_corruption);
	RUN(ctx_paths);
	RUN(truncated_recording);
	RUN(missing_recordings);
	RUN(ranks);
	RUN(fixtures_current);
	RUN(raw_names);
	RUN(main_process_tie);
	RUN(main_process_alike);
	return CHECK_DONE();
}
