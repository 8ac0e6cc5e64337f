/* SPDX-License-Identifier: MIT */
/*
 * u-perfdata-analyze.c - the fast paths of `sonde analyze`: the sample table (counts per
 * distinct key) against counts kept independently; samples symbolized in batches still
 * resolve with the maps of their time (an mmap between two runs of identical samples);
 * callchain counts weighted by the batch; counts per CPU; the hand-parsed kallsyms against
 * sscanf.
 */
#include <link.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "check.h"
#include "analyze/stab.h"
#include "analyze/analyze.h"
#include "../../tools/perfdata-synth.h"

TEST(stab_counts_distinct_keys)
{
	enum { NK = 5000 };
	static uint64_t want_n[NK], want_sum[NK];
	struct stab t;
	stab_init(&t);
	uint64_t x = 12345, key[40];
	int ok = 1;
	/* key i: words i, i*7, ... of length 1 + i % 37: keys share prefixes but differ */
	for (int round = 0; round < 40000 && ok; round++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		size_t i = (x >> 33) % NK, n = 1 + i % 37;
		for (size_t k = 0; k < n; k++)
			key[k] = i * (k + 7);
		ok = stab_add(&t, key, n, round) == 0;
		want_n[i]++;
		want_sum[i] += (uint64_t)round;
	}
	CHECK(ok);
	size_t distinct = 0;
	for (int i = 0; i < NK; i++)
		distinct += want_n[i] != 0;
	CHECK_EQ_U64(t.nents, distinct);
	int bad = 0;
	for (size_t e = 0; e < t.nents; e++) {
		const uint64_t *k = stab_key(&t, &t.ents[e]);
		size_t i = k[0] / 7;
		if (i >= NK || t.ents[e].nkey != 1 + i % 37 || t.ents[e].n != want_n[i] ||
		    t.ents[e].sum != want_sum[i])
			bad++;
	}
	CHECK_EQ_U64(bad, 0);
	/* a prefix of a key is another key */
	stab_clear(&t);
	CHECK_EQ_U64(t.nents, 0);
	uint64_t k3[3] = { 1, 2, 3 };
	CHECK(stab_add(&t, k3, 3, 10) == 0 && stab_add(&t, k3, 2, 20) == 0);
	CHECK(stab_add(&t, k3, 3, 1) == 0);
	CHECK_EQ_U64(t.nents, 2);
	CHECK(t.ents[0].n == 2 && t.ents[0].sum == 11 && t.ents[1].n == 1 && t.ents[1].sum == 20);
	stab_release(&t);
}

__attribute__((noinline)) int callee_fn(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int caller_fn(int x)
{
	return callee_fn(x) * 5 + 2;
}

static uint64_t file_off;

static int find_off(struct dl_phdr_info *info, size_t size, void *data)
{
	uint64_t vaddr = (uint64_t)(uintptr_t)data - info->dlpi_addr;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		if (p->p_type == PT_LOAD && vaddr >= p->p_vaddr &&
		    vaddr < p->p_vaddr + p->p_filesz) {
			file_off = vaddr - p->p_vaddr + p->p_offset;
			return 1;
		}
	}
	return 0;
}

static uint64_t off_of(void *fn)
{
	file_off = 0;
	dl_iterate_phdr(find_off, fn);
	return file_off;
}

#define BASE 0x7f0000000000ull
/* IP TID TIME CALLCHAIN CPU PERIOD */
#define ST (1u | 2u | 4u | (1u << 5) | (1u << 7) | (1u << 8))
#define N1 700
#define N2 300

/*
 * pid 10 maps this program at BASE; N1 samples in callee_fn (called from caller_fn); then
 * the same range is mapped over by a file that does not exist; then N2 identical samples,
 * which must land in that file, not in callee_fn.  Two CPUs interleave out of time order
 * inside a round, as perf's per-CPU buffers do.
 */
static int write_file(const char *path, int pipe)
{
	struct synth s;
	synth_init(&s, pipe);
	struct synth_attr a = { .type = 1, .sample_type = ST, .period = 1000 };
	uint64_t id = 7;
	synth_attr(&s, &a, "cpu-clock", &id, 1);
	char exe[512];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	synth_comm(&s, 10, 10, "app");
	synth_mmap2(&s, 10, BASE, 1ull << 26, 0, exe);
	uint64_t ip = BASE + off_of((void *)callee_fn) + 1;
	uint64_t ret = BASE + off_of((void *)caller_fn) + 4;
	uint64_t chain[3] = { PD_CONTEXT_USER, ip, ret };
	uint64_t time = 1000;
	for (int part = 0; part < 2; part++) {
		int count = part ? N2 : N1;
		for (int i = 0; i < count; i++) {
			/* cpu 0's samples are written before cpu 1's earlier ones; the last
			 * one is the latest (the mmap, without a time, follows it) */
			uint64_t t = time + 2 * (uint64_t)(i / 2) + !(i & 1);
			struct synth_sample x = { .ip = ip, .pid = 10, .tid = 10, .cpu = i & 1,
						  .time = i == count - 1 ? time + 2 * count : t,
						  .period = 1000, .nchain = 3, .chain = chain };
			synth_sample(&s, 0, &x);
			if (i % 100 == 99)
				synth_header(&s.data, PD_FINISHED_ROUND, 0, 8);
		}
		time += 2 * (uint64_t)count + 1;
		if (!part)
			synth_mmap2(&s, 10, BASE, 1ull << 26, 0, "/nonexistent/lib.so");
	}
	int r = synth_write(&s, path);
	synth_release(&s);
	return r;
}

