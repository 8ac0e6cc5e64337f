/* SPDX-License-Identifier: MIT */
/*
 * judge.c - the cross-rank analysis of sonde vsensor (judge.h): every rank's sensors and
 * slice records into the standard times, the rank x slice matrices, the detection rule's
 * events and the files of the job's directory.  Run by rank 0 at MPI_Finalize (vsrt.c,
 * on the records gathered in memory) and by `sonde vsensor report` on the rank files of
 * a job that did not reach it (report.c, vs_judge_files): the same code on the same
 * records gives the same files.
 * Library code: returns 0/-errno, never prints.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/file.h"
#include "tools/vsensor/judge.h"
#include "tools/vsensor/rec.h"
#include "tools/vsensor/vs-abi.h"
#include "ui/csv.h"


static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

static int cmp_float(const void *x, const void *y)
{
	float a = *(const float *)x, b = *(const float *)y;
	return a < b ? -1 : a > b;
}

/* qsort_r over descriptor indices, by name (name_ids) */
static int cmp_desc_name(const void *x, const void *y, void *base)
{
	const struct vs_desc *d = base;
	int a = *(const int *)x, b = *(const int *)y;
	int c = strcmp(d[a].name, d[b].name);
	return c ? c : (a > b) - (a < b);
}

/* id[g] for each of the n descriptors d[]: equal names, equal ids, 0 .. (return) - 1;
 * -1 out of memory. */
static int name_ids(const struct vs_desc *d, int n, int *id)
{
	int *ix = malloc((n ? n : 1) * sizeof(int)), k = 0;
	if (!ix)
		return -1;
	for (int g = 0; g < n; g++)
		ix[g] = g;
	qsort_r(ix, n, sizeof(int), cmp_desc_name, (void *)d);
	for (int g = 0; g < n; g++) {
		if (g && strcmp(d[ix[g]].name, d[ix[g - 1]].name))
			k++;
		id[ix[g]] = k;
	}
	free(ix);
	return n ? k + 1 : 0;
}

/* The 10th percentile of v[0..n) (reordered), 0 for none. */
static float tenth(float *v, int64_t n)
{
	if (n <= 0)
		return 0;
	qsort(v, (size_t)n, sizeof(float), cmp_float);
	return v[n / 10];
}

/*
 * The standard time of each sensor: the 10th percentile of its slice records, over all
 * ranks (the global baseline that catches a rank slow for the whole run), or over its
 * own rank for rank-dependent sensors and for network sensors (a collective's time
 * depends on the rank's role in it).  The 10th percentile and not the fastest record:
 * one lucky slice would otherwise set the bar for the whole run.  A sensor is the same
 * one on every rank where its name is.  The records are bucketed by name once, rank after
 * rank within a name (a rank's are then side by side): until 2026-11-28 each sensor of
 * each rank compared every record's name with its own, ranks x sensors x records string
 * compares (400 ranks of 20 sensors for an hour: 10^12).
 */
