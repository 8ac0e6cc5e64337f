/* SPDX-License-Identifier: MIT */
/*
 * decode-zydis.h - private to decode-x86.c and decode-load.c: the libZydis functions the
 * decoder calls, reached through pointers because the library is loaded on demand
 * (decode_init), not linked: a process whose sample source decodes no instruction (the
 * clock source for a tool with RT_TOOL_NO_ACCESS, sonde variance) does not map it.  Its
 * relocations and start-up code cost 168 KB of resident memory (bench/variance.sh).
 */
#ifndef SONDE_RT_DECODE_ZYDIS_H
#define SONDE_RT_DECODE_ZYDIS_H

#include <Zydis/Zydis.h>

struct decode_zydis {
	ZyanStatus (*decoder_init)(ZydisDecoder *d, ZydisMachineMode mode, ZydisStackWidth width);
	ZyanStatus (*decode_full)(const ZydisDecoder *d, const void *buf, ZyanUSize len,
				  ZydisDecodedInstruction *in,
				  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT]);
	ZydisRegisterClass (*reg_class)(ZydisRegister reg);
	ZydisRegister (*largest_enclosing)(ZydisMachineMode mode, ZydisRegister reg);
	const char *(*mnemonic_string)(ZydisMnemonic m);
};

/* Filled by decode_init; all NULL until then, or when the library could not be loaded. */
extern struct decode_zydis decode_zy;

/* decode_init's end, once: `loaded` says whether decode_zy is filled.  Sets up the decoder
 * (or marks it missing: decode_access then fails) and the memory reads' pid. */
void decode_ready(int loaded);

#endif
