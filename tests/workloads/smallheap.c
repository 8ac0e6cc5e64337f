/*
 * smallheap - small heap blocks in a thread's own malloc arena.  Known answer: the worker
 * thread allocates a linked list of 4096 nodes of 64 bytes (below sonde's 1 KiB tracking
 * threshold) and one 4 KiB block, then spends nearly all its time walking the list: they are
 * "[heap: untracked small blocks]", although glibc serves them from an anonymous mapping
 * (the thread's arena), not from "[heap]".  Prints "smallheap: ok".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NBLK 4096
#define ROUNDS 40000

struct node {
	struct node *next;
	unsigned long val[7];	/* 64 bytes a node */
};

static volatile unsigned long sink;

static void *worker(void *arg)
{
	(void)arg;
	char *big = malloc(4096);
	struct node *head = NULL;
	for (int i = 0; i < NBLK; i++) {
		struct node *n = malloc(sizeof(*n));
		n->next = head;
		for (int j = 0; j < 7; j++)
			n->val[j] = (unsigned long)(i + j);
		head = n;
	}
	unsigned long s = 0;
	for (int r = 0; r < ROUNDS; r++)
		for (struct node *n = head; n; n = n->next)
			s += n->val[r % 7];
	sink = s + (unsigned long)big[0];
	while (head) {
		struct node *n = head->next;
		free(head);
		head = n;
	}
	free(big);
	return NULL;
}

int main(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) || pthread_join(t, NULL))
		return 1;
	puts("smallheap: ok");
	return 0;
}