static void standards(struct vs_all *A)
{
	int64_t totalr = 0;
	int nd = 0;
	for (int q = 0; q < A->nranks; q++) {
		totalr += A->nr[q];
		nd += A->nd[q];
	}
	int *nid = malloc((nd ? nd : 1) * sizeof(int));
	int k = nid ? name_ids(A->d, nd, nid) : -1;
	int64_t *at = k >= 0 ? calloc((size_t)k + 1, sizeof(int64_t)) : NULL;
	int64_t *lo = calloc(nd ? nd : 1, sizeof(int64_t)), *hi = calloc(nd ? nd : 1, sizeof(int64_t));
	float *v = malloc((totalr ? totalr : 1) * sizeof(float));
	/* the copies of a rank's records, then each name's standard */
	int64_t ntmp = totalr > nd ? totalr : nd;
	float *tmp = malloc((ntmp ? ntmp : 1) * sizeof(float));
	double *sensed = calloc(nd ? nd : 1, sizeof(double));	/* each sensor's seconds */
	if (!nid || k < 0 || !at || !lo || !hi || !v || !tmp)
		goto out;
	/* each name's segment of v: its count, then its start */
	for (int q = 0; q < A->nranks; q++)
		for (int j = 0; j < A->nr[q]; j++) {
			const struct vs_rec *r = &A->r[A->roff[q] + j];
			if (r->mean_us > 0)
				at[nid[A->doff[q] + r->sensor] + 1]++;
		}
	for (int i = 0; i < k; i++)
		at[i + 1] += at[i];
	int64_t *fill = malloc(((size_t)k + 1) * sizeof(int64_t));
	if (!fill)
		goto out;
	memcpy(fill, at, ((size_t)k + 1) * sizeof(int64_t));
	for (int q = 0; q < A->nranks; q++) {
		for (int i = 0; i < A->nd[q]; i++)
			lo[A->doff[q] + i] = fill[nid[A->doff[q] + i]];
		for (int j = 0; j < A->nr[q]; j++) {
			const struct vs_rec *r = &A->r[A->roff[q] + j];
			if (r->mean_us > 0)
				v[fill[nid[A->doff[q] + r->sensor]]++] = r->mean_us;
		}
		for (int i = 0; i < A->nd[q]; i++)
			hi[A->doff[q] + i] = fill[nid[A->doff[q] + i]];
	}
	free(fill);
	/* the rank's own first (on copies: the name's segment is still in rank order), then
	 * each name's whole segment, in place, once */
	for (int g = 0; g < nd; g++) {
		const struct vs_desc *d = &A->d[g];
		if ((d->flags & VS_F_RANK_DEP) || d->kind == 1) {
			memcpy(tmp, v + lo[g], (size_t)(hi[g] - lo[g]) * sizeof(float));
			A->std[g] = tenth(tmp, hi[g] - lo[g]);
		}
	}
	for (int i = 0; i < k; i++)	/* (k <= nd: room in tmp) */
		tmp[i] = tenth(v + at[i], at[i + 1] - at[i]);
	for (int g = 0; g < nd; g++) {
		const struct vs_desc *d = &A->d[g];
		if (!((d->flags & VS_F_RANK_DEP) || d->kind == 1))
			A->std[g] = tmp[nid[g]];
		/* the core's "time" is a CPU number: it has no standard */
		if (d->flags & VS_F_CORE)
			A->std[g] = 0;
		else if (d->flags & VS_F_CPU)
			A->std[g] *= VS_CPU_SLACK;
	}
	/* too short to judge, as the runtime switches a sensor off (vsrt.c, VS_SHORT_NS: its
	 * mean sense), but one that never reached VS_SHORT_AFTER senses: a loop of 40 ns a
	 * sense, 270 senses, raised a compute event in every run of HPCC, quiet ones too (the
	 * trial of 2026-11-29, F2); its records stay out of the matrices (build_matrix).  The
	 * mean from the records' sensed time over the senses; where the senses are not known
	 * (judged from the files), the standard time.  Not network sensors: a collective's
	 * time is mostly waiting for other ranks, which is what it is there to see, and the
	 * network rule judges it against its rank's own level (fig4's 2-rank MPI_Barrier, a
	 * few us, its only sensor, was left out in one run of t602 of four). */
	for (int q = 0; sensed && q < A->nranks; q++)
		for (int j = 0; j < A->nr[q]; j++) {
			const struct vs_rec *r = &A->r[A->roff[q] + j];
			if (r->sensor >= 0 && r->sensor < A->nd[q] && r->mean_us > 0)
				sensed[A->doff[q] + r->sensor] += r->weight_s;
		}
	for (int g = 0; sensed && g < nd; g++) {
		struct vs_desc *d = &A->d[g];
		double mean_ns = d->senses > 0 ? 1e9 * sensed[g] / (double)d->senses :
						 1e3 * A->std[g];
		if (!(d->flags & (VS_F_CORE | VS_F_CPU)) && d->kind != 1 && d->off != 1 &&
		    d->senses < VS_SHORT_AFTER && mean_ns > 0 && mean_ns < VS_SHORT_NS)
			d->off = 2;
	}
out:
	free(sensed);
	free(nid);
	free(at);
	free(lo);
	free(hi);
	free(v);
	free(tmp);
}

