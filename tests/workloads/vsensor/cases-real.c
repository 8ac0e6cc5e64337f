/* Static-analysis cases for sonde vsensor met in real MPI programs (CoMD, NPB IS),
 * written small (tests/e2e/t601-vsensor-cases.sh checks them like cases.c):
 *   SENSOR          selected v-sensor (compute unless ,NETWORK)
 *   SENSOR,RANK     selected, but its work depends on the rank (compared within its rank)
 *   NO(words)       rejected, and the reason 'list' gives contains these words */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define NB 1024
#define DIM 3
typedef double real3[DIM];

static real3 f[NB], r[NB];
static int box[NB], bucket[NB + 5], ptr[NB];
static int nloc = NB;

/* a tiny helper of the kind CoMD keeps in a header: no loop, no call */
static inline void zero3(real3 v)
{
	v[0] = 0.0;
	v[1] = 0.0;
	v[2] = 0.0;
}

static void copy_one(int i, int j)
{
	memcpy(r[j], r[i], sizeof(real3));
	box[j] = box[i];
}

static void forces(void)
{
	for (int i = 0; i < nloc; i++) {
		for (int j = 0; j < box[i]; j++) {		/* NO(reads memory) data-dependent bound */
			real3 dr;
			for (int m = 0; m < DIM; m++)		/* NO(too small) 3 iterations of straight-line code: Tick/Tock would stay in the hot loop */
				dr[m] = r[i][m] - r[j][m];
			for (int m = 0; m < DIM; m++)		/* NO(too small) */
				f[i][m] += dr[m];
		}
	}
}

/* NPB IS: i is a loop index everywhere, and once starts from a rank-dependent value */
static void rank_keys(int my_rank)
{
	int i;
	for (i = 0; i < NB + 5; i++)			/* SENSOR fixed: i is set by its own for, whatever other loops do with i */
		bucket[i] = 0;
	for (i = 1; i < NB; i++)			/* SENSOR */
		ptr[i] = ptr[i - 1] + bucket[i - 1];
	for (i = ptr[my_rank]; i < NB; i++)		/* NO(reads memory) */
		bucket[i]++;
	MPI_Allreduce(MPI_IN_PLACE, bucket, NB + 5, MPI_INT, MPI_SUM, MPI_COMM_WORLD);	/* SENSOR,NETWORK */
}

/* NPB IS: num_keys is set once before the iterations, which print and exchange keys with
 * MPI_Alltoallv: neither writes a program global */
int nkeys;
static int scount[4], sdispl[4], rcount[4], rdispl[4];

static void count_keys(void)
{
	for (int i = 0; i < nkeys; i++)			/* SENSOR printf and MPI_Alltoallv change no global */
		bucket[i % NB]++;
	MPI_Alltoallv(box, scount, sdispl, MPI_INT, ptr, rcount, rdispl, MPI_INT, MPI_COMM_WORLD);	/* NO(MPI_Alltoallv, whose time is not fixed) */
}

/* called with two sizes (CoMD's addRealParallel: count 2 and count 4) */
static int scale(int n)
{
	for (int i = 0; i < n; i++)			/* NO(2 call sites) */
		f[i][2] *= 0.5;
	return n;
}

/* called from another file (CoMD's force kernels are called from timestep.c): no
 * caller here, so what n is from one call to the next is unknown */
void kernel(int n)
{
	for (int it = 0; it < 10; it++)
		for (int i = 0; i < n; i++)		/* NO(a parameter of kernel) */
			f[i][0] += 1.0;
	for (int it = 0; it < 10; it++)
		for (int i = 0; i < NB; i++)		/* SENSOR a constant bound is fixed whoever calls */
			f[i][1] += 1.0;
}

int main(int argc, char **argv)
{
	int rank, n = 10, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	nkeys = 100000;
	for (int it = 0; it < 100; it++) {
		if (rank == 0)
			printf("%d\n", it);
		count_keys();
		for (int i = 0; i < box[0]; i++)
			zero3(f[i]);				/* NO(too small) a call of a tiny function */
		copy_one(it % NB, (it + 1) % NB);		/* NO(too small) a short memcpy and an assignment */
		forces();
		rank_keys(rank);
		x += scale(100);				/* inside expressions: not wrapped */
		x += scale(200);
		for (int i = 0; i < n; i++)			/* NO(depends on n) n changes 70 statements below */
			x += i;
		x += 0;
		x += 1;
		x += 2;
		x += 3;
		x += 4;
		x += 5;
		x += 6;
		x += 7;
		x += 8;
		x += 9;
		x += 10;
		x += 11;
		x += 12;
		x += 13;
		x += 14;
		x += 15;
		x += 16;
		x += 17;
		x += 18;
		x += 19;
		x += 20;
		x += 21;
		x += 22;
		x += 23;
		x += 24;
		x += 25;
		x += 26;
		x += 27;
		x += 28;
		x += 29;
		x += 30;
		x += 31;
		x += 32;
		x += 33;
		x += 34;
		x += 35;
		x += 36;
		x += 37;
		x += 38;
		x += 39;
		x += 40;
		x += 41;
		x += 42;
		x += 43;
		x += 44;
		x += 45;
		x += 46;
		x += 47;
		x += 48;
		x += 49;
		x += 50;
		x += 51;
		x += 52;
		x += 53;
		x += 54;
		x += 55;
		x += 56;
		x += 57;
		x += 58;
		x += 59;
		x += 60;
		x += 61;
		x += 62;
		x += 63;
		x += 64;
		x += 65;
		x += 66;
		x += 67;
		x += 68;
		x += 69;
		n++;
	}
	MPI_Finalize();
	return x & 1;
}
