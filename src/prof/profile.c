/* SPDX-License-Identifier: MIT */
/*
 * profile.c - reader of a raw recording directory.  See profile.h.
 *
 * A stream is read in two passes over a private read-only mapping: the first validates
 * every record header and counts records per type, the second copies them into arrays of
 * exactly that size.  So no allocation is ever larger than the file, whatever its
 * contents say.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prof/errmsg.h"
#include "prof/file.h"
#include "prof/profile.h"

/* A .proc file is a few hundred bytes; more than this is not one. */
#define PROC_MAX_BYTES (1 << 20)

/* The version 1 header, the smallest a reader accepts. */
#define HEADER_V1_SIZE offsetof(struct sonde_file_header, tls_lo)


const char *prof_source_name(uint32_t source)
{
	switch (source) {
	case SONDE_SOURCE_NONE:
		return "none";
	case SONDE_SOURCE_CLOCK:
		return "clock";
	case SONDE_SOURCE_HW:
		return "hw";
	case SONDE_SOURCE_INST:
		return "inst";
	}
	return "unknown";
}

/* ---- byte order ---- */

static uint16_t sw16(uint16_t v, int s)
{
	return s ? __builtin_bswap16(v) : v;
}

static uint32_t sw32(uint32_t v, int s)
{
	return s ? __builtin_bswap32(v) : v;
}

static uint64_t sw64(uint64_t v, int s)
{
	return s ? __builtin_bswap64(v) : v;
}

static void swap_header(struct sonde_file_header *h)
{
	h->version = sw32(h->version, 1);
	h->header_size = sw32(h->header_size, 1);
	h->endian = sw32(h->endian, 1);
	h->source = sw32(h->source, 1);
	h->period = sw64(h->period, 1);
	h->pid = (int32_t)sw32((uint32_t)h->pid, 1);
	h->tid = (int32_t)sw32((uint32_t)h->tid, 1);
	h->rank = (int32_t)sw32((uint32_t)h->rank, 1);
	h->thread_index = sw32(h->thread_index, 1);
	h->start_ns = sw64(h->start_ns, 1);
	h->stack_lo = sw64(h->stack_lo, 1);
	h->stack_hi = sw64(h->stack_hi, 1);
	h->tls_lo = sw64(h->tls_lo, 1);
	h->tls_hi = sw64(h->tls_hi, 1);
}

/* Swap every field after the record header; all record fields of format.h are 2, 4 or 8
 * bytes wide, so a per-type table of widths is enough. */
static void swap_fields(void *rec, const char *widths)
{
	char *p = (char *)rec + sizeof(struct sonde_rec_hdr);
	for (; *widths; widths++) {
		if (*widths == '2') {
			uint16_t v;
			memcpy(&v, p, 2);
			v = __builtin_bswap16(v);
			memcpy(p, &v, 2);
			p += 2;
		} else if (*widths == '4') {
			uint32_t v;
			memcpy(&v, p, 4);
			v = __builtin_bswap32(v);
			memcpy(p, &v, 4);
			p += 4;
		} else {
			uint64_t v;
			memcpy(&v, p, 8);
			v = __builtin_bswap64(v);
			memcpy(p, &v, 8);
			p += 8;
		}
	}
}

/* ---- record types ---- */

struct rec_kind {
	size_t size;		/* the smallest valid record of the type */
	const char *widths;	/* field widths after the header, for swapping */
	const char *name;
};

static const struct rec_kind kinds[] = {
	[SONDE_REC_CTX] = { sizeof(struct sonde_rec_ctx), "448", "CTX" },
	[SONDE_REC_MEM] = { sizeof(struct sonde_rec_mem), "42288888", "MEM" },
	[SONDE_REC_ALLOC] = { sizeof(struct sonde_rec_alloc), "44888", "ALLOC" },
	[SONDE_REC_FREE] = { sizeof(struct sonde_rec_free), "88", "FREE" },
	[SONDE_REC_STATS] = { sizeof(struct sonde_rec_stats), "88888888", "STATS" },
	[SONDE_REC_END] = { sizeof(struct sonde_rec_end), "448", "END" },
	[SONDE_REC_TRAP] = { sizeof(struct sonde_rec_trap), "422888", "TRAP" },
	[SONDE_REC_OMP] = { sizeof(struct sonde_rec_omp), "448", "OMP" },
};

#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

static const struct rec_kind *kind_of(uint16_t type)
{
	return type < NKINDS && kinds[type].name ? &kinds[type] : NULL;
}