static void build_matrix(struct vs_all *A, struct vs_matrix *m)
{
	int64_t nb = 0;		/* (64-bit: a slice of INT32_MAX read from a file) */
	for (int q = 0; q < A->nranks; q++)
		for (int i = 0; i < A->nr[q]; i++)
			if ((int64_t)A->r[A->roff[q] + i].bin + 1 > nb)
				nb = (int64_t)A->r[A->roff[q] + i].bin + 1;
	if (nb > INT32_MAX)
		return;
	int nbins = (int)nb;
	if (vs_matrix_alloc(m, A->nranks, nbins, A->slice_s))
		return;
	size_t cells = (size_t)A->nranks * (nbins ? nbins : 1);
	double *w = calloc((size_t)VS_KINDS * cells, sizeof(double));
	float *cpu = malloc(cells * sizeof(float)), *cpu_raw = malloc(cells * sizeof(float));
	if (!w || !cpu || !cpu_raw) {
		free(w);
		free(cpu);
		free(cpu_raw);
		return;
	}
	/* the typical CPU share of the job, for step 5 of the rule (a rank waiting for a
	 * CPU): the median over all ranks and slices, not the best, which on shared cores
	 * is a rank alone on its core for a moment (its partner asleep in MPI) */
	float typ = 0;
	size_t ncpu = 0;
	for (int q = 0; q < A->nranks; q++)
		for (int i = 0; i < A->nr[q]; i++)
			if ((A->d[A->doff[q] + A->r[A->roff[q] + i].sensor].flags & VS_F_CPU) && ncpu < cells)
				cpu[ncpu++] = A->r[A->roff[q] + i].mean_us;
	if (ncpu) {
		qsort(cpu, ncpu, sizeof(float), cmp_float);
		typ = cpu[ncpu / 2];
	}
	for (size_t c = 0; c < cells; c++)
		cpu[c] = NAN;
	for (int q = 0; q < A->nranks; q++)
		for (int i = 0; i < A->nr[q]; i++) {
			struct vs_rec *r = &A->r[A->roff[q] + i];
			int di = A->doff[q] + r->sensor;
			int k = A->d[di].kind;
			if (r->mean_us <= 0 || r->bin < 0 || r->bin >= nbins)
				continue;
			size_t c = (size_t)q * nbins + r->bin;
			if (A->d[di].flags & VS_F_CORE) {
				m->v[VS_CORE][c] = r->mean_us - 1;	/* stored as CPU + 1 */
				continue;
			}
			if (A->d[di].off == 2)	/* too short (standards) */
				continue;
			if (k < 0 || k >= VS_KINDS || A->std[di] <= 0)
				continue;
			double p = A->std[di] / r->mean_us;
			if (p > 1)
				p = 1;	/* faster than standard is not better than best */
			if (A->d[di].flags & VS_F_CPU) {
				cpu[c] = p;
				cpu_raw[c] = typ / r->mean_us;
				continue;
			}
			float *v = &m->v[k][c];
			double *ww = &w[(size_t)k * cells + c];
			*v = isnan(*v) ? p * r->weight_s : *v + p * r->weight_s;
			*ww += r->weight_s;
		}
	for (int k = 0; k < VS_KINDS; k++)
		for (size_t c = 0; c < cells; c++)
			if (!isnan(m->v[k][c]))
				m->v[k][c] = w[(size_t)k * cells + c] > 0 ? m->v[k][c] / w[(size_t)k * cells + c] : NAN;
	/* a compute cell is the slower of the compute sensors and the CPU share: a rank
	 * that gets a fraction of its core computes at that fraction of its speed, even
	 * when each of its senses runs whole */
	for (size_t c = 0; c < cells; c++) {
		if (!isnan(cpu[c]) && (isnan(m->v[0][c]) || cpu[c] < m->v[0][c]))
			m->v[0][c] = cpu[c];
		/* the share itself, against its typical value, for step 5 */
		m->v[VS_CPU][c] = isnan(cpu[c]) ? NAN : fminf(1, cpu_raw[c]);
	}
	free(w);
	free(cpu);
	free(cpu_raw);
}

