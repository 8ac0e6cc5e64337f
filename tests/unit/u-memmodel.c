/* SPDX-License-Identifier: MIT */
/*
 * u-memmodel.c - attribution of MEM samples (src/tools/mem/model.c): synthetic recordings with
 * known allocations, frees, address reuse, stacks, weights and threads; every expected
 * count is computed here from the construction, and a large random case is checked
 * against a brute-force scan.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tools/mem/model.h"
#include "prof/profile.h"
#include "prof/symbols.h"
#include "sonde/format.h"

/* ---- a minimal writer of format.h streams ---- */

static void mktmp(void)
{
	check_mktmp("u-memmodel");
}

static void rmtmp(void)
{
	check_rmtmp();
}

static void w_proc(const char *maps)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/9.proc", tmpdir);
	FILE *f = fopen(path, "w");
	fprintf(f, "pid=9\nrank=-1\ntool=mem\nsource=clock\nperiod=1000\nperiod_unit=ns\n");
	fclose(f);
	if (maps) {
		snprintf(path, sizeof(path), "%s/9.maps", tmpdir);
		f = fopen(path, "w");
		fputs(maps, f);
		fclose(f);
	}
}

static FILE *w_stream(int tid, uint32_t index, uint64_t lo, uint64_t hi)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/9-%d.sdt", tmpdir, tid);
	FILE *f = fopen(path, "wb");
	struct sonde_file_header h = { .version = 1, .header_size = sizeof(h),
				       .endian = SONDE_ENDIAN_TAG, .source = SONDE_SOURCE_CLOCK,
				       .period = 1000, .pid = 9, .tid = tid, .rank = -1,
				       .thread_index = index, .stack_lo = lo, .stack_hi = hi };
	memcpy(h.magic, SONDE_MAGIC, SONDE_MAGIC_LEN);
	fwrite(&h, sizeof(h), 1, f);
	return f;
}

#define W(f, rec, t)                                           \
	do {                                                   \
		(rec).h.type = (t);                            \
		(rec).h.size = sizeof(rec);                    \
		fwrite(&(rec), sizeof(rec), 1, (f));           \
	} while (0)

static void w_ctx(FILE *f, uint32_t id, uint32_t parent, uint64_t ip)
{
	struct sonde_rec_ctx r = { .id = id, .parent = parent, .ip = ip };
	W(f, r, SONDE_REC_CTX);
}

static void w_mem(FILE *f, uint64_t ip, uint64_t addr, uint64_t time, uint16_t flags,
		  uint64_t weight)
{
	struct sonde_rec_mem r = { .ctx = 0, .len = 8, .flags = flags, .ip = ip, .addr = addr,
				   .time = time, .weight = weight };
	W(f, r, SONDE_REC_MEM);
}

static void w_alloc(FILE *f, uint32_t ctx, uint64_t addr, uint64_t size, uint64_t time)
{
	struct sonde_rec_alloc r = { .ctx = ctx, .addr = addr, .size = size, .time = time };
	W(f, r, SONDE_REC_ALLOC);
}

static void w_free(FILE *f, uint64_t addr, uint64_t time)
{
	struct sonde_rec_free r = { .addr = addr, .time = time };
	W(f, r, SONDE_REC_FREE);
}

static void w_end(FILE *f)
{
	struct sonde_rec_end r = { .signo = 0 };
	W(f, r, SONDE_REC_END);
}

/* ---- helpers ---- */

struct loaded {
	struct profile *p;
	struct memmodel *m;
};

static int load(struct loaded *l)
{
	char err[512] = "";
	int r = profile_read(tmpdir, &l->p, err, sizeof(err));
	if (r) {
		printf("  profile_read: %s\n", err);
		return r;
	}
	r = memmodel_build(l->p, &l->m, err, sizeof(err));
	if (r)
		printf("  memmodel_build: %s\n", err);
	return r;
}

static void unload(struct loaded *l)
{
	memmodel_free(l->m);
	profile_free(l->p);
}

