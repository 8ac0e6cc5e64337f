/* SPDX-License-Identifier: MIT */
/*
 * out.c - the per-thread record writer.  Records go to a buffer; when it fills, the
 * buffer is appended to the thread's file with open/write/close, all async-signal-safe,
 * so a thread holds no file descriptor between flushes (1,000 live threads need none).
 * For the length of a write the descriptor is one of the runtime's (rt_hide_fd: high up,
 * registered): the program's close_range leaves it, and a dup2 of the program's onto its
 * number is seen before each write, which then does not happen rather than go into the
 * program's file: the flush fails, and that thread's records stop there (a gap the
 * report shows as a stream cut short).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>	/* rename */
#include <string.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "rt/rt.h"
#include "rt/sigsafe.h"
#include "rt/thread.h"

/*
 * Open path as one of the runtime's descriptors (*hidden 1); without room up there (a
 * program near its RLIMIT_NOFILE) on the lowest free number, as before (*hidden 0).
 * fd, or -errno.
 */
static SIGSAFE int open_hidden(const char *path, int flags, mode_t mode, int *hidden)
{
	int fd = open(path, flags | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	int h = rt_hide_fd(fd);
	*hidden = h >= 0;
	if (h >= 0)
		return h;
	fd = open(path, flags | O_CLOEXEC, mode);
	return fd < 0 ? -errno : fd;
}

/* rt_close_fd leaves the number alone if the program dup2'd onto it (its file now). */
static SIGSAFE void close_hidden(int fd, int hidden)
{
	if (hidden)
		rt_close_fd(fd);
	else
		close(fd);
}

static SIGSAFE int write_all(int fd, int hidden, const char *p, size_t n)
{
	while (n) {
		/* hidden: not if the program dup2'd onto the number (its file, not ours to
		 * write; rt_fd_write refuses it) */
		ssize_t w = hidden ? rt_fd_write(fd, p, n) : write(fd, p, n);
		if (w < 0 && !hidden)
			w = -errno;
		if (w < 0) {
			if (w == -EINTR)
				continue;
			return (int)w;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * The file appears under its name only once its header is in it: a process that ends
 * (exit, a kill) while a thread is starting must not leave an empty stream, which the
 * reader rejects along with the whole recording.  And an existing file is never replaced:
 * a thread id the kernel gives again later in the same process (ids wrap at pid_max, 32768
 * here) would erase the earlier thread's stream.  -EEXIST then; the caller picks a name.
 */
static int create_with_header(const char *path, const struct sonde_file_header *hdr, char *tmp)
{
	size_t n = strlen(path);
	memcpy(tmp, path, n);
	memcpy(tmp + n, ".tmp", 5);
	int hidden;
	int fd = open_hidden(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644, &hidden);
	if (fd < 0)
		return fd;
	int r = write_all(fd, hidden, (const char *)hdr, sizeof(*hdr));
	close_hidden(fd, hidden);
	if (r == 0 && link(tmp, path) < 0) {
		r = -errno;
		/* a file system without hard links: the name appears complete all the same */
		if (r != -EEXIST && access(path, F_OK) < 0 && rename(tmp, path) == 0)
			return 0;
	}
	unlink(tmp);
	return r;
}

/*
 * The buffer starts at the size asked for and, from its OUT_GROW_AFTER-th flush on,
 * doubles at each flush up to OUT_GROW_MAX: a thread that writes little keeps a small
 * buffer (16 KB: its pages are what a thread costs), one that writes much opens its file
 * once per 256 KB, not once per 16 KB (the review: 360 MB of records took 22156 openat
 * against 1487 with 256 KB).  The whole 256 KB is mapped at start, so that growing in a
 * flush (in a signal handler) is a store, not an mmap; pages not yet used cost address
 * space only.  Doubling from the first flush on, commbench's workers under `sonde comm`
 * (34-59 KB of records each) touched 32 KB of buffer each, all resident at once at the
 * end of the run, the process's peak: 28 pages of the 5 threads' buffers (perf record -e
 * minor-faults, 2026-11-26); now 16 KB each, for one or two more opens a thread.
 */
#define OUT_GROW_MAX (256u << 10)
#define OUT_GROW_AFTER 4

/*
 * The name is kept at the start of the buffer's mapping, whose first page the records use
 * anyway, and the temporary name is made right after it: the thread's record was 8 KB
 * with a PATH_MAX array in it, and two more names of PATH_MAX on the thread's stack took
 * pages that the program's own frames may never reach (4 + 8 KB a thread: bench/memory.sh).
 */
int out_init(struct out *o, const char *stem, const char *suffix,
	     const struct sonde_file_header *hdr, size_t size)
{
	size_t a = strlen(stem), b = strlen(suffix);
	size_t room = (a + b + 1 + 63) & ~(size_t)63;	/* the name, records 64-byte aligned */
	if (a + b >= PATH_MAX)
		return -ENAMETOOLONG;
	if (size < room + a + b + 8 || size - room < 1024)
		return -EINVAL;
	size_t start = size;

	size = size < OUT_GROW_MAX ? OUT_GROW_MAX : size;
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	memcpy(p, stem, a);
	memcpy(p + a, suffix, b + 1);
	int r = create_with_header(p, hdr, p + room);
	if (r < 0) {
		munmap(p, size);
		return r;
	}
	o->map = p;
	o->map_size = size;
	o->path = p;
	o->buf = p + room;
	o->size = start - room;
	o->used = 0;
	o->failed = 0;
	o->lost = 0;
	o->nrec = 0;
	o->flushes = 0;
	return 0;
}

/*
 * The records never fill the disk nor pass SONDE_MAX_SIZE.  A flush that would leave the
 * output's file system with less than OUT_RESERVE_MIN or 1% of its size free, or take the
 * process's records past the cap, is not written: the thread's stream stops there (its
 * later records are counted lost, so reports say how many samples were dropped), and the
 * process's .proc notes why, once, for the command to say (cmd/record.c).  A program that
 * writes files of its own keeps the room it had.
 */
#define OUT_RESERVE_MIN (64ull << 20)

static uint64_t out_written;	/* bytes of records this process flushed */
static int out_stopped;

static SIGSAFE int out_room(int fd, size_t n)
{
	struct statfs v;	/* fstatfs: a plain system call (fstatvfs may read /proc/mounts) */
	uint64_t cap = rt_cfg.max_size;
	const char *why = NULL;

	if (cap && __atomic_load_n(&out_written, __ATOMIC_RELAXED) + n > cap) {
		why = "size";
	} else if (fstatfs(fd, &v) == 0 && v.f_bsize > 0) {
		uint64_t avail = (uint64_t)v.f_bavail * (uint64_t)v.f_bsize;
		uint64_t reserve = (uint64_t)v.f_blocks * (uint64_t)v.f_bsize / 100;
		if (reserve < OUT_RESERVE_MIN)
			reserve = OUT_RESERVE_MIN;
		if (avail < reserve + n)
			why = "disk";
	}
	if (!why)
		return 1;
	if (__sync_bool_compare_and_swap(&out_stopped, 0, 1)) {
		rt_proc_append("records_stopped", why);
		rt_proc_append_u64("records_stopped_at", __atomic_load_n(&out_written,
									__ATOMIC_RELAXED));
	}
	return 0;
}

void out_after_fork_child(void)
{
	out_written = 0;
	out_stopped = 0;
}

static SIGSAFE int flush(struct out *o, int final)
{
	if (!o->buf || !o->used)
		return 0;
	int hidden = 0;
	int fd = open_hidden(o->path, O_WRONLY | O_APPEND, 0, &hidden);
	int r = fd < 0 ? fd : !final && !out_room(fd, o->used) ? -ENOSPC :
		write_all(fd, hidden, o->buf, o->used);
	if (fd >= 0)
		close_hidden(fd, hidden);
	if (r) {
		o->failed = 1;
		o->lost += o->nrec;
	} else {
		__atomic_fetch_add(&out_written, o->used, __ATOMIC_RELAXED);
	}
	o->used = 0;
	o->nrec = 0;
	o->flushed_at = rt_now();
	/* the next fill twice as long, up to the mapping's end (OUT_GROW_MAX), once the
	 * thread has shown that it writes much */
	size_t max = o->map_size - (size_t)(o->buf - (char *)o->map);
	if (++o->flushes >= OUT_GROW_AFTER)
		o->size = o->size * 2 < max ? o->size * 2 : max;
	return r;
}

SIGSAFE int out_flush(struct out *o)
{
	return flush(o, 0);
}

SIGSAFE int out_flush_final(struct out *o)
{
	return flush(o, 1);
}

SIGSAFE int out_append(struct out *o, const void *rec, size_t size)
{
	if (!o->buf || o->failed || size > o->size) {
		o->lost++;
		return -EIO;
	}
	if (o->used + size > o->size && out_flush(o)) {
		o->lost++;
		return -EIO;
	}
	memcpy(o->buf + o->used, rec, size);
	o->used += size;
	o->nrec++;
	return 0;
}

void out_release(struct out *o)
{
	if (o->map)
		munmap(o->map, o->map_size);
	o->map = o->buf = o->path = NULL;
}
