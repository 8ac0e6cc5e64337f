/* SPDX-License-Identifier: MIT */
/*
 * perfring.h - reading a perf_event_open ring buffer, and decoding the raw records of
 * AMD IBS op samples.  Pure parsing: no system calls, so the unit tests drive it with
 * synthetic buffers built in memory.
 *
 * The kernel writes records at data_head; the reader consumes them at data_tail.  A
 * record may wrap around the end of the data area; records are 8-byte aligned and their
 * size is header.size.  Every function here is handler-safe (no allocation, no locks,
 * no stdio) and touches only the memory it is given.
 */
#ifndef SONDE_RT_PERFRING_H
#define SONDE_RT_PERFRING_H

#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

/* The bytes of a PERF_SAMPLE_RAW payload kept in a parsed sample; longer ones are cut
 * (raw_len tells the full length). */
#define PERFRING_RAW_MAX 128

/* A mapped ring: the metadata page and the data area that follows it. */
struct perfring {
	struct perf_event_mmap_page *page;
	unsigned char *data;		/* data area, `size` bytes */
	uint64_t size;			/* a power of two */
	uint64_t sample_type;		/* attr.sample_type of every event writing here */
	uint64_t regs_user_mask;	/* attr.sample_regs_user (PERF_SAMPLE_REGS_USER) */
	uint64_t regs_intr_mask;	/* attr.sample_regs_intr (PERF_SAMPLE_REGS_INTR) */
};

/* One PERF_RECORD_SAMPLE, fields present according to sample_type (others are 0). */
struct perfring_sample {
	uint16_t misc;			/* header.misc (PERF_RECORD_MISC_*) */
	uint64_t id;			/* IDENTIFIER or ID */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	uint64_t callchain_nr;		/* entries in the record (not copied) */
	uint64_t weight;		/* WEIGHT, or WEIGHT_STRUCT's var1_dw */
	uint64_t data_src;		/* union perf_mem_data_src */
	uint64_t transaction;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size, code_page_size;
	uint32_t raw_len;		/* length of the RAW payload in the record */
	uint8_t raw[PERFRING_RAW_MAX];	/* its first min(raw_len, PERFRING_RAW_MAX) bytes */
};

/* What a drain saw. */
struct perfring_stats {
	uint64_t samples;	/* PERF_RECORD_SAMPLE parsed and handed on */
	uint64_t lost;		/* events the kernel reports lost (sum of PERF_RECORD_LOST.lost) */
	uint64_t other;		/* records of other types, skipped */
	uint64_t bad;		/* records shorter than their sample_type needs, skipped;
				 * or a corrupt header, after which the rest is discarded */
};

/*
 * Is every bit of sample_type one this reader can walk over?  PERF_SAMPLE_READ,
 * BRANCH_STACK, STACK_USER and AUX are not: their size depends on more of the attr than
 * struct perfring keeps (the parser, rt/perf-sample.h, knows them all).
 */
int perfring_sample_type_ok(uint64_t sample_type);

/*
 * Parse the sample record whose header starts at ring offset `pos` (any value: it is
 * taken modulo the size) and is `size` bytes long, with the shared parser
 * (perf_sample_parse()).  0, or -EINVAL if the record is shorter than its sample_type
 * needs (s is then partly filled).  Handler-safe.
 */
int perfring_parse_sample(const struct perfring *r, uint64_t pos, uint16_t size,
			  struct perfring_sample *s);

/* Called for each sample, in ring order.  It must be handler-safe when the drain is. */
typedef void (*perfring_fn)(void *arg, const struct perfring_sample *s);

/*
 * Consume every complete record between data_tail and data_head: samples go to fn,
 * LOST records are added to st->lost, other records are skipped.  data_tail is then
 * advanced past what was read (with the barriers the kernel ABI asks for).  A header of
 * size 0, not a multiple of 8, or larger than what is available, discards everything up
 * to data_head (counted once in st->bad): the ring cannot be trusted past it.
 * Returns the number of samples handed to fn.  Handler-safe (if fn is).
 */
int perfring_drain(struct perfring *r, perfring_fn fn, void *arg, struct perfring_stats *st);

/* ---- AMD IBS op raw records (PERF_SAMPLE_RAW of the ibs_op PMU) ---- */

/* Bits of the IBS op MSRs that the decoder reads (AMD PPR, MSRC001_1033..1037). */
#define IBS_OP_DATA_RIP_INVALID (1ull << 38)		/* IbsOpData: IbsRipInvalid */
#define IBS_OP_DATA3_LD_OP (1ull << 0)			/* IbsOpData3: IbsLdOp */
#define IBS_OP_DATA3_ST_OP (1ull << 1)			/* IbsStOp */
#define IBS_OP_DATA3_DC_MISS (1ull << 7)		/* IbsDcMiss */
#define IBS_OP_DATA3_LOCKED (1ull << 15)		/* IbsDcLockedOp */
#define IBS_OP_DATA3_LIN_ADDR_VALID (1ull << 17)	/* IbsDcLinAddrValid */
#define IBS_OP_DATA3_WIDTH_SHIFT 22			/* IbsOpMemWidth, 4 bits (Zen 4+) */
#define IBS_OP_DATA3_LAT_SHIFT 32			/* IbsDcMissLat, 16 bits */

/* Register order in the raw payload, after the 32-bit capability word. */
enum ibs_op_reg {
	IBS_REG_OP_CTL, IBS_REG_OP_RIP, IBS_REG_OP_DATA, IBS_REG_OP_DATA2,
	IBS_REG_OP_DATA3, IBS_REG_DC_LIN_AD, IBS_REG_DC_PHYS_AD, IBS_REG_OP_COUNT
};

struct ibs_op_access {
	uint64_t ip;		/* IbsOpRip, 0 if the hardware marked it invalid */
	uint64_t addr;		/* IbsDcLinAd */
	uint16_t len;		/* bytes, from IbsOpMemWidth; 0 when the CPU does not say */
	uint16_t store;		/* 1 if the op writes */
	uint16_t load;		/* 1 if the op reads */
	uint16_t miss;		/* 1 if it missed the L1 data cache */
	uint32_t latency;	/* IbsDcMissLat, cycles (0 unless a miss) */
};

/*
 * Decode an ibs_op raw payload (`raw`, `len` bytes: u32 caps, then u64 registers).
 * Returns 1 for a load or store with a valid linear address (a filled), 0 for an op that
 * is not a memory access or whose address is not valid, -EINVAL if the payload is too
 * short.  Handler-safe.
 */
int ibs_op_decode(const void *raw, size_t len, struct ibs_op_access *a);

#endif /* SONDE_RT_PERFRING_H */
