/* SPDX-License-Identifier: MIT */
/*
 * vsrt.c - the runtime of sonde vsensor, linked (libsonde-vsensor.a) into programs
 * built with 'sonde vsensor cc'.
 *
 * vs_tick/vs_tock time each sense.  Per sensor, senses are averaged over slices of at
 * least 1 ms (OS noise filter); the 1-ms averages are averaged again per matrix slice
 * (200 ms by default) into one record {slice, sensor, mean time, time spent}; for
 * network sensors the record holds the fastest 1-ms average instead of the mean.  Records
 * are kept in memory and appended in batches of 256 to rank-<r>.rec (rec.h) in the job
 * directory.  At each slice boundary the rank's CPU share is sampled from its main
 * thread's /proc/.../schedstat by a sampler thread of ours (a pseudo-sensor, "(cpu
 * share)"): sampled from vs_tock, as it was, a program that senses once a second
 * (CoMD: two Allreduces per print step) got one share for seconds of slices, and a
 * co-runner of 3 s went unseen.  The samples reach the records through a ring that the
 * main thread drains in vs_tock and at MPI_Finalize.  While the program runs,
 * each rank judges its own closed slices against its own best and warns on stderr
 * (SONDE_VS_LIVE=0: off), with no communication.  At MPI_Finalize (interposed through
 * PMPI) rank 0 gathers every rank's sensor table and records with MPI, takes as
 * standard time of each sensor the 10th percentile of its records over all ranks (over
 * the own rank only for rank-dependent and network sensors), normalizes, merges sensors
 * per kind into the rank x slice matrices, applies the detection rule (model.h) and
 * writes matrix-*.csv, events.csv and sensors.csv.  Sensors whose mean sense is under
 * 5 us after 1000 senses are switched off.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <math.h>
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tools/vsensor/judge.h"
#include "tools/vsensor/model.h"
#include "tools/vsensor/rec.h"
#include "tools/vsensor/vs-abi.h"
#include "ui/csv.h"

#define VS_MAX_SENSORS 1024
#define VS_BATCH 256
#define VS_LIVE_MAX 10		/* live warnings per rank */

struct vs_state {
	struct vs_sensor *s;
	long long acc, slice_start, total_ns;
	long cnt, total_cnt;
	long short_cnt;		/* of the first VS_SHORT_AFTER senses, those under VS_SHORT_NS */
	int bin, nslices;
	double sum_avg, min_avg, weight_ns;
};


/* Live reporting (SONDE_VS_LIVE): the rank's own view of the slice being closed. */
struct vs_live {
	int on, bin, printed;
	double pw[VS_KINDS], w[VS_KINDS];	/* sum of performance x weight, of weight */
	double cpu, cpu_raw;			/* CPU-share performance (with, without the slack), NAN if none */
	int low[VS_KINDS];			/* consecutive low slices */
	double low_sum[VS_KINDS];
	int low_sensor[VS_KINDS];		/* the slowest sensor of the first low slice */
	double worst[VS_KINDS];
};

static struct {
	int active, rank, size;
	long long t0, slice_ns;
	char dir[512];
	char why[1024];		/* why nothing is recorded (job_dir), said again at the end */
	int fd, sfd;		/* rank-<r>.rec, rank-<r>.sensors (judge.h) */
	struct vs_state st[VS_MAX_SENSORS];
	float best_us[VS_MAX_SENSORS];	/* this rank's fastest record so far (live baseline) */
	int nst;
	struct vs_rec *rec;
	int nrec, caprec, flushed;
	long long flushed_ns;		/* when the last batch went out (push_rec) */
	int32_t file_bin;		/* the slice of the last record written (rec.h, format 2) */
	/* CPU share: the main thread's schedstat, sampled at each slice boundary by the
	 * sampler thread while it runs, then by the main thread at MPI_Finalize */
	int sched_fd, cpu_id;
	int stat_fd, core_id;		/* the main thread's stat: the CPU it ran on last */
	int node;			/* this rank's machine: 0.. in the order of its first rank */
	long long last_sample, cpu_prev, rd_prev;
	pthread_t sampler;
	int have_sampler;
	struct vs_live live;
} vs = { .fd = -1, .sfd = -1, .sched_fd = -1, .cpu_id = -1, .stat_fd = -1, .core_id = -1 };

/* Samples from the sampler thread to the main thread: one producer, one consumer. */
#define VS_RING 65536		/* 1.8 h of 200-ms slices (a share and a core each) without a drain */
static struct cpu_entry {
	int id, bin;
	float mean_us, weight_s;
} cpu_ring[VS_RING];
static atomic_uint cpu_prod, cpu_cons;

/* The pseudo-sensor of the CPU share (VS_F_CPU, kind compute): its "time" is the wall
 * time the rank needed per millisecond of CPU it got while runnable, so a co-running
 * hog or a CPU quota on its core shows even when its compute senses run unpreempted
 * (ranks that wait in MPI lose the CPU in sched_yield, between senses). */
static struct vs_sensor cpu_sensor = { "(cpu share)", 0, VS_F_CPU, 0, 0, 0 };

