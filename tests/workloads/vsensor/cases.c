/* Static-analysis cases for sonde vsensor (tests/e2e/t601-vsensor-cases.sh).
 * Each loop or call is commented with the expected verdict:
 *   SENSOR          selected v-sensor (compute unless ,NETWORK)
 *   SENSOR,RANK     selected, but its work depends on the rank (compared within its rank)
 *   NO(words)       rejected, and the reason 'list' gives contains these words */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define N 1000
double a[N], b[N];
static int nglob = 100;

static int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static void axpy(int n, double s)
{
	for (int i = 0; i < n; i++)			/* NO(inside sensor) the call in main is the sensor */
		a[i] += s * b[i];
}

static double twice(double x) { return 2 * x; }

/* a rank's share of the work, through a helper (the usability review of 2026-11-29, H2) */
static int share_of(int r) { return (r + 1) * 10; }

/* One direct call, with a constant; but its address is taken, and kp(it) calls it too. */
static double ptr_kern(int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)			/* NO(callers are not all seen) also called through kp */
		s += i * 0.5;
	return s;
}

double (*kp)(int) = ptr_kern;

/* External: called here once with a constant, but a file not analysed may call it too. */
double ext_kern(int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)			/* NO(callers are not all seen) files not seen may call it */
		s += i * 0.25;
	return s;
}

/* External, its bound a static global that it sets itself, from its parameter, at each call:
 * called from files not seen, and the reason says where the global is set (the trial of
 * 2026-11-29: HPCC_Stream's array_elements read "may change between calls ... from code
 * not seen", as if another file wrote it). */
static int own_n;
double own_kern(int n)
{
	double s = 0;
	own_n = n;
	for (int r = 0; r < 3; r++)
		for (int i = 0; i < own_n; i++)		/* NO(set by own_kern at each call) */
			s += i * r;
	return s;
}

int main(int argc, char **argv)
{
	int rank, it, m = 50, ierr = 0;
	double (*fp)(double) = twice;
	char host[64];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	gethostname(host, sizeof(host));
	int mine = (rank + 1) * 10, mine2 = share_of(rank);
	for (it = 0; it < 100; it++) {
		for (int i = 0; i < N; i++)		/* SENSOR fixed bound */
			a[i] = a[i] * 0.5 + b[i];
		for (int i = 0; i < mine; i++)		/* SENSOR,RANK bound from MPI_Comm_rank */
			b[i] += 1.0;
		for (int i = 0; i < mine2; i++)		/* SENSOR,RANK from a helper of the rank */
			b[i] += 2.0;
		for (int i = 0; i < it; i++)		/* NO(depends on it) bound is the outer index */
			b[i] -= 1.0;
		for (int i = 0; i < N; i++)		/* NO(reads memory) data-dependent branch on an array the outer loop writes */
			if (a[i] > 0)
				for (int j = 0; j < 100; j++)	/* SENSOR fixed, though its parent is not */
					b[j] += 1;
		int *p = &m;
		for (int i = 0; i < m; i++)		/* NO(aliasing) m changes through the alias p */
			a[i] += 1;
		*p = it;
		for (int i = 0; i < 10; i++)		/* NO(recursive) */
			b[i] = fib(20);
		for (int i = 0; i < 10; i++)		/* NO(function pointer) */
			b[i] = fp(b[i]);
		for (int i = 0; i < 3; i++)		/* NO(calls printf, whose time is not fixed) */
			printf("%d\n", i);
		for (int i = 0; i < 3; i++)		/* NO(undescribed external) */
			usleep(1);
		axpy(nglob, 2.0);			/* SENSOR work from a static global never written */
		a[0] += ptr_kern(500) + kp(it);
		a[1] += ext_kern(500);
		for (int i = 0; i < nglob; i++)		/* SENSOR memset of a fixed size */
			memset(host, 0, sizeof(host));
		MPI_Allreduce(MPI_IN_PLACE, a, 10, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);	/* SENSOR,NETWORK fixed count and type */
		MPI_Allreduce(MPI_IN_PLACE, a, it, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);	/* NO(depends on it) message size changes */
		ierr = MPI_Barrier(MPI_COMM_WORLD);	/* SENSOR,NETWORK its result assigned: the statement is wrapped */
		a[3] += (double)MPI_Barrier(MPI_COMM_WORLD);	/* NO(inside an expression) */
		for (int i = 0; i < 4; i++) {		/* NO(mixes) computation and MPI */
			a[i] = i;
			MPI_Barrier(MPI_COMM_WORLD);		/* SENSOR,NETWORK a call alone: the loop mixes, the call does not */
		}
		for (int i = 0; i < 4; i++) {		/* NO(return) */
			if (nglob < 0)
				return 1;
			a[i] += 1;
		}
	}
	MPI_Finalize();
	return ierr;
}