static const struct mm_object *object_named(const struct memmodel *m, const char *name)
{
	for (size_t i = 0; i < m->nobject; i++)
		if (!strcmp(m->object[i].name, name))
			return &m->object[i];
	return NULL;
}

static uint64_t samples_of(const struct memmodel *m, const char *name)
{
	const struct mm_object *o = object_named(m, name);
	return o ? o->samples : 0;
}

/* Unresolved allocation sites are named by their return address. */
static const char *site(uint64_t ip)
{
	static char buf[4][64];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "[unknown] (0x%llx)", (unsigned long long)ip);
	return buf[k];
}

/* ---- tests ---- */

/*
 * Site A (0x401100) allocates X=[0x10000,+256) at t=10; site B (0x401200) allocates
 * [0x20000,+64) at t=11.  X is freed at t=50 and B allocates [0x10000,+128) at t=60.
 * Samples on 0x10010 at t = 20..29 (10: A), at t=55 (freed, no live block: other), at
 * t = 70..74 (5: B).  A sample at 0x10080 (beyond B's 128 bytes) at t=75 is not B's.
 */
TEST(address_reuse)
{
	struct loaded l = { 0 };
	mktmp();
	w_proc(NULL);
	FILE *f = w_stream(9, 0, 0, 0);
	w_ctx(f, 1, 0, 0);
	w_ctx(f, 2, 1, 0x401100);
	w_ctx(f, 3, 1, 0x401200);
	w_alloc(f, 2, 0x10000, 256, 10);
	w_alloc(f, 3, 0x20000, 64, 11);
	for (int i = 0; i < 10; i++)
		w_mem(f, 0x500000, 0x10010, 20 + i, 0, 1);
	w_free(f, 0x10000, 50);
	w_mem(f, 0x500000, 0x10010, 55, 0, 1);
	w_alloc(f, 3, 0x10000, 128, 60);
	for (int i = 0; i < 5; i++)
		w_mem(f, 0x500000, 0x10010, 70 + i, 0, 1);
	w_mem(f, 0x500000, 0x10080, 75, 0, 1);
	w_end(f);
	fclose(f);
	if (load(&l) == 0) {
		const struct memmodel *m = l.m;
		CHECK_EQ_U64(m->samples, 17);
		CHECK_EQ_U64(samples_of(m, site(0x401100)), 10);
		CHECK_EQ_U64(samples_of(m, site(0x401200)), 5);
		CHECK_EQ_U64(samples_of(m, "[unknown]"), 2);
		const struct mm_object *a = object_named(m, site(0x401100));
		const struct mm_object *b = object_named(m, site(0x401200));
		CHECK(a && a->kind == MM_HEAP && a->allocs == 1 && a->size == 256);
		CHECK(b && b->kind == MM_HEAP && b->allocs == 2 && b->size == 64 + 128);
		/* sorted by samples: A first */
		CHECK_STR(m->object[0].name, site(0x401100));
		CHECK_EQ_U64(m->proc[0].nalloc, 3);
		CHECK_EQ_U64(m->proc[0].unmatched_frees, 0);
		/* per-sample attribution kept for the database */
		CHECK_STR(m->object[m->thread[0].object[10]].name, "[unknown]");
		CHECK_STR(m->object[m->thread[0].object[11]].name, site(0x401200));
	}
	unload(&l);
	rmtmp();
}

/*
 * Two threads with stacks; thread 1 frees thread 0's block; weights and store/RMW flags.
 *   thread 0 (stack [0x7000000, 0x7100000)): 4 samples on its stack (1 store), weight 1;
 *     2 samples of weight 3 on block P (site 0x401300), one of them RMW
 *   thread 1 (stack [0x6000000, 0x6100000)): 1 sample on thread 0's stack; 5 on its own;
 *     frees P at t=100; a sample on P at t=101 (freed: other)
 */
