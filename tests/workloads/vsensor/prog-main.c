/* prog-main.c + prog-lib.c: one MPI program in two files, the way CoMD keeps its MPI
 * calls in parallel.c (tests/e2e/t605-vsensor-program.sh).  Analysed file by file, the
 * calls into prog-lib.c are undescribed externals and prog-lib.c's functions have no
 * callers; with --with, the analysis sees the whole program. */
#include <mpi.h>
#include <stdio.h>

void lib_sum(double *in, double *out, int count);
double lib_kernel(int n);
void lib_scale(int n);

static double a[4], b[4];

int main(int argc, char **argv)
{
	double s = 0;
	MPI_Init(&argc, &argv);
	for (int it = 0; it < 200; it++) {
		lib_sum(a, b, 4);		/* MAIN-SUM a network sensor, seen with --with */
		s += lib_kernel(20000);		/* MAIN-KERNEL a compute sensor, seen with --with */
		lib_scale(1000);		/* MAIN-SCALE1 */
		lib_scale(2000);		/* MAIN-SCALE2 */
		a[it % 4] = s * 1e-9;
	}
	lib_sum(a, b, 2);			/* MAIN-SUM2 count 2, outside the loop */
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		printf("%.6f %.6f\n", s, b[0]);
	MPI_Finalize();
	return 0;
}
