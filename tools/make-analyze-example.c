/* SPDX-License-Identifier: MIT */
/*
 * make-analyze-example.c - writes the bundled `sonde analyze` example,
 * tests/fixtures/perfdata/example-snb.perf.data: a synthetic Sandy Bridge recording of
 * tests/fixtures/perfdata/example-snb with GOoDA's events, as
 *
 *   perf record -c PERIOD --running-time -e <19 events, PEBS ones :pp> -- ./example-snb
 *
 * would give on a machine where the three kernels behave as designed:
 *   chase      load latency: LLC misses on its list load, with the cycles skidding onto
 *              the next instruction (the load is precise, the cycles are not);
 *   classify   branch misprediction on its data-dependent branch;
 *   interpret  instruction starvation (L2 code reads all over its 46 KB switch).
 * Sample counts, periods and multiplexing factors are chosen below; the instructions they
 * land on are found by decoding the binary (Zydis), so a rebuilt binary gets a matching
 * file.  The output is a pure function of the binary and the options: the checked-in file
 * equals `make-analyze-example tests/fixtures/perfdata/example-snb OUT` (t307 checks).
 *
 * Build: cc -O2 -o make-analyze-example tools/make-analyze-example.c -lelf -lZydis
 * Usage: make-analyze-example [-n NAME] [-v] BINARY OUT
 *   -n NAME  the file name the mmap record gives (default /proc/self/cwd/BASENAME: the
 *            binary is then found in the directory `sonde analyze` runs in)
 *   -v       print the instructions chosen
 */
#include <Zydis/Zydis.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfdata-synth.h"

#define PID 4242
#define BASE 0x555555554000ull
#define T0 1000000000ull	/* ns: the first sample's time */
#define DT 1500000ull		/* ns between samples */

/* PERF_SAMPLE_IP | TID | TIME | ID | READ: fixed periods (-c), no PERIOD field */
#define SAMPLE_TYPE (1u | 2u | 4u | (1u << 6) | (1u << 4))
/* a group of one: nr, TOTAL_TIME_ENABLED, TOTAL_TIME_RUNNING, value (same in every reader) */
#define READ_FORMAT (8u | 1u | 2u)

/* The template's events (data/topdown/sandybridge.txt), named as perf names them. */
enum {
	CYC, STALL, L2_HIT, LLC_MISS, SNP_NONE, SNP_MISS, SNP_HIT, SNP_HITM, STLB_HIT, DTLB_WALK,
	IF_MISS, IF_HIT, ITLB_WALK, OFFCORE, BR_MISP, BACLEAR, SB_STALL, DIV, MS, NEV
};

static const struct ev {
	const char *name;
	uint64_t config, period;
	int precise;
	uint64_t en, run;	/* time_enabled : time_running, the multiplexing factor */
} evs[NEV] = {
	[CYC] = { "cpu_clk_unhalted.thread_p", 0x3c, 2000000, 0, 5, 1 },
	[STALL] = { "uops_retired.stall_cycles", 0x18001c2, 2000000, 0, 5, 1 },
	[L2_HIT] = { "mem_load_uops_retired.l2_hit:pp", 0x2d1, 200000, 1, 11, 2 },
	[LLC_MISS] = { "mem_load_uops_retired.llc_miss:pp", 0x20d1, 20000, 1, 11, 2 },
	[SNP_NONE] = { "mem_load_uops_llc_hit_retired.xsnp_none:pp", 0x8d2, 50000, 1, 11, 2 },
	[SNP_MISS] = { "mem_load_uops_llc_hit_retired.xsnp_miss:pp", 0x1d2, 20000, 1, 11, 2 },
	[SNP_HIT] = { "mem_load_uops_llc_hit_retired.xsnp_hit:pp", 0x2d2, 20000, 1, 11, 2 },
	[SNP_HITM] = { "mem_load_uops_llc_hit_retired.xsnp_hitm:pp", 0x4d2, 20000, 1, 11, 2 },
	[STLB_HIT] = { "dtlb_load_misses.stlb_hit", 0x6008, 100000, 0, 11, 2 },
	[DTLB_WALK] = { "dtlb_load_misses.walk_duration", 0x408, 2000000, 0, 11, 2 },
	[IF_MISS] = { "l2_rqsts.code_rd_miss", 0x2024, 50000, 0, 11, 2 },
	[IF_HIT] = { "l2_rqsts.code_rd_hit", 0x1024, 100000, 0, 11, 2 },
	[ITLB_WALK] = { "itlb_misses.walk_duration", 0x485, 2000000, 0, 11, 2 },
	[OFFCORE] = { "offcore_requests_outstanding.all_data_rd:c6", 0x6000860, 2000000, 0,
		      11, 2 },
	[BR_MISP] = { "br_misp_retired.all_branches:pp", 0xc5, 200000, 1, 11, 2 },
	[BACLEAR] = { "baclears.any", 0x1fe6, 100000, 0, 11, 2 },
	[SB_STALL] = { "resource_stalls.sb", 0x8a2, 2000000, 0, 11, 2 },
	[DIV] = { "arith.fpu_div_active", 0x114, 2000000, 0, 11, 2 },
	[MS] = { "idq.ms_cycles", 0x3000479, 2000000, 0, 11, 2 },
};

