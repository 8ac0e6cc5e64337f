/* glob-main.c + glob-lib.c: kernels bounded by globals, in a loop that calls a library
 * function the analysis does not know (qsort): which globals can that call change?
 * (tests/e2e/t611-vsensor-sealed-globals.sh).  With --with, the two files are the whole
 * program: qsort cannot name nsize (defined here, its address never taken), but it calls
 * back cmp, which writes ncb, and may write through naddr's address (kept in a global
 * pointer) and a library's own global (optind). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int nsize;	/* set in main alone */
int naddr;	/* its address kept in np */
int ncb;	/* written by the comparator qsort calls back */
int *np = &naddr;
extern int ndef;	/* defined in glob-defs.c, a file of definitions alone; set here */
static int sfix;	/* static, set in main alone */
static int scb;		/* static, written by the comparator qsort calls back */

double kern_sealed(void);
double kern_addr(void);
double kern_cb(void);
double kern_lib(void);
double kern_def(void);

static int cmp(const void *x, const void *y)
{
	ncb++;
	scb++;
	return *(const int *)x - *(const int *)y;
}

/* another file's code may call it, unless the files are the whole program */
void set_sfix(int v)
{
	sfix = v;
}

static double kern_static(int n)
{
	double t = 0;
	for (int i = 0; i < sfix; i++)		/* GLOB-SFIX fixed: static, set in main alone */
		t += i * 0.5 + n;
	for (int i = 0; i < scb; i++)		/* GLOB-SCB static, but cmp writes it */
		t += i * 0.25 + n;
	return t;
}

int main(int argc, char **argv)
{
	int keys[4] = { 3, 1, 2, 0 };
	double s = 0;
	MPI_Init(&argc, &argv);
	nsize = argc > 1 ? atoi(argv[1]) : 20000;
	naddr = nsize;
	ncb = 1000;
	sfix = ndef = nsize;
	for (int it = 0; it < 100; it++) {
		qsort(keys, 4, sizeof(keys[0]), cmp);	/* QSORT undescribed: may write what it can name */
		s += kern_sealed() + kern_addr() + kern_cb() + kern_lib() + kern_def();
		s += kern_static(it);
	}
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		printf("%.1f %d\n", s, keys[0]);
	MPI_Finalize();
	return 0;
}
