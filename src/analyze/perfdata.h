/* SPDX-License-Identifier: MIT */
/*
 * perfdata.h - a reader of Linux perf.data files (file and pipe mode), in C, no shelling out.
 *
 * The whole input is mapped (a regular file) or read into memory (a pipe), then walked record
 * by record with perfdata_next().  Attributes, event names and header features are parsed up
 * front in file mode and as their records arrive in pipe mode.  COMPRESSED records (zstd) are
 * decompressed and their inner records returned in order, as perf does.
 *
 * Samples (and the sample_id trailer of other records) are parsed by the runtime's
 * handler-safe layout parser, rt/perf-sample.h, the one the profiler's ring reader uses.
 *
 * Every length is checked against the bytes that hold it: a truncated or corrupt input gives
 * -EINVAL and a one-line reason naming the file offset (perfdata_error()), never a crash or a
 * loop.  Records of unknown types are skipped and counted.
 *
 * Ownership: everything returned (attrs, names, records, samples, feature strings) points into
 * the reader and lives until perfdata_free(); a record's payload and parsed sample live only
 * until the next perfdata_next().  Not thread-safe; never for a signal handler.
 */
#ifndef SONDE_LIB_PERFDATA_H
#define SONDE_LIB_PERFDATA_H

#include <stddef.h>
#include <stdint.h>

/* Record types: the kernel's (1..), then perf's user records (64..). */
enum {
	PD_MMAP = 1, PD_LOST = 2, PD_COMM = 3, PD_EXIT = 4, PD_THROTTLE = 5, PD_UNTHROTTLE = 6,
	PD_FORK = 7, PD_READ = 8, PD_SAMPLE = 9, PD_MMAP2 = 10, PD_AUX = 11, PD_ITRACE_START = 12,
	PD_LOST_SAMPLES = 13, PD_SWITCH = 14, PD_SWITCH_CPU_WIDE = 15, PD_NAMESPACES = 16,
	PD_KSYMBOL = 17, PD_BPF_EVENT = 18, PD_CGROUP = 19, PD_TEXT_POKE = 20,
	PD_AUX_OUTPUT_HW_ID = 21,
	PD_HEADER_ATTR = 64, PD_HEADER_EVENT_TYPE = 65, PD_HEADER_TRACING_DATA = 66,
	PD_HEADER_BUILD_ID = 67, PD_FINISHED_ROUND = 68, PD_ID_INDEX = 69, PD_AUXTRACE_INFO = 70,
	PD_AUXTRACE = 71, PD_AUXTRACE_ERROR = 72, PD_THREAD_MAP = 73, PD_CPU_MAP = 74,
	PD_STAT_CONFIG = 75, PD_STAT = 76, PD_STAT_ROUND = 77, PD_EVENT_UPDATE = 78,
	PD_TIME_CONV = 79, PD_HEADER_FEATURE = 80, PD_COMPRESSED = 81, PD_FINISHED_INIT = 82,
	PD_COMPRESSED2 = 83,
	PD_NTYPES = 84,
};

/* Header feature bits (perf's HEADER_*). */
enum {
	PD_FEAT_TRACING_DATA = 1, PD_FEAT_BUILD_ID = 2, PD_FEAT_HOSTNAME = 3,
	PD_FEAT_OSRELEASE = 4, PD_FEAT_VERSION = 5, PD_FEAT_ARCH = 6, PD_FEAT_NRCPUS = 7,
	PD_FEAT_CPUDESC = 8, PD_FEAT_CPUID = 9, PD_FEAT_TOTAL_MEM = 10, PD_FEAT_CMDLINE = 11,
	PD_FEAT_EVENT_DESC = 12, PD_FEAT_CPU_TOPOLOGY = 13, PD_FEAT_NUMA_TOPOLOGY = 14,
	PD_FEAT_BRANCH_STACK = 15, PD_FEAT_PMU_MAPPINGS = 16, PD_FEAT_GROUP_DESC = 17,
	PD_FEAT_COMPRESSED = 27, PD_FEAT_MAX = 256,
};

