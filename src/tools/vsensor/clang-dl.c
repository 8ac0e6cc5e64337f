/* SPDX-License-Identifier: MIT */
/*
 * clang-dl.c - libclang loaded on demand (clang-dl.h).
 */
#include <dlfcn.h>
#include <stdio.h>

#include "tools/vsensor/clang-dl.h"

struct vs_clang vs_clang;

/* The Debian 12 soname first (libclang1-14), then LLVM's own directory's names. */
static const char *const libs[] = {
	"libclang-14.so.13", "/usr/lib/llvm-14/lib/libclang.so.1", "libclang.so.1",
	"libclang.so",
};

int vs_clang_load(char *err, size_t len)
{
	static int state;	/* 0 not tried, 1 loaded, -1 failed */
	static char why[256];
	void *h = NULL;

	if (state) {
		if (state < 0)
			snprintf(err, len, "%s", why);
		return state > 0 ? 0 : -1;
	}
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]) && !h; i++)
		h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, sizeof(why), "cannot load libclang (%s; Debian: apt-get install "
			 "libclang1-14): the source analysis needs it", dlerror());
		state = -1;
		snprintf(err, len, "%s", why);
		return -1;
	}
	state = 1;
#define VS_CLANG_SYM(f)                                                                    \
	if (state > 0 && !(*(void **)&vs_clang.f = dlsym(h, #f))) {                        \
		snprintf(why, sizeof(why), "libclang lacks %s: the source analysis needs "   \
			 "libclang 14", #f);                                                 \
		state = -1;                                                                \
	}
	VS_CLANG_FUNCS(VS_CLANG_SYM)
#undef VS_CLANG_SYM
	if (state < 0)
		snprintf(err, len, "%s", why);
	return state > 0 ? 0 : -1;
}