/* The pseudo-sensor of the CPU the rank's main thread ran on at each slice boundary
 * (VS_F_CORE; its "time" is node x VS_NODE_CPUS + the CPU number + 1, so that 0 stays
 * "no record" and CPU 3 of two machines are two cores; exact in a float up to 4095
 * machines, and not recorded beyond): the rule
 * judges the ranks that share a core together (model.h, step 3).  Kind -1: no matrix of
 * a kind, no live judgement, no event's sensor list. */
static struct vs_sensor core_sensor = { "(core)", -1, VS_F_CORE, 0, 0, 0 };
#define VS_NODE_CPUS 4096

/* This rank's machine, numbered 0.. by the machines' first ranks: the ranks that share
 * memory (MPI_COMM_TYPE_SHARED), their leader's number among the leaders.  Collective:
 * every rank, at start.  -1 when MPI cannot say. */
static int node_index(void)
{
	MPI_Comm node, leaders;
	int nrank = 0, idx = -1;
	if (PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, vs.rank, MPI_INFO_NULL,
				 &node) != MPI_SUCCESS)
		return -1;
	PMPI_Comm_rank(node, &nrank);
	if (PMPI_Comm_split(MPI_COMM_WORLD, nrank == 0 ? 0 : MPI_UNDEFINED, vs.rank,
			    &leaders) == MPI_SUCCESS && leaders != MPI_COMM_NULL) {
		PMPI_Comm_rank(leaders, &idx);
		PMPI_Comm_free(&leaders);
	}
	PMPI_Bcast(&idx, 1, MPI_INT, 0, node);
	PMPI_Comm_free(&node);
	return idx;
}

static long long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

void vs_tick(struct vs_sensor *s)
{
	if (vs.active && !s->off)
		s->t0 = now_ns();
}

static void write_fd(int fd, const unsigned char *p, size_t len)
{
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		p += w;
		len -= w;
	}
}

static void write_all(const unsigned char *p, size_t len)
{
	write_fd(vs.fd, p, len);
}

/* Sensor id (registered: vs.st[id]) into rank-<r>.sensors, or its switching off: the
 * table `report` judges a job by when it never reached MPI_Finalize (judge.h). */
static void note_sensor(int id, int off)
{
	if (vs.sfd < 0)
		return;
	char line[VS_NAME + 64];
	const struct vs_sensor *s = vs.st[id].s;
	int n = off ? snprintf(line, sizeof(line), "off\t%d\n", id)
		    : snprintf(line, sizeof(line), "%d\t%d\t%d\t%.*s\n", id, s->kind, s->flags,
			       VS_NAME - 1, s->name);
	if (n > 0)
		write_fd(vs.sfd, (const unsigned char *)line, (size_t)n < sizeof(line) ? (size_t)n
			 : sizeof(line) - 1);
}

/* The records since the last flush, in format 2 (rec.h): a batch of VS_BATCH takes at
 * most VS_BATCH x VS_REC_MAX bytes, and one write. */
static void flush_batch(void)
{
	if (vs.fd < 0 || vs.flushed >= vs.nrec)
		return;
	unsigned char buf[VS_BATCH * VS_REC_MAX];
	while (vs.flushed < vs.nrec) {
		size_t len = 0;
		for (int i = 0; i < VS_BATCH && vs.flushed < vs.nrec; i++)
			len += vs_rec_encode(&vs.rec[vs.flushed++], &vs.file_bin, buf + len);
		write_all(buf, len);
	}
	vs.flushed_ns = now_ns();
}

static void live_record(int bin, int id, float mean_us, float weight_s);

static void push_rec(int bin, int id, float mean_us, float weight_s)
{
	if (vs.nrec == vs.caprec) {
		int cap = vs.caprec ? 2 * vs.caprec : 1024;
		struct vs_rec *r = realloc(vs.rec, cap * sizeof(*r));
		if (!r)
			return;		/* drop the record rather than the program */
		vs.rec = r;
		vs.caprec = cap;
	}
	struct vs_rec *r = &vs.rec[vs.nrec++];
	r->bin = bin;
	r->sensor = id;
	r->mean_us = mean_us;
	r->weight_s = vs_rec_weight(weight_s);	/* as the file keeps it */
	if (vs.live.on)
		live_record(bin, id, mean_us, weight_s);
	/* in batches, and at least once a second: a job killed before MPI_Finalize keeps
	 * its records up to the last second (with batches alone, the last 256: 12.8 s of a
	 * plain compute-and-allreduce rank in the usability review of 2026-11-28) */
	if (vs.nrec - vs.flushed >= VS_BATCH || now_ns() - vs.flushed_ns >= 1000000000LL)
		flush_batch();
}

static void emit(int id)
{
	struct vs_state *st = &vs.st[id];
	if (!st->nslices)
		return;
	/* network: the fastest 1-ms slice of the matrix slice, i.e. the senses that did not
	 * wait for a late partner (waiting is load imbalance, not network speed) */
	push_rec(st->bin, id, (st->s->kind == 1 ? st->min_avg : st->sum_avg / st->nslices) / 1000.0,
		 st->weight_ns / 1e9);
	st->sum_avg = st->weight_ns = 0;
	st->nslices = 0;
}

