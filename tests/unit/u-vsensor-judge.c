/* SPDX-License-Identifier: MIT */
/*
 * u-vsensor-judge: the standard times of sonde vsensor's judge (judge.c, standards), seen
 * in sensors.csv, against the definition computed here the plain way: the 10th percentile
 * of the positive records of every sensor of that name, on all ranks, or on the sensor's
 * own rank for a rank-dependent or network sensor; none for the core; the CPU share's x
 * VS_CPU_SLACK.  Ranks whose sensors differ in order and number, a name on some ranks
 * only, two sensors of one name on one rank, records of 0 (not counted).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tools/vsensor/judge.h"
#include "tools/vsensor/vs-abi.h"

#define NRANKS 4

static int cmpf(const void *x, const void *y)
{
	float a = *(const float *)x, b = *(const float *)y;
	return a < b ? -1 : a > b;
}

/* the definition, sensor (q, i) */
static float expected(const struct vs_all *A, int q, int i)
{
	const struct vs_desc *d = &A->d[A->doff[q] + i];
	int local = (d->flags & VS_F_RANK_DEP) || d->kind == 1, n = 0;
	float *v = malloc(100000 * sizeof(float));
	for (int p = 0; p < A->nranks; p++)
		for (int j = 0; j < A->nr[p] && (!local || p == q); j++) {
			const struct vs_rec *r = &A->r[A->roff[p] + j];
			if (r->mean_us > 0 && !strcmp(A->d[A->doff[p] + r->sensor].name, d->name))
				v[n++] = r->mean_us;
		}
	qsort(v, n, sizeof(float), cmpf);
	float s = n && !(d->flags & VS_F_CORE) ? v[n / 10] * (d->flags & VS_F_CPU ? VS_CPU_SLACK : 1)
					       : 0;
	free(v);
	return s;
}

/* A's arrays for nranks ranks of up to nd sensors and nrec records each, zeroed. */
static void all_alloc(struct vs_all *A, int nranks, int nd, int nrec)
{
	memset(A, 0, sizeof(*A));
	A->nranks = nranks;
	A->slice_s = 0.2;
	A->nd = calloc(nranks, sizeof(int));
	A->nr = calloc(nranks, sizeof(int));
	A->doff = calloc(nranks, sizeof(int));
	A->roff = calloc(nranks, sizeof(int));
	A->d = calloc(nranks * nd, sizeof(*A->d));
	A->r = calloc(nranks * nrec, sizeof(*A->r));
	A->std = calloc(nranks * nd, sizeof(float));
}

/* A judged by the default rule into a new directory dir (a mkdtemp template); its
 * sensors.csv, open, or NULL. */
static FILE *judged(struct vs_all *A, char *dir, struct vs_judged *j)
{
	char path[300];
	struct vs_rule rule;
	CHECK(mkdtemp(dir) != NULL);
	vs_rule_default(&rule);
	CHECK(vs_judge(A, &rule, dir, j) == 0);
	snprintf(path, sizeof(path), "%s/sensors.csv", dir);
	return fopen(path, "r");
}

