/* SPDX-License-Identifier: MIT */
/*
 * perfdata.c - the perf.data reader (see perfdata.h).  Layouts follow the kernel's
 * include/uapi/linux/perf_event.h and perf's documented file format
 * (tools/perf/Documentation/perf.data-file-format.txt).
 */
#include "analyze/perfdata.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <linux/perf_event.h>

#include "rt/perf-sample.h"

#define PD_MAGIC 0x32454c4946524550ull		/* "PERFILE2" read little-endian */
#define PD_MAGIC_SWAPPED 0x50455246494c4532ull
#define FILE_HEADER_SIZE 104
#define PIPE_HEADER_SIZE 16
#define ATTR_SIZE_VER0 64

struct perfdata {
	const uint8_t *buf;
	size_t len;
	void *map;			/* mmap'ed file, or NULL */
	uint64_t released;		/* map pages before this offset were given back */
	uint8_t *owned;			/* read from a pipe, or NULL */
	int pipe;
	uint64_t pos, end;		/* the record stream being walked */
	int done;
	char err[256];

	struct pd_attr *attrs;
	size_t nattrs;
	struct pd_features feat;
	struct pd_stats stats;

	/* id -> attr index, open addressing */
	uint64_t *idkeys;
	int *idvals;
	size_t idcap, nids;

	/* zstd: one stream for the whole file; inner records kept in dbuf[dpos, dlen) */
	ZSTD_DStream *zs;
	uint8_t *dbuf;
	size_t dpos, dlen, dcap;
	uint64_t doffset;		/* offset of the COMPRESSED record being walked */
	int replay;			/* perfdata_decode(): decode without counting */
};

static int fail(struct perfdata *pd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct perfdata *pd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pd->err, sizeof(pd->err), fmt, ap);
	va_end(ap);
	pd->done = 1;
	return -EINVAL;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static uint16_t rd16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return v;
}

static const char *const type_names[PD_NTYPES] = {
	[PD_MMAP] = "MMAP", [PD_LOST] = "LOST", [PD_COMM] = "COMM", [PD_EXIT] = "EXIT",
	[PD_THROTTLE] = "THROTTLE", [PD_UNTHROTTLE] = "UNTHROTTLE", [PD_FORK] = "FORK",
	[PD_READ] = "READ", [PD_SAMPLE] = "SAMPLE", [PD_MMAP2] = "MMAP2", [PD_AUX] = "AUX",
	[PD_ITRACE_START] = "ITRACE_START", [PD_LOST_SAMPLES] = "LOST_SAMPLES",
	[PD_SWITCH] = "SWITCH", [PD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
	[PD_NAMESPACES] = "NAMESPACES", [PD_KSYMBOL] = "KSYMBOL", [PD_BPF_EVENT] = "BPF_EVENT",
	[PD_CGROUP] = "CGROUP", [PD_TEXT_POKE] = "TEXT_POKE",
	[PD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID", [PD_HEADER_ATTR] = "ATTR",
	[PD_HEADER_EVENT_TYPE] = "EVENT_TYPE", [PD_HEADER_TRACING_DATA] = "TRACING_DATA",
	[PD_HEADER_BUILD_ID] = "BUILD_ID", [PD_FINISHED_ROUND] = "FINISHED_ROUND",
	[PD_ID_INDEX] = "ID_INDEX", [PD_AUXTRACE_INFO] = "AUXTRACE_INFO",
	[PD_AUXTRACE] = "AUXTRACE", [PD_AUXTRACE_ERROR] = "AUXTRACE_ERROR",
	[PD_THREAD_MAP] = "THREAD_MAP", [PD_CPU_MAP] = "CPU_MAP",
	[PD_STAT_CONFIG] = "STAT_CONFIG", [PD_STAT] = "STAT", [PD_STAT_ROUND] = "STAT_ROUND",
	[PD_EVENT_UPDATE] = "EVENT_UPDATE", [PD_TIME_CONV] = "TIME_CONV",
	[PD_HEADER_FEATURE] = "FEATURE", [PD_COMPRESSED] = "COMPRESSED",
	[PD_FINISHED_INIT] = "FINISHED_INIT", [PD_COMPRESSED2] = "COMPRESSED2",
};

const char *perfdata_type_name(uint32_t type)
{
	return type < PD_NTYPES ? type_names[type] : NULL;
}

/* ---- ids ---------------------------------------------------------------------------- */

static size_t id_slot(const struct perfdata *pd, uint64_t id)
{
	uint64_t h = id * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 17) & (pd->idcap - 1);
}

static int id_add(struct perfdata *pd, uint64_t id, int attr)
{
	if ((pd->nids + 1) * 2 > pd->idcap) {
		size_t ncap = pd->idcap ? pd->idcap * 2 : 64;
		uint64_t *ok = pd->idkeys;
		int *ov = pd->idvals;
		size_t ocap = pd->idcap;
		pd->idkeys = calloc(ncap, sizeof(*pd->idkeys));
		pd->idvals = malloc(ncap * sizeof(*pd->idvals));
		if (!pd->idkeys || !pd->idvals)
			return -ENOMEM;
		for (size_t i = 0; i < ncap; i++)
			pd->idvals[i] = -1;
		pd->idcap = ncap;
		pd->nids = 0;
		for (size_t i = 0; i < ocap; i++)
			if (ov[i] >= 0)
				id_add(pd, ok[i], ov[i]);
		free(ok);
		free(ov);
	}
	size_t s = id_slot(pd, id);
	while (pd->idvals[s] >= 0 && pd->idkeys[s] != id)
		s = (s + 1) & (pd->idcap - 1);
	if (pd->idvals[s] < 0)
		pd->nids++;
	pd->idkeys[s] = id;
	pd->idvals[s] = attr;
	return 0;
}

int perfdata_attr_of_id(const struct perfdata *pd, uint64_t id)
{
	if (!pd->idcap)
		return -1;
	size_t s = id_slot(pd, id);
	while (pd->idvals[s] >= 0) {
		if (pd->idkeys[s] == id)
			return pd->idvals[s];
		s = (s + 1) & (pd->idcap - 1);
	}
	return -1;
}

/* ---- attrs and names ---------------------------------------------------------------- */

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses", "branch-instructions",
	"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
	"ref-cycles",
};
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
	"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
	"bpf-output", "cgroup-switches",
};