/* ---- live reporting: each rank, from its own records, no communication ---- */

static void live_close(void)
{
	struct vs_live *L = &vs.live;
	struct vs_rule rule;
	vs_rule_default(&rule);
	for (int k = 0; k < VS_KINDS; k++) {
		double v = L->w[k] > 0 ? L->pw[k] / L->w[k] : NAN;
		if (k == 0 && !isnan(L->cpu) && (isnan(v) || L->cpu < v))
			v = L->cpu;
		int need = rule.min_slices + (k == 1);
		if (k == 1 && L->cpu < VS_STARVED && v >= 0.5 * L->cpu)
			v = NAN;	/* waited for a CPU, not the network (rule step 5) */
		if (!isnan(v) && v < rule.threshold[k]) {
			L->low_sum[k] += v;
			if (++L->low[k] == need && L->printed < VS_LIVE_MAX) {
				int id = L->low_sensor[k];
				const char *why = id == vs.cpu_id ? "it gets a small share of its CPU" :
						  id >= 0 && id < vs.nst ? vs.st[id].s->name : "?";
				/* the first says what it is: a clean run's 2-16 read as alarms
				 * the final analysis then did not confirm (the usability review
				 * of 2026-11-29, M2) */
				int first = !L->printed++;
				fprintf(stderr, "sonde: vsensor: rank %d: %s at %.2fx of its best "
					"since %.1f s: %s%s%s%s\n", vs.rank, vs_model_kind(k),
					L->low_sum[k] / L->low[k],
					(L->bin - need + 1) * (vs.slice_ns / 1e9),
					id == vs.cpu_id ? "" : "slowest ", why,
					!first ? "" : " (provisional: this rank's own reading; "
					"the analysis over all ranks at MPI_Finalize decides "
					"the events)", L->printed == VS_LIVE_MAX ?
					" (further warnings of this rank suppressed)" : "");
			}
		} else if (!isnan(v) || L->w[k] == 0) {
			L->low[k] = 0;
			L->low_sum[k] = 0;
		}
		L->pw[k] = L->w[k] = 0;
		L->worst[k] = 2;
	}
	L->cpu = L->cpu_raw = NAN;
}

static void live_record(int bin, int id, float mean_us, float weight_s)
{
	struct vs_live *L = &vs.live;
	/* the core is written every slice, asleep or not: it must not close slices that
	 * hold no sensor's record (that reset the run of low slices across a long wait) */
	if (id >= 0 && id < vs.nst && (vs.st[id].s->flags & VS_F_CORE))
		return;
	if (bin < L->bin)
		return;			/* a late record of a slice already judged */
	while (bin > L->bin) {
		live_close();
		L->bin++;
		if (bin > L->bin + 1)	/* nothing ran for a while: skip the empty slices */
			L->bin = bin;
	}
	if (mean_us <= 0 || id < 0 || id >= vs.nst)
		return;
	if (vs.best_us[id] == 0 || mean_us < vs.best_us[id])
		vs.best_us[id] = mean_us;
	struct vs_sensor *s = vs.st[id].s;
	double p = vs.best_us[id] * (s->flags & VS_F_CPU ? VS_CPU_SLACK : 1) / mean_us;
	if (p > 1)
		p = 1;
	int k = s->kind >= 0 && s->kind < VS_KINDS ? s->kind : 0;
	if (s->flags & VS_F_CPU) {
		L->cpu = p;
		L->cpu_raw = vs.best_us[id] / mean_us;
	} else {
		L->pw[k] += p * weight_s;
		L->w[k] += weight_s;
	}
	if (p < L->worst[k]) {
		L->worst[k] = p;
		if (L->low[k] == 0)
			L->low_sensor[k] = id;
	}
}

/* ---- CPU share ---- */

static void push_rec(int bin, int id, float mean_us, float weight_s);

/* The CPU the main thread ran on last (field 39 of its stat), -1 if unknown. */
static int main_cpu(void)
{
	char buf[1024];
	ssize_t n = vs.stat_fd >= 0 ? pread(vs.stat_fd, buf, sizeof(buf) - 1, 0) : -1;
	if (n <= 0)
		return -1;
	buf[n] = 0;
	char *p = strrchr(buf, ')');	/* the command name may hold spaces and ')' */
	int field = 2, cpu = -1;
	for (; p && *p && field < 39; p++)
		if (*p == ' ')
			field++;
	if (p && field == 39 && sscanf(p, "%d", &cpu) != 1)
		cpu = -1;
	return cpu;
}

/*
 * Read the schedstat and turn the period since the last sample into per-slice records,
 * given to out, with the CPU the main thread is on (the (core) pseudo-sensor).  Called by one thread at a time: the sampler while it runs, the main
 * thread at the start (before it exists) and at MPI_Finalize (after it is joined).
 */