/* The sensors that ran slow inside an event's cells, for its sensors column. */
static void event_sensors(struct vs_all *A, const struct vs_rule *rule, const struct vs_matrix *m,
			  struct vs_event *e)
{
	int n = 0;
	/* compute: the CPU share, first, where the rank got under VS_CORE_STARVED of its
	 * typical share (flagged for it with senses at speed, the event named no sensor) */
	for (int q = e->r0; e->kind == 0 && m->v[VS_CPU] && !n && q <= e->r1; q++)
		for (int s = e->s0; !n && s <= e->s1; s++)
			if (m->v[VS_CPU][(size_t)q * m->nslices + s] < VS_CORE_STARVED) {
				snprintf(e->sensors, sizeof(e->sensors), "(cpu share)");
				n = 1;
			}
	for (int q = e->r0; q <= e->r1; q++)
		for (int i = 0; i < A->nr[q]; i++) {
			struct vs_rec *r = &A->r[A->roff[q] + i];
			struct vs_desc *d = &A->d[A->doff[q] + r->sensor];
			if (d->kind != e->kind || d->off == 2 || r->bin < e->s0 || r->bin > e->s1 ||
			    A->std[A->doff[q] + r->sensor] <= 0 ||
			    A->std[A->doff[q] + r->sensor] / r->mean_us >= rule->threshold[e->kind])
				continue;
			if (strstr(e->sensors, d->name))
				continue;
			size_t o = strlen(e->sensors);
			if (n == 4 || o + strlen(d->name) + 3 >= sizeof(e->sensors))
				continue;
			snprintf(e->sensors + o, sizeof(e->sensors) - o, "%s%s", o ? "; " : "", d->name);
			n++;
		}
}

/* coverage.csv: per rank, the seconds its sensors timed (the records' weights, the
 * runtime's pseudo-sensors left out) against the job's length: how much of the run the
 * matrices can speak for (the trial of 2026-11-28: AMG's 2 sensors, both in its set-up,
 * and a report of "no variance events" over a map the CPU share alone drew).  The
 * median rank's share into *median (-1 when no rank). */
static void write_coverage(struct vs_all *A, double run_s, const char *dir, double *median)
{
	char path[4096];
	*median = -1;
	snprintf(path, sizeof(path), "%s/coverage.csv", dir);
	double *sh = calloc(A->nranks ? A->nranks : 1, sizeof(*sh));
	FILE *f = sh ? fopen(path, "w") : NULL;
	if (f)
		fprintf(f, "rank,sensed_s,run_s,share\n");
	/* per slice, at most the slice: a long instance's time is in every slice it covered
	 * (spread) and again, whole, in the slice where it ended (the second code review of
	 * 2026-11-28: "timing 187.8% of the run") */
	int ns = A->slice_s > 0 ? (int)(run_s / A->slice_s + 0.5) : 0;
	double *per = calloc(ns > 0 ? ns : 1, sizeof(*per));
	for (int q = 0; sh && per && q < A->nranks; q++) {
		double s = 0;
		memset(per, 0, (ns > 0 ? ns : 1) * sizeof(*per));
		for (int i = 0; i < A->nr[q]; i++) {
			const struct vs_rec *r = &A->r[A->roff[q] + i];
			if (r->sensor >= 0 && r->sensor < A->nd[q] && r->bin >= 0 && r->bin < ns &&
			    !(A->d[A->doff[q] + r->sensor].flags & (VS_F_CPU | VS_F_CORE)))
				per[r->bin] += r->weight_s;
		}
		for (int b = 0; b < ns; b++)
			s += per[b] < A->slice_s ? per[b] : A->slice_s;
		sh[q] = run_s > 0 ? s / run_s : 0;
		if (f)
			fprintf(f, "%d,%.3f,%.3f,%.4f\n", q, s, run_s, sh[q]);
	}
	free(per);
	if (f)
		fclose(f);
	if (sh && A->nranks) {
		qsort(sh, A->nranks, sizeof(*sh), cmp_double);
		*median = sh[A->nranks / 2];
	}
	free(sh);
}

