/* pmpi-solo.h - single-rank stubs of the PMPI_* calls sonde vsensor's runtime makes, for
 * a test program of one process run without mpirun (fork.c, solo.c): the executable's
 * definitions take precedence over libmpi's.  Include once, in the program's file. */
#include <mpi.h>
#include <string.h>

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
/* the runtime gathers its sensors and records as contiguous types of their size (vsrt.c,
 * gather): a stub type is the number of bytes it stands for (Open MPI's MPI_Datatype is a
 * pointer) */
static int solo_type_bytes[8], solo_types;
int PMPI_Type_contiguous(int n, MPI_Datatype old, MPI_Datatype *t)
{
	if (old != MPI_BYTE || solo_types >= 8)
		return MPI_ERR_TYPE;
	solo_type_bytes[solo_types] = n;
	*t = (MPI_Datatype)(void *)&solo_type_bytes[solo_types++];
	return MPI_SUCCESS;
}
int PMPI_Type_commit(MPI_Datatype *t) { (void)t; return MPI_SUCCESS; }
int PMPI_Type_free(MPI_Datatype *t) { *t = MPI_DATATYPE_NULL; return MPI_SUCCESS; }
int PMPI_Gatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *d,
		 MPI_Datatype rt, int root, MPI_Comm c)
{
	(void)rn; (void)rt; (void)root; (void)c;
	size_t b = st == MPI_BYTE ? 1 : (size_t)*(const int *)(const void *)st;
	if (r && sn > 0)
		memcpy((char *)r + (size_t)d[0] * b, s, (size_t)sn * b);
	return MPI_SUCCESS;
}