TEST(standards_by_name)
{
	/* per rank: its sensors' names, kinds and flags (a different order on rank 2, "solve"
	 * twice on rank 1, "halo" on ranks 0 and 3 only) */
	static const struct { const char *name; int kind, flags; } S[NRANKS][5] = {
		{ { "a.c:10 solve", 0, 0 }, { "a.c:20 exch", 1, 0 }, { "a.c:30 setup", 0, VS_F_RANK_DEP },
		  { "(cpu share)", 0, VS_F_CPU }, { "a.c:40 halo", 0, 0 } },
		{ { "a.c:10 solve", 0, 0 }, { "a.c:20 exch", 1, 0 }, { "a.c:30 setup", 0, VS_F_RANK_DEP },
		  { "(core)", -1, VS_F_CORE }, { "a.c:10 solve", 0, 0 } },
		{ { "a.c:20 exch", 1, 0 }, { "a.c:10 solve", 0, 0 }, { "(cpu share)", 0, VS_F_CPU },
		  { "a.c:30 setup", 0, VS_F_RANK_DEP }, { NULL, 0, 0 } },
		{ { "a.c:40 halo", 0, 0 }, { "a.c:10 solve", 0, 0 }, { "a.c:20 exch", 1, 0 },
		  { "(cpu share)", 0, VS_F_CPU }, { "a.c:30 setup", 0, VS_F_RANK_DEP } },
	};
	struct vs_all A;
	all_alloc(&A, NRANKS, 5, 5 * 40);
	int nd = 0, nr = 0;
	unsigned x = 12345;
	for (int q = 0; q < NRANKS; q++) {
		A.doff[q] = nd;
		A.roff[q] = nr;
		for (int i = 0; i < 5 && S[q][i].name; i++, nd++) {
			snprintf(A.d[nd].name, VS_NAME, "%s", S[q][i].name);
			A.d[nd].kind = S[q][i].kind;
			A.d[nd].flags = S[q][i].flags;
			A.d[nd].senses = 10;
			A.nd[q]++;
		}
		/* 40 slices, one record a sensor, times by sensor, rank and a pseudo-random
		 * jitter; every seventh one 0 */
		for (int b = 0; b < 40; b++)
			for (int i = 0; i < A.nd[q]; i++, nr++) {
				x = x * 1103515245u + 12345u;
				A.r[nr].bin = b;
				A.r[nr].sensor = i;
				A.r[nr].mean_us = (x >> 16) % 7 == 0 ? 0
					: 100.0f * (float)(i + 1) + 10.0f * (float)q + (float)((x >> 8) % 97);
				A.r[nr].weight_s = 0.01f;
				A.nr[q]++;
			}
	}
	char dir[] = "/tmp/u-vsensor-judge.XXXXXX", path[256], line[512];
	struct vs_judged j;
	FILE *f = judged(&A, dir, &j);
	CHECK(f != NULL);
	int rows = 0, g = 0;
	while (f && fgets(line, sizeof(line), f)) {
		if (!rows++)
			continue;	/* the header */
		int q = atoi(line);
		char *c = line;
		for (int k = 0; k < 4 && c; k++)	/* rank, sensor, kind, rank_dependent */
			c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL;
		CHECK(c && g < nd);
		if (!c || g >= nd)
			break;
		int i = g - A.doff[q];
		float want = expected(&A, q, i), got = *c == ',' ? 0 : strtof(c, NULL);
		if (!(got > want - 0.006f && got < want + 0.006f))
			fprintf(stderr, "  rank %d sensor %d (%s): %.3f, expected %.3f\n", q, i,
				A.d[g].name, got, want);
		CHECK(got > want - 0.006f && got < want + 0.006f);
		g++;
	}
	CHECK(rows == nd + 1);
	/* a check of the check: a global standard is the same on every rank, a local one not */
	CHECK(expected(&A, 0, 0) == expected(&A, 3, 1));
	CHECK(expected(&A, 0, 2) != expected(&A, 1, 2));
	if (f)
		fclose(f);
	static const char *const files[] = { "sensors.csv", "events.csv", "matrix-compute.csv",
					     "matrix-network.csv", "matrix-io.csv", "matrix-cpu.csv", "matrix-core.csv",
					     "coverage.csv", "silent.csv" };
	for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[k]);
		unlink(path);
	}
	CHECK(rmdir(dir) == 0);
	vs_all_free(&A);
}

/* Judge 2 ranks of 2 compute sensors over 40 slices: "a.c:5 tiny" at base_us a sense, 10x
 * that on rank 1 in slices 10-25, "a.c:9 big" steady at 100 us; 270 senses each, fewer
 * than the runtime's VS_SHORT_AFTER, their mean of base_us (a little more on rank 1).  The
 * events found, and tiny's switched_off cell. */
static int judge_tiny(float base_us, char *off, size_t offlen)
{
	struct vs_all A;
	all_alloc(&A, 2, 2, 2 * 40);
	int nr = 0;
	for (int q = 0; q < 2; q++) {
		A.doff[q] = 2 * q;
		A.roff[q] = nr;
		A.nd[q] = 2;
		snprintf(A.d[2 * q].name, VS_NAME, "a.c:5 tiny");
		snprintf(A.d[2 * q + 1].name, VS_NAME, "a.c:9 big");
		A.d[2 * q].senses = A.d[2 * q + 1].senses = 270;
		for (int b = 0; b < 40; b++)
			for (int i = 0; i < 2; i++, nr++) {
				A.r[nr].bin = b;
				A.r[nr].sensor = i;
				A.r[nr].mean_us = i ? 100.0f : q == 1 && b >= 10 && b <= 25 ?
					10 * base_us : base_us;
				/* the sensed seconds: its 270 senses spread over the 40 slices */
				A.r[nr].weight_s = A.r[nr].mean_us * 1e-6f * 270 / 40;
				A.nr[q]++;
			}
	}
	char dir[] = "/tmp/u-vsensor-judge.XXXXXX", line[512];
	struct vs_judged j;
	FILE *f = judged(&A, dir, &j);
	*off = 0;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0,a.c:5 tiny,", 13)) {
			char *c = strrchr(line, ',');
			snprintf(off, offlen, "%s", c ? c + 1 : "");
			off[strcspn(off, "\n")] = 0;
		}
	if (f)
		fclose(f);
	char rm[300];	/* every file the judge wrote */
	snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
	CHECK(system(rm) == 0);
	vs_all_free(&A);
	return j.events;
}

/* A sensor under VS_SHORT_NS a sense at its standard time is too short to judge, though the
 * runtime never switched it off (fewer than VS_SHORT_AFTER senses): its slow slices raise
 * no event (the trial of 2026-11-29, F2: HPCC's 40 ns loop, an event in every run).  The
 * same slowdown at 40 us a sense is an event. */
TEST(short_sensor_not_judged)
{
	char off[16];
	CHECK(judge_tiny(0.04f, off, sizeof(off)) == 0);
	CHECK(!strcmp(off, "yes"));
	CHECK(judge_tiny(40.0f, off, sizeof(off)) >= 1);
	CHECK(!strcmp(off, "no"));
}

int main(void)
{
	RUN(standards_by_name);
	RUN(short_sensor_not_judged);
	return CHECK_DONE();
}