TEST(stacks_threads_weights)
{
	struct loaded l = { 0 };
	mktmp();
	w_proc(NULL);
	FILE *f = w_stream(9, 0, 0x7000000, 0x7100000);
	w_ctx(f, 1, 0, 0);
	w_ctx(f, 2, 1, 0x401300);
	w_alloc(f, 2, 0x90000, 4096, 1);
	for (int i = 0; i < 4; i++)
		w_mem(f, 0x500000, 0x70ff000 + 8 * i, 10 + i, i == 0 ? SONDE_MEM_STORE : 0, 1);
	w_mem(f, 0x500010, 0x90008, 20, 0, 3);
	w_mem(f, 0x500010, 0x90010, 21, SONDE_MEM_RMW, 3);
	w_end(f);
	fclose(f);
	f = w_stream(10, 1, 0x6000000, 0x6100000);
	w_mem(f, 0x500020, 0x7000000, 30, 0, 1);
	for (int i = 0; i < 5; i++)
		w_mem(f, 0x500020, 0x60fffff - i, 31 + i, 0, 1);
	w_free(f, 0x90000, 100);
	w_mem(f, 0x500020, 0x90008, 101, 0, 1);
	w_end(f);
	fclose(f);
	if (load(&l) == 0) {
		const struct memmodel *m = l.m;
		CHECK_EQ_U64(m->nthread, 2);
		CHECK_EQ_U64(m->samples, 4 + 6 + 1 + 5 + 1);
		CHECK_EQ_U64(m->records, 4 + 2 + 1 + 5 + 1);
		CHECK_EQ_U64(samples_of(m, "[stack of thread 0]"), 5);
		CHECK_EQ_U64(samples_of(m, "[stack of thread 1]"), 5);
		CHECK_EQ_U64(samples_of(m, site(0x401300)), 6);
		CHECK_EQ_U64(samples_of(m, "[unknown]"), 1);
		const struct mm_object *p = object_named(m, site(0x401300));
		CHECK(p && p->loads == 6 && p->stores == 3);
		const struct mm_object *s0 = object_named(m, "[stack of thread 0]");
		CHECK(s0 && s0->kind == MM_STACK && s0->size == 0x100000);
		CHECK(s0 && s0->loads == 4 && s0->stores == 1);
		CHECK_EQ_U64(m->thread[0].samples, 10);
		CHECK_EQ_U64(m->thread[1].samples, 7);
		CHECK_STR(m->thread[1].label, "1");
		CHECK_EQ_U64(m->loads, 17 - 1);
		CHECK_EQ_U64(m->stores, 1 + 3);
		/* object x thread: thread 0's stack is touched by both threads, 4 + 1 */
		int found = 0;
		for (size_t i = 0; i < m->nobjthread; i++) {
			const struct mm_objthread *x = &m->objthread[i];
			if (strcmp(m->object[x->object].name, "[stack of thread 0]"))
				continue;
			found++;
			CHECK_EQ_U64(x->samples, x->thread == 0 ? 4 : 1);
		}
		CHECK_EQ_U64(found, 2);
		/* code locations: three ips, no symbols */
		CHECK_EQ_U64(m->ncode, 1);	/* all "[unknown]" without a symbol table */
		CHECK_EQ_U64(m->code[0].samples, 17);
	}
	unload(&l);
	rmtmp();
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * 20,000 slots, each reused by 5 successive allocations (100,000 in all) from 7 sites;
 * 100,000 samples at random times and addresses.  The expected object of each sample
 * comes from a direct computation over the construction (slot, generation), not from the
 * interval tree.
 */
TEST(many_allocations)
{
	enum { SLOTS = 20000, GENS = 5, SITES = 7, SAMPLES = 100000, SLOT = 256, GEN_NS = 1000 };
	struct loaded l = { 0 };
	uint64_t rng = 42, expect[SITES + 1] = { 0 };
	mktmp();
	w_proc(NULL);
	FILE *f = w_stream(9, 0, 0, 0);
	w_ctx(f, 1, 0, 0);
	for (int s = 0; s < SITES; s++)
		w_ctx(f, 2 + s, 1, 0x402000 + 16 * s);
	/* generation g of slot k lives [g*GEN_NS + 1, (g+1)*GEN_NS), size 64..256 */
	for (int g = 0; g < GENS; g++)
		for (int k = 0; k < SLOTS; k++) {
			int s = (k + g) % SITES;
			uint64_t size = 64 + 64 * (uint64_t)((k * 7 + g) % 4);
			uint64_t addr = 0x100000 + (uint64_t)k * SLOT;
			w_alloc(f, 2 + s, addr, size, (uint64_t)g * GEN_NS + 1);
		}
	for (int g = 0; g < GENS; g++)
		for (int k = 0; k < SLOTS; k++)
			w_free(f, 0x100000 + (uint64_t)k * SLOT, (uint64_t)(g + 1) * GEN_NS);
	for (int i = 0; i < SAMPLES; i++) {
		int k = (int)(rnd(&rng) % SLOTS);
		uint64_t off = rnd(&rng) % SLOT;
		uint64_t t = rnd(&rng) % (GENS * GEN_NS + 500);
		int g = (int)(t / GEN_NS);
		uint64_t size = 64 + 64 * (uint64_t)((k * 7 + g) % 4);
		int live = g < GENS && t % GEN_NS != 0 && off < size;
		expect[live ? (k + g) % SITES : SITES]++;
		w_mem(f, 0x500000, 0x100000 + (uint64_t)k * SLOT + off, t, 0, 1);
	}
	w_end(f);
	fclose(f);
	if (load(&l) == 0) {
		for (int s = 0; s < SITES; s++)
			CHECK_EQ_U64(samples_of(l.m, site(0x402000 + 16 * s)), expect[s]);
		CHECK_EQ_U64(samples_of(l.m, "[unknown]"), expect[SITES]);
		CHECK_EQ_U64(l.m->proc[0].unmatched_frees, 0);
		const struct mm_object *o = object_named(l.m, site(0x402000));
		CHECK(o && o->allocs > 0);
	}
	unload(&l);
	rmtmp();
}

/* A FREE with no live allocation is counted, and a block freed twice ends once. */
TEST(unmatched_frees)
{
	struct loaded l = { 0 };
	mktmp();
	w_proc(NULL);
	FILE *f = w_stream(9, 0, 0, 0);
	w_ctx(f, 1, 0, 0);
	w_ctx(f, 2, 1, 0x401100);
	w_free(f, 0x1000, 1);
	w_alloc(f, 2, 0x1000, 16, 2);
	w_free(f, 0x1000, 3);
	w_free(f, 0x1000, 4);
	w_mem(f, 0x500000, 0x1000, 2, 0, 1);	/* at the allocation's time: live */
	w_mem(f, 0x500000, 0x1000, 3, 0, 1);	/* at the free's time: gone */
	w_end(f);
	fclose(f);
	if (load(&l) == 0) {
		CHECK_EQ_U64(l.m->proc[0].unmatched_frees, 2);
		CHECK_EQ_U64(samples_of(l.m, site(0x401100)), 1);
		CHECK_EQ_U64(samples_of(l.m, "[unknown]"), 1);
	}
	unload(&l);
	rmtmp();
}

/*
 * Corrupt but readable streams (any bytes in addresses, sizes, times, context ids) still
 * give a model: 500 seeded random corruptions of a small recording, each modelled.
 */
TEST(corrupt_values)
{
	char path[512];
	uint64_t rng = 7;
	int modelled = 0;
	mktmp();
	w_proc(NULL);
	FILE *f = w_stream(9, 0, 0x7000, 0x8000);
	w_ctx(f, 1, 0, 0);
	w_ctx(f, 2, 1, 0x401100);
	w_ctx(f, 3, 2, 0x401200);
	for (int i = 0; i < 8; i++) {
		w_alloc(f, 2 + i % 2, 0x1000 * (uint64_t)(i + 1), 0x800, (uint64_t)i);
		w_mem(f, 0x500000, 0x1000 * (uint64_t)(i + 1) + 8, (uint64_t)i + 1, 0, 1);
		w_free(f, 0x1000 * (uint64_t)(i + 1), (uint64_t)i + 2);
	}
	w_end(f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/9-9.sdt", tmpdir);
	FILE *in = fopen(path, "rb");
	char orig[4096], buf[4096];
	size_t n = fread(orig, 1, sizeof(orig), in);
	fclose(in);
	for (int iter = 0; iter < 500; iter++) {
		memcpy(buf, orig, n);
		for (int k = 0; k < 6; k++) {
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			/* past the header and each record's type and size: values only */
			size_t at = sizeof(struct sonde_file_header) + (rng >> 8) % (n - 72);
			if ((at - sizeof(struct sonde_file_header)) % 8 < 4)
				continue;
			buf[at] = (char)(rng >> 32);
		}
		unlink(path);
		f = fopen(path, "wb");
		fwrite(buf, 1, n, f);
		fclose(f);
		struct loaded l = { 0 };
		char err[256];
		if (profile_read(tmpdir, &l.p, err, sizeof(err)) == 0 &&
		    memmodel_build(l.p, &l.m, err, sizeof(err)) == 0) {
			modelled++;
			uint64_t sum = 0;
			for (size_t i = 0; i < l.m->nobject; i++)
				sum += l.m->object[i].samples;
			CHECK_EQ_U64(sum, l.m->samples);
		}
		unload(&l);
	}
	CHECK(modelled > 400);
	rmtmp();
}

/* ---- with real symbols: this test program's own maps ---- */

int static_target[64];

static __attribute__((noinline)) uint64_t caller_ret(void)
{
	return (uint64_t)__builtin_return_address(0);
}

static __attribute__((noinline)) uint64_t alloc_site_here(int *line)
{
	*line = __LINE__ + 1;
	uint64_t ra = caller_ret();
	__asm__ volatile("" ::: "memory");
	return ra;
}

static int copy_self_maps(void)
{
	char path[512], buf[4096];
	snprintf(path, sizeof(path), "%s/9.maps", tmpdir);
	FILE *in = fopen("/proc/self/maps", "r"), *out = fopen(path, "w");
	size_t n;
	if (!in || !out)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	fclose(out);
	return 0;
}

TEST(symbolized_site_and_static)
{
	struct loaded l = { 0 };
	int line = 0;
	uint64_t ra = alloc_site_here(&line);
	char want[256];
	mktmp();
	w_proc(NULL);
	copy_self_maps();
	FILE *f = w_stream(9, 0, 0, 0);
	w_ctx(f, 1, 0, 0);
	w_ctx(f, 2, 1, ra);
	w_alloc(f, 2, 0x1000, 64, 1);
	w_mem(f, (uint64_t)(uintptr_t)&caller_ret, 0x1008, 2, 0, 1);
	w_mem(f, (uint64_t)(uintptr_t)&caller_ret, (uint64_t)(uintptr_t)&static_target[5], 3,
	      0, 1);
	w_end(f);
	fclose(f);
	if (load(&l) == 0) {
		if (!l.m->proc[0].symtab) {
			unload(&l);
			rmtmp();
			SKIP("no symbol table for this test program");
		}
		snprintf(want, sizeof(want), "alloc_site_here (u-memmodel.c:%d)", line);
		if (!object_named(l.m, want))
			for (size_t i = 0; i < l.m->nobject; i++)
				printf("  object: %s\n", l.m->object[i].name);
		CHECK(object_named(l.m, want) != NULL);
		CHECK_EQ_U64(samples_of(l.m, "static_target"), 1);
		const struct mm_object *o = object_named(l.m, "static_target");
		CHECK(o && o->kind == MM_STATIC && o->size == sizeof(static_target));
		CHECK_EQ_U64(l.m->ncode, 1);
		CHECK_STR(l.m->code[0].function, "caller_ret");
	}
	unload(&l);
	rmtmp();
}

int main(void)
{
	RUN(address_reuse);
	RUN(stacks_threads_weights);
	RUN(many_allocations);
	RUN(unmatched_frees);
	RUN(corrupt_values);
	RUN(symbolized_site_and_static);
	return CHECK_DONE();
}