static int func_named(const struct analysis *an, const char *name, const char *mod)
{
	for (size_t i = 0; i < an->nfuncs; i++)
		if (!strcmp(an->funcs[i].name, name) &&
		    (!mod || strstr(an->mods[an->funcs[i].mod].name, mod)))
			return (int)i;
	return -1;
}

static void check_batches(int pipe)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/u-perfdata-analyze-%d.data", (int)getpid());
	CHECK(write_file(path, pipe) == 0);
	int err = 0;
	char msg[256] = "";
	struct perfdata *pd = perfdata_open(path, &err, msg, sizeof(msg));
	struct symtab *as = symtab_new_files(NULL);
	struct analysis *an = pd ? analysis_new(pd, as, &err, msg, sizeof(msg)) : NULL;
	CHECK(an != NULL);
	if (!an) {
		printf("  %s\n", msg);
		goto out;
	}
	CHECK_EQ_U64(an->nsamples, N1 + N2);
	int fa = func_named(an, "callee_fn", NULL), fb = func_named(an, "caller_fn", NULL);
	int fu = func_named(an, "[unknown]", "/nonexistent/lib.so");
	CHECK(fa >= 0 && fb >= 0 && fu >= 0);
	if (fa < 0 || fb < 0 || fu < 0)
		goto out;
	CHECK_EQ_U64(an->funcs[fa].samples[0], N1);
	CHECK_EQ_U64(an->funcs[fa].periods[0], N1 * 1000ull);
	CHECK_EQ_U64(an->funcs[fu].samples[0], N2);
	CHECK_EQ_U64(an->funcs[fa].incl[0], N1);
	CHECK_EQ_U64(an->funcs[fb].incl[0], N1);
	CHECK_EQ_U64(an->funcs[fb].samples[0], 0);
	uint64_t edge = 0;
	for (size_t i = 0; i < an->nedges; i++)
		if (an->edges[i].caller == fb && an->edges[i].callee == fa && !an->edges[i].lbr)
			edge += an->edges[i].count;
	CHECK_EQ_U64(edge, N1);
	CHECK_EQ_U64(an->ncpus, 2);
	if (an->ncpus == 2)
		CHECK(an->cpu_samples[0] == (N1 + 1) / 2 + (N2 + 1) / 2 &&
		      an->cpu_samples[1] == N1 / 2 + N2 / 2);
	/* per function and CPU: even samples on cpu 0, odd ones on cpu 1 */
	size_t i, n = analysis_cpus_of(an->func_cpus, an->nfunc_cpus, fa, &i);
	CHECK_EQ_U64(n, 2);
	if (n == 2)
		CHECK(an->func_cpus[i].cpu == 0 && an->func_cpus[i].samples == (N1 + 1) / 2 &&
		      an->func_cpus[i + 1].cpu == 1 && an->func_cpus[i + 1].samples == N1 / 2);
	n = analysis_cpus_of(an->func_cpus, an->nfunc_cpus, fu, &i);
	CHECK_EQ_U64(n, 2);
	if (n == 2)
		CHECK(an->func_cpus[i].samples == (N2 + 1) / 2 &&
		      an->func_cpus[i + 1].samples == N2 / 2);
	CHECK_EQ_U64(analysis_cpus_of(an->func_cpus, an->nfunc_cpus, fb, &i), 0);
	uint64_t sum = 0;
	for (size_t k = 0; k < an->naddr_cpus; k++)
		sum += an->addr_cpus[k].samples;
	CHECK_EQ_U64(sum, N1 + N2);
out:
	analysis_free(an);
	symtab_free(as);
	perfdata_free(pd);
	unlink(path);
}

TEST(batches_resolve_with_their_maps_file)
{
	check_batches(0);
}

TEST(batches_resolve_with_their_maps_pipe)
{
	check_batches(1);
}

/* Kernel text symbols as sscanf reads /proc/kallsyms (the reference, independent parser). */
TEST(kallsyms_as_sscanf)
{
	struct utsname u;
	FILE *fp = fopen("/proc/kallsyms", "r");
	if (uname(&u) || !fp) {
		if (fp)
			fclose(fp);
		SKIP("no /proc/kallsyms");
	}
	static struct {
		unsigned long long a;
		char name[128];
	} want[64];
	char line[512], name[256], t;
	unsigned long long a, last = 0;
	int n = 0, lines = 0;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%llx %c %255s", &a, &t, name) != 3 || !a || strlen(name) > 127)
			continue;
		if ((t != 't' && t != 'T') || a == last || lines++ % 997)
			continue;
		last = a;
		if (n < 64) {
			want[n].a = a;
			strcpy(want[n].name, name);
			n++;
		}
	}
	fclose(fp);
	if (n < 8)
		SKIP("kallsyms addresses hidden (kptr_restrict)");
	struct symtab *as = symtab_new_files(u.release);
	struct sym_module *k = as ? symtab_module(as, "[kernel.kallsyms]") : NULL;
	CHECK(k != NULL);
	int bad = 0;
	for (int i = 0; k && i < n; i++) {
		const char *nm = NULL;
		uint64_t start = 0, size = 0;
		/* aliases share an address: the start must match, the name be one of them */
		if (sym_module_func(k, want[i].a, &nm, &start, &size) || start != want[i].a ||
		    !size) {
			printf("  %s at %llx: got %s at %llx\n", want[i].name, want[i].a,
			       nm ? nm : "nothing", (unsigned long long)start);
			bad++;
		}
	}
	CHECK_EQ_U64(bad, 0);
	symtab_free(as);
}

int main(void)
{
	RUN(stab_counts_distinct_keys);
	RUN(batches_resolve_with_their_maps_file);
	RUN(batches_resolve_with_their_maps_pipe);
	RUN(kallsyms_as_sscanf);
	return CHECK_DONE();
}