struct insn {
	uint64_t addr, target;
	ZydisMnemonic mn;
	int load, jcc, ijmp, test1;
};

struct fn {
	const char *name;
	uint64_t addr, size;
	struct insn *in;
	size_t n;
};

enum { F_MAIN, F_CHASE, F_CLASSIFY, F_INTERPRET, NFN };
static struct fn fns[NFN] = {
	{ .name = "main" }, { .name = "chase" }, { .name = "classify" }, { .name = "interpret" },
};

static uint64_t seg_vaddr, seg_off, seg_len;	/* the executable PT_LOAD, page-aligned */
static uint8_t *image;
static size_t image_len;
static int verbose;

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("make-analyze-example: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void read_image(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st))
		die("cannot open '%s': %s", path, strerror(errno));
	image_len = (size_t)st.st_size;
	image = malloc(image_len ? image_len : 1);
	if (!image || pread(fd, image, image_len, 0) != (ssize_t)image_len)
		die("cannot read '%s'", path);
	close(fd);
}

static void find_symbols(Elf *e)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC)
				continue;
			const char *name = elf_strptr(e, sh.sh_link, s.st_name);
			for (int f = 0; name && f < NFN; f++)
				if (!strcmp(name, fns[f].name)) {
					fns[f].addr = s.st_value;
					fns[f].size = s.st_size;
				}
		}
	}
	for (int f = 0; f < NFN; f++)
		if (!fns[f].size)
			die("no function '%s' in the binary (not example-snb?)", fns[f].name);
}

static void find_segment(Elf *e)
{
	size_t n;
	if (elf_getphdrnum(e, &n))
		die("no program headers");
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			seg_vaddr = ph.p_vaddr & ~0xfffull;
			seg_off = ph.p_offset & ~0xfffull;
			seg_len = (ph.p_vaddr + ph.p_memsz - seg_vaddr + 0xfff) & ~0xfffull;
			return;
		}
	}
	die("no executable segment");
}

static void decode(struct fn *f)
{
	ZydisDecoder d;
	ZydisDecoderInit(&d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	uint64_t off = f->addr - seg_vaddr + seg_off;
	if (off + f->size > image_len)
		die("'%s' lies outside the file", f->name);
	f->in = calloc(f->size, sizeof(*f->in));
	if (!f->in)
		die("out of memory");
	for (uint64_t p = 0; p < f->size;) {
		ZydisDecodedInstruction in;
		ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
		if (ZYAN_FAILED(ZydisDecoderDecodeFull(&d, image + off + p, f->size - p, &in, ops)))
			die("cannot decode '%s'+%#llx", f->name, (unsigned long long)p);
		struct insn *x = &f->in[f->n++];
		x->addr = f->addr + p;
		x->mn = in.mnemonic;
		x->load = in.mnemonic == ZYDIS_MNEMONIC_MOV && ops[1].type == ZYDIS_OPERAND_TYPE_MEMORY;
		x->jcc = in.meta.category == ZYDIS_CATEGORY_COND_BR;
		x->ijmp = in.mnemonic == ZYDIS_MNEMONIC_JMP &&
			  ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER;
		x->test1 = in.mnemonic == ZYDIS_MNEMONIC_TEST &&
			   ops[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ops[1].imm.value.u == 1;
		ZyanU64 t;
		if (x->jcc && ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&in, &ops[0], x->addr, &t)))
			x->target = t;
		p += in.length;
	}
}

