/* SPDX-License-Identifier: MIT */
/*
 * perfdata-synth.h - a small writer of synthetic perf.data files (file or pipe mode) with
 * known events, periods, READ values (multiplexing), callchains and branch stacks, for the
 * tests of the reader and of the cycle accounting.  Header-only; test code, so it aborts on
 * allocation failure.
 *
 *   struct synth s; synth_init(&s, pipe);
 *   int a = synth_attr(&s, &attr, "name", ids, nids);   (file mode: any time before finish)
 *   synth_comm(&s, pid, tid, "app"); synth_mmap2(&s, ...); synth_sample(&s, a, &smp);
 *   synth_write(&s, path); synth_release(&s);
 */
#ifndef SONDE_TOOLS_PERFDATA_SYNTH_H
#define SONDE_TOOLS_PERFDATA_SYNTH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct synth_attr {
	uint32_t type;
	uint64_t config, period, sample_type, read_format, flags, branch_sample_type;
	uint64_t regs_user;
};

struct synth_sample {
	uint64_t ip, time, addr, id, stream_id, period;
	uint32_t pid, tid, cpu;
	uint16_t misc;			/* cpumode etc.; 0 means user (2) */
	uint64_t en, run;		/* READ */
	size_t nread;
	uint64_t read_value[8], read_id[8];
	size_t nchain;
	const uint64_t *chain;
	size_t nbranch;
	const uint64_t *branches;	/* from, to, flags triples */
	uint64_t hw_idx;
	uint32_t raw_size;
	const uint8_t *raw;
	uint64_t weight, data_src, phys_addr;
};

struct synth_buf {
	uint8_t *p;
	size_t n, cap;
};

struct synth {
	int pipe;
	struct synth_buf data;
	struct synth_attr attrs[32];	/* GOoDA's templates need about 20 events */
	char *names[32];
	uint64_t ids[32][8];
	size_t nids[32];
	size_t nattrs;
	const char *cpuid;
};

static inline void synth_put(struct synth_buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 256;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
}

static inline void synth_u64(struct synth_buf *b, uint64_t v)
{
	synth_put(b, &v, 8);
}

static inline void synth_u32(struct synth_buf *b, uint32_t v)
{
	synth_put(b, &v, 4);
}

static inline void synth_init(struct synth *s, int pipe)
{
	memset(s, 0, sizeof(*s));
	s->pipe = pipe;
}

/* A perf_event_attr of 112 bytes (ATTR_SIZE_VER5). */
static inline void synth_attr_bytes(struct synth_buf *b, const struct synth_attr *a)
{
	uint8_t r[112] = { 0 };
	uint32_t sz = sizeof(r);
	memcpy(r, &a->type, 4);
	memcpy(r + 4, &sz, 4);
	memcpy(r + 8, &a->config, 8);
	memcpy(r + 16, &a->period, 8);
	memcpy(r + 24, &a->sample_type, 8);
	memcpy(r + 32, &a->read_format, 8);
	memcpy(r + 40, &a->flags, 8);
	memcpy(r + 72, &a->branch_sample_type, 8);
	memcpy(r + 80, &a->regs_user, 8);
	synth_put(b, r, sizeof(r));
}

static inline void synth_header(struct synth_buf *b, uint32_t type, uint16_t misc, size_t size)
{
	uint16_t sz = (uint16_t)size;
	synth_u32(b, type);
	synth_put(b, &misc, 2);
	synth_put(b, &sz, 2);
}

static inline int synth_attr(struct synth *s, const struct synth_attr *a, const char *name,
			     const uint64_t *ids, size_t nids)
{
	size_t i = s->nattrs++;
	s->attrs[i] = *a;
	s->names[i] = strdup(name);
	s->nids[i] = nids;
	memcpy(s->ids[i], ids, nids * 8);
	if (s->pipe) {
		synth_header(&s->data, 64, 0, 8 + 112 + 8 * nids);
		synth_attr_bytes(&s->data, a);
		for (size_t k = 0; k < nids; k++)
			synth_u64(&s->data, ids[k]);
	}
	return (int)i;
}

/* A padded string record body: the string and NULs up to a multiple of 8. */
static inline size_t synth_strlen8(const char *str)
{
	return (strlen(str) + 1 + 7) & ~(size_t)7;
}