static void cpu_sample(long long now, void (*out)(int id, int bin, float mean_us, float weight_s))
{
	char buf[128];
	ssize_t n = pread(vs.sched_fd, buf, sizeof(buf) - 1, 0);
	long long cpu, rd;
	if (n <= 0)
		return;
	buf[n] = 0;
	if (sscanf(buf, "%lld %lld", &cpu, &rd) != 2)
		return;
	long long dc = cpu - vs.cpu_prev, dr = rd - vs.rd_prev;
	int b0 = (int)((vs.last_sample - vs.t0) / vs.slice_ns), b1 = (int)((now - vs.t0) / vs.slice_ns);
	/* a period in which the rank was runnable for under 10 ms (asleep or blocked in
	 * the kernel) says nothing about its CPU share (half a slice, for slices under
	 * 20 ms: at 5 ms no record was ever written, and a busy rank read as silent, the
	 * code review of 2026-11-29) */
	long long least = vs.slice_ns / 2 < 10000000LL ? vs.slice_ns / 2 : 10000000LL;
	/* The sampler itself missed slices (it wakes every slice) and the rank ran or waited
	 * for under half the time: the process was stopped (SIGSTOP, a debugger) or swapped
	 * out, its sampler with it.  The CPU it had went to the slices at either end, not to
	 * every slice between (they were filled with a share of 1.0, and a rank stopped 2 s
	 * outside its sensors read as running: judge.c's silent.csv, the code review). */
	if (vs.last_sample && dc > 0 && dc + dr >= least) {
		float wall = (float)(1000.0 * (dc + dr) / dc);
		if (b1 - b0 > 2 && 2 * (dc + dr) < now - vs.last_sample) {	/* stopped */
			out(vs.cpu_id, b0, wall, (float)(dc / 2e9));
			out(vs.cpu_id, b1 - 1, wall, (float)(dc / 2e9));
		} else {
			for (int b = b0; b < b1 || b == b0; b++)
				out(vs.cpu_id, b, wall, (float)(dc / 1e9 / (b1 > b0 ? b1 - b0 : 1)));
		}
	}
	/* the core: where the rank is now, for the slices since the last sample (a rank
	 * that migrates within a slice is given the last CPU it ran on) */
	int core = vs.core_id >= 0 && vs.last_sample ? main_cpu() : -1;
	for (int b = b0; core >= 0 && (b < b1 || b == b0); b++)
		out(vs.core_id, b, (float)(vs.node * VS_NODE_CPUS + core % VS_NODE_CPUS + 1), 0);
	vs.cpu_prev = cpu;
	vs.rd_prev = rd;
	vs.last_sample = now;
}

static void cpu_to_ring(int id, int bin, float mean_us, float weight_s)
{
	unsigned p = atomic_load_explicit(&cpu_prod, memory_order_relaxed);
	if (p - atomic_load_explicit(&cpu_cons, memory_order_acquire) >= VS_RING)
		return;		/* the main thread has not drained for hours: drop */
	cpu_ring[p % VS_RING] = (struct cpu_entry){ id, bin, mean_us, weight_s };
	atomic_store_explicit(&cpu_prod, p + 1, memory_order_release);
}

static void cpu_to_rec(int id, int bin, float mean_us, float weight_s)
{
	push_rec(bin, id, mean_us, weight_s);
}

/* Main thread: the sampler's records so far into the record stream. */
static void cpu_drain(void)
{
	unsigned c = atomic_load_explicit(&cpu_cons, memory_order_relaxed);
	unsigned p = atomic_load_explicit(&cpu_prod, memory_order_acquire);
	for (; c != p; c++) {
		struct cpu_entry *e = &cpu_ring[c % VS_RING];
		push_rec(e->bin, e->id, e->mean_us, e->weight_s);
	}
	atomic_store_explicit(&cpu_cons, c, memory_order_release);
}

/*
 * Stopping the sampler: a flag it checks, and an eventfd that wakes it from its wait
 * (not pthread_cancel: a cancellation point inside the C library's own locks, or a
 * cancel handler the program installed, is not ours to interrupt).
 */
static atomic_int sampler_stop;
static int sampler_wake = -1;

static void *cpu_sampler(void *arg)
{
	(void)arg;
	struct pollfd pfd = { .fd = sampler_wake, .events = POLLIN };
	long long next = 0;
	while (!atomic_load_explicit(&sampler_stop, memory_order_acquire)) {
		long long now = now_ns();
		if (!next)
			next = vs.t0 + ((now - vs.t0) / vs.slice_ns + 1) * vs.slice_ns;
		if (now < next) {
			/* woken by the eventfd, or early: check the flag, wait again */
			long long d = next - now;
			struct timespec t = { d / 1000000000LL, d % 1000000000LL };
			ppoll(&pfd, 1, &t, NULL);
			continue;
		}
		cpu_sample(now, cpu_to_ring);
		next = 0;
	}
	return NULL;
}

/*
 * A child of fork() has the main thread only: no sampler to stop at MPI_Finalize
 * (joining the parent's would wait forever), and the schedstat file open is the
 * parent thread's.  Registered once, before the first sampler starts.
 */