/* perf's modifier suffix: ":u", ":ppp", ":uH"...  (what `perf report` prints) */
static void add_modifiers(const struct pd_attr *a, char *bf, size_t n)
{
	char m[16];
	size_t r = 0;
	int guest_default = 0;
	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		if (!a->exclude_kernel)
			m[r++] = 'k';
		if (!a->exclude_user)
			m[r++] = 'u';
		if (!a->exclude_hv)
			m[r++] = 'h';
		guest_default = 1;
	}
	for (int i = 0; i < a->precise_ip && i < 3; i++)
		m[r++] = 'p';
	if (a->precise_ip)
		guest_default = 1;
	if (a->exclude_host || a->exclude_guest == guest_default) {
		if (!a->exclude_host)
			m[r++] = 'H';
		if (!a->exclude_guest)
			m[r++] = 'G';
	}
	m[r] = 0;
	if (r)
		snprintf(bf + strlen(bf), n - strlen(bf), ":%s", m);
}

static char *default_name(const struct pd_attr *a)
{
	char bf[128];
	if (a->type == 0 && a->config < sizeof(hw_names) / sizeof(hw_names[0]))
		snprintf(bf, sizeof(bf), "%s", hw_names[a->config]);
	else if (a->type == 1 && a->config < sizeof(sw_names) / sizeof(sw_names[0]))
		snprintf(bf, sizeof(bf), "%s", sw_names[a->config]);
	else if (a->type == 4)
		snprintf(bf, sizeof(bf), "r%llx", (unsigned long long)a->config);
	else
		snprintf(bf, sizeof(bf), "type%u/0x%llx", a->type, (unsigned long long)a->config);
	if (a->type != 1)
		add_modifiers(a, bf, sizeof(bf));
	return strdup(bf);
}

/* Decode sz bytes of a perf_event_attr (any version; missing fields read as zero). */
static void attr_decode(struct pd_attr *a, const uint8_t *p, size_t sz)
{
	uint8_t raw[136] = { 0 };
	memcpy(raw, p, sz < sizeof(raw) ? sz : sizeof(raw));
	memset(a, 0, sizeof(*a));
	a->type = rd32(raw);
	a->size = rd32(raw + 4);
	a->config = pd_u64(raw + 8);
	a->period = pd_u64(raw + 16);
	a->sample_type = pd_u64(raw + 24);
	a->read_format = pd_u64(raw + 32);
	a->flags = pd_u64(raw + 40);
	a->config1 = pd_u64(raw + 56);
	a->config2 = pd_u64(raw + 64);
	a->branch_sample_type = pd_u64(raw + 72);
	a->regs_user = pd_u64(raw + 80);
	a->stack_user = rd32(raw + 88);
	a->regs_intr = pd_u64(raw + 96);
	uint64_t f = a->flags;
	a->exclude_user = (f >> 4) & 1;
	a->exclude_kernel = (f >> 5) & 1;
	a->exclude_hv = (f >> 6) & 1;
	a->freq = (f >> 10) & 1;
	a->precise_ip = (f >> 15) & 3;
	a->sample_id_all = (f >> 18) & 1;
	a->exclude_host = (f >> 19) & 1;
	a->exclude_guest = (f >> 20) & 1;
}

static struct pd_attr *attr_push(struct perfdata *pd)
{
	if (pd->nattrs >= 4096)
		return NULL;
	struct pd_attr *n = realloc(pd->attrs, (pd->nattrs + 1) * sizeof(*n));
	if (!n)
		return NULL;
	pd->attrs = n;
	return &pd->attrs[pd->nattrs++];
}

static int attr_set_ids(struct perfdata *pd, int idx, const uint8_t *p, size_t n)
{
	struct pd_attr *a = &pd->attrs[idx];
	a->ids = malloc((n ? n : 1) * sizeof(uint64_t));
	if (!a->ids)
		return -ENOMEM;
	a->nids = n;
	for (size_t i = 0; i < n; i++) {
		a->ids[i] = pd_u64(p + 8 * i);
		if (id_add(pd, a->ids[i], idx))
			return -ENOMEM;
	}
	return 0;
}

/* ---- features ------------------------------------------------------------------------ */

struct cur {
	const uint8_t *p, *end;
	int bad;
};

static uint32_t cur_u32(struct cur *c)
{
	if (c->end - c->p < 4) {
		c->bad = 1;
		return 0;
	}
	uint32_t v = rd32(c->p);
	c->p += 4;
	return v;
}

static uint64_t cur_u64(struct cur *c)
{
	if (c->end - c->p < 8) {
		c->bad = 1;
		return 0;
	}
	uint64_t v = pd_u64(c->p);
	c->p += 8;
	return v;
}