/* ---- one stream ---- */

struct stream {
	const char *path;
	const unsigned char *data;
	size_t size;
	size_t body;		/* offset of the first record */
	int swapped;
};

static int read_header(struct stream *s, struct prof_thread *t, char *err, size_t errlen)
{
	struct sonde_file_header h;
	if (s->size < HEADER_V1_SIZE)
		return errmsg(err, errlen, -EINVAL,
			    "%s: offset 0: file of %zu bytes is too short for a header", s->path,
			    s->size);
	memset(&h, 0, sizeof(h));
	memcpy(&h, s->data, HEADER_V1_SIZE);
	if (memcmp(h.magic, SONDE_MAGIC, SONDE_MAGIC_LEN))
		return errmsg(err, errlen, -EINVAL, "%s: offset 0: not a sonde stream (bad magic)",
			    s->path);
	if (h.endian == __builtin_bswap32(SONDE_ENDIAN_TAG)) {
		swap_header(&h);
		s->swapped = 1;
	} else if (h.endian != SONDE_ENDIAN_TAG) {
		return errmsg(err, errlen, -EINVAL, "%s: offset %zu: bad byte-order tag 0x%08x",
			    s->path, offsetof(struct sonde_file_header, endian), h.endian);
	}
	if (h.version < 1 || h.version > SONDE_FORMAT_VERSION)
		return errmsg(err, errlen, -EINVAL,
			    "%s: offset %zu: format version %u not supported (reader: 1 to %d)",
			    s->path, offsetof(struct sonde_file_header, version), h.version,
			    SONDE_FORMAT_VERSION);
	if (h.header_size < HEADER_V1_SIZE || h.header_size % 8 || h.header_size > s->size)
		return errmsg(err, errlen, -EINVAL, "%s: offset %zu: bad header size %u", s->path,
			    offsetof(struct sonde_file_header, header_size), h.header_size);
	/* The fields a shorter header lacks stay 0; a newer writer's larger header: its extra
	 * bytes are skipped. */
	if (h.header_size > HEADER_V1_SIZE) {
		struct sonde_file_header x = { 0 };
		size_t n = h.header_size < sizeof(x) ? h.header_size : sizeof(x);
		memcpy(&x, s->data, n);
		if (s->swapped)
			swap_header(&x);
		h.tls_lo = x.tls_lo;
		h.tls_hi = x.tls_hi;
	}
	s->body = h.header_size;
	t->hdr = h;
	t->swapped = s->swapped;
	return 0;
}

/* Header of the record at off in host order; 0, 1 if the stream is cut there, or -EINVAL. */
static int record_at(struct stream *s, size_t off, struct sonde_rec_hdr *h, char *err,
		     size_t errlen)
{
	if (s->size - off < sizeof(*h))
		return 1;
	memcpy(h, s->data + off, sizeof(*h));
	h->type = sw16(h->type, s->swapped);
	h->size = sw16(h->size, s->swapped);
	if (h->size < sizeof(*h) || h->size % 8)
		return errmsg(err, errlen, -EINVAL, "%s: offset %zu: bad record size %u (type %u)",
			    s->path, off, h->size, h->type);
	const struct rec_kind *k = kind_of(h->type);
	if (k && h->size < k->size)
		return errmsg(err, errlen, -EINVAL,
			    "%s: offset %zu: %s record of %u bytes, expected at least %zu",
			    s->path, off, k->name, h->size, k->size);
	if (h->size > s->size - off)
		return 1;
	return 0;
}

/* Copy the known part of a record into dst (host order). */
static void take(struct stream *s, size_t off, void *dst, uint16_t type)
{
	const struct rec_kind *k = kind_of(type);
	memcpy(dst, s->data + off, k->size);
	((struct sonde_rec_hdr *)dst)->type = type;
	((struct sonde_rec_hdr *)dst)->size = (uint16_t)k->size;
	if (s->swapped)
		swap_fields(dst, k->widths);
}

struct counts {
	size_t n[NKINDS];
	size_t tool_bytes;	/* records of the recording's tool (type >= SONDE_REC_TOOL) */
	size_t end;		/* offset where the complete records end */
	int cut;		/* the last record is incomplete */
};

