/* SPDX-License-Identifier: MIT */
/*
 * format.h - the on-disk contract between the runtime (src/rt) and the CLI (src/lib).
 *
 * This is the only place that defines what libsonde.so writes.  A recording is a
 * directory holding, per profiled process, files named by the process's PREFIX:
 * "<pid>" normally, "r<rank>.<pid>" under an MPI launcher (so ranks on several nodes
 * sharing one directory do not collide):
 *
 *   PREFIX.proc        text, one "key=value" a line, written at start, appended at exit;
 *                      keys: format, prefix, pid, ppid, rank, host, exe, argv (arguments
 *                      separated by \x1f), tool, source, source_why (why the wanted source
 *                      was not used), period, period_unit (ns|events|accesses), start_ns,
 *                      min_object, max_depth, cpus (the machine's configured CPUs),
 *                      tls_blocks (each module's block in a
 *                      thread's static TLS: "OFFSET SIZE PATH" from the header's tls_lo,
 *                      separated by \x1f, PATH empty for the executable); at exit: end_ns,
 *                      end (exit|signal), signo, threads.  Unknown keys are ignored by
 *                      readers; a later key wins.
 *   PREFIX.maps        copy of /proc/self/maps taken at exit (or at a fatal signal)
 *   PREFIX.maps.start  copy taken when the runtime started (used if the exit copy is missing)
 *   PREFIX.maps.closed the lines of /proc/self/maps of each library the program dlclose'd,
 *                      taken before (with the nameless mapping after them, its .bss): the
 *                      report adds those the exit copy does not overlap
 *   PREFIX-<tid>.sdt   per-thread binary stream: struct sonde_file_header, then records
 *                      (<tid> is k*100000000+tid when a thread id repeats in a process;
 *                      readers take the tid from the header)
 *
 * Every record begins with struct sonde_rec_hdr; `size` is the whole record size in
 * bytes, a multiple of 8, so a reader can skip record types it does not know.
 * All integers are in the byte order of the writer; `endian` tells which.
 * Readers accept every version from 1 to SONDE_FORMAT_VERSION and reject the rest.
 */
#ifndef SONDE_FORMAT_H
#define SONDE_FORMAT_H

#include <stdint.h>

#define SONDE_MAGIC "SONDEPRF"
#define SONDE_MAGIC_LEN 8
#define SONDE_FORMAT_VERSION 1
#define SONDE_ENDIAN_TAG 0x01020304u

/* Sample sources (struct sonde_file_header.source). */
enum sonde_source_id {
	SONDE_SOURCE_NONE = 0,
	SONDE_SOURCE_CLOCK = 1,
	SONDE_SOURCE_HW = 2,
	SONDE_SOURCE_INST = 3,
};

struct sonde_file_header {
	char magic[SONDE_MAGIC_LEN];	/* SONDE_MAGIC, not NUL-terminated */
	uint32_t version;		/* SONDE_FORMAT_VERSION */
	uint32_t header_size;		/* sizeof(struct sonde_file_header) when written */
	uint32_t endian;		/* SONDE_ENDIAN_TAG in the writer's byte order */
	uint32_t source;		/* enum sonde_source_id */
	uint64_t period;		/* ns of CPU time (clock), events (hw) or accesses (inst) */
	int32_t pid;
	int32_t tid;
	int32_t rank;			/* MPI rank, -1 when not under MPI */
	uint32_t thread_index;		/* 0 = main thread, then creation order in the process */
	uint64_t start_ns;		/* CLOCK_MONOTONIC when the thread started */
	uint64_t stack_lo, stack_hi;	/* the thread's stack, [lo, hi) */
	/* From here on, fields a header written before them lacks (header_size says so): a
	 * reader sees them as 0. */
	uint64_t tls_lo, tls_hi;	/* its static TLS and glibc's descriptor, [lo, hi);
					 * 0: unknown */
};

enum sonde_rec_type {
	SONDE_REC_CTX = 1,	/* a calling-context tree node */
	SONDE_REC_MEM = 2,	/* a memory-access sample */
	SONDE_REC_ALLOC = 3,	/* a tracked heap allocation */
	SONDE_REC_FREE = 4,	/* a tracked allocation freed */
	SONDE_REC_STATS = 5,	/* the thread's counters, written at thread end */
	SONDE_REC_END = 6,	/* the stream ends here (normal end or fatal signal) */
	SONDE_REC_TRAP = 7,	/* a watchpoint trap (tools built on watch.c) */
	SONDE_REC_OMP = 8,	/* the thread's OpenMP thread number, once known */
	/* Types from here on belong to the recording's tool (`tool` in PREFIX.proc): each
	 * tool declares its own in its folder (src/tools/<tool>/format.h); readers hand
	 * them to that tool and skip them otherwise. */
	SONDE_REC_TOOL = 64,
};

