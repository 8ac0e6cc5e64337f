/* SPDX-License-Identifier: MIT */
/*
 * u-topdown.c - cycle accounting on synthetic perf.data files with known raw events,
 * periods, multiplexing factors and functions: the numbers equal the ones computed by hand
 * below (GOoDA's rule: per row, Σ trunc(s × pen × P × m / (P_c × m_c))).
 */
#include <link.h>
#include <unistd.h>

#include "check.h"
#include "analyze/analyze.h"
#include "analyze/topdown.h"
#include "../../tools/perfdata-synth.h"

__attribute__((noinline)) int func_a(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int func_b(int x)
{
	return x * 5 + 2;
}

static uint64_t file_off;

static int find_off(struct dl_phdr_info *info, size_t size, void *data)
{
	uint64_t vaddr = (uint64_t)(uintptr_t)data - info->dlpi_addr;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		if (p->p_type == PT_LOAD && vaddr >= p->p_vaddr && vaddr < p->p_vaddr + p->p_filesz) {
			file_off = vaddr - p->p_vaddr + p->p_offset;
			return 1;
		}
	}
	return 0;
}

/* The file offset of a function of this program (the synthetic mmap maps the file at 0). */
static uint64_t off_of(void *fn)
{
	file_off = 0;
	dl_iterate_phdr(find_off, fn);
	return file_off;
}

#define BASE 0x7f0000000000ull
#define ST_SAMPLE (1u | 2u | (1u << 6) | (1u << 7) | (1u << 8) | (1u << 4))

static const char *model_text =
	"arch synth\n"
	"title synthetic\n"
	"cpuid GenuineIntel,6,999\n"
	"event cyc r3c\n"
	"event e1 r1111\n"
	"event e2 ev_two\n"
	"event gone r9999\n"
	"cycles cyc\n"
	"node stalled\n"
	"node stalled/a 7 e1\n"
	"node stalled/b 3 e2\n"
	"node lat 2 e2\n"
	"node other 1 gone\n"
	"node other/x 1 e1\n"
	"node mixed\n"
	"node mixed/p 1 e1\n"
	"node mixed/q 1 gone\n";

enum { N_STALLED, N_A, N_B, N_LAT, N_OTHER, N_X, N_MIXED, N_P, N_Q };

static void add(struct synth *s, int attr, uint64_t id, uint64_t ip, uint32_t cpu, uint64_t en,
		uint64_t run, int n)
{
	for (int i = 0; i < n; i++) {
		struct synth_sample x = { .ip = ip, .pid = 10, .tid = 10, .cpu = cpu, .id = id,
					  .period = s->attrs[attr].period, .en = en, .run = run,
					  .read_value = { 1 }, .read_id = { id } };
		synth_sample(s, attr, &x);
	}
}

static char path[64];

static int write_file(int pipe)
{
	struct synth s;
	synth_init(&s, pipe);
	s.cpuid = "GenuineIntel,6,999,1";
	uint64_t id0 = 100, id1 = 101, id2 = 102;
	struct synth_attr a = { .type = 4, .sample_type = ST_SAMPLE, .read_format = 1 | 2 | 4 };
	a.config = 0x3c, a.period = 2000;
	synth_attr(&s, &a, "cyc_raw", &id0, 1);
	a.config = 0x1111, a.period = 1000;
	synth_attr(&s, &a, "r1111", &id1, 1);
	a.config = 0x2222, a.period = 500;
	synth_attr(&s, &a, "ev_two", &id2, 1);
	char exe[512];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	synth_comm(&s, 10, 10, "app");
	synth_mmap2(&s, 10, BASE, 1ull << 26, 0, exe);
	uint64_t fa = BASE + off_of((void *)func_a), fb = BASE + off_of((void *)func_b);
	/* cycles: m = 3000/2000 = 1.5 everywhere; 4 samples in a, 2 in b */
	add(&s, 0, id0, fa, 0, 3000, 2000, 4);
	add(&s, 0, id0, fb, 0, 3000, 2000, 2);
	/* e1: 3 samples on cpu0 with m = 2, 1 on cpu1 with m = 3: m = (3*2 + 1*3)/4 = 2.25 */
	add(&s, 1, id1, fa, 0, 2000, 1000, 3);
	add(&s, 1, id1, fa, 1, 3000, 1000, 1);
	/* e2: m = 1; 1 sample in a, 5 in b */
	add(&s, 2, id2, fa, 0, 1000, 1000, 1);
	add(&s, 2, id2, fb, 0, 1000, 1000, 5);
	snprintf(path, sizeof(path), "/tmp/u-topdown-%d.data", (int)getpid());
	int r = synth_write(&s, path);
	synth_release(&s);
	return r;
}

TEST(term_truncation)
{
	/* 4 × 7 × 1000 × 2.25 / (2000 × 1.5) = 21 exactly: rounding must not give 20 */
	CHECK_EQ_U64(td_term_value(4, 7, 1000, 2.25, 2000, 1.5), 21);
	/* 6 × 3 × 500 / 3000 = 3; 5 × 3 × 500 / 3000 = 2.5 -> 2; 1/3 -> 0 */
	CHECK_EQ_U64(td_term_value(6, 3, 500, 1, 2000, 1.5), 3);
	CHECK_EQ_U64(td_term_value(5, 3, 500, 1, 2000, 1.5), 2);
	CHECK_EQ_U64(td_term_value(1, 2, 500, 1, 2000, 1.5), 0);
	/* toward zero for negative penalties: -2.5 -> -2 */
	CHECK(td_term_value(5, -3, 500, 1, 2000, 1.5) == -2);
}