static inline void synth_str8(struct synth_buf *b, const char *str)
{
	uint8_t z[8] = { 0 };
	size_t n = strlen(str);
	synth_put(b, str, n);
	synth_put(b, z, synth_strlen8(str) - n);
}

static inline void synth_comm(struct synth *s, uint32_t pid, uint32_t tid, const char *comm)
{
	synth_header(&s->data, 3, 0, 8 + 8 + synth_strlen8(comm));
	synth_u32(&s->data, pid);
	synth_u32(&s->data, tid);
	synth_str8(&s->data, comm);
}

static inline void synth_mmap2(struct synth *s, uint32_t pid, uint64_t start, uint64_t len,
			       uint64_t pgoff, const char *file)
{
	uint8_t z[24] = { 0 };
	synth_header(&s->data, 10, 2, 8 + 8 + 24 + 24 + 8 + synth_strlen8(file));
	synth_u32(&s->data, pid);
	synth_u32(&s->data, pid);
	synth_u64(&s->data, start);
	synth_u64(&s->data, len);
	synth_u64(&s->data, pgoff);
	synth_put(&s->data, z, 24);
	synth_u32(&s->data, 5);		/* PROT_READ | PROT_EXEC */
	synth_u32(&s->data, 2);		/* MAP_PRIVATE */
	synth_str8(&s->data, file);
}

static inline void synth_sample(struct synth *s, int ai, const struct synth_sample *x)
{
	const struct synth_attr *a = &s->attrs[ai];
	uint64_t t = a->sample_type;
	struct synth_buf b = { 0 };
	if (t & (1u << 16))
		synth_u64(&b, x->id);
	if (t & 1)
		synth_u64(&b, x->ip);
	if (t & 2) {
		synth_u32(&b, x->pid);
		synth_u32(&b, x->tid);
	}
	if (t & 4)
		synth_u64(&b, x->time);
	if (t & 8)
		synth_u64(&b, x->addr);
	if (t & (1u << 6))
		synth_u64(&b, x->id);
	if (t & (1u << 9))
		synth_u64(&b, x->stream_id);
	if (t & (1u << 7)) {
		synth_u32(&b, x->cpu);
		synth_u32(&b, 0);
	}
	if (t & (1u << 8))
		synth_u64(&b, x->period);
	if (t & (1u << 4)) {
		/* struct read_format: the group form puts the times first, the single form
		 * puts its value first */
		int group = a->read_format & 8;
		if (group)
			synth_u64(&b, x->nread);
		else
			synth_u64(&b, x->read_value[0]);
		if (a->read_format & 1)
			synth_u64(&b, x->en);
		if (a->read_format & 2)
			synth_u64(&b, x->run);
		for (size_t i = 0; i < (group ? x->nread : 1); i++) {
			if (group)
				synth_u64(&b, x->read_value[i]);
			if (a->read_format & 4)
				synth_u64(&b, x->read_id[i]);
		}
	}
	if (t & (1u << 5)) {
		synth_u64(&b, x->nchain);
		synth_put(&b, x->chain, 8 * x->nchain);
	}
	if (t & (1u << 10)) {
		/* as the kernel: the size counts the padding that aligns size + data to 8 */
		uint8_t z[8] = { 0 };
		uint32_t pad = (8 - (4 + x->raw_size) % 8) % 8;
		synth_u32(&b, x->raw_size + pad);
		synth_put(&b, x->raw, x->raw_size);
		synth_put(&b, z, pad);
	}
	if (t & (1u << 11)) {
		synth_u64(&b, x->nbranch);
		if (a->branch_sample_type & (1u << 17))
			synth_u64(&b, x->hw_idx);
		synth_put(&b, x->branches, 24 * x->nbranch);
	}
	if (t & ((1u << 14) | (1u << 24)))
		synth_u64(&b, x->weight);
	if (t & (1u << 15))
		synth_u64(&b, x->data_src);
	if (t & (1u << 19))
		synth_u64(&b, x->phys_addr);
	synth_header(&s->data, 9, x->misc ? x->misc : 2, 8 + b.n);
	synth_put(&s->data, b.p, b.n);
	free(b.p);
}