static void vs_atfork_child(void)
{
	/* nor is it the rank: its senses and its MPI_Finalize record nothing (the
	 * parent's buffered records, copied, would be written twice) */
	vs.active = 0;
	if (vs.fd >= 0)
		close(vs.fd);
	vs.fd = -1;
	if (vs.sfd >= 0)
		close(vs.sfd);
	vs.sfd = -1;
	vs.have_sampler = 0;
	if (vs.sched_fd >= 0)
		close(vs.sched_fd);
	vs.sched_fd = -1;
	if (vs.stat_fd >= 0)
		close(vs.stat_fd);
	vs.stat_fd = -1;
	if (sampler_wake >= 0)
		close(sampler_wake);
	sampler_wake = -1;
}

/* Start the sampler with every signal blocked: the program's signals are not for it. */
static void cpu_sampler_start(void)
{
	static int registered;
	if (!registered)
		registered = pthread_atfork(NULL, NULL, vs_atfork_child) == 0;
	sampler_wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (sampler_wake < 0)
		return;		/* no sampler: MPI_Finalize samples once, as before it */
	atomic_store_explicit(&sampler_stop, 0, memory_order_release);
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	vs.have_sampler = pthread_create(&vs.sampler, NULL, cpu_sampler, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!vs.have_sampler) {
		close(sampler_wake);
		sampler_wake = -1;
	}
}

static void cpu_sampler_stop(void)
{
	if (!vs.have_sampler)
		return;
	atomic_store_explicit(&sampler_stop, 1, memory_order_release);
	uint64_t one = 1;
	while (write(sampler_wake, &one, sizeof(one)) < 0 && errno == EINTR)
		;
	pthread_join(vs.sampler, NULL);
	vs.have_sampler = 0;
	close(sampler_wake);
	sampler_wake = -1;
}

static void close_slice(int id, long long now)
{
	struct vs_state *st = &vs.st[id];
	int bin = (int)((now - vs.t0) / vs.slice_ns);
	if (bin != st->bin)
		emit(id);
	st->bin = bin;
	double avg = (double)st->acc / st->cnt;
	if (!st->nslices || avg < st->min_avg)
		st->min_avg = avg;
	st->sum_avg += avg;
	st->weight_ns += st->acc;
	st->nslices++;
	st->acc = 0;
	st->cnt = 0;
}

/*
 * An instance that ran over whole slices before the one it ends in (a stall: the rank
 * stopped, a collective that hung) is slow in each of them, not only in the last: a record
 * of its time for each slice it covered whole.  Counted in the slice it ended in alone, a
 * 2-second stall left 10 slices without a record and one slow one, under the rule's 3 in
 * a row (the trial of 2026-11-28: a SIGSTOPped CoMD rank, a 2-second network hiccup read
 * the same).  The slice the sensor has pending goes out first (records in slice order).
 */
static void spread(int id, long long t0, long long now)
{
	struct vs_state *st = &vs.st[id];
	long long b0 = (t0 - vs.t0) / vs.slice_ns, b1 = (now - vs.t0) / vs.slice_ns;
	/* not a network sense: one that waits seconds is mostly a rank waiting for another
	 * (a checkpoint on rank 0, the others in a barrier), and the slices it covered would
	 * read as the network's (the second code review) */
	if (t0 < vs.t0 || b1 - b0 < 2 || st->s->kind == 1)
		return;
	if (st->nslices && st->bin <= b0)
		emit(id);
	float us = (float)((now - t0) / 1000.0);
	for (long long b = b0 + 1; b < b1; b++)
		push_rec((int)b, id, us, (float)(vs.slice_ns / 1e9));
}

void vs_tock(struct vs_sensor *s)
{
	if (!vs.active || s->off || !s->t0)
		return;
	long long now = now_ns(), dt = now - s->t0;
	if (atomic_load_explicit(&cpu_prod, memory_order_relaxed) !=
	    atomic_load_explicit(&cpu_cons, memory_order_relaxed))
		cpu_drain();
	if (!s->gid) {
		if (vs.nst >= VS_MAX_SENSORS) {
			s->off = 1;
			return;
		}
		vs.st[vs.nst].s = s;
		s->gid = ++vs.nst;
		note_sensor(s->gid - 1, 0);
	}
	int id = s->gid - 1;
	struct vs_state *st = &vs.st[id];
	spread(id, s->t0, now);
	if (!st->cnt)
		st->slice_start = s->t0;
	st->acc += dt;
	st->cnt++;
	st->total_ns += dt;
	st->short_cnt += dt < VS_SHORT_NS && st->total_cnt < VS_SHORT_AFTER;
	/* by the median, not the mean: one preemption lifted a 1-3 us sensor's mean over the
	 * bar on one rank and not the other, and it fed an event in a run with no slowdown
	 * (the trial of 2026-11-30, F4) */
	if (++st->total_cnt == VS_SHORT_AFTER && st->short_cnt * 2 >= VS_SHORT_AFTER) {
		s->off = 1;	/* too short: timing it would cost more than it tells */
		note_sensor(id, 1);
		st->acc = st->cnt = 0;
		return;
	}
	if (now - st->slice_start >= 1000000)
		close_slice(id, now);
}

