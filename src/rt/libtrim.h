/* SPDX-License-Identifier: MIT */
/*
 * libtrim.h - the runtime's own libraries made resident by the page they use (libtrim.c).
 * Process start only, never in a handler.
 */
#ifndef SONDE_RT_LIBTRIM_H
#define SONDE_RT_LIBTRIM_H

#include <stdint.h>

/* dlopen(name, RTLD_NOW | RTLD_LOCAL) for the runtime's own use; the objects it adds to
 * the process (name and its dependencies) are trimmed as rt_trim_object_at does.  A
 * library the program had already loaded is returned as it is, untouched.  The handle,
 * or NULL as dlopen gives it. */
void *rt_dlopen_trimmed(const char *name);

/* Whether one of the loaded object's PT_LOAD segments holds addr (for dl_iterate_phdr's
 * callbacks: libtrim.c's, ctx.c's). */
struct dl_phdr_info;
int rt_dl_holds(const struct dl_phdr_info *info, uintptr_t addr);

/* The loaded object holding addr: its read-only segments (code, constants, ELF headers)
 * are split into 16 KB mappings, so that the kernel's fault-around maps only the 16 KB
 * around the pages touched, not the 64 KB around each, and their pages mapped so far are unmapped (they
 * come back from the page cache at their next use).  Pages the process wrote (a
 * debugger's breakpoints) are left alone.  0, or -errno when the object is not found. */
int rt_trim_object_at(const void *addr);

/* For a tool that counts page faults (RT_TOOL_COUNTS_FAULTS), from now on: rt_dlopen_trimmed
 * is dlopen (those libraries keep the kernel's fault-around), and rt_trim_object_at trims
 * libsonde.so all but its resident part (the code a handler or an interposed call can run
 * while an instance is measured, from its text segment's start up to code_end, which is
 * rt_resident_end; its constants and its headers: libtrim.c), which it maps again whole,
 * so that no handler takes a fault on the runtime while a measurement is open (t802,
 * bench/variance-resident.sh). */
void rt_trim_keep_resident(const void *code_end);

/* Keep libsonde.so's unwind tables (.eh_frame_hdr, .eh_frame) in its resident part too:
 * an unwinder (libgcc_s's, libunwind) walks the call paths, which read them at every path
 * (the inst source's accesses under variance).  Before the trimming that follows start-up;
 * nothing without rt_trim_keep_resident. */
void rt_trim_keep_unwind(void);

/* Map libsonde.so's resident part again, page by page (a forked child, which keeps none
 * of its parent's file pages, before anything of it runs); nothing before
 * rt_trim_keep_resident and a first rt_trim_object_at on libsonde.so. */
void rt_trim_prefault(void);

/* The pages of the other loaded objects' read-only segments (libc, ld.so, the program)
 * that are mapped now, noted (rt_trim_foreign_mark), and with drop nonzero those mapped
 * since then but not before unmapped (rt_trim_foreign_drop), which also frees the note:
 * the runtime's start-up between the two calls maps libc's stdio, printf and scanf code,
 * which the program may never use (libtrim.c).  A page still the file's only, of a
 * segment not mapped writable now, and nothing while the process has more than one thread
 * (libtrim.c: why); one mark at a time.  Start-up only.  rt_trim_foreign_drop returns the
 * pages unmapped, or RT_TRIM_DROP_OFF (drop zero, no mark, or /proc unreadable) or
 * RT_TRIM_DROP_THREADS (skipped: other threads). */
#define RT_TRIM_DROP_OFF (-1)
#define RT_TRIM_DROP_THREADS (-2)
void rt_trim_foreign_mark(void);
long rt_trim_foreign_drop(int drop);

/* Right after libsonde.so's resident code (resident-end.c, linked after RT_RESIDENT; not
 * in libtrim.c, which tests build on its own). */
void rt_resident_end(void);

#endif
