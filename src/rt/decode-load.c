/* SPDX-License-Identifier: MIT */
/*
 * decode-load.c - loads libZydis for the instruction decoder (decode-x86.c) the first time
 * a sample source asks for it (decode_init), at start, outside any handler.  Not
 * handler-reachable: dlopen.
 */
#include <dlfcn.h>
#include <unistd.h>

#include "rt/decode-x86.h"
#include "rt/decode-zydis.h"
#include "rt/libtrim.h"

/* Zydis 4's soname, as the build links it for the CLI (Makefile: LIBS_CLI). */
#define ZYDIS_SONAME "libZydis.so.4.0"

void decode_init(void)
{
	static int tried;

	if (tried)
		return;
	tried = 1;
	/* RTLD_LOCAL: its symbols stay out of the program's lookups.  Trimmed: resident by
	 * the page its decoding touches (its tables are 420 KB: libtrim.c) */
	void *h = rt_dlopen_trimmed(ZYDIS_SONAME);
	struct decode_zydis z = { 0 };

	if (h) {
		*(void **)&z.decoder_init = dlsym(h, "ZydisDecoderInit");
		*(void **)&z.decode_full = dlsym(h, "ZydisDecoderDecodeFull");
		*(void **)&z.reg_class = dlsym(h, "ZydisRegisterGetClass");
		*(void **)&z.largest_enclosing = dlsym(h, "ZydisRegisterGetLargestEnclosing");
		*(void **)&z.mnemonic_string = dlsym(h, "ZydisMnemonicGetString");
	}
	int ok = z.decoder_init && z.decode_full && z.reg_class && z.largest_enclosing &&
		 z.mnemonic_string;
	if (ok)
		decode_zy = z;
	else {	/* the samples would all be dropped as no-access, silently: say why, once */
		static const char msg[] = "sonde: warning: cannot load " ZYDIS_SONAME " (Debian: "
					  "libzydis4.0): the clock source cannot see "
					  "its samples' accesses\n";
		ssize_t r = write(2, msg, sizeof(msg) - 1);
		(void)r;
	}
	decode_ready(ok);
}
