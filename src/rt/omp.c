/* SPDX-License-Identifier: MIT */
/*
 * omp.c - each thread's OpenMP thread number, for the reports (issue 8: "OpenMP thread
 * numbers where known"): the number the thread has in its top-level team, read from the
 * OpenMP runtime at the thread's samples (rt_deliver_access) and written once
 * (SONDE_REC_OMP), again if a later sample sees another (a program whose teams change
 * size, or a runtime that places its threads by OMP_PROC_BIND, may number a thread
 * differently in two regions).
 *
 * Where known: GCC's runtime (libgomp), whose omp_get_level and omp_get_thread_num each
 * read one field of the calling thread's own state through initial-exec TLS (two
 * instructions, checked in its code below), so a handler may call them: a thread not in
 * a region reads level 0 and is skipped.  LLVM's libomp says it through OMPT instead, at
 * each thread's implicit task (ompt.c): its omp_get_thread_num registers a thread it has
 * not seen as a new root (locks, allocation), not a handler's call.  The functions are
 * looked up once at start in the libgomp the program was linked with; one dlopen'd later
 * is not seen.  The handler's part is omp-sig.c.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

#include "sonde/openmp.h"
#include "rt/rt.h"

int (*rt_omp_level)(void), (*rt_omp_num)(void);
typedef int (*omp_int_fn)(void);

/* Is f libgomp's TLS read: [endbr64;] [push %rbp; mov %rsp,%rbp;] mov disp(%rip),%rax;
 * mov %fs:disp8(%rax),%eax; [pop %rbp;] ret (the frame-pointer form: distributions that
 * build with -mno-omit-leaf-frame-pointer) */
static int tls_read(const unsigned char *f)
{
	int fp = 0;
	if (!memcmp(f, "\xf3\x0f\x1e\xfa", 4))
		f += 4;
	if (!memcmp(f, "\x55\x48\x89\xe5", 4)) {
		f += 4;
		fp = 1;
	}
	if (!(f[0] == 0x48 && f[1] == 0x8b && f[2] == 0x05 &&		/* mov rip, rax */
	      f[7] == 0x64 && f[8] == 0x8b && f[9] == 0x40))		/* mov fs:d8(rax), eax */
		return 0;
	return fp ? f[11] == 0x5d && f[12] == 0xc3 : f[11] == 0xc3;	/* [pop rbp;] ret */
}

static int find_gomp(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size, (void)data;
	const char *n = info->dlpi_name;
	if (!n || !sonde_openmp_lib(n) || !strstr(n, "libgomp"))
		return 0;
	/* kept loaded: a handler calls into it (a library that dlopen'd it may close it) */
	void *h = dlopen(n, RTLD_NOLOAD | RTLD_NODELETE | RTLD_LAZY);
	if (!h)
		return 0;
	omp_int_fn lv = (omp_int_fn)dlsym(h, "omp_get_level");
	omp_int_fn nm = (omp_int_fn)dlsym(h, "omp_get_thread_num");
	dlclose(h);	/* still loaded (RTLD_NODELETE) */
	if (lv && nm && tls_read((const unsigned char *)(uintptr_t)lv) &&
	    tls_read((const unsigned char *)(uintptr_t)nm)) {
		rt_omp_level = lv;
		rt_omp_num = nm;
		return 1;
	}
	return 0;
}

void rt_omp_init(void)
{
	dl_iterate_phdr(find_gomp, NULL);
}