static int scan(struct stream *s, struct counts *c, struct prof_thread *t, char *err,
		size_t errlen)
{
	size_t off = s->body;
	struct sonde_rec_hdr h;

	memset(c, 0, sizeof(*c));
	while (off < s->size) {
		int r = record_at(s, off, &h, err, errlen);
		if (r < 0)
			return r;
		if (r > 0) {
			c->cut = 1;
			break;
		}
		if (kind_of(h.type))
			c->n[h.type]++;
		else if (h.type >= SONDE_REC_TOOL)
			c->tool_bytes += h.size;
		else
			t->unknown++;
		off += h.size;
	}
	c->end = off;
	return 0;
}

static int alloc_arrays(struct prof_thread *t, const struct counts *c)
{
	t->ctx = calloc(c->n[SONDE_REC_CTX] + 1, sizeof(*t->ctx));
	t->mem = calloc(c->n[SONDE_REC_MEM] + 1, sizeof(*t->mem));
	t->alloc = calloc(c->n[SONDE_REC_ALLOC] + 1, sizeof(*t->alloc));
	t->free = calloc(c->n[SONDE_REC_FREE] + 1, sizeof(*t->free));
	t->trap = calloc(c->n[SONDE_REC_TRAP] + 1, sizeof(*t->trap));
	t->tool_recs = malloc(c->tool_bytes + 8);
	if (!t->ctx || !t->mem || !t->alloc || !t->free || !t->trap || !t->tool_recs)
		return -ENOMEM;
	return 0;
}

static void take_ctx(struct stream *s, size_t off, struct prof_thread *t)
{
	struct sonde_rec_ctx r;
	take(s, off, &r, SONDE_REC_CTX);
	if (r.id == 0) {
		t->bad_ctx++;
		return;
	}
	t->ctx[t->nctx++] = (struct prof_ctx){ .id = r.id, .parent = r.parent, .ip = r.ip };
}

static void take_end(struct stream *s, size_t off, struct prof_thread *t)
{
	struct sonde_rec_end r;
	take(s, off, &r, SONDE_REC_END);
	t->has_end = 1;
	t->end_signo = r.signo;
	t->end_time = r.time;
}

/* A record of the tool's own: kept whole, its header in host order, the rest as written
 * (t->swapped tells the tool to swap its fields). */
static void take_tool(struct stream *s, size_t off, const struct sonde_rec_hdr *h,
		      struct prof_thread *t)
{
	unsigned char *dst = t->tool_recs + t->tool_len;
	memcpy(dst, s->data + off, h->size);
	memcpy(dst, h, sizeof(*h));
	t->tool_len += h->size;
	t->ntool++;
}

static void load(struct stream *s, const struct counts *c, struct prof_thread *t)
{
	struct sonde_rec_hdr h;

	for (size_t off = s->body; off < c->end; off += h.size) {
		record_at(s, off, &h, NULL, 0);
		switch (h.type) {
		case SONDE_REC_CTX:
			take_ctx(s, off, t);
			break;
		case SONDE_REC_MEM:
			take(s, off, &t->mem[t->nmem++], h.type);
			break;
		case SONDE_REC_ALLOC:
			take(s, off, &t->alloc[t->nalloc++], h.type);
			break;
		case SONDE_REC_FREE:
			take(s, off, &t->free[t->nfree++], h.type);
			break;
		case SONDE_REC_TRAP:
			take(s, off, &t->trap[t->ntrap++], h.type);
			break;
		case SONDE_REC_STATS:
			take(s, off, &t->stats, h.type);
			t->has_stats = 1;
			break;
		case SONDE_REC_END:
			take_end(s, off, t);
			break;
		case SONDE_REC_OMP: {
			struct sonde_rec_omp r;
			take(s, off, &r, h.type);
			if (t->omp_thread < 0 && !(r.flags & SONDE_OMP_VARIED))
				t->omp_thread = r.thread;
			else if (r.flags & SONDE_OMP_VARIED)
				t->omp_varied = 1;
			break;
		}
		default:
			if (h.type >= SONDE_REC_TOOL)
				take_tool(s, off, &h, t);
		}
	}
}

static int ctx_cmp(const void *a, const void *b)
{
	const struct prof_ctx *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return 0;	/* duplicate ids: corrupt; which one survives does not matter */
}

/* Sort nodes by id and drop duplicates (counted in bad_ctx). */
static void index_ctx(struct prof_thread *t)
{
	size_t n = 0;

	/* Ids are written in increasing order by the runtime: sorting is usually a no-op. */
	int sorted = 1;
	for (size_t i = 1; i < t->nctx && sorted; i++)
		sorted = t->ctx[i - 1].id < t->ctx[i].id;
	if (!sorted)
		qsort(t->ctx, t->nctx, sizeof(*t->ctx), ctx_cmp);
	for (size_t i = 0; i < t->nctx; i++) {
		if (n && t->ctx[n - 1].id == t->ctx[i].id) {
			t->bad_ctx++;
			continue;
		}
		t->ctx[n++] = t->ctx[i];
	}
	t->nctx = n;
}