struct sonde_rec_hdr {
	uint16_t type;		/* enum sonde_rec_type */
	uint16_t size;		/* whole record, bytes, multiple of 8 */
	uint32_t reserved;
};

/*
 * A calling-context node.  Ids are per thread, 1-based, written before first use.
 * The root has id 1 and parent 0.  `ip` is the leaf PC for the node that ends a
 * sample's path and a return address for every caller frame.
 */
struct sonde_rec_ctx {
	struct sonde_rec_hdr h;
	uint32_t id;
	uint32_t parent;
	uint64_t ip;
};

#define SONDE_MEM_STORE 0x1	/* the access writes (else it reads) */
#define SONDE_MEM_RMW 0x2	/* the access reads and writes */
#define SONDE_MEM_PREDICTED 0x4	/* the address came from decoding ahead, not a step */

struct sonde_rec_mem {
	struct sonde_rec_hdr h;
	uint32_t ctx;		/* calling-context node of the access */
	uint16_t len;		/* bytes accessed */
	uint16_t flags;		/* SONDE_MEM_* */
	uint64_t ip;		/* the instruction that accessed memory */
	uint64_t addr;		/* effective address */
	uint64_t time;		/* CLOCK_MONOTONIC ns */
	uint64_t weight;	/* samples this record stands for (1, or a scaled count) */
};

#define SONDE_ALLOC_MMAP 0x1	/* from mmap rather than the malloc family */
/* Not a block: `addr` allocations of `size` bytes in all, made at `ctx` by this thread up to
 * `time`, each freed by it before any sample or trap of the process could see it (so no
 * record can fall in one).  The runtime counts such short-lived blocks instead of writing
 * an ALLOC and a FREE for each; readers add them to their site's counts and nothing else. */
#define SONDE_ALLOC_SUMMARY 0x2

struct sonde_rec_alloc {
	struct sonde_rec_hdr h;
	uint32_t ctx;		/* calling-context node of the allocation call */
	uint32_t flags;		/* SONDE_ALLOC_* */
	uint64_t addr;
	uint64_t size;
	uint64_t time;
};

struct sonde_rec_free {
	struct sonde_rec_hdr h;
	uint64_t addr;
	uint64_t time;
};

/* The thread's number in its top-level (level 1) OpenMP team, as the OpenMP runtime said it
 * at a sample (src/rt/omp.c): written when first known, and once more with
 * SONDE_OMP_VARIED when a later sample saw another number (a reader keeps the first). */
#define SONDE_OMP_VARIED 0x1

struct sonde_rec_omp {
	struct sonde_rec_hdr h;
	int32_t thread;		/* omp_get_thread_num() at level 1 */
	uint32_t flags;		/* SONDE_OMP_* */
	uint64_t time;		/* CLOCK_MONOTONIC ns */
};

struct sonde_rec_stats {
	struct sonde_rec_hdr h;
	uint64_t samples;	/* samples delivered to the tool */
	uint64_t dropped;	/* samples lost: runtime busy, arena full, no access found... */
	uint64_t signals;	/* sample signals received */
	uint64_t steps;		/* single-steps taken (clock source) */
	uint64_t traps;		/* watchpoint traps */
	uint64_t accesses;	/* accesses counted (inst source), else 0 */
	uint64_t cpu_ns;	/* thread CPU time at the end */
	uint64_t unwind_fail;	/* samples whose call path was cut short */
};

struct sonde_rec_end {
	struct sonde_rec_hdr h;
	int32_t signo;		/* 0 = normal thread or process end, else the fatal signal */
	uint32_t reserved;
	uint64_t time;
};

struct sonde_rec_trap {
	struct sonde_rec_hdr h;
	uint32_t ctx;
	uint16_t slot;
	uint16_t flags;
	uint64_t ip;
	uint64_t addr;
	uint64_t time;
};

#endif /* SONDE_FORMAT_H */
