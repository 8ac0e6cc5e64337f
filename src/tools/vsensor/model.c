/* SPDX-License-Identifier: MIT */
/* model.c - performance matrices, the detection rule and events (see model.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/file.h"
#include "tools/vsensor/model.h"
#include "ui/csv.h"

static const char *const kinds[VS_MATS] = { "compute", "network", "io", "cpu", "core" };

const char *vs_model_kind(int k)
{
	return k >= 0 && k < VS_KINDS ? kinds[k] : "?";
}

void vs_rule_default(struct vs_rule *r)
{
	r->threshold[0] = 0.6;
	r->threshold[1] = 0.5;
	r->threshold[2] = 0.6;
	r->min_slices = 3;
	r->peer = 0.6;
	r->core_peer = 0.8;
	r->net_rel = 0.5;
}

int vs_matrix_alloc(struct vs_matrix *m, int nranks, int nslices, double slice_s)
{
	memset(m, 0, sizeof(*m));
	m->nranks = nranks;
	m->nslices = nslices;
	m->slice_s = slice_s;
	size_t n = (size_t)nranks * (nslices ? nslices : 1);
	for (int k = 0; k < VS_MATS; k++) {
		m->v[k] = malloc(n * sizeof(float));
		if (!m->v[k]) {
			vs_matrix_release(m);
			return -ENOMEM;
		}
		for (size_t i = 0; i < n; i++)
			m->v[k][i] = NAN;
	}
	return 0;
}

void vs_matrix_release(struct vs_matrix *m)
{
	for (int k = 0; k < VS_MATS; k++)
		free(m->v[k]);
	memset(m, 0, sizeof(*m));
}

int vs_matrix_write(const struct vs_matrix *m, const char *dir)
{
	for (int k = 0; k < VS_MATS; k++) {
		char path[4096], cell[32];
		int any = k < VS_KINDS;	/* matrix-cpu.csv only where the share was measured */
		for (size_t i = 0; !any && i < (size_t)m->nranks * m->nslices; i++)
			any = !isnan(m->v[k][i]);
		if (!any)
			continue;
		snprintf(path, sizeof(path), "%s/matrix-%s.csv", dir, kinds[k]);
		FILE *f = fopen(path, "w");
		if (!f)
			return -errno;
		csv_field(f, "rank");
		for (int s = 0; s < m->nslices; s++) {
			snprintf(cell, sizeof(cell), "%.3f", s * m->slice_s);
			fputc(',', f);
			csv_field(f, cell);
		}
		fputc('\n', f);
		for (int r = 0; r < m->nranks; r++) {
			fprintf(f, "%d", r);
			for (int s = 0; s < m->nslices; s++) {
				float v = m->v[k][(size_t)r * m->nslices + s];
				if (isnan(v))
					fputc(',', f);
				else	/* the float exactly (%.3f until 2026-11-28: report's
					 * detection, on the rounded cells, found 7 events where
					 * the runtime's found 5) */
					fprintf(f, ",%.9g", v);
			}
			fputc('\n', f);
		}
		if (fclose(f))
			return -errno;
	}
	return 0;
}

/* One CSV line into fields split at commas (the matrix files hold no quoted commas). */
static int split(char *line, char **f, int max)
{
	int n = 0;
	char *p = line;
	while (n < max) {
		f[n++] = p;
		char *c = strchr(p, ',');
		if (!c)
			break;
		*c = 0;
		p = c + 1;
	}
	char *nl = strchr(f[n - 1], '\n');
	if (nl)
		*nl = 0;
	return n;
}

