/* SPDX-License-Identifier: MIT */
/*
 * judge.h - the cross-rank analysis of sonde vsensor: all ranks' sensors and records in,
 * the job directory's matrix-*.csv, events.csv and sensors.csv out (judge.c).
 *
 * rank-<r>.sensors, written by each rank as its sensors register (vsrt.c), so that a job
 * that never reached MPI_Finalize can still be judged from its files: a first line
 *     # sonde vsensor sensors 1: ranks N, slice_ms S
 * then one line per sensor in registration order (the id the records carry), and one per
 * sensor switched off as too short:
 *     <id>\t<kind>\t<flags>\t<name>       (kind 0-2 or -1, flags VS_F_*, name to the end)
 *     off\t<id>
 */
#ifndef SONDE_VSENSOR_JUDGE_H
#define SONDE_VSENSOR_JUDGE_H

#include <stdint.h>

#include "tools/vsensor/model.h"
#include "tools/vsensor/rec.h"

#define VS_NAME 96
#define VS_SENSORS_HEAD "# sonde vsensor sensors 1: "
/* The CPU share's standard is this many times its best (10th percentile over all ranks
 * and slices): on a time-shared machine a rank's share moves by 3x with other users'
 * load (clean runs here: 2 to 6 ms of wall time per ms of CPU), so only a share under
 * 1/4 of the best (0.6 / 2.5) is low.  A hog on the rank's core or a 5% CPU quota
 * gives 1/10 to 1/50 of it. */
#define VS_CPU_SLACK 2.5f
/* A rank's stretch without a record (judge.c, silent.csv) is said from this many seconds
 * and slices on: a rank computing outside its sensors still writes its CPU share every
 * slice, so a second of nothing is a rank that did not run. */
#define VS_SILENT_MIN_S 1.0
#define VS_SILENT_MIN_SLICES 3

struct vs_desc {		/* one rank's sensor */
	char name[VS_NAME];
	/* off: 1 switched off (by the runtime), 2 judged too short (judge.c, standards: under
	 * VS_SHORT_NS a sense over fewer than VS_SHORT_AFTER), 0 not, -1 not known */
	int32_t kind, flags, off;
	float std_us;
	int64_t senses;			/* -1: not known (judged from the files) */
};

struct vs_all {
	int nranks;
	double slice_s;
	int *nd, *nr;			/* per rank: sensors, records */
	struct vs_desc *d;		/* all ranks' sensors, rank after rank */
	struct vs_rec *r;
	int *doff, *roff;
	float *std;			/* per entry of d: the standard time to use */
};

struct vs_judged {
	int events, sensors;		/* events found; sensors of rank 0 (no pseudo-sensor) */
	int events_cut;			/* more events than VS_EVENTS_MAX: the later left out */
	int write_err;			/* 0 or -errno of writing the matrices and events */
	double coverage;		/* the median rank's share of the run its sensors timed
					 * (coverage.csv), -1 when not known */
	int silences;			/* stretches a rank recorded nothing (silent.csv) */
	double silent_s;		/* their seconds */
	/* vs_judge_files only */
	int ranks_missing;		/* ranks with no sensors file */
	long long records, bytes_unread;
	long long records_dropped;	/* of a slice past any the rank can have reached */
};

/* Free A's arrays (any of them NULL) and zero it. */
void vs_all_free(struct vs_all *A);

/* Judge A (standards, matrices, rule, events) and write the files into dir.  0, or
 * -ENOMEM (nothing written). */
int vs_judge(struct vs_all *A, const struct vs_rule *rule, const char *dir, struct vs_judged *out);

/* The same from dir's rank-<r>.sensors and rank-<r>.rec files.  0; -ENOENT when dir has no
 * rank-0.sensors (a run of before 2026-11-28, or no vsensor directory); VS_REC_BAD when
 * its first line is not one this sonde knows; -ENOMEM. */
int vs_judge_files(const char *dir, const struct vs_rule *rule, struct vs_judged *out);

#endif
