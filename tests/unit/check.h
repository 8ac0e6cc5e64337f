/* SPDX-License-Identifier: MIT */
/*
 * check.h - the unit-test harness.  Each u-*.c is one program; each CHECK prints nothing
 * when true, and "FAIL <test>: <file>:<line>: <expr>" when false.  TEST(name) { ... }
 * defines a test; RUN(name) runs it and prints "PASS name" / "FAIL name" / "SKIP name: why".
 * tests/run.sh counts those lines.
 */
#ifndef SONDE_TEST_CHECK_H
#define SONDE_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failed_;
static const char *check_skip_;
static int check_total_failed_;

#define TEST(name) static void test_##name(void)

#define CHECK(expr)                                                                      \
	do {                                                                             \
		if (!(expr)) {                                                           \
			printf("  %s:%d: check failed: %s\n", __FILE__, __LINE__, #expr); \
			check_failed_ = 1;                                               \
		}                                                                        \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                              \
	do {                                                                            \
		unsigned long long a_ = (unsigned long long)(a);                        \
		unsigned long long b_ = (unsigned long long)(b);                        \
		if (a_ != b_) {                                                         \
			printf("  %s:%d: %s == %s: 0x%llx != 0x%llx\n", __FILE__, __LINE__, \
			       #a, #b, a_, b_);                                         \
			check_failed_ = 1;                                              \
		}                                                                       \
	} while (0)

#define CHECK_STR(a, b)                                                                 \
	do {                                                                            \
		const char *a_ = (a), *b_ = (b);                                        \
		if (!a_ || !b_ || strcmp(a_, b_)) {                                     \
			printf("  %s:%d: %s == %s: \"%s\" != \"%s\"\n", __FILE__, __LINE__, \
			       #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)");          \
			check_failed_ = 1;                                              \
		}                                                                       \
	} while (0)

/* Inside a test: stop it and report SKIP with a reason. */
#define SKIP(why)                  \
	do {                       \
		check_skip_ = (why); \
		return;            \
	} while (0)

#define RUN(name)                                                                 \
	do {                                                                      \
		check_failed_ = 0;                                                \
		check_skip_ = NULL;                                               \
		test_##name();                                                    \
		if (check_failed_) {                                              \
			printf("FAIL %s\n", #name);                               \
			check_total_failed_ = 1;                                  \
		} else if (check_skip_) {                                         \
			printf("SKIP %s: %s\n", #name, check_skip_);              \
		} else {                                                          \
			printf("PASS %s\n", #name);                               \
		}                                                                 \
		fflush(stdout);                                                   \
	} while (0)

#define CHECK_DONE() (check_total_failed_ ? 1 : 0)

/* A fresh temporary directory for a test (tmpdir), and its removal. */
static char tmpdir[256];

static __attribute__((unused)) void check_mktmp(const char *name)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/%s.XXXXXX", name);
	if (!mkdtemp(tmpdir))
		abort();
}

static __attribute__((unused)) void check_rmtmp(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		printf("  cannot remove %s\n", tmpdir);
}

#endif
