/* SPDX-License-Identifier: MIT */
/*
 * u-rt-fds - the registry of the runtime's descriptors (rt/core.c): a number the program
 * took over (dup2 onto it) is not handed out again while its old holder in the runtime
 * keeps it, so the old holder's bit test cannot pass on another descriptor of the
 * runtime's; a take-over that did not happen (the dup2 failed) gives the number back;
 * the runtime's ioctl, read and write on a number the program took over leave the
 * program's file alone (rt_fd_ioctl, rt_fd_read, rt_fd_write).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "rt/rt.h"

static int null_fd(void)
{
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

TEST(a_lost_number_is_not_reused_until_its_holder_lets_go)
{
	int n = rt_hide_fd(null_fd());
	if (n < 0)
		SKIP("no descriptor free in the runtime's range");
	CHECK(rt_fd_mine(n));
	uint64_t lost = rt_fds_lost;
	/* the program dup2's onto n (interpose.c: rt_fd_lose, then the call) ... */
	CHECK(rt_fd_lose(n) == 1);
	CHECK(!rt_fd_mine(n));
	CHECK(rt_fds_lost == lost + 1);
	int prog = null_fd();
	CHECK(syscall(SYS_dup2, prog, n) == n);
	/* ... then closes it: n is free in the table, but its old holder still holds it */
	CHECK(syscall(SYS_close, n) == 0);
	int m = rt_hide_fd(null_fd());
	CHECK(m >= 0 && m != n);
	/* the old holder lets go: no system call (m stays open), and n may be used again */
	CHECK(rt_close_fd(n) == -EBADF);
	CHECK(fcntl(m, F_GETFD) >= 0);
	int k = rt_hide_fd(null_fd());
	CHECK(k == n);
	CHECK(rt_close_fd(k) == 0 && rt_close_fd(m) == 0);
	close(prog);
}

TEST(a_failed_take_over_gives_the_number_back)
{
	int n = rt_hide_fd(null_fd());
	if (n < 0)
		SKIP("no descriptor free in the runtime's range");
	uint64_t lost = rt_fds_lost;
	CHECK(rt_fd_lose(n) == 1);
	rt_fd_unlose(n);
	CHECK(rt_fd_mine(n));
	CHECK(rt_fds_lost == lost);
	CHECK(rt_close_fd(n) == 0);
	CHECK(fcntl(n, F_GETFD) < 0);
}

/* The runtime's own pipe: its ends, hidden, are read and written through the wrappers. */
TEST(the_wrappers_pass_the_runtimes_own_calls)
{
	int p[2];
	CHECK(pipe2(p, O_CLOEXEC) == 0);
	int r = rt_hide_fd(p[0]), w = rt_hide_fd(p[1]);
	if (r < 0 || w < 0)
		SKIP("no descriptor free in the runtime's range");
	char c = 0;
	int avail = -1;
	CHECK(rt_fd_write(w, "ab", 2) == 2);
	CHECK(rt_fd_ioctl(r, FIONREAD, (unsigned long)&avail) == 0 && avail == 2);
	CHECK(rt_fd_read(r, &c, 1) == 1 && c == 'a');
	/* the call's own error comes back as -errno: a pipe knows no such request */
	CHECK(rt_fd_ioctl(r, TCGETS, 0) == -ENOTTY);
	CHECK(rt_close_fd(r) == 0 && rt_close_fd(w) == 0);
}

/* The program dup2's its pipe onto the runtime's numbers: the runtime's calls there are
 * refused (-EBADF) and the program's bytes stay where they were. */
TEST(the_wrappers_leave_a_taken_number_alone)
{
	int r = rt_hide_fd(null_fd()), w = rt_hide_fd(null_fd());
	if (r < 0 || w < 0)
		SKIP("no descriptor free in the runtime's range");
	int p[2];
	CHECK(pipe2(p, O_CLOEXEC) == 0);
	CHECK(rt_fd_lose(r) == 1 && rt_fd_lose(w) == 1);
	CHECK(syscall(SYS_dup2, p[0], r) == r && syscall(SYS_dup2, p[1], w) == w);
	CHECK(write(w, "x", 1) == 1);
	char c = 0;
	int avail = -1;
	CHECK(rt_fd_write(w, "yz", 2) == -EBADF);
	CHECK(rt_fd_read(r, &c, 1) == -EBADF && c == 0);
	CHECK(rt_fd_ioctl(r, FIONREAD, (unsigned long)&avail) == -EBADF && avail == -1);
	/* the program's pipe holds its one byte, and only that */
	CHECK(ioctl(p[0], FIONREAD, &avail) == 0 && avail == 1);
	CHECK(read(p[0], &c, 1) == 1 && c == 'x');
	/* numbers the runtime never had, and none */
	CHECK(rt_fd_ioctl(-1, FIONREAD, (unsigned long)&avail) == -EBADF);
	CHECK(rt_fd_read(p[0], &c, 1) == -EBADF);
	CHECK(rt_close_fd(r) == -EBADF && rt_close_fd(w) == -EBADF);
	close(r);
	close(w);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	RUN(a_lost_number_is_not_reused_until_its_holder_lets_go);
	RUN(a_failed_take_over_gives_the_number_back);
	RUN(the_wrappers_pass_the_runtimes_own_calls);
	RUN(the_wrappers_leave_a_taken_number_alone);
	return CHECK_DONE();
}