static int map_file(const char *path, const unsigned char **data, size_t *size, char *err,
		    size_t errlen)
{
	/* a FIFO named like a stream must not block the report for ever */
	struct stat st;
	int fd = file_open_regular(path, &st);
	if (fd < 0)
		return errmsg(err, errlen, fd, "%s: %s", path, file_strerror(fd));
	*size = (size_t)st.st_size;
	*data = NULL;
	if (*size) {
		void *p = mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			int e = errno;
			close(fd);
			return errmsg(err, errlen, -e, "%s: %s", path, strerror(e));
		}
		*data = p;
	}
	close(fd);
	return 0;
}

int prof_thread_read(const char *path, struct prof_thread *t, char *err, size_t errlen)
{
	struct stream s = { .path = path };
	struct counts c;
	int r;

	memset(t, 0, sizeof(*t));
	t->omp_thread = -1;
	t->path = strdup(path);
	if (!t->path)
		return -ENOMEM;
	r = map_file(path, &s.data, &s.size, err, errlen);
	if (r)
		return r;
	r = read_header(&s, t, err, errlen);
	if (!r)
		r = scan(&s, &c, t, err, errlen);
	if (!r)
		r = alloc_arrays(t, &c);
	if (!r) {
		load(&s, &c, t);
		index_ctx(t);
		t->truncated = c.cut || !t->has_end;
		t->cut_offset = c.end;
	}
	if (r == -ENOMEM)
		errmsg(err, errlen, r, "%s: out of memory", path);
	if (s.data)
		munmap((void *)s.data, s.size);
	return r;
}

void prof_thread_release(struct prof_thread *t)
{
	free(t->path);
	free(t->ctx);
	free(t->mem);
	free(t->alloc);
	free(t->free);
	free(t->trap);
	free(t->tool_recs);
	memset(t, 0, sizeof(*t));
}

