/* SPDX-License-Identifier: MIT */
/*
 * file.h - opening the files of a recording (and the files it names) for reading, offline.
 *
 * A recording directory may hold, under a name the readers know, what is not a regular
 * file: a FIFO there blocks a plain open() or fopen() for ever, and opening a device (a GPU
 * or InfiniBand /dev file named in a .maps copy) may act on it.  Every offline reader (the
 * profile's and the tools' readers) opens through here: only a regular file is opened, and
 * a FIFO never blocks.
 */
#ifndef SONDE_PROF_FILE_H
#define SONDE_PROF_FILE_H

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

/* The error the two below give for what is not a regular file. */
#define FILE_NOT_REGULAR (-EINVAL)

/*
 * Open path read-only (close-on-exec) if it is a regular file: a file descriptor in
 * blocking mode, or -errno: FILE_NOT_REGULAR when path is not a regular file (a FIFO, a directory,
 * a device; nothing is opened that stat() already shows is not one), else what open() or
 * fstat() said.  When sb is not NULL it receives the open file's fstat().
 */
int file_open_regular(const char *path, struct stat *sb);

/*
 * The same as a stdio stream ("re"), closed with fclose(); NULL and *err = -errno (the
 * codes above, or -ENOMEM) otherwise.
 */
FILE *file_fopen_regular(const char *path, int *err);

/*
 * Their error err (-errno) in words, for a message: "not a regular file" for
 * FILE_NOT_REGULAR, else strerror(-err).  The string is not the caller's to free.
 */
const char *file_strerror(int err);

/* 1 for a Fortran source file by its name's suffix (.f, .F, .f77, .for, .ftn, .f90, .F90,
 * .f95, .f03, .f08 and their capitals): vsensor's analysis refuses it (C only), mem names
 * the calls of one of its lines apart (sites.c). */
int file_is_fortran_source(const char *path);

/* Line `line` (1-based) of the text file path into buf, without its line end: 0, or
 * -errno (-ENOENT past the end; a file that is not regular as above). */
int file_source_line(const char *path, int line, char *buf, size_t len);

#endif
