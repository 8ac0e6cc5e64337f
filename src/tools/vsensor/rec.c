/* SPDX-License-Identifier: MIT */
/* rec.c - encoding and decoding of the slice records (rec.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/file.h"
#include "tools/vsensor/rec.h"

static size_t put_varint(unsigned char *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	return n;
}

/* 0 and *v, or -1 when the varint runs past end or over 64 bits. */
static int get_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	uint64_t x = 0;
	for (int shift = 0; *p < end && shift < 64; shift += 7) {
		unsigned char b = *(*p)++;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

static void put_f32(unsigned char *p, float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(u >> (8 * i));
}

static float get_f32(const unsigned char *p)
{
	uint32_t u = 0;
	for (int i = 0; i < 4; i++)
		u |= (uint32_t)p[i] << (8 * i);
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/* A weight's microseconds as written (see vs_rec_encode). */
static uint64_t weight_us(double weight_s)
{
	double us = weight_s * 1e6;
	return !(us > 0) ? 0 : us < VS_REC_MAX_US ? (uint64_t)llround(us) : VS_REC_MAX_US;
}

float vs_rec_weight(double weight_s)
{
	return (float)(weight_us(weight_s) / 1e6);
}

size_t vs_rec_encode(const struct vs_rec *r, int32_t *prev_bin, unsigned char *out)
{
	int64_t d = (int64_t)r->bin - *prev_bin;
	size_t n = put_varint(out, d >= 0 ? (uint64_t)d << 1 : ((uint64_t)(-(d + 1)) << 1) | 1);
	n += put_varint(out + n, (uint32_t)r->sensor);
	put_f32(out + n, r->mean_us);
	n += 4;
	/* microseconds: a weight only (cells are weighted means); negative or NaN never
	 * happen (time spent), and are written as 0; past VS_REC_MAX_US (9.5 hours, where a
	 * slice is 200 ms) clamped, so that a record fits VS_REC_MAX */
	n += put_varint(out + n, weight_us(r->weight_s));
	*prev_bin = r->bin;
	return n;
}

int vs_rec_decode(const unsigned char *buf, size_t len, struct vs_rec **out, size_t *n,
		  size_t *rest)
{
	*out = NULL;
	*n = 0;
	*rest = 0;
	int v2 = len >= VS_REC_MAGIC_LEN && !memcmp(buf, VS_REC_MAGIC, VS_REC_MAGIC_LEN);
	if (!v2 && len >= 3 && !memcmp(buf, "VSR", 3))
		return VS_REC_BAD;	/* a later version */
	/* format 2 takes at least 7 bytes a record */
	size_t cap = v2 ? (len - VS_REC_MAGIC_LEN) / 7 + 1 : len / 16 + 1;
	struct vs_rec *r = malloc(cap * sizeof(*r));
	if (!r)
		return -ENOMEM;
	size_t k = 0;
	if (!v2) {
		*rest = len % 16;
		for (size_t i = 0; i + 16 <= len; i += 16, k++) {
			const unsigned char *p = buf + i;
			r[k].bin = (int32_t)(p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24);
			r[k].sensor = (int32_t)(p[4] | p[5] << 8 | p[6] << 16 | (uint32_t)p[7] << 24);
			r[k].mean_us = get_f32(p + 8);
			r[k].weight_s = get_f32(p + 12);
		}
	} else {
		const unsigned char *p = buf + VS_REC_MAGIC_LEN, *end = buf + len;
		int64_t bin = 0;
		while (p < end && k < cap) {
			const unsigned char *start = p;
			uint64_t zz, s, w;
			if (get_varint(&p, end, &zz) || get_varint(&p, end, &s) || end - p < 4) {
				p = start;
				break;
			}
			float t = get_f32(p);
			p += 4;
			/* the encoder writes int32 slices and sensors, weights up to VS_REC_MAX_US:
			 * anything else is damage (a cut varint is the file's end) */
			int64_t b = bin;
			if (!(zz >> 33))
				b += zz & 1 ? -(int64_t)(zz >> 1) - 1 : (int64_t)(zz >> 1);
			if (get_varint(&p, end, &w) || zz >> 33 || s > INT32_MAX || b < INT32_MIN ||
			    b > INT32_MAX || w > VS_REC_MAX_US) {
				p = start;
				break;
			}
			bin = b;
			r[k].bin = (int32_t)bin;
			r[k].sensor = (int32_t)s;
			r[k].mean_us = t;
			r[k].weight_s = (float)(w / 1e6);
			k++;
		}
		*rest = (size_t)(end - p);
	}
	*out = r;
	*n = k;
	return 0;
}

int vs_rec_read(const char *path, struct vs_rec **out, size_t *n, size_t *rest, size_t *len)
{
	int err;
	*out = NULL;
	*n = *rest = *len = 0;
	FILE *f = file_fopen_regular(path, &err);
	if (!f)
		return err;
	size_t cap = 1 << 16, got;
	unsigned char *buf = malloc(cap);
	while (buf && (got = fread(buf + *len, 1, cap - *len, f)) > 0) {
		*len += got;
		if (*len == cap) {
			unsigned char *b = realloc(buf, cap *= 2);
			if (!b)
				free(buf);
			buf = b;
		}
	}
	int rd = ferror(f);
	fclose(f);
	err = !buf ? -ENOMEM : rd ? -EIO : vs_rec_decode(buf, *len, out, n, rest);
	free(buf);
	return err;
}
