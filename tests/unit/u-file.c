/* SPDX-License-Identifier: MIT */
/*
 * u-file - prof/file.h: only a regular file is opened, in blocking mode, and nothing else
 * (a FIFO with no writer, a directory, a device) blocks or is opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "prof/file.h"

static char path[300];

static const char *at(const char *name)
{
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return path;
}

TEST(regular)
{
	FILE *w = fopen(at("f"), "w");
	CHECK(w && fputs("key=value\n", w) >= 0 && !fclose(w));
	struct stat sb;
	int fd = file_open_regular(at("f"), &sb);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(S_ISREG(sb.st_mode) && sb.st_size == 10);
	/* the caller reads it as any file: the O_NONBLOCK that guarded the open is gone */
	CHECK(!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);

	int e = 1;
	char line[32];
	FILE *f = file_fopen_regular(at("f"), &e);
	CHECK(f && e == 0);
	CHECK(f && fgets(line, sizeof(line), f) && !strcmp(line, "key=value\n"));
	if (f)
		fclose(f);
}

TEST(not_regular)
{
	/* a FIFO with no writer: a blocking open waits for ever (the alarm ends the test) */
	CHECK(!mkfifo(at("fifo"), 0600));
	CHECK(file_open_regular(at("fifo"), NULL) == -EINVAL);
	int e = 0;
	CHECK(!file_fopen_regular(at("fifo"), &e) && e == -EINVAL);
	CHECK(!mkdir(at("dir"), 0700));
	CHECK(file_open_regular(at("dir"), NULL) == -EINVAL);
	CHECK(file_open_regular("/dev/null", NULL) == -EINVAL);
	CHECK(file_open_regular(at("missing"), NULL) == -ENOENT);
	CHECK(!file_fopen_regular(at("missing"), &e) && e == -ENOENT);
}

/* The words every reader's message uses (t086, t020 quote them). */
TEST(strerror)
{
	CHECK(FILE_NOT_REGULAR == -EINVAL);
	CHECK_STR(file_strerror(FILE_NOT_REGULAR), "not a regular file");
	CHECK_STR(file_strerror(-ENOENT), "No such file or directory");
}

int main(void)
{
	alarm(20);
	check_mktmp("u-file");
	RUN(regular);
	RUN(not_regular);
	RUN(strerror);
	check_rmtmp();
	return CHECK_DONE();
}