/* A perf header string: u32 length (padded, NUL included), then the bytes. */
static char *cur_str(struct cur *c)
{
	uint32_t n = cur_u32(c);
	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = 1;
		return NULL;
	}
	char *s = strndup((const char *)c->p, n);
	c->p += n;
	if (!s)
		c->bad = 1;
	return s;
}

static char **cur_strs(struct cur *c, size_t *n)
{
	uint32_t k = cur_u32(c);
	/* each string takes at least 4 bytes: bounds k before allocating */
	if (c->bad || k > (size_t)(c->end - c->p) / 4) {
		c->bad = 1;
		return NULL;
	}
	char **v = calloc(k + 1, sizeof(char *));
	if (!v) {
		c->bad = 1;
		return NULL;
	}
	for (uint32_t i = 0; i < k && !c->bad; i++) {
		v[i] = cur_str(c);
		*n = i + 1;
	}
	return v;
}

static void event_desc(struct perfdata *pd, struct cur *c)
{
	uint32_t n = cur_u32(c), sz = cur_u32(c);
	if (c->bad || sz < ATTR_SIZE_VER0 || sz > 4096)
		return;
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		if ((size_t)(c->end - c->p) < sz) {
			c->bad = 1;
			return;
		}
		c->p += sz;
		uint32_t nids = cur_u32(c);
		char *name = cur_str(c);
		if (c->bad || nids > (size_t)(c->end - c->p) / 8) {
			free(name);
			c->bad = 1;
			return;
		}
		int idx = nids ? perfdata_attr_of_id(pd, pd_u64(c->p)) : -1;
		if (idx < 0 && i < pd->nattrs)
			idx = (int)i;
		c->p += 8 * (size_t)nids;
		if (idx >= 0 && name && name[0]) {
			free(pd->attrs[idx].name);
			pd->attrs[idx].name = name;
		} else {
			free(name);
		}
	}
}

static void group_desc(struct perfdata *pd, struct cur *c)
{
	uint32_t n = cur_u32(c);
	if (c->bad || n > (size_t)(c->end - c->p) / 12) {
		c->bad = 1;
		return;
	}
	pd->feat.groups = calloc(n + 1, sizeof(char *));
	for (uint32_t i = 0; i < n && !c->bad && pd->feat.groups; i++) {
		char *name = cur_str(c);
		uint32_t leader = cur_u32(c), members = cur_u32(c);
		pd->feat.groups[pd->feat.ngroups++] = name;
		for (uint64_t k = leader; k < (uint64_t)leader + members && k < pd->nattrs; k++)
			pd->attrs[k].group_leader = (int)leader;
	}
}

static void build_ids(struct perfdata *pd, struct cur *c)
{
	while (c->end - c->p >= 8) {
		uint16_t sz = rd16(c->p + 6);
		if (sz < 8 || sz > c->end - c->p)
			break;
		pd->feat.nbuild_ids++;
		c->p += sz;
	}
}

static void replace(char **dst, char *s)
{
	free(*dst);
	*dst = s;
}

/* Parse one feature's bytes; a malformed feature is an error naming its offset. */
static int feature_parse(struct perfdata *pd, int bit, const uint8_t *p, size_t n, uint64_t off)
{
	struct cur c = { p, p + n, 0 };
	struct pd_features *f = &pd->feat;
	if (bit < 0 || bit >= PD_FEAT_MAX)
		return 0;
	f->present[bit / 64] |= 1ull << (bit % 64);
	switch (bit) {
	case PD_FEAT_HOSTNAME: replace(&f->hostname, cur_str(&c)); break;
	case PD_FEAT_OSRELEASE: replace(&f->osrelease, cur_str(&c)); break;
	case PD_FEAT_VERSION: replace(&f->version, cur_str(&c)); break;
	case PD_FEAT_ARCH: replace(&f->arch, cur_str(&c)); break;
	case PD_FEAT_CPUDESC: replace(&f->cpudesc, cur_str(&c)); break;
	case PD_FEAT_CPUID: replace(&f->cpuid, cur_str(&c)); break;
	case PD_FEAT_NRCPUS:
		f->nr_cpus_avail = cur_u32(&c);
		f->nr_cpus_online = cur_u32(&c);
		break;
	case PD_FEAT_TOTAL_MEM: f->total_mem = cur_u64(&c); break;
	case PD_FEAT_CMDLINE:
		if (!f->cmdline)
			f->cmdline = cur_strs(&c, &f->ncmdline);
		break;
	case PD_FEAT_EVENT_DESC: event_desc(pd, &c); break;
	case PD_FEAT_GROUP_DESC:
		if (!f->groups)
			group_desc(pd, &c);
		break;
	case PD_FEAT_BUILD_ID: build_ids(pd, &c); break;
	case PD_FEAT_CPU_TOPOLOGY:
		if (!f->sibling_cores) {
			f->sibling_cores = cur_strs(&c, &f->nsibling_cores);
			if (!c.bad)
				f->sibling_threads = cur_strs(&c, &f->nsibling_threads);
		}
		break;
	default: break;
	}
	if (c.bad)
		return fail(pd, "corrupt header feature %d at offset %llu", bit,
			    (unsigned long long)off);
	return 0;
}

/* ---- open ---------------------------------------------------------------------------- */

