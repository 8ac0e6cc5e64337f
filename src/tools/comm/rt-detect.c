/* SPDX-License-Identifier: MIT */
/*
 * rt-detect.c - ComDetective's detector as pure functions (detect.h): the bulletin board
 * (a seqlocked hash of cache lines), Algorithm 1, the trap rule and the exact detector.
 * Built into libsonde.so (handler-reachable) and linked by tests/unit/u-comm.c.
 */
#include <sched.h>
#include <string.h>

#include "tools/comm/detect.h"
#include "rt/sigsafe.h"

SIGSAFE void comm_board_init(struct comm_board *b, struct comm_entry *mem, uint32_t size,
			     uint32_t line)
{
	/* tstores is 32 KB, already zero in a fresh board (a static): a memset of the whole
	 * struct wrote all of its 8 pages into the process's memory (bench/memory.sh comm:
	 * libsonde.so's .lbss, 36 KB resident of the board for 5 threads' counters).  Only
	 * what is not zero is written (after a fork: the parent's counts), so the pages no
	 * thread index reaches stay unwritten. */
	for (uint32_t i = 0; i < COMM_TSLOTS; i++) {
		if (b->tstores[i])
			b->tstores[i] = 0;
		if (b->tend[i])
			b->tend[i] = 0;
		if (b->towner[i])
			b->towner[i] = 0;
	}
	b->live = 0;
	b->gstores = 0;
	b->size = size ? size : 1;
	b->line = line;
	b->e = mem;
}

SIGSAFE void comm_board_thread(struct comm_board *b, uint32_t thread, int delta, uint64_t now)
{
	/* a slot is its last starter's: thread i + COMM_TSLOTS ending does not end thread i,
	 * and starting does not bring an ended i back (the code review of 2026-11-29); a
	 * thread whose slot another took is not known to have ended (counted, as before) */
	uint32_t s = thread % COMM_TSLOTS;
	if (delta > 0) {
		__atomic_store_n(&b->tend[s], 0, __ATOMIC_RELAXED);
		__atomic_store_n(&b->towner[s], thread + 1, __ATOMIC_RELEASE);
	} else if (__atomic_load_n(&b->towner[s], __ATOMIC_ACQUIRE) == thread + 1) {
		__atomic_store_n(&b->tend[s], now ? now : 1, __ATOMIC_RELAXED);
	}
	__atomic_add_fetch(&b->live, (uint32_t)delta, __ATOMIC_RELAXED);
}

SIGSAFE int comm_gone_before(const struct comm_board *b, uint32_t thread, uint64_t start)
{
	uint32_t s = thread % COMM_TSLOTS;
	uint64_t end = __atomic_load_n(&b->tend[s], __ATOMIC_RELAXED);
	return end && end < start && __atomic_load_n(&b->towner[s], __ATOMIC_ACQUIRE) == thread + 1;
}

SIGSAFE void comm_observer_init(struct comm_observer *o, uint32_t thread, uint64_t start)
{
	memset(o, 0, sizeof(*o));
	o->thread = thread;
	o->start = start;
}

SIGSAFE int comm_overlap(uint64_t a, uint32_t al, uint64_t b, uint32_t bl)
{
	return a < b + bl && b < a + al;
}

/* The bytes of a line [addr, addr+len) touches, as a mask of offsets 0..63. */
static SIGSAFE uint64_t bytes_of(uint64_t addr, uint32_t len, uint32_t line)
{
	uint64_t lo = addr & (line - 1), hi = lo + (len ? len : 1);
	if (hi > line)
		hi = line;
	if (lo >= 64)
		return 0;
	if (hi > 64)
		hi = 64;
	uint64_t upto = hi == 64 ? ~0ull : (1ull << hi) - 1;
	return upto & ~((1ull << lo) - 1);
}

static SIGSAFE uint32_t wm_slot(uint64_t key)
{
	return (uint32_t)(((key * 0x9E3779B97F4A7C15ull) >> 32) % COMM_WMASK);
}

static SIGSAFE uint64_t wm_get(const struct comm_observer *o, uint64_t key)
{
	uint32_t i = wm_slot(key);
	return o->wm[i].ip == key ? o->wm[i].bytes : 0;
}