TEST(model_parse_errors)
{
	int err;
	char msg[256];
	CHECK(!td_parse("arch x\nnode a/b 1 c\n", "t", &err, msg, sizeof(msg)));
	CHECK(strstr(msg, "t:2") != NULL);
	CHECK(!td_parse("node a\n", "t", &err, msg, sizeof(msg)));
	CHECK(!td_parse("arch x\nevent c r3c\ncycles c\nnode a 1 nosuch\n", "t", &err, msg,
			sizeof(msg)));
	struct td_model *m = td_parse(model_text, "t", &err, msg, sizeof(msg));
	CHECK(m != NULL);
	if (m) {
		CHECK_EQ_U64(m->nnodes, 9);
		CHECK_EQ_U64(m->nodes[N_P].depth, 2);
		CHECK_EQ_U64(m->nodes[N_P].parent, N_MIXED);
	}
	td_free(m);
}

static void check_file(int pipe)
{
	CHECK(write_file(pipe) == 0);
	int err = 0;
	char msg[256] = "";
	struct perfdata *pd = perfdata_open(path, &err, msg, sizeof(msg));
	CHECK(pd != NULL);
	if (!pd) {
		printf("  %s\n", msg);
		return;
	}
	struct symtab *as = symtab_new_files(NULL);
	struct analysis *an = analysis_new(pd, as, &err, msg, sizeof(msg));
	CHECK(an != NULL);
	struct td_model *m = td_parse(model_text, "t", &err, msg, sizeof(msg));
	CHECK(m != NULL);
	if (!an || !m)
		goto out;
	CHECK_EQ_U64(an->nev, 3);
	CHECK(an->ev[0].mplex == 1.5);
	CHECK(an->ev[1].mplex == 2.25);
	CHECK(an->ev[2].mplex == 1.0);
	CHECK_EQ_U64(an->ev[0].period, 2000);
	struct td_binding b;
	CHECK(td_bind(m, an->ev, an->nev, &b) == 0);
	CHECK_EQ_U64(b.cycles_ev, 0);
	CHECK_EQ_U64(b.sym_ev[2], 2);	/* e2 matched by its name */
	CHECK(b.live[N_STALLED] && b.live[N_A] && b.live[N_B] && b.live[N_LAT]);
	CHECK(!b.live[N_OTHER] && !b.live[N_X] && !b.live[N_MIXED] && !b.live[N_P] && !b.live[N_Q]);
	CHECK(strstr(b.note, "dropped other") && strstr(b.note, "dropped mixed/q"));
	int fa = analysis_find_function(an, "func_a"), fb = analysis_find_function(an, "func_b");
	CHECK(fa >= 0 && fb >= 0);
	CHECK_EQ_U64(an->nprocs, 1);
	int64_t v[9], cyc;
	if (fa >= 0) {
		td_eval(&b, an->funcs[fa].samples, v, &cyc);
		CHECK(cyc == 4 && v[N_A] == 21 && v[N_B] == 0 && v[N_STALLED] == 21 && v[N_LAT] == 0);
	}
	if (fb >= 0) {
		td_eval(&b, an->funcs[fb].samples, v, &cyc);
		CHECK(cyc == 2 && v[N_A] == 0 && v[N_B] == 2 && v[N_STALLED] == 2 && v[N_LAT] == 1);
	}
	/* the process row truncates its own sums: b = trunc(6 × 1500 / 3000) = 3, not 0 + 2 */
	td_eval(&b, an->procs[0].samples, v, &cyc);
	CHECK(cyc == 6 && v[N_A] == 21 && v[N_B] == 3 && v[N_STALLED] == 24 && v[N_LAT] == 2);
	CHECK(v[N_OTHER] == 0 && v[N_MIXED] == 0);
	td_binding_release(&b);
out:
	td_free(m);
	analysis_free(an);
	symtab_free(as);
	perfdata_free(pd);
	unlink(path);
}

TEST(accounting_file_mode)
{
	check_file(0);
}

TEST(accounting_pipe_mode)
{
	check_file(1);
}

TEST(select_by_cpuid_and_arch)
{
	char msg[256];
	char dir[512];
	const char *top = getenv("SONDE_TOP");
	snprintf(dir, sizeof(dir), "%s/data/topdown", top ? top : ".");
	struct td_model *m = td_select(dir, NULL, "GenuineIntel,6,44,2", msg, sizeof(msg));
	if (!m)
		SKIP("no data/topdown (set SONDE_TOP)");
	CHECK_STR(m->arch, "westmere-ep");
	td_free(m);
	m = td_select(dir, "sandybridge", "GenuineIntel,6,44,2", msg, sizeof(msg));
	CHECK(m && !strcmp(m->arch, "sandybridge"));
	td_free(m);
	m = td_select(dir, NULL, "AuthenticAMD,26,2,1", msg, sizeof(msg));
	CHECK(m && !strcmp(m->arch, "generic"));
	td_free(m);
	CHECK(td_select(dir, "no-such-arch", NULL, msg, sizeof(msg)) == NULL);
	/* every shipped file parses */
	static const char *const files[] = { "generic", "westmere-ep", "sandybridge", "intel-tma",
					     "amd-zen4" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char p[600];
		int err;
		snprintf(p, sizeof(p), "%s/%s.txt", dir, files[i]);
		m = td_load(p, &err, msg, sizeof(msg));
		CHECK(m != NULL);
		if (!m)
			printf("  %s\n", msg);
		td_free(m);
	}
}

int main(void)
{
	RUN(term_truncation);
	RUN(model_parse_errors);
	RUN(accounting_file_mode);
	RUN(accounting_pipe_mode);
	RUN(select_by_cpuid_and_arch);
	return CHECK_DONE();
}