static int read_attrs(struct perfdata *pd, uint64_t attr_size, uint64_t off, uint64_t size)
{
	if (attr_size < ATTR_SIZE_VER0 + 16 || attr_size > 4096)
		return fail(pd, "bad attr size %llu in header", (unsigned long long)attr_size);
	if (off > pd->len || size > pd->len - off)
		return fail(pd, "attr section at offset %llu runs past the end of the file",
			    (unsigned long long)off);
	for (uint64_t i = 0; i + attr_size <= size; i += attr_size) {
		const uint8_t *p = pd->buf + off + i;
		struct pd_attr *a = attr_push(pd);
		if (!a)
			return fail(pd, "too many attrs");
		attr_decode(a, p, attr_size - 16);
		a->group_leader = (int)pd->nattrs - 1;
		uint64_t io = pd_u64(p + attr_size - 16), is = pd_u64(p + attr_size - 8);
		if (io > pd->len || is > pd->len - io || is % 8)
			return fail(pd, "ids of attr %zu at offset %llu are out of the file",
				    pd->nattrs - 1, (unsigned long long)(off + i));
		if (attr_set_ids(pd, (int)pd->nattrs - 1, pd->buf + io, is / 8))
			return fail(pd, "out of memory");
	}
	if (!pd->nattrs)
		return fail(pd, "no event attributes in the header");
	return 0;
}

static int read_features(struct perfdata *pd, const uint8_t *bits, uint64_t off)
{
	uint64_t at = off;
	for (int bit = 0; bit < PD_FEAT_MAX; bit++) {
		if (!(bits[bit / 8] & (1u << (bit % 8))))
			continue;
		if (at > pd->len || pd->len - at < 16)
			return fail(pd, "feature table at offset %llu runs past the end of the file",
				    (unsigned long long)at);
		uint64_t fo = pd_u64(pd->buf + at), fs = pd_u64(pd->buf + at + 8);
		if (fo > pd->len || fs > pd->len - fo)
			return fail(pd, "header feature %d at offset %llu runs past the end of the "
				    "file", bit, (unsigned long long)fo);
		int r = feature_parse(pd, bit, pd->buf + fo, fs, fo);
		if (r)
			return r;
		at += 16;
	}
	return 0;
}

static int open_file_mode(struct perfdata *pd)
{
	const uint8_t *h = pd->buf;
	if (pd->len < FILE_HEADER_SIZE)
		return fail(pd, "truncated header: %zu bytes", pd->len);
	uint64_t hsize = pd_u64(h + 8);
	if (hsize < FILE_HEADER_SIZE)
		return fail(pd, "bad header size %llu at offset 8", (unsigned long long)hsize);
	int r = read_attrs(pd, pd_u64(h + 16), pd_u64(h + 24), pd_u64(h + 32));
	if (r)
		return r;
	uint64_t doff = pd_u64(h + 40), dsize = pd_u64(h + 48);
	if (doff > pd->len)
		return fail(pd, "data section at offset %llu is past the end of the file (%zu bytes)",
			    (unsigned long long)doff, pd->len);
	if (dsize > pd->len - doff)
		return fail(pd, "truncated file: data section ends at offset %llu, the file at %zu",
			    (unsigned long long)(doff + dsize), pd->len);
	pd->pos = doff;
	pd->end = doff + dsize;
	return read_features(pd, h + 72, doff + dsize);
}

static int open_common(struct perfdata *pd)
{
	if (pd->len < 16)
		return fail(pd, "not a perf.data file: %zu bytes", pd->len);
	uint64_t magic = pd_u64(pd->buf);
	if (magic == PD_MAGIC_SWAPPED)
		return fail(pd, "big-endian perf.data files are not supported");
	/* a sonde profile database given for a perf.data (the usability review of
	 * 2026-11-29, L8): what shows it */
	if (magic != PD_MAGIC && pd->len >= 16 && !memcmp(pd->buf, "SQLite format 3", 16))
		return fail(pd, "not a perf.data file but an SQLite database (a sonde "
			    "recording's profile.db? 'sonde report DIR' shows it)");
	if (magic != PD_MAGIC)
		return fail(pd, "not a perf.data file (bad magic at offset 0)");
	if (pd_u64(pd->buf + 8) == PIPE_HEADER_SIZE) {
		pd->pipe = 1;
		pd->pos = PIPE_HEADER_SIZE;
		pd->end = pd->len;
		return 0;
	}
	return open_file_mode(pd);
}

static struct perfdata *pd_alloc(void)
{
	struct perfdata *pd = calloc(1, sizeof(*pd));
	return pd;
}

static struct perfdata *finish_open(struct perfdata *pd, int *err, char *errbuf, size_t errlen)
{
	int r = open_common(pd);
	if (r) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "%s", pd->err);
		*err = r;
		perfdata_free(pd);
		return NULL;
	}
	pd->done = 0;
	return pd;
}

struct perfdata *perfdata_open_mem(const void *buf, size_t len, int *err, char *errbuf,
				   size_t errlen)
{
	struct perfdata *pd = pd_alloc();
	if (!pd) {
		*err = -ENOMEM;
		return NULL;
	}
	pd->buf = buf;
	pd->len = len;
	return finish_open(pd, err, errbuf, errlen);
}

static int slurp(int fd, struct perfdata *pd)
{
	size_t cap = 1 << 20, n = 0;
	uint8_t *b = malloc(cap);
	if (!b)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			uint8_t *nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = -errno;
			free(b);
			return e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	pd->owned = b;
	pd->buf = b;
	pd->len = n;
	return 0;
}