/* silent.csv: per rank, the stretches of VS_SILENT_MIN_S or more, between its first and
 * last slice with a record, in which it wrote none but the (core) pseudo-sensor's: no
 * sensor ran, and its main thread neither ran nor waited for a CPU (its CPU share's record needs
 * 10 ms of either in a slice: vsrt.c, cpu_sample).  A rank stopped (SIGSTOP, a debugger),
 * swapped out, asleep or blocked in the kernel outside any sensor: the matrices are blank
 * there, and a stop of 2 s read "no variance events" (the trial of 2026-11-29).  The
 * stretches into *n, their seconds into *secs. */
static void write_silences(struct vs_all *A, int nslices, double slice_s, const char *dir,
			   int *n, double *secs)
{
	char path[4096];
	*n = 0;
	*secs = 0;
	snprintf(path, sizeof(path), "%s/silent.csv", dir);
	FILE *f = fopen(path, "w");
	unsigned char *has = calloc(nslices > 0 ? nslices : 1, 1);
	if (f)
		fprintf(f, "rank,start_s,end_s,seconds\n");
	int least = slice_s > 0 ? (int)ceil(VS_SILENT_MIN_S / slice_s - 1e-9) : 0;
	if (least < VS_SILENT_MIN_SLICES)
		least = VS_SILENT_MIN_SLICES;
	for (int q = 0; has && nslices > 0 && q < A->nranks; q++) {
		memset(has, 0, nslices);
		for (int i = 0; i < A->nr[q]; i++) {
			const struct vs_rec *r = &A->r[A->roff[q] + i];
			if (r->sensor >= 0 && r->sensor < A->nd[q] && r->bin >= 0 && r->bin < nslices &&
			    !(A->d[A->doff[q] + r->sensor].flags & VS_F_CORE))
				has[r->bin] = 1;
		}
		int first = 0, last = nslices - 1;
		while (first < nslices && !has[first])
			first++;
		while (last > first && !has[last])
			last--;
		for (int b = first; b <= last;) {
			if (has[b]) {
				b++;
				continue;
			}
			int e = b;
			while (e <= last && !has[e])
				e++;
			if (e - b >= least) {
				if (f)
					fprintf(f, "%d,%.3f,%.3f,%.3f\n", q, b * slice_s, e * slice_s,
						(e - b) * slice_s);
				(*n)++;
				*secs += (e - b) * slice_s;
			}
			b = e;
		}
	}
	free(has);
	if (f)
		fclose(f);
}

