/* u-vsensor-rec: the slice records' file format (rec.h): format 2 round-trips what the
 * analysis uses, format 1 still reads, and an unknown version is refused. */
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
	size_t n;
	CHECK(vs_rec_decode(buf, len, &r, &n) == 0);
	CHECK_EQ_U64(n, N);
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
	size_t n;
	CHECK(vs_rec_decode(buf, sizeof(buf), &r, &n) == 0);
	CHECK_EQ_U64(n, N);
	CHECK(n == N && memcmp(r, recs, sizeof(recs)) == 0);
	free(r);
	/* a format-1 file cut inside a record is no format-1 file */
	CHECK(vs_rec_decode(buf, sizeof(buf) - 3, &r, &n) == VS_REC_BAD);
}

TEST(unknown_version_is_refused)
{
	unsigned char buf[64] = "VSR3";
	struct vs_rec *r;
	size_t n;
	CHECK(vs_rec_decode(buf, 48, &r, &n) == VS_REC_BAD);
	CHECK(r == NULL && n == 0);
}

/* A rank that died inside a write leaves a record cut short: the whole ones read. */
TEST(cut_record_is_left_out)
{
	unsigned char buf[N * VS_REC_MAX + 8];
	size_t len = encode_all(buf);
	struct vs_rec *r;
	size_t n;
	CHECK(vs_rec_decode(buf, len - 2, &r, &n) == 0);
	CHECK_EQ_U64(n, N - 1);
	free(r);
	CHECK(vs_rec_decode(buf, VS_REC_MAGIC_LEN, &r, &n) == 0);
	CHECK_EQ_U64(n, 0);
	free(r);
}

int main(void)
{
	RUN(format2_round_trips);
	RUN(format2_is_small);
	RUN(format1_still_reads);
	RUN(unknown_version_is_refused);
	RUN(cut_record_is_left_out);
	return CHECK_DONE();
}