struct perfdata *perfdata_open(const char *path, int *err, char *errbuf, size_t errlen)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	struct stat st;
	if (fd < 0) {
		*err = -errno;
		snprintf(errbuf, errlen, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	struct perfdata *pd = pd_alloc();
	int r = pd ? 0 : -ENOMEM;
	if (!r && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED) {
			r = -errno;
		} else {
			pd->map = m;
			pd->buf = m;
			pd->len = (size_t)st.st_size;
			/* read once, front to back: more read-ahead, and pages go first */
			madvise(m, pd->len, MADV_SEQUENTIAL);
		}
	} else if (!r) {
		r = slurp(fd, pd);
	}
	if (fd)
		close(fd);
	if (r) {
		*err = r;
		/* a sonde recording is a directory: 'sonde report' shows it */
		snprintf(errbuf, errlen, "cannot read '%s': %s%s", path, strerror(-r),
			 r == -EISDIR ? " (a perf.data file is wanted; a directory that sonde "
					"recorded is shown by 'sonde report DIR')" : "");
		perfdata_free(pd);
		return NULL;
	}
	return finish_open(pd, err, errbuf, errlen);
}

/* ---- samples ------------------------------------------------------------------------- */

struct pd_read_value pd_read_at(const uint8_t *values, size_t stride, uint64_t fmt, size_t i)
{
	struct pd_read_value v = { 0, 0, 0 };
	const uint8_t *p = values + stride * i;
	v.value = pd_u64(p);
	p += 8;
	if (fmt & PD_FMT_ID) {
		v.id = pd_u64(p);
		p += 8;
	}
	if (fmt & PD_FMT_LOST)
		v.lost = pd_u64(p);
	return v;
}

static const uint8_t *cur_skip(struct cur *c, uint64_t n)
{
	if (n > (size_t)(c->end - c->p)) {
		c->bad = 1;
		return NULL;
	}
	const uint8_t *p = c->p;
	c->p += n;
	return p;
}

/* The layout of attr a's samples, for the shared parser (rt/perf-sample.h). */
static struct perf_sample_layout layout_of(const struct pd_attr *a)
{
	struct perf_sample_layout l = {
		.sample_type = a->sample_type,
		.read_format = a->read_format,
		.branch_sample_type = a->branch_sample_type,
		.regs_user = a->regs_user,
		.regs_intr = a->regs_intr,
	};
	return l;
}

static struct perf_bytes bytes_of(const uint8_t *body, size_t n)
{
	struct perf_bytes b = { { body, NULL }, { n, 0 } };
	return b;
}

/* A parsed READ part, as pd_sample and pd_record keep it (single: their own copy). */
static void keep_read(const struct perf_read *pr, const uint8_t *body, uint64_t *en,
		      uint64_t *run, size_t *n, const uint8_t **vals, size_t *stride,
		      uint8_t *single)
{
	*en = pr->time_enabled;
	*run = pr->time_running;
	*n = (size_t)pr->nr;
	*stride = pr->stride;
	if (pr->values_off) {
		*vals = body + pr->values_off;
	} else if (pr->nr) {
		memcpy(single, pr->single, sizeof(pr->single));
		*vals = single;
	}
}

/* The fields of a sample the parser found, as pointers into its body. */
static void keep_sample(const struct perf_sample *p, const uint8_t *body, uint64_t t,
			struct pd_sample *s)
{
	s->id = p->id;
	s->ip = p->ip;
	s->pid = p->pid;
	s->tid = p->tid;
	s->time = p->time;
	s->addr = p->addr;
	s->stream_id = p->stream_id;
	s->cpu = p->cpu;
	if (t & PERF_SAMPLE_PERIOD)
		s->period = p->period;
	if (t & PERF_SAMPLE_READ)
		keep_read(&p->read, body, &s->time_enabled, &s->time_running, &s->nread,
			  &s->read_values, &s->read_stride, s->read_single);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		s->nchain = (size_t)p->nchain;
		s->chain = (const uint64_t *)(body + p->chain_off);
	}
	if (t & PERF_SAMPLE_RAW) {
		s->raw_size = p->raw_size;
		s->raw = body + p->raw_off;
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		s->nbranch = (size_t)p->nbranch;
		s->branch_hw_idx = p->branch_hw_idx;
		s->branches = body + p->branch_off;
	}
	s->regs_user_abi = p->regs_user_abi;
	if (p->regs_user_abi)
		s->regs_user = body + p->regs_user_off;
	s->regs_intr_abi = p->regs_intr_abi;
	if (p->regs_intr_abi)
		s->regs_intr = body + p->regs_intr_off;
	if (t & PERF_SAMPLE_STACK_USER) {
		s->stack_size = p->stack_size;
		s->stack = body + p->stack_off;
		s->stack_dyn_size = p->stack_dyn_size;
	}
	s->weight = p->weight;
	s->data_src = p->data_src;
	s->transaction = p->transaction;
	s->phys_addr = p->phys_addr;
	s->cgroup = p->cgroup;
	s->data_page_size = p->data_page_size;
	s->code_page_size = p->code_page_size;
}

/* Which attr a record belongs to, from the id at the place the first attr's layout puts it. */
static int record_attr(struct perfdata *pd, const uint8_t *body, size_t n, int is_sample)
{
	if (pd->nattrs == 1)
		return 0;
	if (!pd->nattrs)
		return -1;
	if (!is_sample && !pd->attrs[0].sample_id_all)
		return 0;
	long at = perf_sample_id_pos(pd->attrs[0].sample_type, is_sample);
	if (at < 0)
		return 0;
	if (is_sample ? (size_t)at + 8 > n : (size_t)at > n)
		return -1;
	return perfdata_attr_of_id(pd, pd_u64(body + (is_sample ? (size_t)at : n - (size_t)at)));
}