/* Does directory d hold a vsensor recording (a rank file or a matrix)? */
static int holds_recording(const char *d)
{
	static const char *const names[] = { "rank-0.rec", "matrix-compute.csv", "events.csv" };
	char path[700];
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%.600s/%s", d, names[i]);
		if (!access(path, F_OK))
			return 1;
	}
	return 0;
}

static void job_dir(void)
{
	const char *env = getenv("SONDE_DIR");
	if (env && *env) {
		snprintf(vs.dir, sizeof(vs.dir), "%s", env);
	} else {
		char exe[512] = "program";
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n > 0)
			exe[n] = 0;
		const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
		const char *job = getenv("OMPI_MCA_ess_base_jobid");
		char pid[32];
		if (!job) {
			snprintf(pid, sizeof(pid), "%d", (int)getpid());
			job = pid;
		}
		snprintf(vs.dir, sizeof(vs.dir), "vsensor-%.200s-%.64s", base, job);
	}
	/* A directory that cannot be made or written: said now and at the end, and the run
	 * goes on unrecorded (until 2026-11-28 nothing was written and the end said "see DIR").
	 * One that holds another run's recording is kept: this job's goes beside it, DIR-2,
	 * DIR-3... (a 2-rank run into a 4-rank run's SONDE_DIR replaced its files and kept its
	 * rank-2.rec and rank-3.rec, read as this job's). */
	char want[sizeof(vs.dir)];
	snprintf(want, sizeof(want), "%s", vs.dir);
	for (int i = 2; i <= 101; i++) {	/* DIR, then DIR-2 .. DIR-100 */
		if (!mkdir(vs.dir, 0755)) {
			if (i > 2)
				fprintf(stderr, "sonde: vsensor: '%s' holds another run's recording: "
					"this job's goes to '%s'\n", want, vs.dir);
			return;
		}
		int err = errno;
		struct stat st;
		if (err != EEXIST || stat(vs.dir, &st) || !S_ISDIR(st.st_mode) ||
		    access(vs.dir, W_OK | X_OK)) {
			if (err == EEXIST)
				err = stat(vs.dir, &st) ? errno : !S_ISDIR(st.st_mode) ? ENOTDIR : EACCES;
			snprintf(vs.why, sizeof(vs.why), "cannot record into '%.400s' (%s): %s",
				 vs.dir, env && *env ? "SONDE_DIR" : "the working directory",
				 strerror(err));
			fprintf(stderr, "sonde: vsensor: %s; the program runs unrecorded\n", vs.why);
			vs.dir[0] = 0;
			return;
		}
		if (!holds_recording(vs.dir)) {
			if (i > 2)
				fprintf(stderr, "sonde: vsensor: '%s' holds another run's recording: "
					"this job's goes to '%s'\n", want, vs.dir);
			return;
		}
		snprintf(vs.dir, sizeof(vs.dir), "%.500s-%d", want, i);
	}
	snprintf(vs.why, sizeof(vs.why), "'%.400s' and '%.400s-2' to -100 hold recordings", want,
		 want);
	fprintf(stderr, "sonde: vsensor: %s; the program runs unrecorded\n", vs.why);
	vs.dir[0] = 0;
}

static void vs_start(void)
{
	PMPI_Comm_rank(MPI_COMM_WORLD, &vs.rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &vs.size);
	const char *ms = getenv("SONDE_VS_SLICE_MS");
	char *end;
	long sl = ms && *ms ? strtol(ms, &end, 10) : 200;
	if (ms && *ms && (*end || sl <= 0 || sl > 3600000)) {
		if (vs.rank == 0)
			fprintf(stderr, "sonde: vsensor: SONDE_VS_SLICE_MS='%s' is not a number of "
				"milliseconds (1-3600000): slices of 200 ms\n", ms);
		sl = 200;
	}
	vs.slice_ns = sl * 1000000LL;
	if (vs.rank == 0)
		job_dir();
	PMPI_Bcast(vs.dir, sizeof(vs.dir), MPI_CHAR, 0, MPI_COMM_WORLD);
	char path[600];
	snprintf(path, sizeof(path), "%s/rank-%d.rec", vs.dir, vs.rank);
	vs.fd = vs.dir[0] ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
	if (vs.fd >= 0)
		write_all((const unsigned char *)VS_REC_MAGIC, VS_REC_MAGIC_LEN);
	snprintf(path, sizeof(path), "%s/rank-%d.sensors", vs.dir, vs.rank);
	vs.sfd = vs.fd >= 0 ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
	if (vs.sfd >= 0) {
		char head[128];
		int n = snprintf(head, sizeof(head), VS_SENSORS_HEAD "ranks %d, slice_ms %ld\n",
				 vs.size, sl);
		write_fd(vs.sfd, (const unsigned char *)head, (size_t)n);
	}
	vs.sched_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	if (vs.sched_fd >= 0) {
		vs.st[vs.nst].s = &cpu_sensor;
		cpu_sensor.gid = ++vs.nst;
		vs.cpu_id = cpu_sensor.gid - 1;
		note_sensor(vs.cpu_id, 0);
		vs.node = node_index();
		vs.stat_fd = vs.node >= 0 && vs.node < (1 << 24) / VS_NODE_CPUS - 1
			? open("/proc/thread-self/stat", O_RDONLY | O_CLOEXEC) : -1;
		if (vs.stat_fd >= 0) {
			vs.st[vs.nst].s = &core_sensor;
			core_sensor.gid = ++vs.nst;
			vs.core_id = core_sensor.gid - 1;
			note_sensor(vs.core_id, 0);
		}
	}
	const char *live = getenv("SONDE_VS_LIVE");
	vs.live.on = !(live && !strcmp(live, "0"));
	vs.live.cpu = vs.live.cpu_raw = NAN;
	for (int k = 0; k < VS_KINDS; k++)
		vs.live.worst[k] = 2;
	PMPI_Barrier(MPI_COMM_WORLD);
	vs.t0 = now_ns();
	if (vs.sched_fd >= 0) {
		vs.last_sample = 0;
		cpu_sample(vs.t0, cpu_to_rec);
		cpu_sampler_start();
	}
	vs.active = 1;
}