static void write_sensors(struct vs_all *A, const char *dir)
{
	char path[4096];	/* report's DIR: any path (the runtime's are under 512) */
	snprintf(path, sizeof(path), "%s/sensors.csv", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	static const char *const head[] = { "rank", "sensor", "kind", "rank_dependent", "standard_us",
					    "senses", "switched_off" };
	csv_row(f, 7, head);
	for (int q = 0; q < A->nranks; q++)
		for (int i = 0; i < A->nd[q]; i++) {
			struct vs_desc *d = &A->d[A->doff[q] + i];
			char rk[16], sd[32], se[32];
			snprintf(rk, sizeof(rk), "%d", q);
			snprintf(sd, sizeof(sd), "%.2f", A->std[A->doff[q] + i]);
			if (d->flags & VS_F_CORE)
				sd[0] = 0;	/* a CPU number has no standard time */
			snprintf(se, sizeof(se), "%lld", (long long)d->senses);
			if (d->senses < 0)
				se[0] = 0;	/* judged from the files: not known */
			const char *row[] = { rk, d->name, vs_model_kind(d->kind),
					      d->flags & VS_F_RANK_DEP ? "yes" : "no", sd, se,
					      d->off < 0 ? "" : d->off ? "yes" : "no" };
			csv_row(f, 7, row);
		}
	fclose(f);
}

int vs_judge(struct vs_all *A, const struct vs_rule *rule, const char *dir, struct vs_judged *out)
{
	memset(out, 0, sizeof(*out));
	out->coverage = -1;
	standards(A);
	struct vs_matrix m;
	memset(&m, 0, sizeof(m));
	build_matrix(A, &m);
	if (!m.v[0])
		return -ENOMEM;
	unsigned char *flag[VS_KINDS];
	size_t cells = (size_t)m.nranks * (m.nslices ? m.nslices : 1);
	for (int k = 0; k < VS_KINDS; k++)
		flag[k] = calloc(cells, 1);
	struct vs_event *ev = NULL;
	int err = 0, n = -1;
	if (flag[0] && flag[1] && flag[2]) {
		vs_detect(&m, rule, flag);
		n = vs_events_all(&m, flag, &ev, &out->events_cut);
	}
	if (n >= 0) {
		for (int i = 0; i < n; i++)
			event_sensors(A, rule, &m, &ev[i]);
		out->write_err = vs_matrix_write(&m, dir);
		if (!out->write_err)
			out->write_err = vs_events_write(&m, ev, n, dir);
		write_sensors(A, dir);
		write_coverage(A, m.nslices * m.slice_s, dir, &out->coverage);
		write_silences(A, m.nslices, m.slice_s, dir, &out->silences, &out->silent_s);
		for (int i = 0; A->nranks && i < A->nd[0]; i++)
			out->sensors += !(A->d[i].flags & (VS_F_CPU | VS_F_CORE));
		out->events = n;
	} else {
		err = -ENOMEM;
	}
	free(ev);
	for (int k = 0; k < VS_KINDS; k++)
		free(flag[k]);
	vs_matrix_release(&m);
	return err;
}

/* One rank's sensors file into *d (malloc'd, *n entries); the header's ranks and slice
 * into *nranks and *slice_ms when they are not NULL.  0, -errno, or VS_REC_BAD. */
static int read_sensors(const char *path, struct vs_desc **d, int *n, int *nranks, long *slice_ms)
{
	int err;
	*d = NULL;
	*n = 0;
	FILE *f = file_fopen_regular(path, &err);
	if (!f)
		return err;
	char line[512];
	int cap = 0, nr = 0;
	long ms = 0;
	if (!fgets(line, sizeof(line), f) || strncmp(line, VS_SENSORS_HEAD, strlen(VS_SENSORS_HEAD)) ||
	    sscanf(line + strlen(VS_SENSORS_HEAD), "ranks %d, slice_ms %ld", &nr, &ms) != 2 ||
	    nr <= 0 || nr > (1 << 20) || ms <= 0 || ms > 3600000) {
		fclose(f);
		return VS_REC_BAD;
	}
	if (nranks)
		*nranks = nr;
	if (slice_ms)
		*slice_ms = ms;
	err = 0;
	while (fgets(line, sizeof(line), f)) {
		int id, kind, flags, used = 0;
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "off\t%d", &id) == 1) {
			if (id >= 0 && id < *n)
				(*d)[id].off = 1;
			continue;
		}
		/* a line cut short by a kill, or not one of ours: the sensors after it are not
		 * known, and their records are left out */
		if (sscanf(line, "%d\t%d\t%d\t%n", &id, &kind, &flags, &used) != 3 || !used ||
		    id != *n)
			break;
		if (*n == cap) {
			struct vs_desc *m = realloc(*d, (size_t)(cap = cap ? 2 * cap : 64) * sizeof(**d));
			if (!m) {
				err = -ENOMEM;
				break;
			}
			*d = m;
		}
		struct vs_desc *x = &(*d)[(*n)++];
		memset(x, 0, sizeof(*x));
		snprintf(x->name, sizeof(x->name), "%s", line + used);
		x->kind = kind;
		x->flags = flags;
		x->senses = -1;
	}
	fclose(f);
	return err;
}