/* Bits of attr.read_format and attr.branch_sample_type the reader interprets. */
#define PD_FMT_ENABLED 1u
#define PD_FMT_RUNNING 2u
#define PD_FMT_ID 4u
#define PD_FMT_GROUP 8u
#define PD_FMT_LOST 16u
#define PD_BRANCH_HW_INDEX (1ull << 17)
#define PD_BRANCH_COUNTERS (1ull << 19)

/* An event as recorded: the parts of perf_event_attr the analysis needs. */
struct pd_attr {
	uint32_t type, size;
	uint64_t config, config1, config2;
	uint64_t period;		/* sample_period, or sample_freq when freq */
	uint64_t sample_type, read_format, flags;	/* flags: the attr bitfield word */
	uint64_t branch_sample_type, regs_user, regs_intr;
	uint32_t stack_user;
	int freq, sample_id_all, precise_ip;
	int exclude_user, exclude_kernel, exclude_hv, exclude_host, exclude_guest;
	char *name;			/* from EVENT_DESC / EVENT_UPDATE, else made up as perf does */
	uint64_t *ids;
	size_t nids;
	/* Filled by the reader while walking: */
	uint64_t nsamples, nlost_samples;
	int group_leader;		/* index of the group leader (GROUP_DESC), itself if none */
};

struct pd_branch {
	uint64_t from, to, flags;	/* flags bit 0 mispred, bit 1 predicted, ... (kernel's) */
};

struct pd_read_value {
	uint64_t value, id, lost;
};

/* A parsed PERF_RECORD_SAMPLE (and the sample_id trailer of other records). */
struct pd_sample {
	int attr;			/* index into the reader's attrs; -1 if unknown */
	uint64_t present;		/* the sample_type bits that were parsed */
	uint64_t ip, time, addr, id, stream_id, period, weight, data_src, transaction;
	uint64_t phys_addr, cgroup, data_page_size, code_page_size;
	uint32_t pid, tid, cpu;
	/* READ: time_enabled/running and nr values (1 unless GROUP). */
	uint64_t time_enabled, time_running;
	size_t nread;
	const uint8_t *read_values;	/* nread entries of read_stride bytes: value [id] [lost] */
	size_t read_stride;
	uint8_t read_single[24];	/* the single (non-group) entry, gathered: read_values may
					 * point here, so use a pd_sample where it was decoded,
					 * not a copy */
	size_t nchain;
	const uint64_t *chain;		/* unaligned-safe: use pd_u64() */
	uint32_t raw_size;
	const uint8_t *raw;
	size_t nbranch;
	uint64_t branch_hw_idx;		/* ~0 when not recorded */
	const uint8_t *branches;	/* nbranch entries of 24 bytes: use pd_branch_at() */
	uint64_t regs_user_abi, regs_intr_abi;
	const uint8_t *regs_user, *regs_intr;
	uint64_t stack_size, stack_dyn_size;
	const uint8_t *stack;
};

/* A record as returned by perfdata_next(). */
struct pd_record {
	uint32_t type;
	uint16_t misc, size;
	uint64_t offset;		/* in the file; for records inside COMPRESSED, its offset */
	const uint8_t *data;		/* the whole record, header included, size bytes */
	int stable;			/* data lives until perfdata_free() (not decompressed) */
	int has_sample;			/* sample parsed (SAMPLE, or any record with sample_id_all) */
	struct pd_sample s;
	/* Decoded bodies of the side-band records the analysis follows: */
	uint32_t pid, tid, ppid, ptid;	/* MMAP*, COMM, FORK, EXIT, READ */
	uint64_t start, len, pgoff;	/* MMAP* */
	uint32_t prot;			/* MMAP2 */
	const char *filename;		/* MMAP*; COMM: the name; bounded by the record */
	uint64_t lost;			/* LOST, LOST_SAMPLES */
	/* READ record: the values, as in a sample's READ part. */
	uint64_t time_enabled, time_running;
	size_t nread;
	const uint8_t *read_values;
	size_t read_stride;
	uint8_t read_single[24];
	int read_attr;
};

struct pd_features {
	uint64_t present[PD_FEAT_MAX / 64];
	char *hostname, *osrelease, *version, *arch, *cpudesc, *cpuid;
	uint32_t nr_cpus_avail, nr_cpus_online;
	uint64_t total_mem;
	char **cmdline;
	size_t ncmdline;
	char **groups;			/* GROUP_DESC names ("{a,b}"), ngroups of them */
	size_t ngroups;
	size_t nbuild_ids;
	char **sibling_cores, **sibling_threads;	/* CPU_TOPOLOGY */
	size_t nsibling_cores, nsibling_threads;
};