const struct prof_ctx *prof_ctx_find(const struct prof_thread *t, uint32_t id)
{
	size_t lo = 0, hi = t->nctx;

	/* the common case: dense ids 1..n */
	if (id >= 1 && id <= t->nctx && t->ctx[id - 1].id == id)
		return &t->ctx[id - 1];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->ctx[mid].id == id)
			return &t->ctx[mid];
		if (t->ctx[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int prof_ctx_path(const struct prof_thread *t, uint32_t id, uint64_t *ips, int max)
{
	int n = 0;
	size_t steps = 0;

	/* A path never has more frames than there are nodes: a longer walk is a cycle. */
	while (id && n < max && steps++ <= t->nctx) {
		const struct prof_ctx *c = prof_ctx_find(t, id);
		if (!c)
			break;
		if (c->ip)
			ips[n++] = c->ip;
		id = c->parent;
	}
	return n;
}

/* ---- the .proc file ---- */

static int set_str(char **dst, const char *v)
{
	char *c = strdup(v);
	if (!c)
		return -ENOMEM;
	free(*dst);
	*dst = c;
	return 0;
}

static long long to_ll(const char *v, long long dflt)
{
	char *end;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	return (errno || end == v) ? dflt : x;
}

static uint64_t to_u64(const char *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 10);
	return (errno || end == v) ? 0 : x;
}

/* One key=value pair; unknown keys are ignored, a later key wins. */
static int proc_key(struct prof_process *p, const char *k, const char *v)
{
	static const struct {
		const char *key;
		size_t off;
	} strs[] = {
		{ "host", offsetof(struct prof_process, host) },
		{ "exe", offsetof(struct prof_process, exe) },
		{ "argv", offsetof(struct prof_process, argv) },
		{ "tool", offsetof(struct prof_process, tool) },
		{ "source", offsetof(struct prof_process, source) },
		{ "source_why", offsetof(struct prof_process, source_why) },
		{ "period_unit", offsetof(struct prof_process, period_unit) },
		{ "end", offsetof(struct prof_process, end) },
		{ "watch_backend", offsetof(struct prof_process, watch_backend) },
		{ "watch_why", offsetof(struct prof_process, watch_why) },
		{ "records_stopped", offsetof(struct prof_process, records_stopped) },
		{ "clock_event", offsetof(struct prof_process, clock_event) },
		{ "tls_blocks", offsetof(struct prof_process, tls_blocks) },
		{ "only_functions", offsetof(struct prof_process, only_functions) },
		{ "exec_into", offsetof(struct prof_process, exec_into) },
	};
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (!strcmp(k, strs[i].key))
			return set_str((char **)((char *)p + strs[i].off), v);
	if (!strcmp(k, "format"))
		p->format = (int)to_ll(v, -1);
	else if (!strcmp(k, "pid"))
		p->pid = (int)to_ll(v, -1);
	else if (!strcmp(k, "ppid"))
		p->ppid = (int)to_ll(v, -1);
	else if (!strcmp(k, "rank"))
		p->rank = (int)to_ll(v, -1);
	else if (!strcmp(k, "period"))
		p->period = to_u64(v);
	else if (!strcmp(k, "period_asked"))
		p->period_asked = to_u64(v);
	else if (!strcmp(k, "start_ns"))
		p->start_ns = to_u64(v);
	else if (!strcmp(k, "end_ns"))
		p->end_ns = to_u64(v);
	else if (!strcmp(k, "min_object"))
		p->min_object = to_u64(v);
	else if (!strcmp(k, "max_depth"))
		p->max_depth = (int)to_ll(v, -1);
	else if (!strcmp(k, "signo"))
		p->signo = (int)to_ll(v, 0);
	else if (!strcmp(k, "threads"))
		p->threads = (int)to_ll(v, -1);
	else if (!strcmp(k, "cpus"))
		p->cpus = (int)to_ll(v, -1);
	else if (!strcmp(k, "records_stopped_at"))
		p->records_stopped_at = to_u64(v);
	else if (!strcmp(k, "switches"))
		p->switches = to_ll(v, -1);
	else if (!strcmp(k, "fds_lost"))
		p->fds_lost = to_u64(v);
	else if (!strcmp(k, "alloc_table_full"))
		p->alloc_table_full = to_u64(v);
	else if (!strcmp(k, "clock_timer_failed"))
		p->clock_timer_failed = to_u64(v);
	else if (!strcmp(k, "watch_checked"))
		p->watch_checked = (int)to_ll(v, 0);
	else if (!strcmp(k, "exec_followed"))
		p->exec_followed = (int)to_ll(v, -1);
	return 0;
}

static int proc_defaults(struct prof_process *p)
{
	char **strs[] = { &p->host, &p->exe, &p->argv, &p->tool, &p->source, &p->source_why,
			  &p->period_unit, &p->end, &p->watch_backend, &p->records_stopped,
			  &p->clock_event, &p->tls_blocks, &p->watch_why, &p->only_functions,
			  &p->exec_into };
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (set_str(strs[i], ""))
			return -ENOMEM;
	p->format = p->pid = p->ppid = p->rank = p->max_depth = p->threads = p->cpus = -1;
	p->exec_followed = -1;
	p->switches = -1;
	return 0;
}

static int parse_proc(struct prof_process *p, char *err, size_t errlen)
{
	const unsigned char *data;
	size_t size;
	int r = map_file(p->proc_path, &data, &size, err, errlen);
	if (r)
		return r;
	if (size > PROC_MAX_BYTES) {
		munmap((void *)data, size);
		return errmsg(err, errlen, -EINVAL, "%s: offset 0: %zu bytes, too large for a .proc",
			    p->proc_path, size);
	}
	char *text = malloc(size + 1);
	if (!text) {
		if (data)
			munmap((void *)data, size);
		return -ENOMEM;
	}
	if (size)
		memcpy(text, data, size);
	text[size] = 0;
	if (data)
		munmap((void *)data, size);
	r = proc_defaults(p);
	for (char *line = text, *next; !r && line < text + size; line = next) {
		next = memchr(line, '\n', (size_t)(text + size - line));
		next = next ? next + 1 : text + size;
		next[-1] = next[-1] == '\n' ? 0 : next[-1];
		char *eq = strchr(line, '=');
		if (!eq || eq == line)
			continue;	/* not a pair: ignored like an unknown key */
		*eq = 0;
		r = proc_key(p, line, eq + 1);
	}
	free(text);
	return r;
}

/* ---- the directory ---- */

static char *path_join(const char *dir, const char *name)
{
	char *s;
	if (asprintf(&s, "%s/%s", dir, name) < 0)
		return NULL;
	return s;
}

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n > m && !strcmp(s + n - m, suf);
}