static int read_kind(struct vs_matrix *m, const char *dir, int k, int *nr, int *ns, double *slice,
		     char *path, size_t pathlen)
{
	snprintf(path, pathlen, "%s/matrix-%s.csv", dir, kinds[k]);
	int r;
	FILE *f = file_fopen_regular(path, &r);	/* a FIFO there must not block the report */
	if (!f)
		return r;
	size_t cap = 0;
	char *line = NULL;
	int maxf = 1 << 16;
	char **fl = malloc(maxf * sizeof(char *));
	int err = 0, rows = 0;
	if (!fl || getline(&line, &cap, f) < 0) {
		err = fl ? VS_NOT_MATRIX : -ENOMEM;
		goto out;
	}
	int n = split(line, fl, maxf);
	if (n < 1 || strcmp(fl[0], "rank")) {
		err = VS_NOT_MATRIX;
		goto out;
	}
	*ns = n - 1;
	*slice = n > 2 ? atof(fl[2]) - atof(fl[1]) : 0.2;
	if (m) {
		while (getline(&line, &cap, f) > 0 && rows < m->nranks) {
			n = split(line, fl, maxf);
			int r = atoi(fl[0]);
			if (r < 0 || r >= m->nranks)
				continue;
			for (int s = 0; s + 1 < n && s < m->nslices; s++)
				m->v[k][(size_t)r * m->nslices + s] = fl[s + 1][0] ? strtof(fl[s + 1], NULL) : NAN;
			rows++;
		}
	} else {
		while (getline(&line, &cap, f) > 0)
			rows++;
		*nr = rows;
	}
out:
	free(line);
	free(fl);
	fclose(f);
	return err;
}

int vs_matrix_read(struct vs_matrix *m, const char *dir, char *path, size_t pathlen)
{
	int nr = 0, ns = 0, found = -1;
	double slice = 0.2;
	char tmp[4096];
	if (!path || !pathlen) {
		path = tmp;
		pathlen = sizeof(tmp);
	}
	for (int k = 0; k < VS_KINDS && found < 0; k++) {
		int err = read_kind(NULL, dir, k, &nr, &ns, &slice, path, pathlen);
		if (!err)
			found = k;
		else if (err != -ENOENT)
			return err;
	}
	if (found < 0)
		return -ENOENT;
	int err = vs_matrix_alloc(m, nr, ns, slice);
	if (err)
		return err;
	for (int k = 0; k < VS_MATS; k++) {
		int a, b;
		double c;
		err = read_kind(m, dir, k, &a, &b, &c, path, pathlen);
		if (err && err != -ENOENT) {
			vs_matrix_release(m);
			return err;
		}
	}
	return 0;
}

