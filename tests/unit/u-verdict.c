/* SPDX-License-Identifier: MIT */
/*
 * u-verdict - `sonde bench`'s verdict file (src/cmd/verdict.c): reading it (quoted fields,
 * the machine rows, Bias-Bench settings from their rows), the choice of clock's de-biasing
 * setting (the fewest extra steps with every load within 10 points of 25 %), and which
 * interval is used for a run's period.
 */
#include <errno.h>
#include <math.h>

#include "check.h"
#include "cmd/verdict.h"

static char path[4200];

static void write_file(const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static const char head[] = "source,interval,benchmark,measure,value\n"
			   "*,,machine,cpu,\"Some CPU, rev \"\"B\"\"\"\n"
			   "*,,machine,kernel,6.1.0\n";

TEST(read_and_choose)
{
	static struct verdict v;
	char err[512] = "", text[4096];
	check_mktmp("u-verdict");
	snprintf(path, sizeof(path), "%s/v.csv", tmpdir);
	snprintf(text, sizeof(text), "%s"
		 /* 1: 25 points off; 2: 10.0 points off (within); 8 via "bias" + extra_steps */
		 "clock,1 ms,bias-no-steps,bias1,0.2500\nclock,1 ms,bias-no-steps,bias2,0.5000\n"
		 "clock,1 ms,bias-no-steps,bias3,0.0000\nclock,1 ms,bias-no-steps,bias4,0.2500\n"
		 "clock,1 ms,bias-steps-2,bias1,0.3500\nclock,1 ms,bias-steps-2,bias2,0.1500\n"
		 "clock,1 ms,bias-steps-2,bias3,0.2500\nclock,1 ms,bias-steps-2,bias4,0.2500\n"
		 "clock,1 ms,bias,bias1,0.2500\nclock,1 ms,bias,bias2,0.2500\n"
		 "clock,1 ms,bias,bias3,0.2500\nclock,1 ms,bias,bias4,0.2500\n"
		 "clock,1 ms,bias,extra_steps,8.0000\n"
		 /* 4: a share missing, never chosen */
		 "clock,1 ms,bias-steps-4,bias1,0.2500\n"
		 "clock,1 ms,*,period,1000000.0000\n"
		 "clock,1 ms,*,verdict,\"clock at 1 ms: fine, \"\"really\"\"\"\n"
		 "clock,1 ms,*,date,2026-01-01 00:00 UTC\n"
		 /* 0.1 ms: only 8 is within */
		 "clock,0.1 ms,bias-steps-2,bias1,0.4000\nclock,0.1 ms,bias-steps-2,bias2,0.2000\n"
		 "clock,0.1 ms,bias-steps-2,bias3,0.2000\nclock,0.1 ms,bias-steps-2,bias4,0.2000\n"
		 "clock,0.1 ms,bias,bias1,0.2400\nclock,0.1 ms,bias,bias2,0.2600\n"
		 "clock,0.1 ms,bias,bias3,0.2500\nclock,0.1 ms,bias,bias4,0.2500\n"
		 "clock,0.1 ms,bias,extra_steps,8.0000\n"
		 "clock,0.1 ms,*,period,100000.0000\n"
		 "inst,every access,bias,bias1,0.2500\n"
		 "hw,,*,skip,no PMU\n", head);
	write_file(text);
	CHECK(verdict_read(path, &v, err, sizeof(err)) == 0);
	CHECK_STR(v.cpu, "Some CPU, rev \"B\"");
	CHECK_STR(v.kernel, "6.1.0");
	const struct verdict_entry *e = verdict_clock_entry(&v, 1000000);
	CHECK(e && !strcmp(e->interval, "1 ms"));
	if (e) {
		CHECK_STR(e->words, "clock at 1 ms: fine, \"really\"");
		CHECK_STR(e->date, "2026-01-01 00:00 UTC");
		CHECK(e->nset == 4);	/* 1, 2, 4 (incomplete), 8 */
		CHECK(e->set[0].steps == 1 && e->set[3].steps == 8);
		CHECK(isinf(e->set[2].worst));
		const struct verdict_setting *s = verdict_choose(e);
		CHECK(s && s->steps == 2);	/* exactly 10 points is within */
	}
	/* The default period (0.9 ms) is nearer 1 ms than 0.1 ms; 0.2 ms nearer 0.1 ms. */
	CHECK(verdict_clock_entry(&v, 0) == e);
	e = verdict_clock_entry(&v, 200000);
	CHECK(e && !strcmp(e->interval, "0.1 ms"));
	if (e) {
		const struct verdict_setting *s = verdict_choose(e);
		CHECK(s && s->steps == 8);
	}
	check_rmtmp();
}

TEST(none_fits)
{
	static struct verdict v;
	char err[512] = "", text[2048];
	check_mktmp("u-verdict");
	snprintf(path, sizeof(path), "%s/v.csv", tmpdir);
	snprintf(text, sizeof(text), "%s"
		 "clock,0.9 ms,bias-no-steps,bias1,0.3600\nclock,0.9 ms,bias-no-steps,bias2,0.2000\n"
		 "clock,0.9 ms,bias-no-steps,bias3,0.2000\nclock,0.9 ms,bias-no-steps,bias4,0.2400\n",
		 head);
	write_file(text);
	CHECK(verdict_read(path, &v, err, sizeof(err)) == 0);
	const struct verdict_entry *e = verdict_clock_entry(&v, 0);
	CHECK(e && e->nset == 1 && e->set[0].steps == 1);
	CHECK(e && fabs(e->set[0].worst - 11) < 1e-6);
	CHECK(e && verdict_choose(e) == NULL);
	check_rmtmp();
}

TEST(not_a_verdict)
{
	static struct verdict v;
	char err[512] = "";
	check_mktmp("u-verdict");
	snprintf(path, sizeof(path), "%s/v.csv", tmpdir);
	write_file("hello\n");
	CHECK(verdict_read(path, &v, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "is not a sonde bench verdict") != NULL);
	write_file("source,interval,benchmark,measure,value\nclock,1 ms,bias,bias1,0.2500\n");
	err[0] = 0;
	CHECK(verdict_read(path, &v, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "does not say which machine") != NULL);
	snprintf(path, sizeof(path), "%s/missing.csv", tmpdir);
	CHECK(verdict_read(path, &v, err, sizeof(err)) == -ENOENT);
	check_rmtmp();
}

int main(void)
{
	RUN(read_and_choose);
	RUN(none_fits);
	RUN(not_a_verdict);
	return CHECK_DONE();
}
