/* u-vsensor-rec: the slice records' file format (rec.h): format 2 round-trips what the
 * analysis uses, format 1 still reads, an unknown version is refused, and what cannot be
 * read (a cut, a damaged record) is counted, the records before it kept. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tools/vsensor/rec.h"

/* Records as the runtime makes them: slices out of order (a sensor's record comes when
 * its next slice starts, the CPU share's from the sampler), sensor ids past one varint
 * byte, times from sub-microsecond to seconds, weights from 0 (the core) to 0.2 s. */
static const struct vs_rec recs[] = {
	{ 0, 0, 12.5f, 0.0123f },	{ 0, 1, 0.0731f, 0.000004f }, { 1, 0, 1893421.0f, 0.19f },
	{ 0, 2, 3.0f, 0.0f },		{ 5, 300, 47.25f, 0.2f },     { 2, 3, 1e-3f, 1e-6f },
	{ 100000, 1023, 2.5e6f, 0.5f }, { 99998, 4, 7.0f, 0.001f },   { 3, 5, 0.0f, 0.0f },
};
#define N (sizeof(recs) / sizeof(recs[0]))

static size_t encode_all(unsigned char *buf)
{
	memcpy(buf, VS_REC_MAGIC, VS_REC_MAGIC_LEN);
	size_t len = VS_REC_MAGIC_LEN;
	int32_t prev = 0;
	for (size_t i = 0; i < N; i++) {
		size_t n = vs_rec_encode(&recs[i], &prev, buf + len);
		CHECK(n <= VS_REC_MAX);
		len += n;
	}
	return len;
}

TEST(format2_round_trips)
{
	unsigned char buf[N * VS_REC_MAX + 8];
	size_t len = encode_all(buf);
	struct vs_rec *r;
	size_t n, rest;
	CHECK(vs_rec_decode(buf, len, &r, &n, &rest) == 0);
	CHECK_EQ_U64(n, N);
	CHECK_EQ_U64(rest, 0);
	for (size_t i = 0; i < n && i < N; i++) {
		CHECK(r[i].bin == recs[i].bin);
		CHECK(r[i].sensor == recs[i].sensor);
		/* the time exactly: it is what normalized performance is made of */
		CHECK(memcmp(&r[i].mean_us, &recs[i].mean_us, sizeof(float)) == 0);
		/* the weight to the microsecond (its unit in the file), i.e. half of one either way */
		CHECK(fabs((double)r[i].weight_s - recs[i].weight_s) <= 0.5e-6 + 1e-7 * recs[i].weight_s);
	}
	free(r);
}

/* What format 2 is for: the records of a typical slice take under 10 bytes, not 16. */
TEST(format2_is_small)
{
	unsigned char out[VS_REC_MAX];
	int32_t prev = 41;
	/* a sensor of a 200-ms slice: 3.4 us a sense, 12 ms spent; the CPU share: 0.2 s */
	struct vs_rec a = { 42, 17, 3.4f, 0.012f }, b = { 42, 0, 2500.0f, 0.199f };
	CHECK(vs_rec_encode(&a, &prev, out) == 8);
	CHECK(vs_rec_encode(&b, &prev, out) == 9);
}

TEST(format1_still_reads)
{
	unsigned char buf[N * 16];
	for (size_t i = 0; i < N; i++) {
		/* little-endian int32, int32, float32, float32 (the hosts are x86-64) */
		memcpy(buf + 16 * i, &recs[i].bin, 4);
		memcpy(buf + 16 * i + 4, &recs[i].sensor, 4);
		memcpy(buf + 16 * i + 8, &recs[i].mean_us, 4);
		memcpy(buf + 16 * i + 12, &recs[i].weight_s, 4);
	}
	struct vs_rec *r;
	size_t n, rest;
	CHECK(vs_rec_decode(buf, sizeof(buf), &r, &n, &rest) == 0);
	CHECK_EQ_U64(n, N);
	CHECK(n == N && memcmp(r, recs, sizeof(recs)) == 0);
	free(r);
	/* a format-1 file cut inside a record (a rank that died in a write): its whole
	 * records, and the 13 bytes of the cut one counted (it was refused whole) */
	CHECK(vs_rec_decode(buf, sizeof(buf) - 3, &r, &n, &rest) == 0);
	CHECK_EQ_U64(n, N - 1);
	CHECK_EQ_U64(rest, 13);
	CHECK(n == N - 1 && memcmp(r, recs, (N - 1) * sizeof(*r)) == 0);
	free(r);
}

TEST(unknown_version_is_refused)
{
	unsigned char buf[64] = "VSR3";
	struct vs_rec *r;
	size_t n, rest;
	CHECK(vs_rec_decode(buf, 48, &r, &n, &rest) == VS_REC_BAD);
	CHECK(r == NULL && n == 0);
}