int MPI_Init(int *argc, char ***argv)
{
	int rc = PMPI_Init(argc, argv);
	if (rc == MPI_SUCCESS)
		vs_start();
	return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int rc = PMPI_Init_thread(argc, argv, required, provided);
	if (rc == MPI_SUCCESS)
		vs_start();
	return rc;
}

/* ---- rank 0: cross-rank analysis ---- */

static void analyse(struct vs_all *A)
{
	struct vs_rule rule;
	vs_rule_default(&rule);
	const char *t = getenv("SONDE_VS_THRESHOLD");
	char *end;
	double th = t && *t ? strtod(t, &end) : 0;
	if (t && *t && (*end || !(th > 0 && th <= 1)))
		fprintf(stderr, "sonde: vsensor: SONDE_VS_THRESHOLD='%s' is not a number in (0, 1]: "
			"the default thresholds are used\n", t);
	else if (t && *t)
		for (int k = 0; k < VS_KINDS; k++)
			rule.threshold[k] = th;
	struct vs_judged j;
	if (vs_judge(A, &rule, vs.dir, &j))
		fprintf(stderr, "sonde: vsensor: out of memory judging the ranks' records; "
			"`sonde vsensor report %s` judges them from the files\n", vs.dir);
	else if (j.write_err)
		fprintf(stderr, "sonde: vsensor: could not write the matrices into '%s': %s "
			"(the raw records: sonde vsensor records %s)\n", vs.dir, strerror(-j.write_err),
			vs.dir);
	else
	{
		char cov[48] = "", sil[96] = "";
		if (j.coverage >= 0)
			snprintf(cov, sizeof(cov), " timing %.1f%% of the run", 100 * j.coverage);
		if (j.silences)	/* (judge.c, write_silences) */
			snprintf(sil, sizeof(sil), ", %d stretch%s (%.1f s%s) in which a rank "
				 "recorded nothing", j.silences, j.silences == 1 ? "" : "es",
				 j.silent_s, j.silences == 1 ? "" : " in all");
		fprintf(stderr, "sonde: vsensor: %d rank%s, %d sensor%s%s, %s%d variance "
			"event%s%s%s; see %s\n", vs.size, vs.size == 1 ? "" : "s", j.sensors,
			j.sensors == 1 ? "" : "s", cov, j.events_cut ? "the first " : "", j.events,
			j.events == 1 ? "" : "s", sil,
			!j.events && vs.live.printed ? " (the live warnings above were provisional)"
						     : "", vs.dir);
	}
}