static void parse_trailer(const struct pd_attr *a, const uint8_t *body, size_t n,
			  struct pd_record *r)
{
	uint64_t t = a->sample_type;
	struct perf_bytes b = bytes_of(body, n);
	struct perf_sample p;
	if (!a->sample_id_all || perf_sample_id_parse(t, &b, &p))
		return;
	struct pd_sample *s = &r->s;
	s->pid = p.pid;
	s->tid = p.tid;
	s->time = p.time;
	s->id = p.id;
	s->stream_id = p.stream_id;
	s->cpu = p.cpu;
	s->present = t & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);
	r->has_sample = 1;
}

/* ---- side-band records --------------------------------------------------------------- */

/* A NUL-terminated string inside [p, end), or NULL. */
static const char *bounded_str(const uint8_t *p, const uint8_t *end)
{
	if (p >= end || !memchr(p, 0, (size_t)(end - p)))
		return NULL;
	return (const char *)p;
}

static int decode_kernel(struct perfdata *pd, struct pd_record *r, const uint8_t *b, size_t n)
{
	struct cur c = { b, b + n, 0 };
	switch (r->type) {
	case PD_MMAP:
	case PD_MMAP2:
		r->pid = cur_u32(&c);
		r->tid = cur_u32(&c);
		r->start = cur_u64(&c);
		r->len = cur_u64(&c);
		r->pgoff = cur_u64(&c);
		if (r->type == PD_MMAP2) {
			cur_skip(&c, 24);
			r->prot = cur_u32(&c);
			cur_u32(&c);
		}
		if (!c.bad)
			r->filename = bounded_str(c.p, c.end);
		if (c.bad || !r->filename)
			return fail(pd, "corrupt %s record at offset %llu", type_names[r->type],
				    (unsigned long long)r->offset);
		return 0;
	case PD_COMM:
		r->pid = cur_u32(&c);
		r->tid = cur_u32(&c);
		r->filename = c.bad ? NULL : bounded_str(c.p, c.end);
		if (!r->filename)
			return fail(pd, "corrupt COMM record at offset %llu",
				    (unsigned long long)r->offset);
		return 0;
	case PD_FORK:
	case PD_EXIT:
		r->pid = cur_u32(&c);
		r->ppid = cur_u32(&c);
		r->tid = cur_u32(&c);
		r->ptid = cur_u32(&c);
		break;
	case PD_LOST:
		cur_u64(&c);
		r->lost = cur_u64(&c);
		if (!pd->replay)
			pd->stats.lost_events += r->lost;
		break;
	case PD_LOST_SAMPLES:
		r->lost = cur_u64(&c);
		break;
	case PD_READ: {
		r->pid = cur_u32(&c);
		r->tid = cur_u32(&c);
		int ai = r->has_sample && r->s.attr >= 0 ? r->s.attr : 0;
		r->read_attr = ai;
		struct perf_bytes rb = bytes_of(b, n);
		struct perf_read pr;
		size_t at = c.bad ? n : (size_t)(c.p - b);
		if (c.bad || perf_read_parse(pd->attrs[ai].read_format, &rb, &at, &pr))
			c.bad = 1;
		else
			keep_read(&pr, b, &r->time_enabled, &r->time_running, &r->nread,
				  &r->read_values, &r->read_stride, r->read_single);
		if (!c.bad && (pd->attrs[ai].read_format & PD_FMT_ID) && r->nread) {
			struct pd_read_value v = pd_read_at(r->read_values, r->read_stride,
							    pd->attrs[ai].read_format, 0);
			int k = perfdata_attr_of_id(pd, v.id);
			if (k >= 0)
				r->read_attr = k;
		}
		break;
	}
	default:
		break;
	}
	if (c.bad)
		return fail(pd, "corrupt %s record at offset %llu", type_names[r->type],
			    (unsigned long long)r->offset);
	return 0;
}

static int decode_sample(struct perfdata *pd, struct pd_record *r, const uint8_t *b, size_t n)
{
	int ai = record_attr(pd, b, n, 1);
	struct pd_sample *s = &r->s;
	s->attr = ai;
	r->has_sample = 1;
	if (ai < 0) {
		if (!pd->replay)
			pd->stats.unknown_id_samples++;
		return 0;
	}
	const struct pd_attr *a = &pd->attrs[ai];
	const struct perf_sample_layout l = layout_of(a);
	const struct perf_bytes pb = bytes_of(b, n);
	struct perf_sample p;
	s->period = a->freq ? 0 : a->period;
	int e = perf_sample_parse(&l, &pb, &p);
	if (!e)
		keep_sample(&p, b, a->sample_type, s);
	if (e)
		return fail(pd, "corrupt SAMPLE record at offset %llu (its fields run past its size "
			    "%u)", (unsigned long long)r->offset, r->size);
	s->present = a->sample_type;
	if (!pd->replay)
		pd->attrs[ai].nsamples++;
	return 0;
}

/* ---- user (perf) records ------------------------------------------------------------- */

static int user_attr(struct perfdata *pd, struct pd_record *r, const uint8_t *b, size_t n)
{
	if (n < ATTR_SIZE_VER0)
		return fail(pd, "corrupt ATTR record at offset %llu", (unsigned long long)r->offset);
	uint32_t sz = rd32(b + 4);
	if (!sz)
		sz = ATTR_SIZE_VER0;
	if (sz < ATTR_SIZE_VER0 || sz > n)
		return fail(pd, "corrupt ATTR record at offset %llu (attr size %u)",
			    (unsigned long long)r->offset, sz);
	struct pd_attr *a = attr_push(pd);
	if (!a)
		return fail(pd, "too many attrs at offset %llu", (unsigned long long)r->offset);
	attr_decode(a, b, sz);
	a->group_leader = (int)pd->nattrs - 1;
	if (attr_set_ids(pd, (int)pd->nattrs - 1, b + sz, (n - sz) / 8))
		return fail(pd, "out of memory");
	return 0;
}

