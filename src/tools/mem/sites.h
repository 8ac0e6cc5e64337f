/* SPDX-License-Identifier: MIT */
/*
 * sites.h - naming heap objects by their allocation call path (the mem tool, offline).
 *
 * A heap object is every block allocated through one call path, cut at the frame that
 * tells it apart: the innermost frame in the program's own code, past
 *   - frames in system libraries and system headers (libc, libstdc++'s templates such as
 *     std::vector<T>::resize, libgomp): their module or source file is under /usr or /lib;
 *   - the program's own allocation wrappers, found from the paths themselves: a function
 *     through which allocations from two or more call sites pass (Allocate<T>, xmalloc)
 *     is a wrapper, and its callers name the objects.  Applied until nothing changes, so a
 *     wrapper of a wrapper is seen too.
 * An allocation a library makes for itself (its innermost frame is in a library and is not
 * an allocator interface such as operator new or strdup) is named after the library and
 * the program frame that called into it: "[libgomp.so.1] for f (file.c:12)".
 *
 * Two call sites on one source line are two objects: frames are compared by function,
 * file, line, column where the symbols have it, and the call's module offset (the return
 * address) in the naming frame otherwise.  Labels are "function (file:line)"; a label that
 * two objects would share gets the column, or the call's offset, to tell them apart.
 *
 * Pure logic (no symbolization here): the caller symbolizes each path and adds it.
 */
#ifndef SONDE_TOOLS_MEM_SITES_H
#define SONDE_TOOLS_MEM_SITES_H

#include <stdint.h>

/* One frame of an allocation path, innermost first; strings are borrowed (they must live
 * until site_names_free). */
struct site_frame {
	const char *function;	/* NULL if unknown */
	const char *file;	/* source file, NULL if no line info */
	const char *module;	/* the mapped file, NULL if none */
	int line;		/* 0 if unknown */
	int column;		/* 0 if unknown */
	uint64_t offset;	/* the return address, relative to its module */
};

struct site_names;

/* An empty set, NULL when out of memory. */
struct site_names *site_names_new(void);
void site_names_free(struct site_names *s);

/* Add one allocation path of n frames (copied); its index, or -ENOMEM. */
int site_names_add(struct site_names *s, const struct site_frame *f, int n);

/* Decide the naming frame, key and label of every path added.  0 or -ENOMEM. */
int site_names_resolve(struct site_names *s);

/*
 * After site_names_resolve, for path i: the object's identity (equal keys = one object,
 * also across processes of one program), its label, the whole path as
 * "main (a.c:3) > f (a.c:9) > malloc", and the naming frame (NULL when no frame has a
 * function).  Owned by s.
 */
const char *site_names_key(const struct site_names *s, int i);
const char *site_names_label(const struct site_names *s, int i);
const char *site_names_path(const struct site_names *s, int i);
const struct site_frame *site_names_frame(const struct site_names *s, int i);

/* Is this module or source file part of the system (libraries, headers)? */
int site_is_system_path(const char *path);

#endif
