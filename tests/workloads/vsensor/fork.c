/* fork.c - a rank that forks, and a child that reaches MPI_Finalize (t607).  One
 * process, no mpirun: the PMPI_* calls of the runtime are the single-rank stubs below
 * (the executable's definitions take precedence over libmpi's), because a forked child
 * of a real Open MPI rank hangs in PMPI_Finalize whatever the runtime does.  The child
 * has no CPU-share sampler thread: before the fix its MPI_Finalize joined the parent's
 * and waited forever (here: killed by its alarm after 10 s). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int PMPI_Init(int *argc, char ***argv) { (void)argc; (void)argv; return MPI_SUCCESS; }
int PMPI_Init_thread(int *argc, char ***argv, int req, int *prov)
{
	(void)argc; (void)argv;
	*prov = req;
	return MPI_SUCCESS;
}
int PMPI_Finalize(void) { return MPI_SUCCESS; }
int PMPI_Comm_rank(MPI_Comm c, int *r) { (void)c; *r = 0; return MPI_SUCCESS; }
int PMPI_Comm_size(MPI_Comm c, int *n) { (void)c; *n = 1; return MPI_SUCCESS; }
int PMPI_Barrier(MPI_Comm c) { (void)c; return MPI_SUCCESS; }
/* the runtime's machine number (vsrt.c, node_index): one rank, one machine */
int PMPI_Comm_split_type(MPI_Comm c, int type, int key, MPI_Info info, MPI_Comm *out)
{
	(void)c; (void)type; (void)key; (void)info;
	*out = MPI_COMM_SELF;
	return MPI_SUCCESS;
}
int PMPI_Comm_split(MPI_Comm c, int color, int key, MPI_Comm *out)
{
	(void)c; (void)key;
	*out = color == MPI_UNDEFINED ? MPI_COMM_NULL : MPI_COMM_SELF;
	return MPI_SUCCESS;
}
int PMPI_Comm_free(MPI_Comm *c) { *c = MPI_COMM_NULL; return MPI_SUCCESS; }
int PMPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
	(void)b; (void)n; (void)t; (void)root; (void)c;
	return MPI_SUCCESS;
}
int PMPI_Gather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root, MPI_Comm c)
{
	(void)rn; (void)rt; (void)root; (void)c;
	if (r && sn > 0)
		memcpy(r, s, (size_t)sn * (st == MPI_INT ? sizeof(int) : 1));
	return MPI_SUCCESS;
}
int PMPI_Gatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *d,
		 MPI_Datatype rt, int root, MPI_Comm c)
{
	(void)st; (void)rn; (void)rt; (void)root; (void)c;
	if (r && sn > 0)	/* MPI_BYTE only, in the runtime */
		memcpy((char *)r + d[0], s, (size_t)sn);
	return MPI_SUCCESS;
}

double v[100000];

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	for (int it = 0; it < 300; it++)
		for (int i = 0; i < 100000; i++)
			v[i] = v[i] * 0.5 + 1;
	pid_t p = fork();
	if (p == 0) {
		alarm(10);
		for (int it = 0; it < 30; it++)
			for (int i = 0; i < 100000; i++)
				v[i] = v[i] * 0.5 + 1;
		MPI_Finalize();
		_exit(7);
	}
	int st = 0;
	waitpid(p, &st, 0);
	printf("child %s %d\n", WIFEXITED(st) ? "exit" : "signal",
	       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	MPI_Finalize();
	return 0;
}