/* Median of slice s of kind k over the ranks that have data there; NAN if none. */
/* Median of tmp[0..n) (sorted in place); NAN if n is 0. */
static float median(float *tmp, int n)
{
	if (!n)
		return NAN;
	for (int i = 1; i < n; i++)	/* insertion sort: rank counts are small here */
		for (int j = i; j > 0 && tmp[j] < tmp[j - 1]; j--) {
			float t = tmp[j];
			tmp[j] = tmp[j - 1];
			tmp[j - 1] = t;
		}
	return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

static float slice_median(const struct vs_matrix *m, int k, int s, float *tmp)
{
	int n = 0;
	for (int r = 0; r < m->nranks; r++) {
		float v = m->v[k][(size_t)r * m->nslices + s];
		if (!isnan(v))
			tmp[n++] = v;
	}
	return median(tmp, n);
}

/* Is cell (k, r, s) low by steps 2 and 3 of the rule (before the run length)? */
/* Step 5: a network cell v of a rank that got under half its typical CPU share is
 * explained by the wait for a CPU, unless it is more than twice as slow as the share
 * (a collective of a rank with 1/5 of its CPU is not 50x slower: a 20-ms delay per call
 * stays visible on a loaded machine). */
static int starved(const struct vs_matrix *m, int r, int s, float v)
{
	float c = m->v[VS_CPU][(size_t)r * m->nslices + s];
	return c < VS_STARVED && v >= 0.5f * c;		/* NaN: not measured */
}

int vs_net_low(const struct vs_matrix *m, const struct vs_rule *rule, int r, int s)
{
	float v = m->v[1][(size_t)r * m->nslices + s];
	return v < rule->threshold[1] && !starved(m, r, s, v);	/* NaN is not low */
}

/*
 * Step 3's second way for a compute cell: was rank r short of CPU in slice s while the
 * ranks on the other cores were not?  It got under VS_CORE_STARVED of its typical CPU
 * share, and under core_peer x the median share of the ranks on the other cores.  A hog on
 * one core of an oversubscribed node starves both ranks of that core, while the other
 * core's ranks wait for them in MPI and lose speed too (and take other users' processes
 * pushed off the hogged core): the slice's median then sits between the two pairs and the
 * median check misses the hogged pair.  A CPU quota on one rank starves that rank alone: the
 * rank sharing its core gets the CPU the other cannot use (its share stays full, so it is
 * not flagged), and every rank, waiting for the starved one, loses compute speed too (on
 * the Linux 6.18 VM all four of t603's ranks fell to 0.2-0.3 under a 5% quota on one, so
 * the median check missed it: 2 of 13 cells).  Where the cores or the shares were not
 * recorded (no matrix-core.csv, no schedstat) it never holds.  0.4, not step 5's half: on
 * the runs of 2026-11-26 at load 6-10 (doc/sonde-vsensor-history.md) 0.5 let other users'
 * load on one core through more often (clean false positives 2.0% of CoMD/IS cells, 6.8% of
 * the kernels', against 1.3% and 6.5%) for the same recall.
 */
static int rank_starved(const struct vs_matrix *m, const struct vs_rule *rule, int r, int s, float *tmp)
{
	size_t ns = m->nslices;
	float core = m->v[VS_CORE][(size_t)r * ns + s], mine = m->v[VS_CPU][(size_t)r * ns + s];
	if (isnan(core) || !(mine < VS_CORE_STARVED))	/* NaN share: asleep, not starved */
		return 0;
	int n = 0;
	for (int q = 0; q < m->nranks; q++) {
		float c = m->v[VS_CORE][(size_t)q * ns + s], share = m->v[VS_CPU][(size_t)q * ns + s];
		/* a rank with no share was asleep (runnable under 10 ms of the period): a full
		 * one, as for machine_starved; ranks that sleep in MPI while the hogged core's
		 * ranks catch up are the case this check is for */
		if (!isnan(c) && c != core)
			tmp[n++] = isnan(share) ? 1.0f : share;
	}
	return n && mine < rule->core_peer * median(tmp, n);
}

/* Step 5's exception: is rank r, compute-flagged in slice s, slow in the network on its
 * own, so that the others' low network cells are not (only) their wait for it?  Its
 * network cell is low (step 2, not a CPU wait), it got at least half its typical CPU
 * share (a throttled rank is descheduled inside its collectives too), and its network is
 * slower than its compute: a rank the others wait for arrives last, and its own network
 * senses do not wait.  No way out for a starved rank with a very slow network: a bar at
 * 0.03 x its share (0bba6e7) gave PRK Synch_p2p's PMPI delay back in helper S's runs, but
 * a CPU quota on one rank of ft on a quiet machine put that rank at share 0.10, network
 * 0.001-0.002, under the bar, and flagged every rank's wait for it (FP 17.6%, 1 of 3 more
 * runs); doc/sonde-vsensor.md, step 5. */
static int net_own(const struct vs_matrix *m, const struct vs_rule *rule, int r, int s)
{
	size_t c = (size_t)r * m->nslices + s;
	return vs_net_low(m, rule, r, s) && !(m->v[VS_CPU][c] < VS_STARVED) &&
	       m->v[1][c] < m->v[0][c];
}

/*
 * Step 2's second bar for a network cell: under rule->net_rel x its rank's typical network
 * level, the VS_NET_LEVEL_Q quantile of the rank's network cells over the run.  On a quiet
 * machine the level is about 1 and the bar is the threshold's; on a loaded one the
 * network sensors of every rank are slower than their best most of the time (PRK Stencil's
 * posting calls at 0.2-0.6 of their standard for seconds, in clean runs at load 11-14), and
 * a cell has to fall well under that noise to count: the PMPI delay put them at 0.001.
 * The 75th percentile, not the median: an event that covers a third of the run (t603's
 * window of 3 s in 8) must not lower its own bar (the median did, on ft's delayed runs, in
 * a one-off trial).
 */
static int float_cmp(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

static float net_level(const struct vs_matrix *m, int r, float *tmp)
{
	int n = 0;
	for (int s = 0; s < m->nslices; s++) {
		float v = m->v[1][(size_t)r * m->nslices + s];
		if (!isnan(v))
			tmp[n++] = v;
	}
	if (!n)
		return NAN;
	qsort(tmp, n, sizeof(float), float_cmp);	/* a run's slices: thousands in an hour */
	return tmp[(int)(VS_NET_LEVEL_Q * (n - 1) + 0.5)];
}

double vs_net_level(const struct vs_matrix *m, int r)
{
	float *tmp = malloc((m->nslices ? m->nslices : 1) * sizeof(float));
	double l = tmp ? net_level(m, r, tmp) : NAN;
	free(tmp);
	return l;
}

/* Steps 1 and 2 for network cell (r, s): low, not a CPU wait, and under the rank's noise. */
static int net_low_rel(const struct vs_matrix *m, const struct vs_rule *rule, int r, int s, const float *lvl)
{
	float v = m->v[1][(size_t)r * m->nslices + s];
	return vs_net_low(m, rule, r, s) && !(v >= rule->net_rel * lvl[r]);	/* NaN level: no bar */
}

static int cell_low(const struct vs_matrix *m, const struct vs_rule *rule, int k, int r, int s,
		    const float *med, const float *share, const float *lvl, float *tmp)
{
	float v = m->v[k][(size_t)r * m->nslices + s];
	/* compute: a rank short of CPU against the other cores' ranks is slow whatever its
	 * cell reads.  The cell takes the CPU share with a slack of 2.5 (VS_CPU_SLACK: clean
	 * runs' shares move 3x with other users' load), so a rank given a third of its core by
	 * a co-runner reads 0.8 there, over the bar: the usability review's co-runner on 2 of
	 * 4 ranks of an Allreduce loop (shares 0.27-0.38 of the typical for 3 s) had no cell
	 * under 0.6 and was missed.  Until 2026-11-28 the share's check came after the bar. */
	if (!(v < rule->threshold[k]))		/* NaN is not low */
		return k == 0 && !isnan(v) && m->nranks >= 2 && rank_starved(m, rule, r, s, tmp);
	if (k == 1)	/* share < 0 marks a slice where some rank's compute is low (step 5) */
		return net_low_rel(m, rule, r, s, lvl) && share[s] >= 0.75;
	/* two ranks: the other rank is the peer (their median, the mean of the two, moves
	 * with the slow one: 0.5 beside 1.0 sits at 0.67 of it and passed the 0.6 bar); until
	 * 2026-11-28 none, and a load both ranks felt alike was flagged on both (the usability
	 * review's 2-rank runs on a busy machine: "compute 0.45" over the clean parts) */
	if (m->nranks == 2) {
		float o = m->v[k][(size_t)(1 - r) * m->nslices + s];
		if (isnan(o) || v < rule->peer * o)
			return 1;
		return k == 0 && rank_starved(m, rule, r, s, tmp);
	}
	if (m->nranks < 2 || isnan(med[s]) || v < rule->peer * med[s])
		return 1;
	return k == 0 && rank_starved(m, rule, r, s, tmp);
}

/* Is the whole machine short of CPU in slice s?  By the ranks' CPU share where the run
 * measured it (have_cpu): a rank with no share in the slice was runnable for under 10 ms
 * of each period, asleep (a slow network's wait), not starved: it counts as a full share.
 * Without CPU shares (no schedstat), by the median compute speed: half, not the compute
 * threshold.  Compute alone misleads when ranks sleep: they resume with cold caches, and
 * under a 20-ms PMPI delay every rank's compute fell to 0.36-0.50 (0.54-0.64 under 3 ms,
 * stencil), while the CPU share said they were asleep, not waiting for a CPU. */
static int machine_starved(const struct vs_matrix *m, int s, int have_cpu, float *tmp)
{
	if (!have_cpu)
		return slice_median(m, 0, s, tmp) < VS_STARVED;
	int n = 0;
	for (int r = 0; r < m->nranks; r++) {
		float c = m->v[VS_CPU][(size_t)r * m->nslices + s];
		tmp[n++] = isnan(c) ? 1.0f : c;
	}
	return median(tmp, n) < VS_STARVED;
}

/*
 * Step 4 for rank r's cells of kind k (low[s]: steps 1-3 and 5): runs of at least
 * min_slices low cells (one more for network) are flagged, and a flagged run goes on over
 * one cell under VS_HYST x bar (the cell's effective bar: the threshold, for network the
 * lower of it and net_rel x the rank's level) when low cells follow it (hysteresis: an
 * event is not cut in two by one slice that came back part way; the cells after the gap
 * need not make a run of their own).  At most VS_BRIDGES times per run: unbounded, a chain
 * of bridges made a run of 3 flag 57 cells where cells at 0.85 and 0.1 alternated (half of
 * them never low); one bridge lost co-runner cells that two keep
 * (doc/sonde-vsensor-history.md).  Not over a slice step 5 dropped (dropped[s] < 0): its
 * cell was a wait for a slow rank, and flagging it through the bridge undoes step 5.  Why
 * the longer runs (3 and 4 slices, 0.6 and 0.8 s, where 2 and 3 were): on a loaded machine
 * a rank's cells drop under the thresholds for a slice or two at a time, in clean runs
 * (compute at 0.1-0.4 beside 0.7-1.0 from one slice to the next in PRK Stencil's clean run
 * at load 11-14), and 2-slice runs made most of the clean false positives; the bridge gives
 * back most of the co-runner's cells that the longer runs lose (doc/sonde-vsensor.md,
 * "Detection rule").
 */
static void flag_runs(const struct vs_matrix *m, const struct vs_rule *rule, int k, int r,
		      float bar, const float *dropped, const unsigned char *low, unsigned char *f)
{
	int ns = m->nslices, need = rule->min_slices + (k == 1);
	const float *v = m->v[k] + (size_t)r * ns;
	for (int s = 0; s < ns;) {
		if (!low[s]) {
			s++;
			continue;
		}
		int e = s;
		while (e < ns && low[e])
			e++;
		if (e - s >= need) {
			/* the bridge: one cell that came back part way, then low cells */
			for (int b = 0; b < VS_BRIDGES && e + 1 < ns && low[e + 1] &&
					v[e] < VS_HYST * bar && !(dropped && dropped[e] < 0); b++) {
				e += 1;
				while (e < ns && low[e])
					e++;
			}
			memset(f + s, 1, e - s);
		}
		s = e;
	}
}

void vs_detect(const struct vs_matrix *m, const struct vs_rule *rule, unsigned char *flag[VS_KINDS])
{
	int have_cpu = 0;
	for (size_t c = 0; m->v[VS_CPU] && c < (size_t)m->nranks * m->nslices && !have_cpu; c++)
		have_cpu = !isnan(m->v[VS_CPU][c]);
	int ns = m->nslices;
	float *med = calloc(ns ? ns : 1, sizeof(float));
	float *share = calloc(ns ? ns : 1, sizeof(float));
	float *tmp = calloc(m->nranks > ns ? m->nranks : ns ? ns : 1, sizeof(float));
	float *lvl = calloc(m->nranks ? m->nranks : 1, sizeof(float));
	unsigned char *low = calloc(ns ? ns : 1, 1);
	for (int r = 0; tmp && lvl && r < m->nranks; r++)
		lvl[r] = net_level(m, r, tmp);
	for (int k = 0; k < VS_KINDS; k++) {
		memset(flag[k], 0, (size_t)m->nranks * ns);
		if (!med || !share || !tmp || !lvl || !low)
			continue;
		for (int s = 0; s < ns; s++) {
			int nlow = 0, have = 0;
			med[s] = slice_median(m, k, s, tmp);
			for (int r = 0; r < m->nranks; r++) {
				float v = m->v[k][(size_t)r * ns + s];
				have += !isnan(v);
				nlow += k == 1 ? net_low_rel(m, rule, r, s, lvl) : v < rule->threshold[k];
			}
			share[s] = have ? (float)nlow / have : 0;
			/* compute is decided first.  A rank slow in compute is the one the others
			 * wait for: it arrives last, its own network senses do not wait, and
			 * only its network cell not being low says that the others' low cells are
			 * that wait.  Where every compute-flagged rank is low in the network too,
			 * the network itself was slow (a PMPI delay on PRK Reduce flagged ranks
			 * 1 and 3 compute, others' load on their CPU, and step 5 dropped the
			 * whole delay) */
			for (int r = 0; r < m->nranks && k == 1; r++)
				if (flag[0][(size_t)r * ns + s] && !net_own(m, rule, r, s))
					share[s] = -1;
			/* the whole machine short of CPU (the median rank gets under half its
			 * CPU): collectives wait for descheduled ranks */
			if (k == 1 && m->nranks >= 3 && machine_starved(m, s, have_cpu, tmp))
				share[s] = -1;
		}
		for (int r = 0; r < m->nranks; r++) {
			/* step 6: too few network slices on this rank for a baseline */
			if (k == 1) {
				int have = 0;
				for (int s = 0; s < ns; s++)
					have += !isnan(m->v[k][(size_t)r * ns + s]);
				if (have < VS_NET_MIN_SLICES)
					continue;
			}
			for (int s = 0; s < ns; s++)
				low[s] = cell_low(m, rule, k, r, s, med, share, lvl, tmp);
			float bar = rule->threshold[k];
			if (k == 1 && rule->net_rel * lvl[r] < bar)	/* NaN level: no bar */
				bar = rule->net_rel * lvl[r];
			flag_runs(m, rule, k, r, bar, k == 1 ? share : NULL, low,
				  flag[k] + (size_t)r * ns);
		}
	}
	free(med);
	free(share);
	free(tmp);
	free(lvl);
	free(low);
}

/* vs_events, and *full = 1 when a run found no room in ev[max] */
static int find_events(const struct vs_matrix *m, unsigned char *const flag[VS_KINDS],
		       struct vs_event *ev, int max, int *full)
{
	int n = 0, ns = m->nslices;
	for (int k = 0; k < VS_KINDS; k++) {
		int first = n;
		for (int r = 0; r < m->nranks; r++) {
			const unsigned char *f = flag[k] + (size_t)r * ns;
			for (int s = 0; s < ns;) {
				if (!f[s]) {
					s++;
					continue;
				}
				int e = s;
				while (e < ns && f[e])
					e++;
				/* join an event of the rank just below that overlaps in time */
				int joined = 0;
				for (int i = first; i < n && !joined; i++) {
					if (ev[i].r1 == r - 1 && ev[i].s0 <= e - 1 && s <= ev[i].s1) {
						ev[i].r1 = r;
						if (s < ev[i].s0)
							ev[i].s0 = s;
						if (e - 1 > ev[i].s1)
							ev[i].s1 = e - 1;
						joined = 1;
					}
				}
				if (!joined && n >= max)
					*full = 1;
				if (!joined && n < max) {
					memset(&ev[n], 0, sizeof(ev[n]));
					ev[n].r0 = ev[n].r1 = r;
					ev[n].s0 = s;
					ev[n].s1 = e - 1;
					ev[n].kind = k;
					n++;
				}
				s = e;
			}
		}
	}
	/* A run joins the first event above it that it overlaps, and that event may then
	 * overlap others of the rank above (rank 0's runs 2.0-2.8, 3.0-3.8 and 4.8-5.6 under
	 * rank 1's 2.0-5.6: the review's "0-3 2.0-5.6" listed beside "0 3.0-3.8" and
	 * "0 4.8-5.6", inside it): events of a kind that overlap in time on the same or
	 * adjacent ranks are one. */
	for (int changed = 1; changed;) {
		changed = 0;
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++) {
				struct vs_event *a = &ev[i], *b = &ev[j];
				if (a->kind != b->kind || b->r0 > a->r1 + 1 || a->r0 > b->r1 + 1 ||
				    b->s0 > a->s1 || a->s0 > b->s1)
					continue;
				a->r0 = b->r0 < a->r0 ? b->r0 : a->r0;
				a->r1 = b->r1 > a->r1 ? b->r1 : a->r1;
				a->s0 = b->s0 < a->s0 ? b->s0 : a->s0;
				a->s1 = b->s1 > a->s1 ? b->s1 : a->s1;
				memmove(b, b + 1, (size_t)(n - j - 1) * sizeof(*b));
				n--;
				j--;
				changed = 1;
			}
	}
	for (int i = 0; i < n; i++) {
		double sum = 0;
		int c = 0;
		for (int r = ev[i].r0; r <= ev[i].r1; r++)
			for (int s = ev[i].s0; s <= ev[i].s1; s++)
				if (flag[ev[i].kind][(size_t)r * ns + s]) {
					/* compute: what the rank got, its CPU share against the
					 * typical where lower (a co-runner's rank reads 0.8 with
					 * the share's slack and got 0.3 of its CPU) */
					float v = m->v[ev[i].kind][(size_t)r * ns + s];
					float sh = ev[i].kind == 0 && m->v[VS_CPU] ?
						m->v[VS_CPU][(size_t)r * ns + s] : NAN;
					sum += sh < v ? sh : v;
					c++;
				}
		ev[i].severity = c ? sum / c : NAN;
	}
	return n;
}

int vs_events(const struct vs_matrix *m, unsigned char *const flag[VS_KINDS], struct vs_event *ev,
	      int max)
{
	int full = 0;
	return find_events(m, flag, ev, max, &full);
}

int vs_events_all(const struct vs_matrix *m, unsigned char *const flag[VS_KINDS],
		  struct vs_event **out, int *cut)
{
	*out = NULL;
	*cut = 0;
	for (int cap = 512;; cap *= 4) {
		struct vs_event *ev = malloc((size_t)cap * sizeof(*ev));
		if (!ev)
			return -ENOMEM;
		int full = 0, n = find_events(m, flag, ev, cap, &full);
		if (!full || cap >= VS_EVENTS_MAX) {
			*out = ev;
			*cut = full;
			return n;
		}
		free(ev);
	}
}

/* Seconds with the decimals a slice of m needs: 1 for slices of whole tenths (the default
 * 200 ms), 2 for hundredths, 3 for other milliseconds (SONDE_VS_SLICE_MS=50 printed "0.1"
 * for events at 0.10 and 0.15 s, one key in the report's lookup of their sensors). */
static void seconds(const struct vs_matrix *m, double s, char out[32])
{
	long long ms = llround(m->slice_s * 1000);
	snprintf(out, 32, "%.*f", ms % 100 == 0 ? 1 : ms % 10 == 0 ? 2 : 3, s);
}

void vs_event_cells(const struct vs_matrix *m, const struct vs_event *e, char ranks[32],
		    char start[32], char end[32], char sev[32])
{
	if (e->r0 == e->r1)
		snprintf(ranks, 32, "%d", e->r0);
	else
		snprintf(ranks, 32, "%d-%d", e->r0, e->r1);
	seconds(m, e->s0 * m->slice_s, start);
	seconds(m, (e->s1 + 1) * m->slice_s, end);
	snprintf(sev, 32, "%.2f", e->severity);
}

int vs_events_write(const struct vs_matrix *m, const struct vs_event *ev, int n, const char *dir)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/events.csv", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return -errno;
	static const char *const head[] = { "ranks", "start", "end", "kind", "severity", "sensors" };
	csv_row(f, 6, head);
	for (int i = 0; i < n; i++) {
		char ranks[32], start[32], end[32], sev[32];
		vs_event_cells(m, &ev[i], ranks, start, end, sev);
		const char *row[] = { ranks, start, end, vs_model_kind(ev[i].kind), sev, ev[i].sensors };
		csv_row(f, 6, row);
	}
	return fclose(f) ? -errno : 0;
}
