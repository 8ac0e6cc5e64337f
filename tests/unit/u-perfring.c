/* SPDX-License-Identifier: MIT */
/*
 * u-perfring.c - the perf ring-buffer reader and the IBS op decoder, on synthetic rings
 * built here (a fake perf_event_mmap_page and a small data area) with records whose
 * every field is known; then one real software-event ring, which this machine has.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "rt/perfring.h"
#include "rt/pmu.h"
#include "rt/rt.h"

#define RING 256 /* small, so that records wrap often */

struct fake {
	struct perf_event_mmap_page page;
	unsigned char data[RING];
	struct perfring r;
	uint64_t head;
};

static void fake_init(struct fake *f, uint64_t start, uint64_t sample_type)
{
	memset(f, 0, sizeof(*f));
	memset(f->data, 0xa5, sizeof(f->data)); /* garbage the parser must not read */
	f->page.data_head = f->page.data_tail = f->head = start;
	f->r.page = &f->page;
	f->r.data = f->data;
	f->r.size = RING;
	f->r.sample_type = sample_type;
}

static void put(struct fake *f, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		f->data[(f->head + i) % RING] = ((const unsigned char *)p)[i];
	f->head += n;
}

static void put64(struct fake *f, uint64_t v)
{
	put(f, &v, 8);
}

static void put32x2(struct fake *f, uint32_t a, uint32_t b)
{
	put(f, &a, 4);
	put(f, &b, 4);
}

static uint64_t rec_begin(struct fake *f, uint32_t type, uint16_t misc)
{
	uint64_t start = f->head;
	struct perf_event_header h = { .type = type, .misc = misc, .size = 0 };
	put(f, &h, sizeof(h));
	return start;
}

/* Set the record's header.size (to `size` if non-zero: a lie), keeping type and misc. */
static void rec_end(struct fake *f, uint64_t start, uint32_t type, uint16_t size)
{
	uint64_t end = f->head;
	uint16_t sz = size ? size : (uint16_t)(end - start);
	(void)type;
	f->head = start + offsetof(struct perf_event_header, size);
	put(f, &sz, sizeof(sz));
	f->head = end;
}

static void publish(struct fake *f)
{
	f->page.data_head = f->head;
}

#define MAXS 16
struct got {
	int n;
	struct perfring_sample s[MAXS];
};

static void collect(void *arg, const struct perfring_sample *s)
{
	struct got *g = arg;
	if (g->n < MAXS)
		g->s[g->n] = *s;
	g->n++;
}

/* The hw source's layout: IP TID TIME ADDR WEIGHT DATA_SRC (+ IDENTIFIER first). */
#define HW_ST                                                                                \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |      \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC)