int vs_judge_files(const char *dir, const struct vs_rule *rule, struct vs_judged *out)
{
	char path[4096];
	int nranks = 0, err;
	long slice_ms = 0;
	struct vs_desc *d0;
	int n0;
	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "%s/rank-0.sensors", dir);
	err = read_sensors(path, &d0, &n0, &nranks, &slice_ms);
	if (err)
		return err;
	free(d0);
	struct vs_all A;
	memset(&A, 0, sizeof(A));
	A.nranks = nranks;
	A.slice_s = slice_ms / 1e3;
	A.nd = calloc(nranks, sizeof(int));
	A.nr = calloc(nranks, sizeof(int));
	A.doff = calloc(nranks, sizeof(int));
	A.roff = calloc(nranks, sizeof(int));
	struct vs_desc **dq = calloc(nranks, sizeof(*dq));
	struct vs_rec **rq = calloc(nranks, sizeof(*rq));
	err = A.nd && A.nr && A.doff && A.roff && dq && rq ? 0 : -ENOMEM;
	int total = 0, totalr = 0;
	for (int q = 0; !err && q < nranks; q++) {
		snprintf(path, sizeof(path), "%s/rank-%d.sensors", dir, q);
		int e = read_sensors(path, &dq[q], &A.nd[q], NULL, NULL);
		if (e == -ENOMEM) {
			err = e;
			break;
		}
		A.doff[q] = total;
		A.roff[q] = totalr;
		if (e) {	/* a rank that never started recording: no sensors, no records */
			A.nd[q] = 0;
			out->ranks_missing++;
			continue;
		}
		size_t n = 0, rest = 0, len = 0;
		snprintf(path, sizeof(path), "%s/rank-%d.rec", dir, q);
		e = vs_rec_read(path, &rq[q], &n, &rest, &len);
		if (e == -ENOMEM) {
			err = e;
			break;
		}
		out->bytes_unread += e ? 0 : (long long)rest;
		/* only the records of sensors the file names (a kill between the two files),
		 * and of slices the run can have reached: a rank writes a record a slice at
		 * least (its CPU share's, and a sensor's time spread over every slice it
		 * covered), so a slice far past its count of records is a damaged byte that
		 * still decoded (rec.h), which would size the matrices (the review of
		 * 2026-11-28: one record of slice 20,000,000 wrote 760 MB of matrices) */
		size_t k = 0;
		int64_t last = 2 * (int64_t)n + 1024;
		for (size_t i = 0; !e && i < n; i++) {
			if (rq[q][i].bin < 0 || rq[q][i].bin > last) {
				out->records_dropped++;
				continue;
			}
			if (rq[q][i].sensor >= 0 && rq[q][i].sensor < A.nd[q])
				rq[q][k++] = rq[q][i];
		}
		A.nr[q] = e || k > (size_t)(1 << 30) ? 0 : (int)k;
		if ((int64_t)totalr + A.nr[q] > INT_MAX || (int64_t)total + A.nd[q] > INT_MAX) {
			err = -EOVERFLOW;	/* (the ranks' offsets are ints) */
			break;
		}
		total += A.nd[q];
		totalr += A.nr[q];
	}
	if (!err) {
		A.d = calloc(total ? total : 1, sizeof(*A.d));
		A.r = calloc(totalr ? totalr : 1, sizeof(*A.r));
		A.std = calloc(total ? total : 1, sizeof(*A.std));
		err = A.d && A.r && A.std ? 0 : -ENOMEM;
	}
	for (int q = 0; !err && q < nranks; q++) {
		if (A.nd[q])
			memcpy(A.d + A.doff[q], dq[q], (size_t)A.nd[q] * sizeof(*A.d));
		if (A.nr[q])
			memcpy(A.r + A.roff[q], rq[q], (size_t)A.nr[q] * sizeof(*A.r));
	}
	out->records = totalr;
	if (!err) {
		struct vs_judged j;
		err = vs_judge(&A, rule, dir, &j);
		out->events = j.events;
		out->events_cut = j.events_cut;
		out->coverage = j.coverage;
		out->silences = j.silences;
		out->silent_s = j.silent_s;
		out->sensors = j.sensors;
		out->write_err = j.write_err;
	}
	for (int q = 0; q < nranks && dq && rq; q++) {
		free(dq[q]);
		free(rq[q]);
	}
	free(dq);
	free(rq);
	vs_all_free(&A);
	return err;
}

void vs_all_free(struct vs_all *A)
{
	free(A->nd);
	free(A->nr);
	free(A->doff);
	free(A->roff);
	free(A->d);
	free(A->r);
	free(A->std);
	memset(A, 0, sizeof(*A));
}
