/* SPDX-License-Identifier: MIT */
/*
 * perf-sample.h - the one parser of the PERF_SAMPLE_* layout: the fields of a
 * PERF_RECORD_SAMPLE in the order attr.sample_type gives them (include/uapi/linux/
 * perf_event.h), the read_format layouts of its READ part (and of a PERF_RECORD_READ),
 * callchain, raw, branch stack, user and interrupt registers, user stack, weight or
 * weight_struct, data_src, ..., and the sample_id trailer of the other records
 * (attr.sample_id_all).
 *
 * Both readers use it: the runtime's ring reader (rt/perfring.c, in a signal handler) and
 * the perf.data reader of `sonde analyze` (analyze/perfdata.c).  So it is pure: no
 * allocation, no system call, no global state; every read is bounded by the bytes it is
 * given, and a record shorter than its layout needs (or whose counts claim more entries
 * than it holds) gives -EINVAL.  Every function here is handler-safe.
 *
 * A record's bytes may come in two pieces (a record that wraps around the end of a ring
 * buffer), so variable-length parts are returned as byte offsets into the body, not as
 * pointers: a caller with one contiguous piece adds the offset to its pointer.
 */
#ifndef SONDE_RT_PERF_SAMPLE_H
#define SONDE_RT_PERF_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

/* The attr fields that a sample's layout depends on. */
struct perf_sample_layout {
	uint64_t sample_type;		/* PERF_SAMPLE_* bits */
	uint64_t read_format;		/* PERF_FORMAT_* bits (READ part) */
	uint64_t branch_sample_type;	/* PERF_SAMPLE_BRANCH_HW_INDEX / _COUNTERS matter */
	uint64_t regs_user, regs_intr;	/* register masks (REGS_USER, REGS_INTR) */
};

/* A record body (the bytes after its perf_event_header): p[0] holds the first n[0] bytes,
 * p[1] the n[1] that follow (n[1] = 0 when the body is contiguous). */
struct perf_bytes {
	const uint8_t *p[2];
	size_t n[2];
};

/* A READ part (struct read_format): time_enabled/running, then nr entries of `stride`
 * bytes each: value, [id], [lost]. */
struct perf_read {
	uint64_t time_enabled, time_running;
	uint64_t nr;			/* 1 unless PERF_FORMAT_GROUP */
	size_t stride;			/* 8, 16 or 24 */
	size_t values_off;		/* GROUP: body offset of the nr entries */
	uint8_t single[24];		/* not GROUP: the one entry, gathered (its words are not
					 * adjacent in the record) */
};

/* A parsed sample: the fields sample_type has (all others are 0). */
struct perf_sample {
	uint64_t id;			/* IDENTIFIER or ID */
	uint64_t ip, time, addr, stream_id, period;
	uint32_t pid, tid, cpu;
	uint32_t raw_size;		/* RAW: raw_size bytes at raw_off (kept here: no padding) */
	uint64_t weight;		/* WEIGHT, or the whole WEIGHT_STRUCT word (var1_dw in its
					 * low 32 bits) */
	uint64_t data_src, transaction, phys_addr, cgroup, data_page_size, code_page_size;
	struct perf_read read;		/* READ */
	uint64_t nchain;		/* CALLCHAIN: nchain u64 at chain_off */
	size_t chain_off;
	size_t raw_off;
	uint64_t nbranch;		/* BRANCH_STACK: nbranch entries of 24 bytes at branch_off */
	uint64_t branch_hw_idx;		/* ~0 when the branch stack has no hw_index */
	size_t branch_off;
	uint64_t regs_user_abi, regs_intr_abi;	/* PERF_SAMPLE_REGS_ABI_*; 0: no registers */
	size_t regs_user_off, regs_intr_off;	/* popcount(mask) u64 each */
	uint64_t stack_size, stack_dyn_size;	/* STACK_USER: stack_size bytes at stack_off */
	size_t stack_off;
	uint64_t aux_size;		/* AUX: aux_size bytes at aux_off */
	size_t aux_off;
};

/*
 * Parse the body of a PERF_RECORD_SAMPLE laid out by l into *s (every field written).  Bytes
 * after the last field are ignored.  0, or -EINVAL if the body is shorter than the layout
 * needs or a count (callchain, branches, group values) claims more than it holds; the
 * fields from the failed one on are then 0.  Handler-safe.
 */
int perf_sample_parse(const struct perf_sample_layout *l, const struct perf_bytes *b,
		      struct perf_sample *s);

/*
 * Parse a READ part with read_format fmt at body offset *off (advanced past it) into *r.
 * 0 or -EINVAL as perf_sample_parse().  Handler-safe.  (A PERF_RECORD_READ body is
 * pid, tid, then this.)
 */
int perf_read_parse(uint64_t fmt, const struct perf_bytes *b, size_t *off, struct perf_read *r);

/* The bytes of the sample_id trailer that sample_type puts at the end of non-sample
 * records (when attr.sample_id_all): TID TIME ID STREAM_ID CPU IDENTIFIER, 8 each. */
size_t perf_sample_id_size(uint64_t sample_type);

/*
 * Parse the sample_id trailer: the last perf_sample_id_size() bytes of the body, into the
 * pid/tid, time, id, stream_id and cpu of *s (zeroed first).  0, or -EINVAL if the body is
 * shorter than the trailer.  Handler-safe.
 */
int perf_sample_id_parse(uint64_t sample_type, const struct perf_bytes *b,
			 struct perf_sample *s);

/*
 * Where the id that names a record's event is (perf's rule, which needs no attr: the
 * IDENTIFIER bit puts it first in a sample and last in a trailer):
 * in a sample (is_sample), its byte offset from the start of the body; in another record,
 * its byte offset back from the end of the body (the trailer's end).  -1 if sample_type
 * holds no id.
 */
long perf_sample_id_pos(uint64_t sample_type, int is_sample);

/* The body's length. */
static inline size_t perf_bytes_len(const struct perf_bytes *b)
{
	return b->n[0] + b->n[1];
}

#endif /* SONDE_RT_PERF_SAMPLE_H */