/* Index of the first instruction at or after `from` with the property, or die. */
static size_t find(const struct fn *f, size_t from, size_t prop_off, const char *what)
{
	for (size_t i = from; i < f->n; i++)
		if (*(const int *)((const char *)&f->in[i] + prop_off))
			return i;
	die("'%s': no %s (was the binary rebuilt differently?)", f->name, what);
	return 0;
}

static size_t at(const struct fn *f, uint64_t addr)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->in[i].addr == addr)
			return i;
	die("'%s': no instruction at %#llx", f->name, (unsigned long long)addr);
	return 0;
}

/* ---- the samples ------------------------------------------------------------------------ */

struct smp {
	int ev;
	uint64_t ip;
};

static struct smp *phase;
static size_t nphase, capphase;
static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* n samples of event ev at the instruction at index i of f. */
static void put(const struct fn *f, size_t i, int ev, int n)
{
	for (int k = 0; k < n; k++) {
		if (nphase == capphase) {
			capphase = capphase ? 2 * capphase : 1024;
			phase = realloc(phase, capphase * sizeof(*phase));
			if (!phase)
				die("out of memory");
		}
		phase[nphase++] = (struct smp){ ev, BASE + f->in[i].addr - seg_vaddr };
	}
}

/* n samples of event ev spread over f's instructions (a fixed pseudo-random choice). */
static void spread(const struct fn *f, int ev, int n)
{
	for (int k = 0; k < n; k++)
		put(f, (size_t)(next_random() % f->n), ev, 1);
}

static uint64_t nwritten;

/* The phase's samples in a shuffled (fixed) order, one every DT ns. */
static void flush_phase(struct synth *s)
{
	for (size_t i = nphase; i > 1; i--) {
		size_t j = (size_t)(next_random() % i);
		struct smp t = phase[i - 1];
		phase[i - 1] = phase[j];
		phase[j] = t;
	}
	for (size_t i = 0; i < nphase; i++) {
		const struct ev *e = &evs[phase[i].ev];
		uint64_t k = ++nwritten;
		struct synth_sample x = { .ip = phase[i].ip, .pid = PID, .tid = PID,
					  .time = T0 + k * DT, .id = 1000 + (uint64_t)phase[i].ev,
					  .en = e->en * k, .run = e->run * k, .nread = 1,
					  .read_value = { e->period * k } };
		synth_sample(s, phase[i].ev, &x);
	}
	nphase = 0;
}

static void show(const struct fn *f, size_t i, const char *what)
{
	if (verbose)
		printf("%-10s %#llx  %s\n", f->name, (unsigned long long)f->in[i].addr, what);
}

/* main: building the list (stores) and the inputs. */
static void phase_main(void)
{
	const struct fn *f = &fns[F_MAIN];
	spread(f, CYC, 50);
	spread(f, STALL, 20);
	spread(f, SB_STALL, 10);
	spread(f, LLC_MISS, 2);
}

/* chase: the precise load events on the load, the cycles mostly on the next instruction. */
static void phase_chase(void)
{
	const struct fn *f = &fns[F_CHASE];
	size_t ld = find(f, 0, offsetof(struct insn, load), "load");
	size_t nx = ld + 1, br = find(f, nx, offsetof(struct insn, jcc), "loop branch");
	show(f, ld, "the DRAM load (precise load events)");
	show(f, nx, "the next instruction (where the cycles skid)");
	put(f, ld, CYC, 10);
	put(f, nx, CYC, 470);
	put(f, br, CYC, 20);
	put(f, ld, STALL, 2);
	put(f, nx, STALL, 430);
	put(f, br, STALL, 8);
	put(f, ld, LLC_MISS, 140);
	put(f, ld, L2_HIT, 10);
	put(f, ld, SNP_NONE, 6);
	put(f, ld, SNP_MISS, 2);
	put(f, nx, STLB_HIT, 10);
	put(f, nx, DTLB_WALK, 20);
	put(f, nx, OFFCORE, 10);
}

