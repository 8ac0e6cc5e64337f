/* SPDX-License-Identifier: MIT */
/*
 * sigsafe.h - include LAST in every runtime file whose code a sample or trap handler can
 * reach.  It makes the calls that are not async-signal-safe compile errors in that file,
 * and tests/e2e/t010-rt-handler-safety.sh checks the objects with nm as well (the poison
 * cannot see calls hidden in macros of system headers).
 */
#ifndef SONDE_RT_SIGSAFE_H
#define SONDE_RT_SIGSAFE_H

/* (a unit test that compiles runtime code into its own file, with its own printf and
 * calloc, turns the poison off: tests/unit/u-reuse-stack-inline.c; t010's nm check still
 * covers the runtime's objects) */
#ifndef SONDE_SIGSAFE_NO_POISON
#pragma GCC poison malloc calloc realloc free strdup strndup
#pragma GCC poison printf fprintf sprintf snprintf vsnprintf vfprintf puts fputs perror
#pragma GCC poison fopen fclose fwrite fread fflush
#pragma GCC poison pthread_mutex_lock pthread_mutex_trylock pthread_rwlock_rdlock pthread_rwlock_wrlock
#pragma GCC poison dlopen dlsym dlclose exit atexit syslog
#endif

/* Marks a function reachable from a handler (documentation for the reader). */
#define SIGSAFE

#include "rt/sigsafe-str.h"

#endif