SIGSAFE uint64_t comm_wmask_note(struct comm_observer *o, uint64_t ip, uint64_t addr,
				 uint32_t len, uint32_t line)
{
	if (!ip)
		return 0;
	uint64_t key = ip >> COMM_WMASK_CODE;
	uint32_t i = wm_slot(key);
	if (o->wm[i].ip != key) {
		o->wm[i].ip = key;
		o->wm[i].bytes = 0;
	}
	o->wm[i].bytes |= bytes_of(addr, len, line);
	return o->wm[i].bytes | wm_get(o, key - 1) | wm_get(o, key + 1);
}

SIGSAFE int comm_covered(const struct comm_pub *p, uint64_t addr, uint32_t len, uint32_t line)
{
	return (bytes_of(addr, len, line) & p->wbytes) != 0;
}

SIGSAFE int comm_expired(const struct comm_board *b, const struct comm_pub *p)
{
	uint64_t mine = __atomic_load_n(&b->tstores[p->thread % COMM_TSLOTS], __ATOMIC_RELAXED);
	uint64_t all = __atomic_load_n(&b->gstores, __ATOMIC_RELAXED);
	uint32_t live = __atomic_load_n(&b->live, __ATOMIC_RELAXED);
	return mine - p->seq >= 2 || all - p->gseq > 2 * (uint64_t)(live > 1 ? live : 1);
}

static SIGSAFE uint32_t home(const struct comm_board *b, uint64_t line)
{
	return (uint32_t)((line / b->line) % b->size);
}

/* Copy entry e under its seqlock: 1 if the copy is consistent and the entry not empty. */
static SIGSAFE int snapshot(const struct comm_entry *e, uint64_t *line, struct comm_pub *out)
{
	uint64_t s1 = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
	if (s1 & 1)
		return 0;
	*line = __atomic_load_n(&e->line, __ATOMIC_RELAXED);
	__builtin_memcpy(out, &e->pub, sizeof(*out));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&e->seq, __ATOMIC_RELAXED) == s1 && *line != 0;
}

SIGSAFE int comm_board_find(const struct comm_board *b, uint64_t addr, struct comm_pub *out)
{
	uint64_t line = (addr & ~(uint64_t)(b->line - 1)) + 1, l;
	uint32_t h = home(b, line - 1);
	uint32_t probe = b->size < COMM_PROBE ? b->size : COMM_PROBE;
	for (uint32_t i = 0; i < probe; i++) {
		const struct comm_entry *e = &b->e[(h + i) % b->size];
		if (snapshot(e, &l, out) && l == line)
			return 1;
	}
	return 0;
}

SIGSAFE int comm_board_publish(struct comm_board *b, const struct comm_pub *p)
{
	uint64_t line = (p->addr & ~(uint64_t)(b->line - 1)) + 1, l;
	uint32_t h = home(b, line - 1);
	uint32_t probe = b->size < COMM_PROBE ? b->size : COMM_PROBE;
	struct comm_entry *victim = NULL;
	uint64_t oldest = UINT64_MAX;
	struct comm_pub cur;

	for (uint32_t i = 0; i < probe; i++) {
		struct comm_entry *e = &b->e[(h + i) % b->size];
		if (!snapshot(e, &l, &cur)) {
			/* being written: it may be this line's entry; never make a duplicate */
			if (__atomic_load_n(&e->seq, __ATOMIC_RELAXED) & 1)
				return -1;
			if (!victim || oldest) {
				victim = e;	/* empty */
				oldest = 0;
			}
			continue;
		}
		if (l == line) {
			if (!comm_expired(b, &cur))
				return 0;
			victim = e;	/* the same line, stale: always its own slot */
			break;
		}
		if (comm_expired(b, &cur) && cur.time < oldest) {
			victim = e;
			oldest = cur.time;
		}
	}
	if (!victim)
		return -1;
	uint64_t s = __atomic_load_n(&victim->seq, __ATOMIC_RELAXED);
	if ((s & 1) || !__atomic_compare_exchange_n(&victim->seq, &s, s + 1, 0, __ATOMIC_ACQUIRE,
						    __ATOMIC_RELAXED))
		return -1;	/* another writer: lossy, never wait */
	__atomic_store_n(&victim->line, line, __ATOMIC_RELAXED);
	__builtin_memcpy(&victim->pub, p, sizeof(*p));
	__atomic_store_n(&victim->seq, s + 2, __ATOMIC_RELEASE);
	return 1;
}

