/* SPDX-License-Identifier: MIT */
/*
 * rt-jump.c - longjmp and siglongjmp, interposed for the variance tool: a jump leaves
 * frames without returning, so the pending instances are dropped first (rt-variance.c,
 * variance_on_jump), as FVSampler does.  __cxa_begin_catch too (C++ programs): the frames
 * below the catching one are gone, and the pending instances there are dropped.  The real functions are found once, when
 * libsonde.so is loaded; with any other tool the wrappers only forward.  Not handler-safe
 * at load (dlsym); the wrappers themselves are (a program may jump out of its handlers).
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdlib.h>

#define RT_EXPORT __attribute__((visibility("default")))

#include <stdint.h>

#include "rt/interpose.h"

void variance_on_jump(void);
void variance_on_catch(uint64_t sp);

typedef void *(*catch_fn)(void *);
static catch_fn real_begin_catch;

typedef void (*jump_fn)(void *, int) __attribute__((noreturn));

static jump_fn real_longjmp, real__longjmp, real_siglongjmp, real_longjmp_chk;

__attribute__((constructor(101))) static void jump_init(void)
{
	/* dlsym's error state (a failed lookup: a C program has no __cxa_begin_catch) is
	 * allocated: not in the program's heap (interpose.c) */
	if (interpose_own)
		interpose_own(1);
	real_longjmp = (jump_fn)dlsym(RTLD_NEXT, "longjmp");
	real__longjmp = (jump_fn)dlsym(RTLD_NEXT, "_longjmp");
	real_siglongjmp = (jump_fn)dlsym(RTLD_NEXT, "siglongjmp");
	real_longjmp_chk = (jump_fn)dlsym(RTLD_NEXT, "__longjmp_chk");
	real_begin_catch = (catch_fn)dlsym(RTLD_NEXT, "__cxa_begin_catch");
	if (interpose_own)
		interpose_own(0);
}

/* Called by the catching frame: its stack pointer is our frame's top (return slot + 8). */
RT_EXPORT __attribute__((noinline)) void *__cxa_begin_catch(void *exc)
{
	variance_on_catch((uint64_t)(uintptr_t)__builtin_frame_address(0) + 16);
	/* A C++ runtime loaded after us (dlopen) is found on its first catch. */
	if (!real_begin_catch)
		real_begin_catch = (catch_fn)dlsym(RTLD_NEXT, "__cxa_begin_catch");
	if (!real_begin_catch)
		abort();	/* only C++ runtimes call it, and they define it */
	return real_begin_catch(exc);
}

static __attribute__((noreturn)) void jump(jump_fn f, void *env, int val)
{
	variance_on_jump();
	if (!f)
		abort();	/* libc without it: cannot happen with glibc */
	f(env, val);
}

RT_EXPORT __attribute__((noreturn)) void longjmp(jmp_buf env, int val)
{
	jump(real_longjmp, env, val);
}

RT_EXPORT __attribute__((noreturn)) void _longjmp(jmp_buf env, int val)
{
	jump(real__longjmp, env, val);
}

RT_EXPORT __attribute__((noreturn)) void siglongjmp(sigjmp_buf env, int val)
{
	jump(real_siglongjmp, env, val);
}

RT_EXPORT __attribute__((noreturn)) void __longjmp_chk(jmp_buf env, int val)
{
	jump(real_longjmp_chk ? real_longjmp_chk : real_longjmp, env, val);
}
