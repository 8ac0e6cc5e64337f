/* SPDX-License-Identifier: MIT */
/* ctx.h - calling-context helpers beyond rt.h's ctx_unwind/ctx_intern/ctx_here. */
#ifndef SONDE_RT_CTX_H
#define SONDE_RT_CTX_H

#include <stdint.h>

#include "rt/rt.h"

struct rt_thread;

/* Non-zero while some thread is inside dlopen/dlclose (interpose.c): unwinding is unsafe. */
extern volatile int rt_loader_busy;
/* The calling thread's own depth in the loader's lock-holding calls (dlopen, dlclose, the
 * program's dl_iterate_phdr: interpose.c): outside a handler only a thread's own holding
 * can deadlock its unwinding (waiting for another thread's is ordinary blocking), and a
 * forked child keeps only the forking thread's count. */
extern RT_TLS int rt_loader_mine;
/* Around a loader call of the program's (interpose.c): the global count and the thread's. */
void rt_loader_enter(void);
void rt_loader_leave(void);

/* The dynamic loader's code range: samples there are not unwound. */
void ctx_set_loader_range(uint64_t lo, uint64_t hi);
/* libunwind's code range: its pipe2 calls get descriptors out of the program's way (the
 * fallback when ctx_process_init could not take its pipe away). */
void ctx_set_unwinder_range(uint64_t lo, uint64_t hi);
/* Whether addr is in libunwind's code (its fallback pipe is the runtime's: interpose.c). */
int ctx_in_unwinder(uint64_t addr);
/* Forget the tree (fork child): ids restart at 1 in the new stream. */
void ctx_reset(struct rt_thread *t);
/* pthread_atfork handlers: no thread may be inside libunwind when the process forks
 * (its lock would stay taken in the child).  Not handler-safe. */
void ctx_fork_prepare(void);
void ctx_fork_parent(void);
void ctx_fork_child(void);
/* Unwind paths taken outside handlers with libgcc's _Unwind_Backtrace and _Unwind_GetIP
 * (as loaded from libgcc_s).  Process start only. */
void ctx_use_gcc_unwinder(void *backtrace, void *get_ip);
/* Process start: libunwind's functions found by `lookup` (dlsym in the libunwind init.c
 * loaded), its calls of pipe2, read, close and syscall bound to the runtime's memory check
 * (no pipe: ctx.c says why), and its caching policy.  0, or -ENOENT / -ENOSYS when
 * libunwind keeps its pipe (calls not found / process_vm_readv refused), -ELIBBAD when a
 * function is missing (nothing is unwound then).  Not handler-safe. */
int ctx_process_init(void *(*lookup)(const char *name));
/* Thread start: let libunwind do its lazy set-up outside handlers.  Not handler-safe. */
void ctx_thread_warmup(void);

#endif
