/* SPDX-License-Identifier: MIT */
/*
 * rt-ownunwind: a program that uses libunwind itself (unw_get_proc_name, which reads
 * /proc/self/maps and ELF files through libunwind's read and close), as profilers, crash
 * handlers and language runtimes do.  Under sonde, whose runtime binds libunwind's read
 * and close (src/rt/ctx.c), its own calls must still work and leak no descriptor.
 * Prints "names N/50 fds A -> B" and exits 0 when all 50 names were found and no
 * descriptor leaked.
 */
#define UNW_LOCAL_ONLY
#include <dirent.h>
#include <libunwind.h>
#include <stdio.h>
#include <string.h>

static int nfds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

int main(void)
{
	unw_context_t uc;
	unw_cursor_t c;
	unw_word_t off;
	char name[256];
	int ok = 0;
	/* one name first: libunwind makes its own descriptors once (its check pipe when it
	 * runs alone), which is not a leak */
	unw_getcontext(&uc);
	unw_init_local(&c, &uc);
	unw_get_proc_name(&c, name, sizeof(name), &off);
	int before = nfds();
	for (int i = 0; i < 50; i++) {
		unw_getcontext(&uc);
		unw_init_local(&c, &uc);
		if (unw_get_proc_name(&c, name, sizeof(name), &off) == 0 && strcmp(name, "main") == 0)
			ok++;
	}
	int after = nfds();
	printf("names %d/50 fds %d -> %d\n", ok, before, after);
	return ok == 50 && after == before ? 0 : 1;
}