/* A rank that died inside a write leaves a record cut short: the whole ones read. */
TEST(cut_record_is_left_out)
{
	unsigned char buf[N * VS_REC_MAX + 8];
	size_t len = encode_all(buf);
	struct vs_rec *r;
	size_t n, rest;
	CHECK(vs_rec_decode(buf, len - 2, &r, &n, &rest) == 0);
	CHECK_EQ_U64(n, N - 1);
	/* the last record takes 9 bytes (slice 3 - 99998, zigzag 199,989: 3 bytes, sensor 1,
	 * time 4, weight 1): 7 of them are left */
	CHECK_EQ_U64(rest, 7);
	free(r);
	CHECK(vs_rec_decode(buf, VS_REC_MAGIC_LEN, &r, &n, &rest) == 0);
	CHECK_EQ_U64(n, 0);
	CHECK_EQ_U64(rest, 0);
	free(r);
}

/* A record no encoder writes (a damaged byte): the records before it read, the rest is
 * counted from its first byte.  A sensor past int32, a varint over 64 bits, a weight past
 * VS_REC_MAX_US.  (A damaged byte that still makes a possible record reads wrong: the
 * format has no checksum.) */
TEST(damaged_record_is_counted)
{
	static const unsigned char bad[][12] = {
		{ 0x02, 0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0x80, 0x3f, 0x01 },
		{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 },
		{ 0x02, 0x01, 0, 0, 0x80, 0x3f, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 },
	};
	static const size_t badlen[] = { 11, 11, 12 };
	for (size_t b = 0; b < 3; b++) {
		unsigned char buf[3 * VS_REC_MAX + 16];
		memcpy(buf, VS_REC_MAGIC, VS_REC_MAGIC_LEN);
		int32_t prev = 0;
		size_t len = VS_REC_MAGIC_LEN;
		len += vs_rec_encode(&recs[0], &prev, buf + len);
		len += vs_rec_encode(&recs[1], &prev, buf + len);
		size_t at = len;
		memcpy(buf + len, bad[b], badlen[b]);
		len += badlen[b];
		len += vs_rec_encode(&recs[2], &prev, buf + len);
		struct vs_rec *r;
		size_t n, rest;
		CHECK(vs_rec_decode(buf, len, &r, &n, &rest) == 0);
		CHECK_EQ_U64(n, 2);
		CHECK_EQ_U64(rest, len - at);
		CHECK(n == 2 && r[1].sensor == recs[1].sensor && r[1].bin == recs[1].bin);
		free(r);
	}
}

/* The largest record the encoder writes fits VS_REC_MAX (flush_batch's buffer is
 * VS_BATCH of them): slices far apart both ways, the largest sensor, a weight of 2^64 us
 * and more (clamped), and one just under the clamp, which reads back. */
TEST(largest_record_fits)
{
	unsigned char out[VS_REC_MAX + 16];
	const struct vs_rec big[] = {
		{ INT32_MAX, INT32_MAX, 1.0f, 1e13f },	{ INT32_MIN, INT32_MAX, 1.0f, 3e38f },
		{ INT32_MAX, 0, 1.0f, INFINITY },	{ 0, 5, 1.0f, 30000.0f },
	};
	int32_t prev[] = { INT32_MIN, INT32_MAX, INT32_MIN, 0 };
	size_t most = 0;
	for (size_t i = 0; i < 4; i++) {
		int32_t p = prev[i];
		memset(out, 0xaa, sizeof(out));
		size_t n = vs_rec_encode(&big[i], &p, out);
		CHECK(n <= VS_REC_MAX);
		/* nothing written past what it says */
		CHECK(out[n] == 0xaa);
		most = n > most ? n : most;
	}
	CHECK_EQ_U64(most, VS_REC_MAX);	/* and the max is a real one, reached */
	/* the clamped weight reads as VS_REC_MAX_US, 30,000 s as itself */
	unsigned char buf[2 * VS_REC_MAX + VS_REC_MAGIC_LEN];
	memcpy(buf, VS_REC_MAGIC, VS_REC_MAGIC_LEN);
	int32_t p = 0;
	size_t len = VS_REC_MAGIC_LEN;
	struct vs_rec a = { 1, 1, 1.0f, 1e30f };
	len += vs_rec_encode(&a, &p, buf + len);
	len += vs_rec_encode(&big[3], &p, buf + len);
	struct vs_rec *r;
	size_t n, rest;
	CHECK(vs_rec_decode(buf, len, &r, &n, &rest) == 0);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(rest, 0);
	if (n == 2) {
		CHECK(fabs(r[0].weight_s - VS_REC_MAX_US / 1e6) < 0.01);
		CHECK(fabs(r[1].weight_s - 30000.0) < 0.01);
	}
	free(r);
}

int main(void)
{
	RUN(format2_round_trips);
	RUN(format2_is_small);
	RUN(format1_still_reads);
	RUN(unknown_version_is_refused);
	RUN(cut_record_is_left_out);
	RUN(damaged_record_is_counted);
	RUN(largest_record_fits);
	return CHECK_DONE();
}
