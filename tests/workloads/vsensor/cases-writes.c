/* Static-analysis cases for sonde vsensor: what writes a variable (a review of the
 * analysis found each of these read wrongly; tests/e2e/t601-vsensor-cases.sh checks them
 * like cases.c):
 *   SENSOR          selected v-sensor (compute unless ,NETWORK)
 *   SENSOR,RANK     selected, but its work depends on the rank (compared within its rank)
 *   NO(words)       rejected, and the reason 'list' gives contains these words */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { NC = 4 };
/* operators inside macros: libclang gives no opcode, the tree tells '=' from the rest */
#define NEGSUM(a, b) (-(a) + (b))
#define NOTAND(a, b) (!(a) && (b))
#define IDX(i) (NC * (i))
#define STORE(p, x) *(p) = (x)

struct dims {
	int n, m;
};
struct dims gd = { 10, 20 };
double s, a[1000];
static int *gp;

/* work through a pointer: its bound is memory the caller may write directly */
static void by_dims(const struct dims *p)
{
	for (int j = 0; j < p->n; j++)				/* NO(reads memory) p->n: the caller's d2.n */
		s += a[j];
}

static void by_global_pointer(void)
{
	for (int j = 0; j < *gp; j++)				/* NO(reads memory) *gp: main's r */
		s += a[j];
}

int main(int argc, char **argv)
{
	int n = 100, k = 10, *pk = &k, done = 0, me, cnt = 10, w = 10, m = 10, q = 10, src = 5;
	int kept = 8;
	struct dims d = { 10, 20 }, e = { 10, 20 }, f, g = { 10, 20 };
	MPI_Request rq;
	MPI_Status st;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	f.n = argc * 10;
	int *pm = memcpy(&m, &src, sizeof(m));
	memcpy(&q, &src, sizeof(q));
	MPI_Irecv(&kept, 1, MPI_INT, me, 7, MPI_COMM_WORLD, &rq);

	/* -(it), !(done) and the enum constant NC are no lvalues: nothing is assigned, and this
	 * loop writes no memory (s is a variable) */
	for (int it = 0; it < 50; it++) {
		for (int j = 0; j < NEGSUM(it, n); j++)			/* NO(depends on it) */
			s += j;
		for (int j = 0; NOTAND(j >= it, j < n); j++)		/* NO(depends on it) */
			s += j;
		for (int j = 0; j < k; j++)				/* SENSOR k's address is taken, but nothing here writes through a pointer */
			s += j;
		if (NOTAND(done, it > 100))
			s = 0;
		s += IDX(it);
	}
	/* '*' is an lvalue: STORE() writes through pk, which points to k */
	for (int it = 0; it < 50; it++) {
		for (int j = 0; j < k; j++)				/* NO(aliasing) */
			s += j;
		STORE(pk, it);
	}

	/* members of structs held by value: a write to d.n changes d */
	for (int it = 0; it < 50; it++) {
		for (int j = 0; j < d.n; j++)				/* NO(depends on d, changed) d.n = it below */
			a[j] += 1.0;
		d.n = it;
		for (int j = 0; j < gd.n; j++)				/* NO(depends on gd, changed) gd.n++ below */
			a[j] += 1.0;
		gd.n++;
		for (int j = 0; j < e.m; j++)				/* NO(depends on e, changed) MPI_Bcast(&e.n) writes into e */
			a[j] += 1.0;
		MPI_Bcast(&e.n, 1, MPI_INT, 0, MPI_COMM_WORLD);		/* SENSOR,NETWORK */
		for (int j = 0; j < f.n; j++)				/* SENSOR f is set before the loop only */
			a[j] += 1.0;
		/* sizeof(g) does not read g: g changes every iteration (g.m = it, and the MPI_Bcast) */
		MPI_Bcast(&g, (int)sizeof(g), MPI_BYTE, 0, MPI_COMM_WORLD);	/* SENSOR,NETWORK */
		g.m = it;
	}

	/* MPI_Wait completes the MPI_Irecv into kept: a write through memory, and the only
	 * one in this loop (its status, st, is a variable) */
	for (int it = 0; it < 50; it++) {
		for (int j = 0; j < kept; j++)				/* NO(aliasing) */
			s += j;
		if (it == 0) {
			MPI_Send(&it, 1, MPI_INT, me, 7, MPI_COMM_WORLD);	/* SENSOR,RANK,NETWORK */
			MPI_Wait(&rq, &st);					/* NO(waits for a peer) */
		}
	}

	/* printf writes through its pointer arguments only for a %n; memcpy returns its
	 * first argument: pm points to m (q's memcpy drops its result) */
	for (int it = 0; it < 50; it++) {
		for (int j = 0; j < cnt; j++)				/* NO(depends on cnt, changed) printf's %n writes cnt */
			a[j] = s;
		printf("%d%n\n", it, &cnt);					/* NO(not fixed) */
		for (int j = 0; j < w; j++)				/* SENSOR no %n: w is only printed */
			a[j] = s;
		printf("%d %p\n", it, (void *)&w);				/* NO(not fixed) */
		for (int j = 0; j < m; j++)				/* NO(aliasing) *pm = it writes m */
			a[j] = s;
		*pm = it;
		for (int j = 0; j < q; j++)				/* SENSOR */
			a[j] = s;
	}
	/* a variable whose address is taken, written directly in the loop: a read through a
	 * pointer may be of it (the usability review of 2026-11-28: both calls were selected) */
	struct dims d2 = { 10, 20 };
	int r = 10;
	gp = &r;
	for (int it = 0; it < 50; it++) {
		d2.n = 10 + it % 7;
		by_dims(&d2);						/* NO(reads memory) */
		r = 10 + it % 3;
		by_global_pointer();					/* NO(reads memory) */
	}
	/* a loop that writes a[], then loops that read it into maths: sqrt, fabs, floor take
	 * the same time whatever the value (one instruction, or a fixed sequence), so their
	 * arguments are no work; exp's time may depend on its argument (glibc's slow paths
	 * for some values): still rejected (the usability review of 2026-11-29 read
	 * sqrt(a[i]) rejected as "reads memory that loop writes") */
	for (int it = 0; it < 50; it++) {
		for (int j = 0; j < 1000; j++)				/* SENSOR */
			a[j] = a[j] * 0.5 + 1;
		for (int j = 0; j < 1000; j++)			/* SENSOR fixed cost */
			s += sqrt(a[j]) + fabs(a[j]) + floor(a[j]);
		for (int j = 0; j < 1000; j++)			/* NO(reads memory) */
			s += exp(-a[j]);
	}
	/* the compiler's builtin of memset is memset (glibc's CPU_ZERO expands to it: the
	 * usability review of 2026-11-29 read it "an undescribed external function") */
	for (int it = 0; it < 50; it++)
		__builtin_memset(a, 0, sizeof(a));				/* SENSOR */
	MPI_Finalize();
	return 0;
}