static void gather(void)
{
	if (!vs.dir[0]) {	/* (every rank: rank 0 broadcast the empty name) */
		if (vs.rank == 0)
			fprintf(stderr, "sonde: vsensor: nothing recorded: %s\n", vs.why);
		return;
	}
	/* every rank takes part in the gathers below whatever it lacks (a rank that returned
	 * here left the others waiting in them): out of memory, it sends nothing */
	struct vs_desc *mine = calloc(vs.nst ? vs.nst : 1, sizeof(*mine));
	int nst = mine ? vs.nst : 0, nrec = mine ? vs.nrec : 0;
	for (int i = 0; i < nst; i++) {
		struct vs_sensor *s = vs.st[i].s;
		snprintf(mine[i].name, VS_NAME, "%s", s->name);
		mine[i].kind = s->kind;
		mine[i].flags = s->flags;
		mine[i].off = s->off;
		mine[i].senses = vs.st[i].total_cnt;
		mine[i].std_us = 0;
	}
	/* rank-local standard: the fastest slice record (a 200 ms mean of 1 ms means) */
	for (int i = 0; i < nrec; i++) {
		struct vs_desc *d = &mine[vs.rec[i].sensor];
		if (d->std_us == 0 || vs.rec[i].mean_us < d->std_us)
			d->std_us = vs.rec[i].mean_us;
	}
	int counts[2] = { nst, nrec };
	struct vs_all A;
	memset(&A, 0, sizeof(A));
	A.nranks = vs.size;
	A.slice_s = vs.slice_ns / 1e9;
	int *cnt2 = NULL, *bd = NULL, *br = NULL, *od = NULL, *orr = NULL;
	int64_t total = 0, totalr = 0;
	/* rank 0 out of memory cannot receive: it says so to every rank (a broadcast all
	 * take part in), and all leave together; no rank is left waiting in a gather */
	int ok = 1;
	if (vs.rank == 0) {
		cnt2 = calloc(2 * (size_t)vs.size, sizeof(int));
		A.nd = calloc(vs.size, sizeof(int));
		A.nr = calloc(vs.size, sizeof(int));
		A.doff = calloc(vs.size, sizeof(int));
		A.roff = calloc(vs.size, sizeof(int));
		bd = calloc(vs.size, sizeof(int));
		br = calloc(vs.size, sizeof(int));
		od = calloc(vs.size, sizeof(int));
		orr = calloc(vs.size, sizeof(int));
		ok = cnt2 && A.nd && A.nr && A.doff && A.roff && bd && br && od && orr;
	}
	PMPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
	const int counted = ok;	/* every rank alike: the second broadcast is taken by all */
	if (ok)
		PMPI_Gather(counts, 2, MPI_INT, cnt2, 2, MPI_INT, 0, MPI_COMM_WORLD);
	/* counts and offsets in records and sensors, each an MPI type of its own: in bytes
	 * (16 a record) the int counts passed 2^31 at 134M records, a few hundred ranks for
	 * an hour, and rank 0 received them at wrapped offsets (until 2026-11-28) */
	int too_many = 0;
	if (ok && vs.rank == 0) {
		for (int q = 0; q < vs.size; q++) {
			A.nd[q] = cnt2[2 * q];
			A.nr[q] = cnt2[2 * q + 1];
			A.doff[q] = (int)total;
			A.roff[q] = (int)totalr;
			bd[q] = A.nd[q];
			br[q] = A.nr[q];
			od[q] = (int)total;
			orr[q] = (int)totalr;
			total += A.nd[q];
			totalr += A.nr[q];
			if (total > INT_MAX || totalr > INT_MAX) {
				too_many = 1;
				break;
			}
		}
		if (!too_many) {
			A.d = calloc(total ? total : 1, sizeof(struct vs_desc));
			A.r = calloc(totalr ? totalr : 1, sizeof(struct vs_rec));
			A.std = calloc(total ? total : 1, sizeof(float));
		}
		ok = A.d && A.r && A.std;
	}
	if (counted)
		PMPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Datatype td, tr;
	if (ok && PMPI_Type_contiguous((int)sizeof(struct vs_desc), MPI_BYTE, &td) == MPI_SUCCESS) {
		PMPI_Type_commit(&td);
		PMPI_Gatherv(mine, nst, td, A.d, bd, od, td, 0, MPI_COMM_WORLD);
		PMPI_Type_free(&td);
	}
	if (ok && PMPI_Type_contiguous((int)sizeof(struct vs_rec), MPI_BYTE, &tr) == MPI_SUCCESS) {
		PMPI_Type_commit(&tr);
		PMPI_Gatherv(vs.rec, nrec, tr, A.r, br, orr, tr, 0, MPI_COMM_WORLD);
		PMPI_Type_free(&tr);
	}
	if (vs.rank == 0 && ok)
		analyse(&A);
	else if (vs.rank == 0)
		fprintf(stderr, "sonde: vsensor: %s: nothing analysed; each rank's records are "
			"in %s%s\n", too_many ? "over 2^31 records or sensors in all ranks, more "
			"than the analysis takes" : "out of memory gathering the ranks' records",
			vs.dir, too_many ? "" : " ('sonde vsensor report DIR' judges them where "
			"there is more memory)");
	vs_all_free(&A);
	free(bd);
	free(br);
	free(od);
	free(orr);
	free(cnt2);
	free(mine);
}

int MPI_Finalize(void)
{
	if (vs.active) {
		/* now after the join: a last sample taken after it would make the
		 * period from it to now negative */
		cpu_sampler_stop();
		long long now = now_ns();
		if (vs.sched_fd >= 0) {
			cpu_drain();
			cpu_sample(now, cpu_to_rec);
			close(vs.sched_fd);
			vs.sched_fd = -1;
			if (vs.stat_fd >= 0)
				close(vs.stat_fd);
			vs.stat_fd = -1;
		}
		vs.active = 0;
		for (int i = 0; i < vs.nst; i++) {
			if (vs.st[i].cnt)
				close_slice(i, now);
			emit(i);
		}
		flush_batch();
		if (vs.fd >= 0)
			close(vs.fd);
		vs.fd = -1;
		if (vs.sfd >= 0)
			close(vs.sfd);
		vs.sfd = -1;
		gather();
	}
	return PMPI_Finalize();
}