static void event_update(struct perfdata *pd, const uint8_t *b, size_t n)
{
	if (n < 17 || pd_u64(b) != 2)	/* PERF_EVENT_UPDATE__NAME */
		return;
	int ai = perfdata_attr_of_id(pd, pd_u64(b + 8));
	const char *name = bounded_str(b + 16, b + n);
	if (ai >= 0 && name && name[0])
		replace(&pd->attrs[ai].name, strdup(name));
}

static void id_index(struct perfdata *pd, const uint8_t *b, size_t n)
{
	if (n < 8)
		return;
	uint64_t nr = pd_u64(b);
	for (uint64_t i = 0; i < nr && 8 + 32 * (i + 1) <= n; i++) {
		uint64_t id = pd_u64(b + 8 + 32 * i), idx = pd_u64(b + 16 + 32 * i);
		if (idx < pd->nattrs && perfdata_attr_of_id(pd, id) < 0)
			id_add(pd, id, (int)idx);
	}
}

static int decompress(struct perfdata *pd, struct pd_record *r, const uint8_t *b, size_t n);

static int decode_user(struct perfdata *pd, struct pd_record *r, const uint8_t *b, size_t n)
{
	switch (r->type) {
	case PD_HEADER_ATTR:
		return user_attr(pd, r, b, n);
	case PD_HEADER_FEATURE:
		if (n < 8)
			return fail(pd, "corrupt FEATURE record at offset %llu",
				    (unsigned long long)r->offset);
		return feature_parse(pd, pd_u64(b) < PD_FEAT_MAX ? (int)pd_u64(b) : -1, b + 8,
				     n - 8, r->offset + 16);
	case PD_EVENT_UPDATE:
		event_update(pd, b, n);
		return 0;
	case PD_ID_INDEX:
		id_index(pd, b, n);
		return 0;
	case PD_COMPRESSED:
		return decompress(pd, r, b, n);
	case PD_COMPRESSED2:
		if (n < 8 || pd_u64(b) > n - 8)
			return fail(pd, "corrupt COMPRESSED2 record at offset %llu",
				    (unsigned long long)r->offset);
		return decompress(pd, r, b + 8, pd_u64(b));
	default:
		return 0;
	}
}

static int decompress(struct perfdata *pd, struct pd_record *r, const uint8_t *b, size_t n)
{
	if (!pd->zs) {
		pd->zs = ZSTD_createDStream();
		if (!pd->zs || ZSTD_isError(ZSTD_initDStream(pd->zs)))
			return fail(pd, "cannot start zstd");
	}
	/* keep an unfinished inner record from the previous chunk in front */
	if (pd->dpos) {
		memmove(pd->dbuf, pd->dbuf + pd->dpos, pd->dlen - pd->dpos);
		pd->dlen -= pd->dpos;
		pd->dpos = 0;
	}
	ZSTD_inBuffer in = { b, n, 0 };
	while (in.pos < in.size) {
		if (pd->dcap - pd->dlen < (1 << 16)) {
			size_t ncap = pd->dcap ? pd->dcap * 2 : (1 << 20);
			if (ncap > ((size_t)1 << 30))
				return fail(pd, "COMPRESSED record at offset %llu expands too much",
					    (unsigned long long)r->offset);
			uint8_t *nb = realloc(pd->dbuf, ncap);
			if (!nb)
				return fail(pd, "out of memory");
			pd->dbuf = nb;
			pd->dcap = ncap;
		}
		ZSTD_outBuffer out = { pd->dbuf + pd->dlen, pd->dcap - pd->dlen, 0 };
		size_t z = ZSTD_decompressStream(pd->zs, &out, &in);
		if (ZSTD_isError(z))
			return fail(pd, "corrupt COMPRESSED record at offset %llu: %s",
				    (unsigned long long)r->offset, ZSTD_getErrorName(z));
		pd->dlen += out.pos;
		if (!out.pos && in.pos < in.size && z == 0)
			break;
	}
	pd->doffset = r->offset;
	return 0;
}

/* ---- the walk ------------------------------------------------------------------------ */

static int decode_body(struct perfdata *pd, struct pd_record *r);

static int decode(struct perfdata *pd, struct pd_record *r)
{
	if (r->type < PD_NTYPES && type_names[r->type])
		pd->stats.records[r->type]++;
	else
		pd->stats.unknown++;
	pd->stats.total++;
	return decode_body(pd, r);
}

int perfdata_decode(struct perfdata *pd, const uint8_t *rec, size_t len, uint64_t offset,
		    struct pd_record *r)
{
	if (len < 8 || rd16(rec + 6) != len || rd32(rec) >= PD_HEADER_ATTR)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->type = rd32(rec);
	r->misc = rd16(rec + 4);
	r->size = (uint16_t)len;
	r->offset = offset;
	r->data = rec;
	r->s.attr = -1;
	pd->replay = 1;
	int e = decode_body(pd, r);
	pd->replay = 0;
	return e;
}

