/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof/file.h"

int file_open_regular(const char *path, struct stat *sb)
{
	struct stat st;
	int fd, e;

	/* stat() first: a device is never opened, since opening it may act on it */
	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return FILE_NOT_REGULAR;
	/* O_NONBLOCK: if a FIFO replaced the file since, open() must not wait for a writer */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		e = -errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		e = FILE_NOT_REGULAR;
		goto fail;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		e = -errno;
		goto fail;
	}
	if (sb)
		*sb = st;
	return fd;
fail:
	close(fd);
	return e;
}

FILE *file_fopen_regular(const char *path, int *err)
{
	int fd = file_open_regular(path, NULL);
	FILE *f = NULL;

	if (fd >= 0 && !(f = fdopen(fd, "re"))) {
		int e = errno;
		close(fd);
		fd = -e;
	}
	if (err)
		*err = f ? 0 : fd;
	return f;
}

const char *file_strerror(int err)
{
	return err == FILE_NOT_REGULAR ? "not a regular file" : strerror(-err);
}

int file_is_fortran_source(const char *path)
{
	static const char *const ext[] = { ".f", ".F", ".f77", ".F77", ".for", ".FOR", ".ftn",
					   ".f90", ".F90", ".f95", ".F95", ".f03", ".F03",
					   ".f08", ".F08" };
	const char *dot = path ? strrchr(path, '.') : NULL;
	for (size_t i = 0; dot && i < sizeof(ext) / sizeof(ext[0]); i++)
		if (!strcmp(dot, ext[i]))
			return 1;
	return 0;
}

int file_source_line(const char *path, int line, char *buf, size_t len)
{
	int err = 0;
	if (!path || line <= 0 || !len)
		return -EINVAL;
	FILE *f = file_fopen_regular(path, &err);
	if (!f)
		return err;
	char *l = NULL;
	size_t cap = 0;
	ssize_t n = -1;
	for (int i = 0; i < line && (n = getline(&l, &cap, f)) >= 0; i++)
		;
	fclose(f);
	if (n < 0) {
		free(l);
		return -ENOENT;
	}
	l[strcspn(l, "\r\n")] = 0;
	snprintf(buf, len, "%s", l);
	free(l);
	return 0;
}