static void put_hw_sample(struct fake *f, uint64_t k)
{
	uint64_t s = rec_begin(f, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(f, 1000 + k);			/* identifier */
	put64(f, 0x401000 + k);			/* ip */
	put32x2(f, 77, 78 + (uint32_t)k);	/* pid, tid */
	put64(f, 5000000 + k);			/* time */
	put64(f, 0x7f0000001000 + 8 * k);	/* addr */
	put64(f, 30 + k);			/* weight */
	put64(f, 0x1234 + k);			/* data_src */
	rec_end(f, s, PERF_RECORD_SAMPLE, 0);
}

static void check_hw_sample(const struct perfring_sample *s, uint64_t k)
{
	CHECK_EQ_U64(s->misc, PERF_RECORD_MISC_USER);
	CHECK_EQ_U64(s->id, 1000 + k);
	CHECK_EQ_U64(s->ip, 0x401000 + k);
	CHECK_EQ_U64(s->pid, 77);
	CHECK_EQ_U64(s->tid, 78 + k);
	CHECK_EQ_U64(s->time, 5000000 + k);
	CHECK_EQ_U64(s->addr, 0x7f0000001000 + 8 * k);
	CHECK_EQ_U64(s->weight, 30 + k);
	CHECK_EQ_U64(s->data_src, 0x1234 + k);
}

TEST(one_sample)
{
	struct fake f;
	struct got g = { 0 };
	struct perfring_stats st = { 0 };

	fake_init(&f, 0, HW_ST);
	put_hw_sample(&f, 0);
	publish(&f);
	CHECK(perfring_drain(&f.r, collect, &g, &st) == 1);
	CHECK(g.n == 1);
	check_hw_sample(&g.s[0], 0);
	CHECK_EQ_U64(f.page.data_tail, 8 + 7 * 8);
	CHECK_EQ_U64(st.samples, 1);
	CHECK_EQ_U64(st.lost + st.other + st.bad, 0);
	/* Nothing new: a second drain reads nothing and leaves the tail. */
	CHECK(perfring_drain(&f.r, collect, &g, &st) == 0);
	CHECK_EQ_U64(f.page.data_tail, 64);
}

TEST(head_fields)
{
	struct fake f;
	struct got g = { 0 };
	struct perfring_stats st = { 0 };
	uint64_t type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_DATA_PAGE_SIZE |
			PERF_SAMPLE_CODE_PAGE_SIZE;

	fake_init(&f, 0, type);
	uint64_t s = rec_begin(&f, PERF_RECORD_SAMPLE, 0);
	put64(&f, 0x11);		/* ip */
	put32x2(&f, 1, 2);		/* pid tid */
	put64(&f, 0x33);		/* time */
	put64(&f, 0x44);		/* addr */
	put64(&f, 0x55);		/* id */
	put64(&f, 0x66);		/* stream_id */
	put32x2(&f, 3, 0xdead);		/* cpu, reserved */
	put64(&f, 0x77);		/* period */
	put64(&f, 0x88);		/* phys_addr */
	put64(&f, 4096);		/* data page size */
	put64(&f, 2 << 20);		/* code page size */
	rec_end(&f, s, PERF_RECORD_SAMPLE, 0);
	publish(&f);
	CHECK(perfring_drain(&f.r, collect, &g, &st) == 1);
	struct perfring_sample *p = &g.s[0];
	CHECK_EQ_U64(p->ip, 0x11);
	CHECK_EQ_U64(p->pid, 1);
	CHECK_EQ_U64(p->tid, 2);
	CHECK_EQ_U64(p->time, 0x33);
	CHECK_EQ_U64(p->addr, 0x44);
	CHECK_EQ_U64(p->id, 0x55);
	CHECK_EQ_U64(p->stream_id, 0x66);
	CHECK_EQ_U64(p->cpu, 3);
	CHECK_EQ_U64(p->period, 0x77);
	CHECK_EQ_U64(p->phys_addr, 0x88);
	CHECK_EQ_U64(p->data_page_size, 4096);
	CHECK_EQ_U64(p->code_page_size, 2 << 20);
	CHECK_EQ_U64(f.page.data_tail, f.head);
}

/* Variable-length parts: CALLCHAIN, RAW (padded), REGS_USER, REGS_INTR, and the fields
 * after them must land right. */
TEST(variable_fields)
{
	struct fake f;
	struct got g = { 0 };
	struct perfring_stats st = { 0 };
	uint64_t type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
			PERF_SAMPLE_REGS_USER | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC |
			PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_CGROUP;

	fake_init(&f, 0, type);
	f.r.regs_user_mask = 0x7;	/* 3 registers */
	f.r.regs_intr_mask = 0x3;	/* 2 registers, but ABI NONE below: none written */
	uint64_t s = rec_begin(&f, PERF_RECORD_SAMPLE, 0);
	put64(&f, 0xabc);				/* ip */
	put64(&f, 2);					/* callchain nr */
	put64(&f, 0xc1);
	put64(&f, 0xc2);
	uint32_t raw_size = 12;				/* 4 + 12 = 16: 8-aligned */
	put(&f, &raw_size, 4);
	put(&f, "hello world!", 12);
	put64(&f, PERF_SAMPLE_REGS_ABI_64);		/* regs_user abi */
	put64(&f, 1);
	put64(&f, 2);
	put64(&f, 3);
	put64(&f, 0x0007000600000099ull);		/* weight struct: var1_dw = 0x99 */
	put64(&f, 0x5a5a);				/* data_src */
	put64(&f, 0x7);					/* transaction */
	put64(&f, PERF_SAMPLE_REGS_ABI_NONE);		/* regs_intr: none */
	put64(&f, 0xc6);				/* cgroup */
	rec_end(&f, s, PERF_RECORD_SAMPLE, 0);
	publish(&f);
	CHECK(perfring_drain(&f.r, collect, &g, &st) == 1);
	struct perfring_sample *p = &g.s[0];
	CHECK_EQ_U64(st.bad, 0);
	CHECK_EQ_U64(p->ip, 0xabc);
	CHECK_EQ_U64(p->callchain_nr, 2);
	CHECK_EQ_U64(p->raw_len, 12);
	CHECK(memcmp(p->raw, "hello world!", 12) == 0);
	CHECK_EQ_U64(p->weight, 0x99);
	CHECK_EQ_U64(p->data_src, 0x5a5a);
	CHECK_EQ_U64(p->transaction, 7);
	CHECK_EQ_U64(p->cgroup, 0xc6);
	CHECK_EQ_U64(f.page.data_tail, f.head);
}

/* Records that straddle the end of the data area, at a tail far past the ring size
 * (positions are absolute, wrapping only modulo the size). */
TEST(wrap)
{
	for (uint64_t start = (1ull << 32) + RING - 40; start < (1ull << 32) + RING + 8;
	     start += 8) {
		struct fake f;
		struct got g = { 0 };
		struct perfring_stats st = { 0 };

		fake_init(&f, start, HW_ST);
		for (uint64_t k = 0; k < 3; k++)
			put_hw_sample(&f, k);
		publish(&f);
		CHECK(perfring_drain(&f.r, collect, &g, &st) == 3);
		for (int k = 0; k < 3 && k < g.n; k++)
			check_hw_sample(&g.s[k], (uint64_t)k);
		CHECK_EQ_U64(f.page.data_tail, start + 3 * 64);
	}
}

/* The ring fills and refills: drain after each batch, the tail follows the head. */
TEST(many_laps)
{
	struct fake f;
	struct perfring_stats st = { 0 };
	uint64_t k = 0;

	fake_init(&f, 0, HW_ST);
	for (int lap = 0; lap < 50; lap++) {
		struct got g = { 0 };
		int n = 1 + lap % 4; /* 4 records of 64 bytes fill the ring exactly */
		for (int i = 0; i < n; i++)
			put_hw_sample(&f, k + (uint64_t)i);
		publish(&f);
		CHECK(perfring_drain(&f.r, collect, &g, &st) == n);
		for (int i = 0; i < n && i < g.n; i++)
			check_hw_sample(&g.s[i], k + (uint64_t)i);
		k += (uint64_t)n;
		CHECK_EQ_U64(f.page.data_tail, f.head);
	}
	CHECK_EQ_U64(st.samples, k);
}

TEST(lost_and_unknown)
{
	struct fake f;
	struct got g = { 0 };
	struct perfring_stats st = { 0 };

	fake_init(&f, RING - 16, HW_ST);
	put_hw_sample(&f, 0);
	uint64_t s = rec_begin(&f, PERF_RECORD_LOST, 0);
	put64(&f, 9);	/* id */
	put64(&f, 5);	/* lost */
	rec_end(&f, s, PERF_RECORD_LOST, 0);
	s = rec_begin(&f, 99, 0);	/* a record type from the future */
	put64(&f, 0xffffffffffffffffull);
	put64(&f, 0xffffffffffffffffull);
	rec_end(&f, s, 99, 0);
	s = rec_begin(&f, PERF_RECORD_MMAP, 0);
	put64(&f, 0);
	rec_end(&f, s, PERF_RECORD_MMAP, 0);
	put_hw_sample(&f, 1);
	s = rec_begin(&f, PERF_RECORD_LOST, 0);
	put64(&f, 9);
	put64(&f, 2);
	rec_end(&f, s, PERF_RECORD_LOST, 0);
	publish(&f);
	CHECK(perfring_drain(&f.r, collect, &g, &st) == 2);
	CHECK(g.n == 2);
	check_hw_sample(&g.s[0], 0);
	check_hw_sample(&g.s[1], 1);
	CHECK_EQ_U64(st.lost, 7);
	CHECK_EQ_U64(st.other, 2);
	CHECK_EQ_U64(st.bad, 0);
	CHECK_EQ_U64(f.page.data_tail, f.head);
}

/* A sample record shorter than its sample_type needs is skipped by its size, and the
 * next record is still read. */
TEST(truncated_sample)
{
	struct fake f;
	struct got g = { 0 };
	struct perfring_stats st = { 0 };

	fake_init(&f, 0, HW_ST);
	uint64_t s = rec_begin(&f, PERF_RECORD_SAMPLE, 0);
	put64(&f, 1);
	put64(&f, 2);
	rec_end(&f, s, PERF_RECORD_SAMPLE, 0);	/* 24 bytes; HW_ST needs 64 */
	put_hw_sample(&f, 4);
	publish(&f);
	CHECK(perfring_drain(&f.r, collect, &g, &st) == 1);
	CHECK(g.n == 1);
	check_hw_sample(&g.s[0], 4);
	CHECK_EQ_U64(st.bad, 1);
	CHECK_EQ_U64(f.page.data_tail, f.head);

	/* A callchain claiming more entries than the record holds. */
	fake_init(&f, 0, PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN);
	s = rec_begin(&f, PERF_RECORD_SAMPLE, 0);
	put64(&f, 0x10);
	put64(&f, 1000000);
	put64(&f, 0x20);
	rec_end(&f, s, PERF_RECORD_SAMPLE, 0);
	publish(&f);
	memset(&st, 0, sizeof(st));
	CHECK(perfring_drain(&f.r, collect, &g, &st) == 0);
	CHECK_EQ_U64(st.bad, 1);
	CHECK_EQ_U64(f.page.data_tail, f.head);
}

/* Headers that cannot be trusted: the rest of the ring is dropped, never looped on. */
TEST(corrupt_header)
{
	static const uint16_t lies[] = { 0, 4, 12, 200 };

	for (size_t i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		struct fake f;
		struct got g = { 0 };
		struct perfring_stats st = { 0 };

		fake_init(&f, 8, HW_ST);
		put_hw_sample(&f, 0);
		uint64_t s = rec_begin(&f, PERF_RECORD_SAMPLE, 0);
		put64(&f, 1);
		rec_end(&f, s, PERF_RECORD_SAMPLE, lies[i]);
		publish(&f);
		CHECK(perfring_drain(&f.r, collect, &g, &st) == 1);
		check_hw_sample(&g.s[0], 0);
		CHECK_EQ_U64(st.bad, 1);
		CHECK_EQ_U64(f.page.data_tail, f.head);
	}
}

TEST(sample_type_ok)
{
	CHECK(perfring_sample_type_ok(HW_ST));
	CHECK(perfring_sample_type_ok(HW_ST | PERF_SAMPLE_RAW | PERF_SAMPLE_CALLCHAIN));
	CHECK(!perfring_sample_type_ok(HW_ST | PERF_SAMPLE_READ));
	CHECK(!perfring_sample_type_ok(HW_ST | PERF_SAMPLE_BRANCH_STACK));
	CHECK(!perfring_sample_type_ok(HW_ST | PERF_SAMPLE_STACK_USER));
	CHECK(!perfring_sample_type_ok(PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT));
}

/* ---- IBS op raw payloads ---- */

struct ibs_raw {
	uint32_t caps;
	uint64_t reg[IBS_REG_OP_COUNT];
} __attribute__((packed));

static struct ibs_raw ibs_make(uint64_t data3)
{
	struct ibs_raw r = { .caps = 0x3ff };
	r.reg[IBS_REG_OP_CTL] = (1ull << 17) | (1ull << 18) | 0x1000;	/* enabled, valid */
	r.reg[IBS_REG_OP_RIP] = 0x401234;
	r.reg[IBS_REG_OP_DATA] = 0x00050003;
	r.reg[IBS_REG_OP_DATA3] = data3;
	r.reg[IBS_REG_DC_LIN_AD] = 0x7ffd12345678;
	r.reg[IBS_REG_DC_PHYS_AD] = 0x12345678;
	return r;
}

TEST(ibs_load)
{
	/* load, DC miss, linear address valid, width code 4 (8 bytes), latency 300 */
	struct ibs_raw r = ibs_make((1ull << 0) | (1ull << 7) | (1ull << 17) | (4ull << 22) |
				    (300ull << 32) | (0x55ull << 48));
	struct ibs_op_access a;

	CHECK(sizeof(r) == 60);
	CHECK(ibs_op_decode(&r, sizeof(r), &a) == 1);
	CHECK_EQ_U64(a.ip, 0x401234);
	CHECK_EQ_U64(a.addr, 0x7ffd12345678);
	CHECK_EQ_U64(a.len, 8);
	CHECK_EQ_U64(a.load, 1);
	CHECK_EQ_U64(a.store, 0);
	CHECK_EQ_U64(a.miss, 1);
	CHECK_EQ_U64(a.latency, 300);
}

TEST(ibs_store_widths)
{
	static const uint16_t bytes[] = { 0, 1, 2, 4, 8, 16, 32, 64, 0 };

	for (uint64_t w = 0; w <= 8; w++) {
		struct ibs_raw r = ibs_make((1ull << 1) | (1ull << 17) | (w << 22) |
					    (999ull << 32)); /* no miss: latency ignored */
		struct ibs_op_access a;
		CHECK(ibs_op_decode(&r, sizeof(r), &a) == 1);
		CHECK_EQ_U64(a.len, bytes[w]);
		CHECK_EQ_U64(a.store, 1);
		CHECK_EQ_U64(a.load, 0);
		CHECK_EQ_U64(a.miss, 0);
		CHECK_EQ_U64(a.latency, 0);
	}
}

TEST(ibs_not_delivered)
{
	struct ibs_op_access a;
	struct ibs_raw r = ibs_make(1ull << 17);	/* address valid but not a load/store */
	CHECK(ibs_op_decode(&r, sizeof(r), &a) == 0);
	r = ibs_make(1ull << 0);			/* a load without a valid address */
	CHECK(ibs_op_decode(&r, sizeof(r), &a) == 0);
	r = ibs_make((1ull << 0) | (1ull << 1) | (1ull << 17));	/* locked RMW: both */
	r.reg[IBS_REG_OP_DATA] |= 1ull << 38;			/* RIP invalid */
	CHECK(ibs_op_decode(&r, sizeof(r), &a) == 1);
	CHECK(a.load && a.store);
	CHECK_EQ_U64(a.ip, 0);
	CHECK(ibs_op_decode(&r, sizeof(r) - 1, &a) == -EINVAL);
	CHECK(ibs_op_decode(&r, 0, &a) == -EINVAL);
}

/* An IBS payload carried in a ring record as PERF_SAMPLE_RAW, across the wrap. */
TEST(ibs_in_ring)
{
	struct fake f;
	struct got g = { 0 };
	struct perfring_stats st = { 0 };
	struct ibs_raw r = ibs_make((1ull << 0) | (1ull << 17) | (3ull << 22));
	struct ibs_op_access a;

	fake_init(&f, RING - 24, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_RAW);
	uint64_t s = rec_begin(&f, PERF_RECORD_SAMPLE, 0);
	put64(&f, 0x401234);
	put32x2(&f, 5, 6);
	uint32_t size = sizeof(r);	/* 4 + 60 = 64: no padding */
	put(&f, &size, 4);
	put(&f, &r, sizeof(r));
	rec_end(&f, s, PERF_RECORD_SAMPLE, 0);
	publish(&f);
	CHECK(perfring_drain(&f.r, collect, &g, &st) == 1);
	CHECK_EQ_U64(g.s[0].raw_len, sizeof(r));
	CHECK(ibs_op_decode(g.s[0].raw, g.s[0].raw_len, &a) == 1);
	CHECK_EQ_U64(a.addr, 0x7ffd12345678);
	CHECK_EQ_U64(a.len, 4);
	CHECK_EQ_U64(a.ip, g.s[0].ip);
}

/* ---- real rings ---- */

static int perf_open(struct perf_event_attr *a)
{
	return (int)syscall(SYS_perf_event_open, a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static volatile uint64_t sink;

/* A cpu-clock ring of this thread, filled by burning CPU, read by the same parser. */
TEST(real_cpu_clock_ring)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 100000, /* ns */
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	int fd = perf_open(&a);
	if (fd < 0)
		SKIP("perf_event_open(cpu-clock) refused: software events unavailable");
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	void *m = mmap(NULL, 9 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED) {
		close(fd);
		return;
	}
	struct perfring r = { .page = m, .data = (unsigned char *)m + pg, .size = 8 * pg,
			      .sample_type = a.sample_type };
	CHECK_EQ_U64(r.page->data_offset, pg);
	CHECK_EQ_U64(r.page->data_size, 8 * pg);
	struct got g = { 0 };
	struct perfring_stats st = { 0 };
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	struct timespec t0, t1;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do { /* 30 ms of CPU: ~300 samples, a few laps of nothing, bounded by CPU time */
		for (int i = 0; i < 100000; i++)
			sink += (uint64_t)i * 7;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	} while ((t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) < 30000000L);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	int n = perfring_drain(&r, collect, &g, &st);
	CHECK(n > 0);
	CHECK_EQ_U64(st.bad, 0);
	CHECK_EQ_U64(r.page->data_tail, r.page->data_head);
	for (int i = 0; i < n && i < MAXS; i++) {
		CHECK_EQ_U64(g.s[i].pid, getpid());
		CHECK_EQ_U64(g.s[i].tid, syscall(SYS_gettid));
		CHECK(g.s[i].ip != 0);
		CHECK((g.s[i].misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER);
		if (i > 0)
			CHECK(g.s[i].time >= g.s[i - 1].time);
	}
	munmap(m, 9 * pg);
	close(fd);
}

/* A precise memory event from the PMU, when this machine has one. */
TEST(real_hw_ring)
{
	static struct pmu_hw hw;
	pmu_hw_probe(&hw);
	if (!hw.usable)
		SKIP(hw.why);
	CHECK(hw.kind == PMU_HW_PEBS || hw.kind == PMU_HW_IBS);
}

/* ---- the hw source itself, in its page-fault test mode ---- */

#define PF_PAGES 48
static struct {
	int n, with_uc, in_main_thread;
	uint64_t addr[256];
	uint16_t flags[256];
} pf;

static void pf_on_access(struct rt_thread *t, const struct rt_access *a, const ucontext_t *uc,
			 int skip)
{
	if (pf.n < 256) {
		pf.addr[pf.n] = a->addr;
		pf.flags[pf.n] = a->flags;
	}
	pf.n++;
	t->stats.samples++;	/* as tools do */
	pf.with_uc += uc != NULL;
	pf.in_main_thread += t == rt_self();
}

static const struct rt_tool pf_tool = { .name = "test", .access = pf_on_access };

/*
 * The whole source on this machine: rings per thread, the overflow signal to the thread,
 * the handler's drain, delivery to the tool.  Every first write to a fresh anonymous page
 * faults once, at an address known here; each must reach the tool.
 */
TEST(hw_source_page_faults)
{
	static struct rt_thread t;
	char why[PMU_WHY];
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	setenv("SONDE_HW_EVENT", "page-faults", 1);
	rt_cfg.sig_sample = SIGRTMAX - 3;
	rt_cfg.sig_watch = SIGRTMAX - 4;
	rt_cfg.period = 1;
	if (rt_source_hw.probe(why, sizeof(why)) < 0)
		SKIP("software page-fault events refused here");
	CHECK(strstr(why, "page-fault") != NULL);
	CHECK(rt_source_hw.start() == 0);
	memset(&t, 0, sizeof(t));
	t.tid = (int)syscall(SYS_gettid);
	CHECK(arena_init(&t.arena, 1 << 20) == 0);
	rt_tool = &pf_tool;
	rt_set_self(&t);
	CHECK(rt_source_hw.thread_start(&t) == 0);
	CHECK(t.src != NULL);

	volatile char *m = mmap(NULL, PF_PAGES * pg, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED);
	for (size_t i = 0; i < PF_PAGES; i++)
		m[i * pg + 8 * i] = 1;
	rt_source_hw.thread_stop(&t);
	uint64_t signals = t.stats.signals;
	m[0] = 2; /* no longer sampled (and no fault: the page is there) */

	int found = 0;
	for (size_t i = 0; i < PF_PAGES; i++)
		for (int k = 0; k < pf.n && k < 256; k++)
			if (pf.addr[k] == (uint64_t)(uintptr_t)(m + i * pg + 8 * i)) {
				found++;
				break;
			}
	CHECK_EQ_U64(found, PF_PAGES);
	CHECK(pf.n >= PF_PAGES);
	CHECK_EQ_U64(t.stats.samples, pf.n);
	CHECK(signals >= 1);
	CHECK_EQ_U64(pf.with_uc, pf.n);		/* delivered with the handler's context */
	CHECK_EQ_U64(pf.in_main_thread, pf.n);
	CHECK_EQ_U64(t.stats.signals, signals);	/* stopped: no more signals */
	rt_set_self(NULL);
	rt_tool = NULL;
	munmap((void *)m, PF_PAGES * pg);
	arena_release(&t.arena);
	unsetenv("SONDE_HW_EVENT");
}

int main(void)
{
	RUN(one_sample);
	RUN(head_fields);
	RUN(variable_fields);
	RUN(wrap);
	RUN(many_laps);
	RUN(lost_and_unknown);
	RUN(truncated_sample);
	RUN(corrupt_header);
	RUN(sample_type_ok);
	RUN(ibs_load);
	RUN(ibs_store_widths);
	RUN(ibs_not_delivered);
	RUN(ibs_in_ring);
	RUN(real_cpu_clock_ring);
	RUN(real_hw_ring);
	RUN(hw_source_page_faults);
	return CHECK_DONE();
}