static void process_release(struct prof_process *p)
{
	free(p->prefix);
	free(p->proc_path);
	free(p->maps_path);
	free(p->maps_closed_path);
	free(p->host);
	free(p->exe);
	free(p->argv);
	free(p->tool);
	free(p->source);
	free(p->source_why);
	free(p->period_unit);
	free(p->end);
	free(p->watch_backend);
	free(p->only_functions);
	free(p->exec_into);
	free(p->watch_why);
	free(p->records_stopped);
	free(p->clock_event);
	free(p->tls_blocks);
	for (size_t i = 0; i < p->nthread; i++)
		prof_thread_release(&p->thread[i]);
	free(p->thread);
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nproc; i++)
		process_release(&p->proc[i]);
	free(p->proc);
	free(p->dir);
	free(p);
}

static struct prof_process *find_prefix(struct profile *p, const char *prefix, size_t n)
{
	for (size_t i = 0; i < p->nproc; i++)
		if (strlen(p->proc[i].prefix) == n && !strncmp(p->proc[i].prefix, prefix, n))
			return &p->proc[i];
	return NULL;
}

static int add_process(struct profile *p, const char *name)
{
	struct prof_process *np = realloc(p->proc, (p->nproc + 1) * sizeof(*np));
	if (!np)
		return -ENOMEM;
	p->proc = np;
	struct prof_process *pr = &np[p->nproc++];
	memset(pr, 0, sizeof(*pr));
	pr->prefix = strndup(name, strlen(name) - strlen(".proc"));
	pr->proc_path = path_join(p->dir, name);
	if (!pr->prefix || !pr->proc_path)
		return -ENOMEM;
	return 0;
}

/* "PREFIX-<tid>.sdt": the process it belongs to, NULL if none. */
static struct prof_process *stream_owner(struct profile *p, const char *name)
{
	size_t n = strlen(name) - strlen(".sdt");
	const char *dash = NULL;
	for (size_t i = 0; i < n; i++)
		if (name[i] == '-')
			dash = name + i;
	if (!dash || dash == name || (size_t)(dash - name) + 1 == n)
		return NULL;
	for (const char *c = dash + 1; c < name + n; c++)
		if (*c < '0' || *c > '9')
			return NULL;
	return find_prefix(p, name, (size_t)(dash - name));
}

static int add_stream(struct profile *p, struct prof_process *pr, const char *name, char *err,
		      size_t errlen)
{
	struct prof_thread *nt = realloc(pr->thread, (pr->nthread + 1) * sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	pr->thread = nt;
	char *path = path_join(p->dir, name);
	if (!path)
		return -ENOMEM;
	int r = prof_thread_read(path, &nt[pr->nthread], err, errlen);
	free(path);
	pr->nthread++;	/* released by profile_free even on error */
	return r;
}

static int list_dir(struct profile *p, int want_proc, char *err, size_t errlen)
{
	DIR *d = opendir(p->dir);
	if (!d)	/* the path said (the usability review of 2026-11-29: "Permission denied") */
		return errmsg(err, errlen, -errno, "cannot list '%s': %s", p->dir, strerror(errno));
	struct dirent *e;
	int r = 0;
	/* readdir order is arbitrary; the results are sorted afterwards */
	while (!r && (e = readdir(d))) {
		if (want_proc && has_suffix(e->d_name, ".proc")) {
			r = add_process(p, e->d_name);
		} else if (!want_proc && has_suffix(e->d_name, ".sdt")) {
			struct prof_process *pr = stream_owner(p, e->d_name);
			if (pr)
				r = add_stream(p, pr, e->d_name, err, errlen);
			else
				p->ignored_streams++;
		}
	}
	closedir(d);
	if (r == -ENOMEM)
		errmsg(err, errlen, r, "out of memory");
	return r;
}

static int thread_cmp(const void *a, const void *b)
{
	const struct prof_thread *x = a, *y = b;
	if (x->hdr.thread_index != y->hdr.thread_index)
		return x->hdr.thread_index < y->hdr.thread_index ? -1 : 1;
	if (x->hdr.tid != y->hdr.tid)
		return x->hdr.tid < y->hdr.tid ? -1 : 1;
	return strcmp(x->path, y->path);
}

static int process_cmp(const void *a, const void *b)
{
	const struct prof_process *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return strcmp(x->prefix, y->prefix);
}

static int find_maps(struct profile *p, struct prof_process *pr)
{
	static const char *const sufs[] = { ".maps", ".maps.start" };
	char *closed;
	struct stat cst;
	if (asprintf(&closed, "%s/%s.maps.closed", p->dir, pr->prefix) < 0)
		return -ENOMEM;
	if (!stat(closed, &cst) && S_ISREG(cst.st_mode) && cst.st_size > 0)
		pr->maps_closed_path = closed;
	else
		free(closed);
	for (size_t i = 0; i < 2; i++) {
		char *path;
		if (asprintf(&path, "%s/%s%s", p->dir, pr->prefix, sufs[i]) < 0)
			return -ENOMEM;
		struct stat st;
		if (!stat(path, &st) && st.st_size > 0) {
			pr->maps_path = path;
			return 0;
		}
		free(path);
	}
	return 0;
}

/* Why dir holds no recording, in words that say what it holds instead where sonde wrote
 * it (`sonde report` on an analyze output read "no .proc file": the usability review of
 * 2026-11-27). */
static const char *not_recording_why(const char *dir)
{
	static const struct {
		const char *file, *says;
	} known[] = {
		{ "summary.json", "no .proc file: this is a 'sonde analyze' output (open its "
				  "index.html, or run 'sonde analyze' again)" },
		{ "rank-0.rec", "no .proc file: this is a 'sonde vsensor' run ('sonde vsensor "
				"report DIR' shows it)" },
		{ "sensors.csv", "no .proc file: this is a 'sonde vsensor' run ('sonde vsensor "
				 "report DIR' shows it)" },
	};
	char path[4096];
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, known[i].file);
		if (access(path, F_OK) == 0)
			return known[i].says;
	}
	return "no .proc file (a directory a recording tool wrote: sonde mem, comm, reuse, "
	       "variance)";
}