/* A feature string: u32 length (padded to 64 bytes... any multiple works), bytes. */
static inline void synth_fstr(struct synth_buf *b, const char *str)
{
	uint32_t n = (uint32_t)synth_strlen8(str);
	synth_u32(b, n);
	synth_str8(b, str);
}

static inline void synth_event_desc(struct synth *s, struct synth_buf *b)
{
	synth_u32(b, (uint32_t)s->nattrs);
	synth_u32(b, 112);
	for (size_t i = 0; i < s->nattrs; i++) {
		synth_attr_bytes(b, &s->attrs[i]);
		synth_u32(b, (uint32_t)s->nids[i]);
		synth_fstr(b, s->names[i]);
		for (size_t k = 0; k < s->nids[i]; k++)
			synth_u64(b, s->ids[i][k]);
	}
}

/* Features written: CPUID (9, if set) and EVENT_DESC (12). */
static inline int synth_write(struct synth *s, const char *path)
{
	struct synth_buf out = { 0 };
	uint64_t magic = 0x32454c4946524550ull;
	if (s->pipe) {
		synth_u64(&out, magic);
		synth_u64(&out, 16);
		/* features after the records, as perf writes them once the attrs are out */
		synth_put(&out, s->data.p, s->data.n);
		for (int feat = 9; feat <= 12; feat += 3) {
			struct synth_buf f = { 0 };
			if (feat == 9 && !s->cpuid)
				continue;
			if (feat == 9)
				synth_fstr(&f, s->cpuid);
			else
				synth_event_desc(s, &f);
			synth_header(&out, 80, 0, 16 + f.n);
			synth_u64(&out, (uint64_t)feat);
			synth_put(&out, f.p, f.n);
			free(f.p);
		}
	} else {
		size_t nat = s->nattrs, attr_size = 112 + 16;
		uint64_t attrs_off = 104, ids_off = attrs_off + nat * attr_size, nids = 0;
		for (size_t i = 0; i < nat; i++)
			nids += s->nids[i];
		uint64_t data_off = ids_off + 8 * nids, feat_off = data_off + s->data.n;
		uint8_t bits[32] = { 0 };
		struct synth_buf f9 = { 0 }, f12 = { 0 };
		if (s->cpuid) {
			bits[1] |= 1 << 1;	/* bit 9 */
			synth_fstr(&f9, s->cpuid);
		}
		bits[1] |= 1 << 4;		/* bit 12 */
		synth_event_desc(s, &f12);
		synth_u64(&out, magic);
		synth_u64(&out, 104);
		synth_u64(&out, attr_size);
		synth_u64(&out, attrs_off);
		synth_u64(&out, nat * attr_size);
		synth_u64(&out, data_off);
		synth_u64(&out, s->data.n);
		synth_u64(&out, 0);
		synth_u64(&out, 0);
		synth_put(&out, bits, 32);
		uint64_t io = ids_off;
		for (size_t i = 0; i < nat; i++) {
			synth_attr_bytes(&out, &s->attrs[i]);
			synth_u64(&out, io);
			synth_u64(&out, 8 * s->nids[i]);
			io += 8 * s->nids[i];
		}
		for (size_t i = 0; i < nat; i++)
			for (size_t k = 0; k < s->nids[i]; k++)
				synth_u64(&out, s->ids[i][k]);
		synth_put(&out, s->data.p, s->data.n);
		uint64_t fo = feat_off + 16 * (1 + !!s->cpuid);
		if (s->cpuid) {
			synth_u64(&out, fo);
			synth_u64(&out, f9.n);
			fo += f9.n;
		}
		synth_u64(&out, fo);
		synth_u64(&out, f12.n);
		synth_put(&out, f9.p, f9.n);
		synth_put(&out, f12.p, f12.n);
		free(f9.p);
		free(f12.p);
	}
	FILE *fp = fopen(path, "wb");
	int ok = fp && fwrite(out.p, 1, out.n, fp) == out.n;
	if (fp)
		ok &= fclose(fp) == 0;
	free(out.p);
	return ok ? 0 : -1;
}

static inline void synth_release(struct synth *s)
{
	free(s->data.p);
	for (size_t i = 0; i < s->nattrs; i++)
		free(s->names[i]);
}

#endif
