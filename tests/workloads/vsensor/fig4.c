/* The paper's Figure 4/8 program (vSensor, PPoPP'18), made compilable.
 * Labels: L1..L5 loops, C1..C3 calls.  Expected (tests/e2e/t600-vsensor-fig4.sh):
 * L3, L5 and C3 are global v-sensors; C1 is a v-sensor of L2 only; C2 and L4 of no
 * loop of main; L5 is a v-sensor of L4, L2 and L1. */
#include <mpi.h>

int GLBV = 40;
int count;

int foo(int x, int y)
{
	int i, j, value = 0;
	for (i = 0; i < x; ++i) {		/* L4 */
		value += y;
		for (j = 0; j < 10; ++j)	/* L5 */
			value -= 1;
		if (x > GLBV)
			value -= x * y;
	}
	return value;
}

int main(int argc, char **argv)
{
	int n, k;
	MPI_Init(&argc, &argv);
	for (n = 0; n < 100; ++n) {		/* L1 */
		for (k = 0; k < 10; ++k) {	/* L2 */
			foo(n, k);		/* C1 */
			foo(k, n);		/* C2 */
		}
		for (k = 0; k < 10; ++k)	/* L3 */
			count++;
		MPI_Barrier(MPI_COMM_WORLD);	/* C3 */
	}
	MPI_Finalize();
	return 0;
}