static int read_all(struct profile *p, char *err, size_t errlen)
{
	int r = list_dir(p, 1, err, errlen);
	if (r)
		return r;
	if (!p->nproc)
		return errmsg(err, errlen, -ENOENT, "%s", not_recording_why(p->dir));
	for (size_t i = 0; i < p->nproc && !r; i++)
		r = parse_proc(&p->proc[i], err, errlen);
	if (!r)
		r = list_dir(p, 0, err, errlen);
	for (size_t i = 0; i < p->nproc && !r; i++) {
		struct prof_process *pr = &p->proc[i];
		if (pr->nthread)
			qsort(pr->thread, pr->nthread, sizeof(*pr->thread), thread_cmp);
		r = find_maps(p, pr);
	}
	if (!r)
		qsort(p->proc, p->nproc, sizeof(*p->proc), process_cmp);
	if (r == -ENOMEM)
		errmsg(err, errlen, r, "out of memory");
	return r;
}

int profile_read(const char *dir, struct profile **out, char *err, size_t errlen)
{
	struct stat st;
	*out = NULL;
	if (stat(dir, &st) < 0) {
		int e = errno;	/* (ENOENT: the caller says "no recording in") */
		if (e == ENOENT)
			return errmsg(err, errlen, -e, "%s", strerror(e));
		return errmsg(err, errlen, -e, "cannot read '%s': %s", dir, strerror(e));
	}
	if (!S_ISDIR(st.st_mode))
		return errmsg(err, errlen, -ENOENT, "not a directory");
	struct profile *p = calloc(1, sizeof(*p));
	if (!p || !(p->dir = strdup(dir))) {
		free(p);
		return errmsg(err, errlen, -ENOMEM, "out of memory");
	}
	int r = read_all(p, err, errlen);
	if (r) {
		profile_free(p);
		return r;
	}
	*out = p;
	return 0;
}

const struct sonde_rec_hdr *prof_tool_next(const struct prof_thread *t, size_t *off)
{
	if (!t->tool_recs || *off + sizeof(struct sonde_rec_hdr) > t->tool_len)
		return NULL;
	const struct sonde_rec_hdr *h = (const void *)(t->tool_recs + *off);
	*off += h->size;
	return h;
}

uint64_t prof_process_samples(const struct prof_process *pr)
{
	uint64_t n = 0;
	for (size_t i = 0; i < pr->nthread; i++) {
		const struct prof_thread *t = &pr->thread[i];
		n += t->has_stats ? t->stats.samples : t->nmem;
	}
	return n;
}