struct perfdata;

struct pd_stats {
	uint64_t records[PD_NTYPES];	/* by record type (COMPRESSED and their inner ones) */
	uint64_t unknown;		/* records of types the reader does not know, skipped */
	uint64_t total;
	uint64_t lost_events;		/* sum of LOST.lost */
	uint64_t unknown_id_samples;	/* samples whose id names no attr */
};

/*
 * Open path ("-" = stdin) and parse the header, attrs and features (file mode), or the pipe
 * header (pipe mode).  NULL on error with *err = -errno and the reason in errbuf:
 * -ENOENT/-EACCES cannot open, -EINVAL not a perf.data file or corrupt (offset named).
 */
struct perfdata *perfdata_open(const char *path, int *err, char *errbuf, size_t errlen);

/* Same, on a buffer the caller keeps alive until perfdata_free() (the fuzzer uses this). */
struct perfdata *perfdata_open_mem(const void *buf, size_t len, int *err, char *errbuf,
				   size_t errlen);

/*
 * The next record: 1 and *rec filled, 0 at the end, -EINVAL on corrupt input (reason in
 * perfdata_error(), naming the offset; the reader then stays at the end).  Unknown record
 * types are skipped silently (counted in stats.unknown).
 */
int perfdata_next(struct perfdata *pd, struct pd_record *rec);

/*
 * Decode again a kernel record (type < 64) whose len bytes the caller copied from a record
 * perfdata_next() returned (to process records in time order): fills *rec, pointing into
 * rec, without counting it in the stats.  0 or -EINVAL.
 */
int perfdata_decode(struct perfdata *pd, const uint8_t *rec, size_t len, uint64_t offset,
		    struct pd_record *r);

/*
 * The caller needs no byte before offset any more (every record it kept starts at or after
 * it): the pages of a mapped file before it are given back to the kernel, which keeps the
 * reader's memory to a window of the file.  Touching them again reads them again.
 */
void perfdata_release(struct perfdata *pd, uint64_t offset);

/* Walk every record to the end, only counting.  0 or -EINVAL as perfdata_next(). */
int perfdata_scan(struct perfdata *pd);

const char *perfdata_error(const struct perfdata *pd);
int perfdata_is_pipe(const struct perfdata *pd);
size_t perfdata_nattrs(const struct perfdata *pd);
struct pd_attr *perfdata_attr(struct perfdata *pd, size_t i);
/* The attr index for a sample id, -1 if none. */
int perfdata_attr_of_id(const struct perfdata *pd, uint64_t id);
const struct pd_features *perfdata_features(const struct perfdata *pd);
const struct pd_stats *perfdata_stats(const struct perfdata *pd);
/* perf's name of a record type ("MMAP", "SAMPLE", ...), NULL if unknown. */
const char *perfdata_type_name(uint32_t type);
/* The size of perf.data input, and whether the stream ended cleanly so far. */
uint64_t perfdata_size(const struct perfdata *pd);
void perfdata_free(struct perfdata *pd);

static inline uint64_t pd_u64(const void *p)
{
	uint64_t v;
	__builtin_memcpy(&v, p, 8);
	return v;
}

static inline uint64_t pd_chain_at(const struct pd_sample *s, size_t i)
{
	return pd_u64((const uint8_t *)s->chain + 8 * i);
}

static inline struct pd_branch pd_branch_at(const struct pd_sample *s, size_t i)
{
	struct pd_branch b;
	__builtin_memcpy(&b, s->branches + 24 * i, 24);
	return b;
}

/* i-th value of a READ part (value, id, lost). */
struct pd_read_value pd_read_at(const uint8_t *values, size_t stride, uint64_t read_format,
				size_t i);

/* Callchain context markers (PERF_CONTEXT_*): entries >= this are not addresses. */
#define PD_CONTEXT_MAX ((uint64_t)-4095)
#define PD_CONTEXT_KERNEL ((uint64_t)-128)
#define PD_CONTEXT_USER ((uint64_t)-512)

#endif
