/* SPDX-License-Identifier: MIT */
/*
 * rec.h - the slice records of sonde vsensor and their file, rank-<r>.rec.
 * The runtime (vsrt.c) encodes them, `sonde vsensor records` (cmd.c) decodes them.
 *
 * Format 2 (since 2026-11-26): the 4 bytes "VSR2", then per record
 *   varint  zigzag(slice - the previous record's slice)   (the first: against 0)
 *   varint  sensor                                        (the rank's registration order)
 *   4 bytes time_us, IEEE float32, little-endian          (exact: the analysis' value)
 *   varint  seconds spent in the sensor, in microseconds  (the matrix cell's weight,
 *           at most VS_REC_MAX_US)
 * varints are LEB128 (7 bits a byte, low first).  7-9 bytes a record where format 1
 * took 16: PRK Stencil's 29 sensors wrote 1.4-1.5 KB/s per rank in format 1.
 * Format 1 (no header): little-endian int32 slice, int32 sensor, float32 time_us,
 * float32 seconds, 16 bytes a record; still read.
 * Library code: returns 0/-errno, never prints.
 */
#ifndef SONDE_VSENSOR_REC_H
#define SONDE_VSENSOR_REC_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

struct vs_rec {
	int32_t bin, sensor;
	float mean_us, weight_s;
};

#define VS_REC_MAGIC "VSR2"
#define VS_REC_MAGIC_LEN 4
/* The largest weight written, in us (2^35 - 1, 9.5 hours): larger ones are clamped, so
 * that every varint of a record takes at most 5 bytes.  The bytes one record takes at
 * most in format 2: the slice's zigzag difference of two int32 (33 bits) 5, the sensor
 * (int32 >= 0) 5, the time 4, the weight 5. */
#define VS_REC_MAX_US ((UINT64_C(1) << 35) - 1)
#define VS_REC_MAX 19

/* Encode r after a record of slice *prev_bin (0 before the first) into out (at least
 * VS_REC_MAX bytes); *prev_bin becomes r's slice.  Returns the bytes written.
 * Async-signal-safe, no allocation. */
size_t vs_rec_encode(const struct vs_rec *r, int32_t *prev_bin, unsigned char *out);

/* A weight (s) as the file keeps it: whole microseconds, 0 to VS_REC_MAX_US, read back as
 * vs_rec_decode reads it.  The runtime keeps its own records so, and the job judged at
 * MPI_Finalize reads as its files judged again (t608: coverage.csv's last digit differed
 * in a pair of test suites). */
float vs_rec_weight(double weight_s);

/* Decode a whole rank-<r>.rec held in buf[0..len), format 1 or 2, into *out (malloc'd,
 * *n records; the caller frees).  Decoding stops at the first record that is cut short
 * (a rank that died in a write: the file's end) or cannot be one (a varint over 64 bits,
 * a sensor or slice past int32: a corrupted byte, after which no record boundary can be
 * found again); *rest is then the bytes left unread from there, else 0.  A format-1 file
 * of a length no multiple of 16 gives its whole records and the rest likewise.
 * 0, -ENOMEM, or VS_REC_BAD: a "VSR" header of another version. */
int vs_rec_decode(const unsigned char *buf, size_t len, struct vs_rec **out, size_t *n,
		  size_t *rest);
#define VS_REC_BAD (-EPROTO)

/* Read and decode the file at path (a regular file: file_fopen_regular) as
 * vs_rec_decode does; *len is the file's bytes.  0, -errno, or VS_REC_BAD. */
int vs_rec_read(const char *path, struct vs_rec **out, size_t *n, size_t *rest, size_t *len);

#endif