/* 1 if sample counts a and b (a <= b) cannot be told apart: b - a within two standard
 * deviations of the difference of two Poisson counts, 2 sqrt(a + b) (0 and 1, 0 and 4,
 * 10 and 21 can; 0 and 5, 10 and 22 cannot).  In integers: (b - a)^2 <= 4 (a + b). */
int prof_samples_alike(uint64_t a, uint64_t b)
{
	uint64_t d = b - a;
	return d < (1ull << 31) && d * d <= 4 * (a + b);
}

const struct prof_process *profile_main_process(const struct profile *p)
{
	if (!p->nproc)
		return NULL;
	uint64_t most = 0;
	for (size_t i = 0; i < p->nproc; i++) {
		uint64_t n = prof_process_samples(&p->proc[i]);
		most = n > most ? n : most;
	}
	/* Among those whose samples cannot be told apart from the most (all 0 in a short run
	 * that forks and execs; or the program at 0 and an exec'd child at 1 on a slow
	 * machine, whose loader ran past one clock period: t831 in CI), the one that started
	 * first, the program itself, not a child the directory happens to list first
	 * (variance read "program: true" for a program that ran /bin/true).  A wrapper
	 * (time, env) has no sample, its program many: told apart. */
	const struct prof_process *best = NULL;
	for (size_t i = 0; i < p->nproc; i++) {
		const struct prof_process *pr = &p->proc[i];
		uint64_t n = prof_process_samples(pr);
		if (!prof_samples_alike(n, most))
			continue;
		uint64_t st = pr->start_ns, bst = best ? best->start_ns : 0;	/* 0: not known */
		if (!best || (st && (!bst || st < bst)) ||
		    (st == bst && n > prof_process_samples(best)))
			best = pr;
	}
	return best;
}

/* Skip the decimal digits at *p: 1 if there was one at least. */
static int skip_digits(const char **p)
{
	const char *q = *p;
	while (**p >= '0' && **p <= '9')
		(*p)++;
	return *p > q;
}

int prof_is_raw_name(const char *name)
{
	static const char *ends[] = { ".sdt", ".sdt.tmp", ".proc", ".maps", ".maps.start",
				      ".maps.closed" };
	const char *p = name;
	if (*p == 'r') {
		p++;
		if (!skip_digits(&p) || *p++ != '.')
			return 0;
	}
	if (!skip_digits(&p))
		return 0;
	if (p[0] == '.' && p[1] == 'e') {
		p += 2;
		if (!skip_digits(&p))
			return 0;
	}
	if (*p == '-') {
		p++;
		if (!skip_digits(&p))
			return 0;
	}
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++)
		if (!strcmp(p, ends[i]))
			return 1;
	return 0;
}

int profile_fork_exec(const struct profile *p, size_t i)
{
	const struct prof_process *c = &p->proc[i];
	if (strcmp(c->end, "exec") || c->ppid < 0)
		return 0;
	for (size_t j = 0; j < p->nproc; j++)
		if (j != i && p->proc[j].pid == c->ppid && !strcmp(p->proc[j].host, c->host) &&
		    !strcmp(p->proc[j].exe, c->exe))
			return 1;
	return 0;
}

int profile_thread_unsignalled(const struct prof_process *pr, const struct prof_thread *t)
{
	/* (20 periods of CPU: at a long period no signal is no sign: review) */
	uint64_t least = pr->period > 2500000 ? 20 * pr->period : 50000000;
	return pr->source && !strcmp(pr->source, "clock") && pr->clock_event &&
	       strcmp(pr->clock_event, "posix-timer") && t->has_stats && t->stats.signals <= 1 &&
	       t->stats.cpu_ns >= least;
}

const char *profile_exec_image(const struct profile *p, size_t i)
{
	const struct prof_process *c = &p->proc[i], *next = NULL;
	if (strcmp(c->end, "exec"))
		return "";
	if (c->exec_followed == 0)	/* not profiled: no row of it (a reused pid's is not) */
		return c->exec_into;
	for (size_t j = 0; j < p->nproc; j++) {
		const struct prof_process *q = &p->proc[j];
		if (j != i && q->pid == c->pid && !strcmp(q->host, c->host) &&
		    q->start_ns >= c->end_ns && (!next || q->start_ns < next->start_ns))
			next = q;
	}
	return next ? next->exe : c->exec_into;
}

int profile_clock_posix(const struct profile *p)
{
	for (size_t i = 0; i < p->nproc; i++)
		if (!strcmp(p->proc[i].clock_event, "posix-timer"))
			return 1;
	return 0;
}