/* classify: mispredictions on the data-dependent branch, cycles on both of its targets. */
static void phase_classify(void)
{
	const struct fn *f = &fns[F_CLASSIFY];
	size_t t = find(f, 0, offsetof(struct insn, test1), "test $1");
	size_t b = find(f, t, offsetof(struct insn, jcc), "branch on the bit");
	size_t taken = at(f, f->in[b].target), fall = b + 1, ld = t - 1;
	show(f, b, "the mispredicted branch (precise br_misp)");
	static const int cyc_taken[] = { 70, 25, 15, 10, 5 }, cyc_fall[] = { 65, 20, 10, 5, 5 };
	for (size_t k = 0; k < 5; k++) {
		put(f, taken + k, CYC, cyc_taken[k]);
		put(f, fall + k, CYC, cyc_fall[k]);
	}
	put(f, ld, CYC, 35);
	put(f, t, CYC, 25);
	put(f, b, CYC, 10);
	put(f, taken, STALL, 55);
	put(f, taken + 1, STALL, 10);
	put(f, fall, STALL, 50);
	put(f, ld, STALL, 20);
	put(f, t, STALL, 15);
	put(f, b, BR_MISP, 180);
	put(f, b, BACLEAR, 6);
	put(f, ld, L2_HIT, 5);
	put(f, t, OFFCORE, 4);
}

/* interpret: code reads missing L2 all over the switch; some indirect-jump mispredictions. */
static void phase_interpret(void)
{
	const struct fn *f = &fns[F_INTERPRET];
	size_t j = find(f, 0, offsetof(struct insn, ijmp), "indirect jump");
	show(f, j, "the switch's indirect jump");
	spread(f, CYC, 200);
	spread(f, STALL, 130);
	spread(f, IF_MISS, 66);
	spread(f, IF_HIT, 20);
	spread(f, ITLB_WALK, 8);
	put(f, j, BR_MISP, 30);
}

static void add_attrs(struct synth *s)
{
	for (int i = 0; i < NEV; i++) {
		struct synth_attr a = { .type = 4, .config = evs[i].config,
					.period = evs[i].period, .sample_type = SAMPLE_TYPE,
					.read_format = READ_FORMAT };
		a.flags = (uint64_t)(evs[i].precise ? 2 : 0) << 15;	/* precise_ip */
		uint64_t id = 1000 + (uint64_t)i;
		synth_attr(s, &a, evs[i].name, &id, 1);
	}
}

int main(int argc, char **argv)
{
	const char *name = NULL;
	int c;
	while ((c = getopt(argc, argv, "n:v")) != -1) {
		if (c == 'n')
			name = optarg;
		else if (c == 'v')
			verbose = 1;
		else
			return 2;
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: make-analyze-example [-n NAME] [-v] BINARY OUT\n");
		return 2;
	}
	const char *bin = argv[optind], *out = argv[optind + 1];
	char defname[4096];
	if (!name) {
		const char *b = strrchr(bin, '/');
		snprintf(defname, sizeof(defname), "/proc/self/cwd/%s", b ? b + 1 : bin);
		name = defname;
	}
	read_image(bin);
	elf_version(EV_CURRENT);
	Elf *e = elf_memory((char *)image, image_len);
	if (!e || elf_kind(e) != ELF_K_ELF)
		die("'%s' is not an ELF file", bin);
	find_symbols(e);
	find_segment(e);
	for (int f = 0; f < NFN; f++)
		decode(&fns[f]);

	struct synth s;
	synth_init(&s, 0);
	s.cpuid = "GenuineIntel,6,42,7";	/* Sandy Bridge client: the template's cpuid */
	add_attrs(&s);
	synth_comm(&s, PID, PID, "example-snb");
	synth_mmap2(&s, PID, BASE, seg_len, seg_off, name);
	phase_main();
	flush_phase(&s);
	phase_chase();
	flush_phase(&s);
	phase_classify();
	flush_phase(&s);
	phase_interpret();
	flush_phase(&s);
	int r = synth_write(&s, out);
	synth_release(&s);
	elf_end(e);
	for (int f = 0; f < NFN; f++)
		free(fns[f].in);
	free(phase);
	free(image);
	if (r)
		die("cannot write '%s'", out);
	return 0;
}
