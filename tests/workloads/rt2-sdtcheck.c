/* SPDX-License-Identifier: MIT */
/*
 * rt2-sdtcheck - an independent check of a recording's thread streams for t018/t019 (not
 * a workload: a second reader, written from include/sonde/format.h alone).
 *
 * usage: rt2-sdtcheck DIR
 * Prints one line:
 *   files=N empty=N corrupt=N alloc=N free=N free_unmatched=N alloc_live=N end=N counted=N
 * corrupt: a record whose size is 0, not a multiple of 8, or of a known type but the wrong
 * size (a trailing partial record, as a killed process leaves, is not counted).
 * free_unmatched: a FREE of an address no ALLOC of the same process made live;
 * alloc_live: an ALLOC of an address still live in that process (a FREE went missing).
 * end: streams that end with an END record.  counted: blocks the runtime counted instead
 * of recording (SONDE_ALLOC_SUMMARY records: allocated and freed unseen); not in alloc.  Exit status 0, or 1 if DIR cannot be read.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/sonde/format.h"

struct ev {
	uint64_t time, addr;
	int pid, is_free;
};

static struct ev *evs;
static size_t n_evs, cap_evs;
static long files, empty, corrupt, n_alloc, n_free, unmatched, alloc_live, ends, counted;

static void add_ev(int pid, uint64_t time, uint64_t addr, int is_free)
{
	if (n_evs == cap_evs) {
		cap_evs = cap_evs ? 2 * cap_evs : 1 << 16;
		evs = realloc(evs, cap_evs * sizeof(*evs));
		if (!evs)
			exit(1);
	}
	evs[n_evs++] = (struct ev){ time, addr, pid, is_free };
}

static size_t want_size(unsigned type)
{
	switch (type) {
	case SONDE_REC_CTX:
		return sizeof(struct sonde_rec_ctx);
	case SONDE_REC_MEM:
		return sizeof(struct sonde_rec_mem);
	case SONDE_REC_ALLOC:
		return sizeof(struct sonde_rec_alloc);
	case SONDE_REC_FREE:
		return sizeof(struct sonde_rec_free);
	case SONDE_REC_STATS:
		return sizeof(struct sonde_rec_stats);
	case SONDE_REC_END:
		return sizeof(struct sonde_rec_end);
	}
	return 0;
}

static void check_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc(n > 0 ? (size_t)n : 1);
	if (!b || fread(b, 1, (size_t)n, f) != (size_t)n)
		n = 0;
	fclose(f);
	files++;
	struct sonde_file_header h;
	if ((size_t)n < sizeof(h)) {
		empty++;
		free(b);
		return;
	}
	memcpy(&h, b, sizeof(h));
	if (memcmp(h.magic, SONDE_MAGIC, SONDE_MAGIC_LEN) || h.header_size < sizeof(h)) {
		corrupt++;
		free(b);
		return;
	}
	size_t off = h.header_size;
	int last = 0;
	while (off + sizeof(struct sonde_rec_hdr) <= (size_t)n) {
		struct sonde_rec_hdr rh;
		memcpy(&rh, b + off, sizeof(rh));
		size_t w = want_size(rh.type);
		if (rh.size == 0 || rh.size % 8 || (w && rh.size != w)) {
			corrupt++;
			break;
		}
		if (off + rh.size > (size_t)n)
			break;	/* a partial last record */
		last = rh.type;
		if (rh.type == SONDE_REC_ALLOC) {
			struct sonde_rec_alloc r;
			memcpy(&r, b + off, sizeof(r));
			if (r.flags & SONDE_ALLOC_SUMMARY) {
				counted += (long)r.addr;
			} else {
				add_ev(h.pid, r.time, r.addr, 0);
				n_alloc++;
			}
		} else if (rh.type == SONDE_REC_FREE) {
			struct sonde_rec_free r;
			memcpy(&r, b + off, sizeof(r));
			add_ev(h.pid, r.time, r.addr, 1);
			n_free++;
		}
		off += rh.size;
	}
	ends += last == SONDE_REC_END;
	free(b);
}

static int ev_cmp(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->is_free - y->is_free;
}

/* live addresses of one process: open addressing, big enough for this check's workloads */
#define LIVE_BITS 23
static uint64_t *live;

static uint64_t *slot(uint64_t a)
{
	uint64_t h = (a * 0x9e3779b97f4a7c15ull) >> (64 - LIVE_BITS);
	while (live[h] && live[h] != a && live[h] != ~a)
		h = (h + 1) & ((1u << LIVE_BITS) - 1);
	return &live[h];
}

static void replay(void)
{
	qsort(evs, n_evs, sizeof(*evs), ev_cmp);
	live = calloc((size_t)1 << LIVE_BITS, sizeof(*live));
	if (!live)
		exit(1);
	for (size_t i = 0; i < n_evs; i++) {
		if (i && evs[i].pid != evs[i - 1].pid)
			memset(live, 0, sizeof(*live) << LIVE_BITS);
		/* a freed slot holds ~addr (never an address), reused if addr comes back */
		uint64_t *s = slot(evs[i].addr);
		if (evs[i].is_free) {
			if (*s == evs[i].addr)
				*s = ~evs[i].addr;
			else
				unmatched++;
		} else {
			if (*s == evs[i].addr)
				alloc_live++;
			*s = evs[i].addr;
		}
	}
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return fprintf(stderr, "usage: rt2-sdtcheck DIR\n"), 2;
	DIR *d = opendir(argv[1]);
	if (!d)
		return perror(argv[1]), 1;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 4 || strcmp(e->d_name + n - 4, ".sdt"))
			continue;
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", argv[1], e->d_name);
		check_file(path);
	}
	closedir(d);
	replay();
	printf("files=%ld empty=%ld corrupt=%ld alloc=%ld free=%ld free_unmatched=%ld "
	       "alloc_live=%ld end=%ld counted=%ld\n",
	       files, empty, corrupt, n_alloc, n_free, unmatched, alloc_live, ends, counted);
	return 0;
}
