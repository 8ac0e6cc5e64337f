/* SPDX-License-Identifier: MIT */
/*
 * u-rt-fds - the registry of the runtime's descriptors (rt/core.c): a number the program
 * took over (dup2 onto it) is not handed out again while its old holder in the runtime
 * keeps it, so the old holder's bit test cannot pass on another descriptor of the
 * runtime's; a take-over that did not happen (the dup2 failed) gives the number back.
 */
#include <errno.h>
#include <fcntl.h>
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

int main(void)
{
	RUN(a_lost_number_is_not_reused_until_its_holder_lets_go);
	RUN(a_failed_take_over_gives_the_number_back);
	return CHECK_DONE();
}
