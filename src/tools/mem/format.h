/* SPDX-License-Identifier: MIT */
/*
 * format.h - the mem tool's own records in a recording (types from SONDE_REC_TOOL), written
 * by rt-mem.c, read by model.c.  Part of the on-disk contract: append only.
 */
#ifndef SONDE_TOOLS_MEM_FORMAT_H
#define SONDE_TOOLS_MEM_FORMAT_H

#include <stdint.h>

#include "sonde/format.h"

enum mem_rec_type {
	MEM_REC_DROPS = SONDE_REC_TOOL + 0,	/* a thread's dropped samples by cause, at its end */
};

#define MEM_DROP_NAME 16		/* a cause's name, NUL-padded */
#define MEM_DROP_MAX 24			/* causes in one record at most */

struct mem_drop {
	char name[MEM_DROP_NAME];	/* "busy", "in-step", "far", ... (the sample source's
					 * causes, then "unwritten": records the writer lost) */
	uint64_t count;
};

/* The record is followed by n struct mem_drop (h.size = sizeof + n * sizeof(mem_drop)). */
struct mem_rec_drops {
	struct sonde_rec_hdr h;
	uint32_t n;
	uint32_t reserved;
};

#endif