/* TryArmWP's candidate: an unexpired entry of another thread, not counted yet, drawn
 * uniformly among all such entries (reservoir sampling over the whole board: the n-th one
 * met replaces the pick with probability 1/n).  Taking the first one from a random slot
 * on, as this did, is not uniform: a line's slot is its address's, so the board holds runs
 * of neighbouring lines, and the entry after the widest gap of empty slots is picked
 * almost always.  In the comm ring (signal[1..4] on consecutive lines, 127 slots) thread
 * 1 then armed on its own predecessor's line nearly every time, thread 4 behind three
 * useless picks: the trap events weighted 4-1 and 1-2 above 2-3 and 3-4. */
static SIGSAFE int pick(const struct comm_board *b, const struct comm_observer *o,
			uint64_t rnd, struct comm_pub *out)
{
	struct comm_pub cand;
	uint64_t l, n = 0;

	for (uint32_t i = 0; i < b->size; i++) {
		const struct comm_entry *e = &b->e[i];
		if (!snapshot(e, &l, &cand) || cand.thread == o->thread ||
		    cand.time <= o->t_prev || cand.time <= o->t_armed || comm_expired(b, &cand) ||
		    comm_gone_before(b, cand.thread, o->start))
			continue;
		n++;
		rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
		if ((rnd >> 33) % n == 0)
			*out = cand;
	}
	return n > 0;
}

SIGSAFE enum comm_verdict comm_on_sample(struct comm_board *b, struct comm_observer *o,
					 const struct comm_sample *s, uint64_t rnd,
					 struct comm_pub *pub, int *is_true, struct comm_counts *c)
{
	enum comm_verdict v = COMM_NOTHING;
	struct comm_pub e;
	int found = comm_board_find(b, s->addr, &e);

	c->samples++;
	if (found && e.thread != o->thread && e.time > o->t_prev &&
	    !comm_gone_before(b, e.thread, o->start)) {
		*is_true = comm_overlap(s->addr, s->len, e.addr, e.len);
		*pub = e;
		o->t_prev = e.time;
		c->hits++;
		v = COMM_COUNT;
	} else if (!(o->wp_n && o->wp_time >= o->last_sample) && pick(b, o, rnd, pub)) {
		c->arm_tries++;
		v = COMM_ARM;
	}
	if (s->store) {
		c->stores++;
		uint64_t *mine = &b->tstores[o->thread % COMM_TSLOTS];
		uint64_t seq = __atomic_add_fetch(mine, 1, __ATOMIC_RELAXED);
		struct comm_pub p = {
			.addr = s->addr, .ip = s->ip, .time = s->time, .seq = seq,
			.gseq = __atomic_add_fetch(&b->gstores, 1, __ATOMIC_RELAXED),
			.len = s->len, .thread = o->thread, .cpu = s->cpu,
			.wbytes = comm_wmask_note(o, s->ip, s->addr, s->len, b->line),
		};
		int r = comm_board_publish(b, &p);
		if (r > 0)
			c->published++;
		else if (r < 0)
			c->publish_lost++;
	}
	o->last_sample = s->time;
	return v;
}

SIGSAFE uint64_t comm_window(uint64_t p, uint64_t rnd)
{
	uint64_t half = p / 2;
	return half ? p - half + rnd % (2 * half + 1) : p;
}

SIGSAFE void comm_pick_chunks(uint64_t rnd, uint32_t line, uint32_t n, uint32_t *chunk)
{
	uint32_t all[64], m = line / COMM_CHUNK;
	if (m > 64)
		m = 64;
	if (n > m)
		n = m;
	for (uint32_t i = 0; i < m; i++)
		all[i] = i;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t j = i + (uint32_t)(rnd % (m - i));
		uint32_t x = all[i];
		rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
		rnd ^= rnd >> 29;
		all[i] = all[j];
		all[j] = x;
		chunk[i] = all[i];
	}
}

