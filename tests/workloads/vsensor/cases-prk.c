/* Static-analysis cases for sonde vsensor met in the Parallel Research Kernels (MPI1:
 * Stencil, Transpose, Nstream, Reduce), written small (tests/e2e/t601-vsensor-cases.sh
 * checks them like cases.c):
 *   SENSOR          selected v-sensor (compute unless ,NETWORK)
 *   SENSOR,RANK     selected, but its work depends on the rank (compared within its rank)
 *   NO(words)       rejected, and the reason 'list' gives contains these words */
#include <mpi.h>
#include <stdlib.h>

#define R 2
/* PRK's stencil indexes through macros that read the strip's width: an operator inside
 * a macro expansion ("width + 2 * R") was read as an assignment to width */
#define IN(i, j) in[(i) + R + (long)((j) + R) * (long)(width + 2 * R)]
#define SET(v, x) v = (x)

/* a receive behind a function (a wrapper): waits as much as MPI_Recv itself */
static void recv_only(double *b, int p)
{
	MPI_Recv(b, 64, MPI_DOUBLE, p, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* and behind two */
static void recv_twice(double *b, int p)
{
	recv_only(b, p);						/* NO(MPI_Recv through recv_only) */
	recv_only(b + 64, p);
}

int main(int argc, char **argv)
{
	int n, width, iter, iters = 100, me, np, moved = 1, kept = 4, *alias, seen = 8;
	double *in, *a, buf[4 * 64], got[8];
	MPI_Request rq;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	if (me == 0)
		n = 1 << 12;
	/* the sizes are broadcast from rank 0: &n is given to MPI_Bcast, which keeps no
	 * pointer to it, so a write through a pointer later cannot change n */
	MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
	width = n / np;
	alias = &seen;
	in = malloc(sizeof(double) * (size_t)(width + 2 * R) * (n + 2 * R));
	a = malloc(sizeof(double) * n);
	/* MPI_Irecv keeps &kept: MPI_Wait, in the loop, writes kept through it */
	MPI_Irecv(&kept, 1, MPI_INT, me, 7, MPI_COMM_WORLD, &rq);
	for (iter = 0; iter < iters; iter++) {
		MPI_Allreduce(buf, buf + 2 * 64, R * width, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);	/* SENSOR,NETWORK */
		for (int kk = 0, j = 0; j < R; j++)				/* SENSOR the loop writes through IN() */
			for (int i = 0; i < width; i++)			/* NO(inside sensor) */
				IN(i, j) = buf[kk++];
		for (int j = 0; j < n; j++)					/* SENSOR n was only broadcast */
			a[j] += 1.0;
		for (int j = 0; j < moved; j++)				/* NO(changed in loop) SET() assigns moved */
			a[j] *= 0.5;
		SET(moved, iter + 1);
		for (int j = 0; j < kept; j++)				/* NO(aliasing) MPI_Irecv keeps &kept */
			a[j] += got[j];
		for (int j = 0; j < seen; j++)				/* NO(aliasing) its address is in alias */
			a[j] -= 1.0;
		*alias = iter % 8;
		/* a halo exchange (PRK Synch_p2p): the receive's time is the neighbour's arrival,
		 * so neither it nor the loop around it is a sensor; the send beside it is one */
		for (int j = 0; j < 2; j++) {					/* NO(waits for a peer) */
			MPI_Send(buf + 64, 64, MPI_DOUBLE, me, 9, MPI_COMM_WORLD);	/* SENSOR,RANK,NETWORK the wait beside it is none */
			MPI_Recv(buf, 64, MPI_DOUBLE, me, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);	/* NO(waits for a peer) */
		}
		/* the same exchange with the receive in a function: the call site waits, and so
		 * does the loop that makes it (these were both sensors) */
		for (int j = 0; j < 2; j++) {					/* NO(waits for a peer) */
			MPI_Send(buf + 64, 64, MPI_DOUBLE, me, 11, MPI_COMM_WORLD);	/* SENSOR,RANK,NETWORK */
			recv_only(buf, me);						/* NO(waits for a peer) */
		}
		for (int j = 0; j < 2; j++)					/* NO(waits for a peer) */
			recv_twice(buf, me);
		if (iter == iters - 1) {
			MPI_Send(&iter, 1, MPI_INT, me, 7, MPI_COMM_WORLD);	/* SENSOR,RANK,NETWORK partner me */
			MPI_Wait(&rq, MPI_STATUS_IGNORE);				/* NO(waits for a peer) its time is MPI_Send's */
		}
	}
	for (iter = 0; iter < iters; iter++) {
		for (int j = 0; j < n; j++)					/* NO(changed in loop) MPI_Bcast writes n, inside this loop */
			a[j] += 2.0;
		MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);			/* SENSOR,NETWORK count and type fixed (it writes n) */
	}
	MPI_Finalize();
	free(in);
	free(a);
	return 0;
}
