/* SPDX-License-Identifier: MIT */
/*
 * hw-pagefaults.c - ground truth for the hw source's test mode (SONDE_HW_EVENT=page-faults):
 * 4 threads each write once to every page of a fresh private region of 256 pages, at
 * offset 8*i in page i, so each write faults exactly once at a known address.
 * Prints "region TID BASE PAGES PAGESIZE" per thread (hex base).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#define THREADS 4
#define PAGES 256

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void *work(void *arg)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	volatile char *m = mmap(NULL, PAGES * pg, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return (void *)1;
	madvise((void *)m, PAGES * pg, MADV_NOHUGEPAGE);	/* one fault per page */
	for (size_t i = 0; i < PAGES; i++)
		m[i * pg + 8 * (i % 64)] = 1;
	pthread_mutex_lock(&out_lock);
	printf("region %d %lx %d %zu\n", gettid(), (unsigned long)(uintptr_t)m, PAGES, pg);
	pthread_mutex_unlock(&out_lock);
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS - 1];
	for (int i = 0; i < THREADS - 1; i++)
		pthread_create(&t[i], NULL, work, NULL);
	work(NULL);
	for (int i = 0; i < THREADS - 1; i++)
		pthread_join(t[i], NULL);
	return 0;
}