static int decode_body(struct perfdata *pd, struct pd_record *r)
{
	const uint8_t *b = r->data + 8;
	size_t n = r->size - 8;
	if (r->type == PD_SAMPLE) {
		if (!pd->nattrs)
			return fail(pd, "SAMPLE record at offset %llu before any attr",
				    (unsigned long long)r->offset);
		return decode_sample(pd, r, b, n);
	}
	if (r->type < PD_HEADER_ATTR && pd->nattrs) {
		int ai = record_attr(pd, b, n, 0);
		r->s.attr = ai;
		if (ai >= 0)
			parse_trailer(&pd->attrs[ai], b, n, r);
		if (r->type == PD_LOST_SAMPLES && ai >= 0 && !pd->replay)
			pd->attrs[ai].nlost_samples++;
		return decode_kernel(pd, r, b, n);
	}
	if (r->type >= PD_HEADER_ATTR)
		return decode_user(pd, r, b, n);
	return 0;
}

/* Take the next record from [*pos, end) of base; 1, 0 at the end, or -EINVAL. */
static int take(struct perfdata *pd, struct pd_record *r, const uint8_t *base, uint64_t *pos,
		uint64_t end, uint64_t offset_base, int inner)
{
	if (*pos >= end)
		return 0;
	uint64_t off = inner ? pd->doffset : offset_base + *pos;
	if (end - *pos < 8) {
		if (inner)
			return 0;	/* the rest comes with the next COMPRESSED record */
		return fail(pd, "truncated record header at offset %llu",
			    (unsigned long long)off);
	}
	const uint8_t *h = base + *pos;
	uint16_t size = rd16(h + 6);
	if (size < 8)
		return fail(pd, "bad record size %u at offset %llu (type %u)", size,
			    (unsigned long long)off, rd32(h));
	if (size > end - *pos) {
		if (inner)
			return 0;
		return fail(pd, "truncated record at offset %llu: size %u, %llu bytes left",
			    (unsigned long long)off, size, (unsigned long long)(end - *pos));
	}
	memset(r, 0, sizeof(*r));
	r->type = rd32(h);
	r->misc = rd16(h + 4);
	r->size = size;
	r->offset = off;
	r->data = h;
	r->stable = !inner;
	r->s.attr = -1;
	*pos += size;
	return 1;
}

void perfdata_release(struct perfdata *pd, uint64_t offset)
{
	const uint64_t chunk = 4 << 20;		/* not a system call per record */
	if (!pd->map || offset > pd->len)
		return;
	offset &= ~(chunk - 1);
	if (offset <= pd->released)
		return;
	madvise((uint8_t *)pd->map + pd->released, offset - pd->released, MADV_DONTNEED);
	pd->released = offset;
}

int perfdata_next(struct perfdata *pd, struct pd_record *r)
{
	for (;;) {
		if (pd->done)
			return pd->err[0] ? -EINVAL : 0;
		int k;
		uint64_t dp = pd->dpos;
		k = take(pd, r, pd->dbuf, &dp, pd->dlen, 0, 1);
		if (k < 0)
			return k;
		if (k > 0) {
			pd->dpos = (size_t)dp;
		} else {
			k = take(pd, r, pd->buf, &pd->pos, pd->end, 0, 0);
			if (k < 0)
				return k;
			if (k == 0) {
				pd->done = 1;
				if (pd->dpos < pd->dlen)
					return fail(pd, "truncated compressed data after offset "
						    "%llu", (unsigned long long)pd->doffset);
				return 0;
			}
		}
		int e = decode(pd, r);
		if (e)
			return e;
		if (r->type < PD_NTYPES && type_names[r->type])
			return 1;
	}
}

int perfdata_scan(struct perfdata *pd)
{
	struct pd_record r;
	int k;
	while ((k = perfdata_next(pd, &r)) > 0)
		if (r.stable)
			perfdata_release(pd, r.offset);
	return k;
}

const char *perfdata_error(const struct perfdata *pd)
{
	return pd->err;
}

int perfdata_is_pipe(const struct perfdata *pd)
{
	return pd->pipe;
}

size_t perfdata_nattrs(const struct perfdata *pd)
{
	return pd->nattrs;
}

static void name_attrs(struct perfdata *pd)
{
	for (size_t i = 0; i < pd->nattrs; i++)
		if (!pd->attrs[i].name)
			pd->attrs[i].name = default_name(&pd->attrs[i]);
}

struct pd_attr *perfdata_attr(struct perfdata *pd, size_t i)
{
	if (i >= pd->nattrs)
		return NULL;
	if (!pd->attrs[i].name)
		name_attrs(pd);
	return &pd->attrs[i];
}

const struct pd_features *perfdata_features(const struct perfdata *pd)
{
	return &pd->feat;
}

const struct pd_stats *perfdata_stats(const struct perfdata *pd)
{
	return &pd->stats;
}

uint64_t perfdata_size(const struct perfdata *pd)
{
	return pd->len;
}

static void free_strs(char **v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void perfdata_free(struct perfdata *pd)
{
	if (!pd)
		return;
	for (size_t i = 0; i < pd->nattrs; i++) {
		free(pd->attrs[i].name);
		free(pd->attrs[i].ids);
	}
	free(pd->attrs);
	struct pd_features *f = &pd->feat;
	free(f->hostname);
	free(f->osrelease);
	free(f->version);
	free(f->arch);
	free(f->cpudesc);
	free(f->cpuid);
	free_strs(f->cmdline, f->ncmdline);
	free_strs(f->groups, f->ngroups);
	free_strs(f->sibling_cores, f->nsibling_cores);
	free_strs(f->sibling_threads, f->nsibling_threads);
	free(pd->idkeys);
	free(pd->idvals);
	if (pd->zs)
		ZSTD_freeDStream(pd->zs);
	free(pd->dbuf);
	if (pd->map)
		munmap(pd->map, pd->len);
	free(pd->owned);
	free(pd);
}