SIGSAFE void comm_armed(struct comm_observer *o, const struct comm_pub *pub, uint32_t n,
			uint32_t len, uint64_t now)
{
	o->wp_n = n;
	o->wp_bytes = n * len;
	o->wp_time = now;
	o->wp_pub = *pub;
	if (n && pub->time > o->t_armed)
		o->t_armed = pub->time;
}

SIGSAFE int comm_on_trap(struct comm_observer *o, uint64_t addr, uint32_t len, uint32_t line,
			 struct comm_pub *pub, int *is_true, uint32_t *scale)
{
	uint32_t d = o->wp_n, bytes = o->wp_bytes;
	o->wp_n = 0;
	if (!d || o->wp_pub.time <= o->t_prev)
		return 0;
	*pub = o->wp_pub;
	*is_true = comm_overlap(addr, len, pub->addr, pub->len);
	*scale = bytes && bytes < line ? line / bytes : 1;
	o->t_prev = pub->time;
	return 1;
}

/* ---- exact ---- */

SIGSAFE void comm_exact_init(struct comm_exact *x, struct comm_xline *mem, uint64_t size,
			     uint32_t line)
{
	x->size = size;
	x->line = line;
	x->x = mem;
}

static SIGSAFE struct comm_xline *xfind(struct comm_exact *x, uint64_t line)
{
	uint64_t h = ((line - 1) / x->line) * 0x9E3779B97F4A7C15ull;
	h ^= h >> 32;
	for (uint64_t i = 0; i < 64; i++) {
		struct comm_xline *e = &x->x[(h + i) & (x->size - 1)];
		uint64_t k = __atomic_load_n(&e->line, __ATOMIC_ACQUIRE);
		if (k == line)
			return e;
		if (k == 0) {
			uint64_t zero = 0;
			if (__atomic_compare_exchange_n(&e->line, &zero, line, 0, __ATOMIC_ACQ_REL,
							__ATOMIC_ACQUIRE) ||
			    zero == line)
				return e;
		}
	}
	return NULL;
}

static SIGSAFE int xlock(struct comm_xline *e)
{
	for (int i = 0; i < 200000; i++) {
		if (!__atomic_exchange_n(&e->lock, 1, __ATOMIC_ACQUIRE))
			return 1;
		if (i > 64)
			sched_yield();	/* the holder may be preempted: 2 threads per core */
	}
	return 0;
}

static SIGSAFE uint64_t bytes(uint64_t addr, uint32_t len, uint32_t line)
{
	uint32_t off = (uint32_t)(addr & (line - 1)), n = len;
	if (n > line - off)
		n = line - off;
	if (line > 64) {	/* a bit per line/64 bytes */
		uint32_t g = line / 64;
		off /= g;
		n = (n + g - 1) / g;
	}
	return (n >= 64 ? ~0ull : ((1ull << n) - 1)) << off;
}

SIGSAFE int comm_exact_access(struct comm_exact *x, uint32_t thread, int32_t cpu, uint64_t addr,
			      uint32_t len, int store, struct comm_xfer *out)
{
	uint64_t line = (addr & ~(uint64_t)(x->line - 1)) + 1;
	uint64_t mask = bytes(addr, len ? len : 1, x->line), me = 1ull << (thread % 64);
	struct comm_xline *e = xfind(x, line);
	int r = 0;

	if (!e || !xlock(e))
		return -1;
	if (e->writer && e->writer != thread + 1 && !(e->fetched & me)) {
		out->src = e->writer - 1;
		out->src_cpu = e->writer_cpu;
		out->is_true = (e->wmask & mask) != 0;
		e->fetched |= me;
		r = 1;
	}
	if (store) {
		if (e->writer != thread + 1 || e->fetched) {
			e->writer = thread + 1;
			e->wmask = 0;
			e->fetched = 0;
		}
		e->writer_cpu = cpu;
		e->wmask |= mask;
	}
	__atomic_store_n(&e->lock, 0, __ATOMIC_RELEASE);
	return r;
}
