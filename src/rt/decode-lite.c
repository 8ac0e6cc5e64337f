/* SPDX-License-Identifier: MIT */
/*
 * decode-lite.c - the common x86-64 instructions decoded without Zydis: their length,
 * branches and memory operands, and what the clock source's look-ahead emulates of them
 * (decode_insn's op, writes, dst/src, immediate, condition, target, lea).  The `inst`
 * source's one use of a decoder (source-inst.c, access_ip: which instruction after a
 * callback's call site is the access) is this alone; the clock source's decode_access asks
 * it first and libZydis only for the rest.  libZydis's code and tables are touched all
 * over by a few decodes: loading it for the inst source cost `sonde comm --source inst`
 * 272 KB of resident memory (bench/memory.sh, 2026-11-26 13:13 UTC), and decoding with it
 * cost the clock source as much (bench/memory.sh comm-clock, 2026-11-27 19:03 UTC: 288 KB
 * of libZydis at exit, 64 KB since, what its loading alone makes resident).
 *
 * Everything it does not know (x87, EVEX, string instructions, moffs, segment registers,
 * 0F38/0F3A but for a few VEX ones, 32-bit addresses...) gives -1 (decode-x86.h:
 * decode_access_lite).  What it answers agrees with decode_access_zydis field for field:
 * u-decode-lite sweeps real code and random encodings with both.  Handler-safe.
 */
#include <string.h>

#include "rt/decode-x86.h"
#include "rt/rt.h"
#include "rt/sigsafe.h"

/* Memory operand kinds of an instruction (what its r/m operand does when it is memory). */
enum { M_NONE, M_LOAD, M_STORE, M_RMW };

/* VEX forms with no vvvv operand, where it must be 1111 (#UD else; Zydis rejects them):
 * in every form, or in the memory form only (vmovss/vmovsd: their register form merges) */
enum { NOV_NO, NOV_ALWAYS, NOV_MEM };

struct lite {
	const uint8_t *p, *end;
	int opsize;		/* 2, 4 or 8: integer operand size */
	int rex, vex_l, vex_w;
	int rex_byte;		/* a REX prefix was present (spl..dil, not ah..bh) */
	int seg;		/* 0, 1 fs, 2 gs */
	int lock;
	int pfx;		/* 0, 0x66, 0xf3, 0xf2: the mandatory prefix (SSE) or VEX.pp */
	int vvvv;		/* VEX.vvvv's register (0: none, the encoding 1111) */
	int nov;		/* a VEX form whose vvvv must be 1111: NOV_ALWAYS, NOV_MEM */
	int mem_only;		/* 1: no register form (#UD with ModRM.mod 3); -1: no memory form */
	uint8_t modrm;
	int has_mem;
	int rip_rel;
	int base, index, scale;	/* -1: none */
	int64_t disp;
};

SIGSAFE static int get(struct lite *l, uint8_t *b)
{
	if (l->p >= l->end)
		return -1;
	*b = *l->p++;
	return 0;
}

SIGSAFE static int skip(struct lite *l, int n)
{
	if (l->end - l->p < n)
		return -1;
	l->p += n;
	return 0;
}

/* Little-endian signed value of n (1 or 4) bytes. */
SIGSAFE static int sget(struct lite *l, int n, int64_t *v)
{
	if (l->end - l->p < n)
		return -1;
	if (n == 1) {
		*v = (int8_t)l->p[0];
	} else {
		int32_t x;
		memcpy(&x, l->p, 4);
		*v = x;
	}
	l->p += n;
	return 0;
}

/* The ModRM byte, and SIB and displacement when it names memory. */
SIGSAFE static int modrm(struct lite *l)
{
	uint8_t m, sib;

	if (get(l, &m))
		return -1;
	l->modrm = m;
	int mod = m >> 6, rm = m & 7;
	l->base = l->index = -1;
	l->scale = 1;
	l->disp = 0;
	l->has_mem = mod != 3;
	if (mod == 3)
		return 0;
	if (rm == 4) {
		if (get(l, &sib))
			return -1;
		int idx = ((sib >> 3) & 7) | (l->rex & 2 ? 8 : 0);
		if (idx != 4)
			l->index = idx;
		l->scale = 1 << (sib >> 6);
		if ((sib & 7) == 5 && mod == 0) {
			if (sget(l, 4, &l->disp))
				return -1;
			return 0;
		}
		l->base = (sib & 7) | (l->rex & 1 ? 8 : 0);
	} else if (rm == 5 && mod == 0) {
		l->rip_rel = 1;
		return sget(l, 4, &l->disp);
	} else {
		l->base = rm | (l->rex & 1 ? 8 : 0);
	}
	if (mod == 1)
		return sget(l, 1, &l->disp);
	if (mod == 2)
		return sget(l, 4, &l->disp);
	return 0;
}

#define REG(l) (((l)->modrm >> 3) & 7)

/* The r/m memory operand (len bytes, kind) once the instruction's length is known: an access,
 * or lea's address (len 0, M_NONE). */
SIGSAFE static void fill_rm(const struct lite *l, const uint8_t *start, const struct decode_regs *r,
			    struct decode_mem *m, int len, int kind)
{
	uint64_t a = (uint64_t)l->disp;

	m->len = (uint16_t)len;
	m->flags = kind == M_STORE ? SONDE_MEM_STORE :
		   kind == M_RMW ? SONDE_MEM_STORE | SONDE_MEM_RMW : 0;
	m->base = m->index = -1;
	m->scale = 1;
	m->linear = 1;
	if (l->rip_rel)
		a += r->rip + (uint64_t)(l->p - start);
	if (l->base >= 0) {
		a += r->gpr[l->base];
		m->needs |= 1u << l->base;
		m->base = (int8_t)l->base;
	}
	if (l->index >= 0) {
		a += r->gpr[l->index] * (uint64_t)l->scale;
		m->needs |= 1u << l->index;
		m->index = (int8_t)l->index;
		m->scale = (uint8_t)l->scale;
	}
	if (l->seg == 1)
		a += r->fs_base;
	else if (l->seg == 2)
		a += r->gs_base;
	m->seg = (uint8_t)l->seg;
	m->addr = a;
	m->disp = l->disp + (l->rip_rel ? (int64_t)(r->rip + (uint64_t)(l->p - start)) : 0);
}

SIGSAFE static void add_rm(const struct lite *l, const uint8_t *start, const struct decode_regs *r,
			   struct decode_insn *out, int len, int kind)
{
	fill_rm(l, start, r, &out->mem[out->n_mem++], len, kind);
}

/* The stack slot a push or call writes (len bytes below rsp), or a pop or ret reads. */
SIGSAFE static void add_stack(const struct decode_regs *r, struct decode_insn *out, int len,
			      int store)
{
	struct decode_mem *m = &out->mem[out->n_mem++];

	m->len = (uint16_t)len;
	m->flags = store ? SONDE_MEM_STORE : 0;
	m->needs = 1u << DECODE_RSP;
	m->base = DECODE_RSP;
	m->index = -1;
	m->scale = 1;
	m->linear = 1;
	m->addr = r->gpr[DECODE_RSP] - (store ? (uint64_t)len : 0);
	m->disp = store ? -len : 0;
}

/* An access at a register's address ([rdi], [rsi]: string instructions; [rbp]: leave). */
SIGSAFE static void add_reg_access(const struct decode_regs *r, struct decode_insn *out, int g,
				   int len, int store)
{
	struct decode_mem *m = &out->mem[out->n_mem++];

	m->len = (uint16_t)len;
	m->flags = store ? SONDE_MEM_STORE : 0;
	m->needs = 1u << g;
	m->base = (int8_t)g;
	m->index = -1;
	m->scale = 1;
	m->linear = 1;
	m->addr = r->gpr[g];
}

/* Immediate of an Iz operand: 2 bytes under 0x66, else 4. */
#define IZ(l) ((l)->opsize == 2 ? 2 : 4)

/*
 * The one-byte map.  Returns the memory kind of the r/m operand (M_NONE for none), its
 * length in *len, the immediate's bytes in *imm; or -1 for an instruction not covered.
 * Instructions without ModRM set *no_modrm and do their own accesses through *extra.
 */
enum { X_NONE, X_PUSH, X_POP, X_CALL, X_RET, X_MOVS, X_STOS, X_LEAVE };

SIGSAFE static int map1(struct lite *l, uint8_t op, int *len, int *imm, int *no_modrm,
			int *extra, int *branch)
{
	int v = l->opsize;

	if (op < 0x40 && (op & 7) < 6) {	/* add or adc and sbb sub xor cmp */
		int alu = op >> 3, form = op & 7;
		if (form >= 4) {		/* al/eax, imm */
			*no_modrm = 1;
			*imm = form == 4 ? 1 : IZ(l);
			return M_NONE;
		}
		*len = form & 1 ? v : 1;
		if (form >= 2 || alu == 7)
			return M_LOAD;
		return M_RMW;
	}
	if (op >= 0x50 && op <= 0x5f) {
		*no_modrm = 1;
		*extra = op < 0x58 ? X_PUSH : X_POP;
		return M_NONE;
	}
	if (op >= 0x70 && op <= 0x7f) {
		*no_modrm = 1;
		*imm = 1;
		*branch = 1;
		return M_NONE;
	}
	if (op >= 0x91 && op <= 0x99) {	/* xchg with rax, cbw/cwde/cdqe, cwd/cdq/cqo */
		*no_modrm = 1;
		return M_NONE;
	}
	if (op >= 0xb0 && op <= 0xbf) {	/* mov r, imm */
		*no_modrm = 1;
		*imm = op < 0xb8 ? 1 : l->rex & 8 ? 8 : IZ(l);
		return M_NONE;
	}
	switch (op) {
	case 0x63:			/* movsxd */
		if (!(l->rex & 8))
			return -1;
		*len = 4;
		return M_LOAD;
	case 0x68: case 0x6a:		/* push imm */
		*no_modrm = 1;
		*imm = op == 0x6a ? 1 : IZ(l);
		*extra = X_PUSH;
		return M_NONE;
	case 0x69: case 0x6b:		/* imul r, r/m, imm */
		*imm = op == 0x6b ? 1 : IZ(l);
		*len = v;
		return M_LOAD;
	case 0x80: case 0x81: case 0x83:
		*imm = op == 0x81 ? IZ(l) : 1;
		*len = op == 0x80 ? 1 : v;
		return -2;			/* by the reg field: see below */
	case 0x84: case 0x85:		/* test */
		*len = op == 0x84 ? 1 : v;
		return M_LOAD;
	case 0x86: case 0x87:		/* xchg */
		*len = op == 0x86 ? 1 : v;
		return M_RMW;
	case 0x88: case 0x89:
		*len = op == 0x88 ? 1 : v;
		return M_STORE;
	case 0x8a: case 0x8b:
		*len = op == 0x8a ? 1 : v;
		return M_LOAD;
	case 0x8d:			/* lea: no access */
		return -3;
	case 0x90:			/* nop, pause */
		*no_modrm = 1;
		return M_NONE;
	case 0xa8: case 0xa9:		/* test al/eax, imm */
		*no_modrm = 1;
		*imm = op == 0xa8 ? 1 : IZ(l);
		return M_NONE;
	case 0xc0: case 0xc1: case 0xd0: case 0xd1: case 0xd2: case 0xd3:	/* shifts */
		*imm = op <= 0xc1 ? 1 : 0;
		*len = op & 1 ? v : 1;
		return -4;
	case 0xc2: case 0xc3:		/* ret */
		*no_modrm = 1;
		*imm = op == 0xc2 ? 2 : 0;
		*extra = X_RET;
		*branch = 1;
		return M_NONE;
	case 0xc6: case 0xc7:		/* mov r/m, imm */
		*imm = op == 0xc6 ? 1 : IZ(l);
		*len = op == 0xc6 ? 1 : v;
		return -5;
	case 0xa4: case 0xa5:		/* movs, rep movs: [rdi] <- [rsi] */
	case 0xaa: case 0xab:		/* stos, rep stos: [rdi] <- rax */
		if (l->seg)
			return -1;	/* a segment override on the source: left to Zydis */
		*no_modrm = 1;
		*len = op & 1 ? v : 1;
		*extra = op < 0xaa ? X_MOVS : X_STOS;
		return M_NONE;
	case 0xc9:			/* leave: rsp = rbp, pop rbp */
		if (v == 2)
			return -1;
		*no_modrm = 1;
		*extra = X_LEAVE;
		return M_NONE;
	case 0xe8:			/* call rel32 */
		*no_modrm = 1;
		*imm = 4;
		*extra = X_CALL;
		*branch = 1;
		return M_NONE;
	case 0xe9: case 0xeb:		/* jmp */
		*no_modrm = 1;
		*imm = op == 0xe9 ? 4 : 1;
		*branch = 1;
		return M_NONE;
	case 0xf6: case 0xf7:
		*len = op == 0xf6 ? 1 : v;
		return -6;
	case 0xfe: case 0xff:
		*len = op == 0xfe ? 1 : v;
		return -7;
	default:
		return -1;
	}
}

/* The one-byte map's groups (map1's -2 and below), once the ModRM's reg field is known. */
SIGSAFE static int group1(struct lite *l, uint8_t op, int group, int *len, int *imm,
			  int *extra, int *branch)
{
	int reg = REG(l);

	switch (group) {
	case -2:				/* 80 81 83: ALU r/m, imm */
		return reg == 7 ? M_LOAD : M_RMW;
	case -3:				/* lea */
		return l->has_mem ? M_NONE : -1;
	case -4:				/* shifts; /6 is not documented */
		return reg == 6 || l->lock ? -1 : M_RMW;	/* no lock on a shift */
	case -5:				/* C6 C7 /0: mov r/m, imm */
		return reg == 0 ? M_STORE : -1;
	case -6:				/* F6 F7 */
		if (reg == 0) {			/* test r/m, imm */
			*imm = op == 0xf6 ? 1 : IZ(l);
			return M_LOAD;
		}
		if (reg == 1)
			return -1;
		return reg <= 3 ? M_RMW : M_LOAD;	/* not neg; mul imul div idiv */
	case -7:				/* FE FF */
		if (reg <= 1)
			return M_RMW;		/* inc dec */
		if (op == 0xfe)
			return -1;
		if (reg == 2 || reg == 4) {	/* call, jmp r/m64 */
			*len = 8;
			*branch = 1;
			*extra = reg == 2 ? X_CALL : X_NONE;
			return M_LOAD;
		}
		if (reg == 6 && l->opsize != 2) {	/* push r/m64 */
			*len = 8;
			*extra = X_PUSH;
			return M_LOAD;
		}
		return -1;
	}
	return -1;
}

/* Vector length of a packed SSE/AVX operand: 16, or 32 with VEX.L. */
#define VL(l) ((l)->vex_l ? 32 : 16)

/* Packed or scalar arithmetic (0F 51..5F, 0F 58..): by the prefix. */
SIGSAFE static int sse_arith_len(const struct lite *l)
{
	switch (l->pfx) {
	case 0xf3:
		return 4;
	case 0xf2:
		return 8;
	default:
		return VL(l);
	}
}

/*
 * The 0F map (legacy SSE with its mandatory prefix, or VEX with pp: the same table; a
 * VEX-only or legacy-only form is checked by `vex`).  Returns the memory kind as map1.
 */
SIGSAFE static int map2(struct lite *l, uint8_t op, int vex, int *len, int *imm, int *no_modrm,
			int *branch)
{
	int p = l->pfx;

	if (op >= 0x80 && op <= 0x8f && !vex && !p) {	/* jcc rel32 */
		*no_modrm = 1;
		*imm = 4;
		*branch = 1;
		return M_NONE;
	}
	if (op >= 0x40 && op <= 0x4f && !vex && !p) {	/* cmovcc */
		*len = l->opsize;
		return M_LOAD;
	}
	if (op >= 0x90 && op <= 0x9f && !vex && !p) {	/* setcc */
		*len = 1;
		return M_STORE;
	}
	if (op >= 0x51 && op <= 0x5f && op != 0x5a && op != 0x5b && (op < 0x52 || op > 0x53 || p == 0 || p == 0xf3)) {
		if ((op >= 0x54 && op <= 0x57) && (p == 0xf3 || p == 0xf2))
			return -1;	/* and andn or xor: packed only */
		if (op <= 0x53 && p != 0xf3 && p != 0xf2)
			l->nov = NOV_ALWAYS;	/* sqrtps/pd rsqrtps rcpps: one source */
		*len = sse_arith_len(l);
		return M_LOAD;
	}
	switch (op) {
	case 0x10: case 0x11:		/* movups movupd movss movsd */
		l->nov = p == 0xf3 || p == 0xf2 ? NOV_MEM : NOV_ALWAYS;
		*len = sse_arith_len(l);
		return op == 0x10 ? M_LOAD : M_STORE;
	case 0x12: case 0x16:		/* movlps movhps xmm, m64 (movhlps movlhps without
					 * memory); movlpd movhpd xmm, m64 */
	case 0x13: case 0x17:		/* movlps movhps movlpd movhpd m64, xmm */
		if ((p != 0 && p != 0x66) || (vex && l->vex_l))
			return -1;
		if (p == 0x66 || (op & 1))
			l->mem_only = 1;
		if (op & 1)
			l->nov = NOV_ALWAYS;
		*len = 8;
		return op & 1 ? M_STORE : M_LOAD;
	case 0x14: case 0x15:		/* unpcklps/pd, unpckhps/pd */
		if (p != 0 && p != 0x66)
			return -1;
		*len = VL(l);
		return M_LOAD;
	case 0x1e:			/* endbr64 and endbr32 */
		if (vex || p != 0xf3 || l->p >= l->end || (l->p[0] != 0xfa && l->p[0] != 0xfb))
			return -1;
		*no_modrm = 1;
		l->p++;
		return M_NONE;
	case 0x05:			/* syscall */
		if (vex || p)
			return -1;
		*no_modrm = 1;
		*branch = 1;
		return M_NONE;
	case 0x77:			/* vzeroupper, emms */
		if (p)
			return -1;
		l->nov = NOV_ALWAYS;
		*no_modrm = 1;
		return M_NONE;
	case 0x1f:			/* nop r/m: no access */
		if (vex || (p != 0 && p != 0x66))
			return -1;
		return -3;
	case 0x28: case 0x29:		/* movaps movapd */
		if (p != 0 && p != 0x66)
			return -1;
		l->nov = NOV_ALWAYS;
		*len = VL(l);
		return op == 0x28 ? M_LOAD : M_STORE;
	case 0x2a:			/* cvtsi2ss/sd x, r/m32/64 */
		if (p != 0xf3 && p != 0xf2)
			return -1;
		*len = (vex ? l->vex_w : l->rex & 8) ? 8 : 4;
		return M_LOAD;
	case 0x2c: case 0x2d:		/* cvt(t)ss2si cvt(t)sd2si */
		if (p != 0xf3 && p != 0xf2)
			return -1;
		l->nov = NOV_ALWAYS;
		*len = p == 0xf3 ? 4 : 8;
		return M_LOAD;
	case 0x2e: case 0x2f:		/* (u)comiss (u)comisd */
		if (p != 0 && p != 0x66)
			return -1;
		l->nov = NOV_ALWAYS;
		*len = p ? 8 : 4;
		return M_LOAD;
	case 0x5a:			/* cvtps2pd cvtpd2ps cvtss2sd cvtsd2ss */
		if (p != 0xf3 && p != 0xf2)
			l->nov = NOV_ALWAYS;	/* packed: one source */
		*len = p == 0xf3 ? 4 : p == 0xf2 ? 8 : p == 0x66 ? VL(l) : l->vex_l ? 16 : 8;
		return M_LOAD;
	case 0x5b:			/* cvtdq2ps cvtps2dq cvttps2dq */
		if (p == 0xf2)
			return -1;
		l->nov = NOV_ALWAYS;
		*len = VL(l);
		return M_LOAD;
	case 0x6e:			/* movd/movq x, r/m */
		if (p != 0x66 || (vex && l->vex_l))
			return -1;
		l->nov = NOV_ALWAYS;
		*len = (vex ? l->vex_w : l->rex & 8) ? 8 : 4;
		return M_LOAD;
	case 0x7e:
		if (vex && l->vex_l)
			return -1;
		l->nov = NOV_ALWAYS;
		if (p == 0x66) {	/* movd/movq r/m, x */
			*len = (vex ? l->vex_w : l->rex & 8) ? 8 : 4;
			return M_STORE;
		}
		if (p == 0xf3) {	/* movq x, m64 */
			*len = 8;
			return M_LOAD;
		}
		return -1;
	case 0x6f: case 0x7f:		/* movdqa movdqu */
		if (p != 0x66 && p != 0xf3)
			return -1;
		l->nov = NOV_ALWAYS;
		*len = VL(l);
		return op == 0x6f ? M_LOAD : M_STORE;
	case 0xd6:			/* movq m64, x */
		if (p != 0x66 || (vex && l->vex_l))
			return -1;
		l->nov = NOV_ALWAYS;
		*len = 8;
		return M_STORE;
	case 0xe7:			/* movntdq */
		if (p != 0x66)
			return -1;
		l->nov = NOV_ALWAYS;
		l->mem_only = 1;
		*len = VL(l);
		return M_STORE;
	case 0xd4: case 0xdb: case 0xdf: case 0xeb: case 0xef: case 0xfa: case 0xfb: case 0xfe:
	case 0xfc: case 0xfd: case 0xf8: case 0xf9:	/* paddq pand pandn por pxor psub* padd* */
	case 0x74: case 0x75: case 0x76:	/* pcmpeq */
		if (p != 0x66)
			return -1;
		*len = VL(l);
		return M_LOAD;
	case 0x70:			/* pshufd */
		if (p != 0x66)
			return -1;
		l->nov = NOV_ALWAYS;
		*imm = 1;
		*len = VL(l);
		return M_LOAD;
	case 0xc6:			/* shufps shufpd */
		if (p != 0 && p != 0x66)
			return -1;
		*imm = 1;
		*len = VL(l);
		return M_LOAD;
	case 0x31:			/* rdtsc: a system instruction, which ends a look-ahead as
					 * decode_access_zydis's is_branch says */
		if (vex || p)
			return -1;
		*no_modrm = 1;
		*branch = 1;
		return M_NONE;
	case 0x50:			/* movmskps movmskpd: a register form only */
		if (p != 0 && p != 0x66)
			return -1;
		l->nov = NOV_ALWAYS;
		l->mem_only = -1;
		return M_NONE;
	case 0xc2:			/* cmpps cmppd cmpss cmpsd */
		*imm = 1;
		*len = sse_arith_len(l);
		return M_LOAD;
	case 0xe6:			/* cvtdq2pd (f3), cvttpd2dq (66), cvtpd2dq (f2) */
		if (p == 0)
			return -1;
		l->nov = NOV_ALWAYS;
		*len = p == 0xf3 ? (l->vex_l ? 16 : 8) : VL(l);
		return M_LOAD;
	case 0xbc: case 0xbd:		/* bsf bsr; tzcnt lzcnt (f3) */
	case 0xb8:			/* popcnt (f3) */
		if (vex || p == 0xf2 || (op == 0xb8 && p != 0xf3))
			return -1;
		*len = l->opsize;
		return M_LOAD;
	case 0xaf:			/* imul r, r/m */
		if (vex || p)
			return -1;
		*len = l->opsize;
		return M_LOAD;
	case 0xb6: case 0xbe:		/* movzx movsx r, r/m8 */
	case 0xb7: case 0xbf:		/* movzx movsx r, r/m16 */
		if (vex || p)
			return -1;
		*len = op & 1 ? 2 : 1;
		return M_LOAD;
	case 0xb0: case 0xb1:		/* cmpxchg */
	case 0xc0: case 0xc1:		/* xadd */
		if (vex || p)
			return -1;
		*len = op & 1 ? l->opsize : 1;
		return M_RMW;
	default:
		return -1;
	}
}

/* The VEX 0F38 map: broadcasts and FMA. */
SIGSAFE static int map_0f38(struct lite *l, uint8_t op, int *len)
{
	if (l->pfx != 0x66)
		return -1;
	switch (op) {
	case 0x18: case 0x19: case 0x58: case 0x59:
		if (l->vex_w)
			return -1;	/* W0 forms only */
		l->nov = NOV_ALWAYS;	/* the broadcasts: one source */
		break;
	}
	switch (op) {
	case 0x18:			/* vbroadcastss */
	case 0x58:			/* vpbroadcastd */
		*len = 4;
		return l->vex_w ? -1 : M_LOAD;
	case 0x19:			/* vbroadcastsd */
	case 0x59:			/* vpbroadcastq */
		if (!l->vex_l && op == 0x19)
			return -1;
		*len = 8;
		return M_LOAD;
	}
	if ((op >= 0x96 && op <= 0x9f) || (op >= 0xa6 && op <= 0xaf) || (op >= 0xb6 && op <= 0xbf)) {
		if ((op & 0xf) < 6)
			return -1;
		/* the odd ones from 0x99 are scalar (ss, sd by W), the rest packed */
		int scalar = (op & 1) && (op & 0xf) >= 9;
		*len = scalar ? (l->vex_w ? 8 : 4) : VL(l);
		return M_LOAD;
	}
	return -1;
}

/* ---- what the clock source's emulation needs (decode_access's describe, decode-x86.c) ---- */

#define FLAGS_BITS (DECODE_KNOWN_FLAGS | DECODE_KNOWN_FLAGS_NC)

/* A register operand of `size` bytes numbered n (REX bits included): its GPR for the
 * emulation, -1 for ah..bh (an 8-bit register 4..7 without a REX prefix), and in *bit the
 * "known" bit a write of it clears. */
SIGSAFE static int gpr_op(const struct lite *l, int n, int size, uint32_t *bit)
{
	int high = size == 1 && !l->rex_byte && n >= 4 && n < 8;
	*bit = 1u << (high ? n - 4 : n);
	return high ? -1 : n;
}

/* The instruction's operands, as the emulation descriptors see them. */
struct ops {
	int reg, rm;		/* ModRM's register operand and r/m register (REX bits in) */
	int rm_is_mem;		/* r/m is memory */
	int rm_mem;		/* ... and the instruction's one access */
	int size;		/* operand bytes (1, 2, 4, 8) */
	int64_t imm;		/* the immediate, sign-extended */
	int has_imm;
};

/* decode-x86.c's describe_binary: op dst, src (register, memory or immediate). */
SIGSAFE static void binary(struct decode_insn *out, int op, int d, int dmem, int s, int smem,
			   const struct ops *o)
{
	if (d < 0 && !dmem)
		return;
	if (o->has_imm) {
		out->imm = o->imm;
		out->has_imm = 1;
		op = op == DECODE_OP_MOV_REG ? DECODE_OP_MOV_IMM : op;
	} else if (d >= 0 && smem) {
		out->mem_arg = DECODE_ARG_SRC;
	} else if (s >= 0) {
		out->src = (int8_t)s;
	} else {
		return;
	}
	if (d < 0)
		out->mem_arg = DECODE_ARG_DST;
	out->dst = (int8_t)d;
	out->width = (uint8_t)o->size;
	out->op = (uint8_t)op;
}

/* A source that is a register or the one memory operand (decode-x86.c's src_operand). */
SIGSAFE static int source(struct decode_insn *out, int s, int smem)
{
	if (s >= 0)
		out->src = (int8_t)s;
	else if (smem)
		out->mem_arg = DECODE_ARG_SRC;
	else
		return 0;
	return 1;
}

/* The one-byte map's ALU op (00-3F and 80-83 /reg): adc and sbb are not modelled. */
static const uint8_t alu_ops[8] = {
	DECODE_OP_ADD, DECODE_OP_OR, DECODE_OP_OTHER, DECODE_OP_OTHER,
	DECODE_OP_AND, DECODE_OP_SUB, DECODE_OP_XOR, DECODE_OP_CMP,
};

SIGSAFE static void describe_map1(const struct lite *l, uint8_t op, struct ops *o,
				  const struct decode_regs *r, struct decode_insn *out)
{
	uint32_t rb = 0, mb = 0;
	int ext = REG(l);
	int reg = gpr_op(l, o->reg, o->size, &rb);
	int rm = o->rm_is_mem ? -1 : gpr_op(l, o->rm, o->size, &mb);
	int rm_w = !o->rm_is_mem;	/* r/m is a register (its write counts) */

	if (op < 0x40) {				/* ALU */
		int alu = op >> 3, form = op & 7, cmp = alu == 7;
		out->writes = FLAGS_BITS;
		if (form >= 4) {			/* al/eax, imm */
			uint32_t ab;
			int a = gpr_op(l, DECODE_RAX, o->size, &ab);
			if (!cmp)
				out->writes |= ab;
			if (alu_ops[alu] != DECODE_OP_OTHER)
				binary(out, alu_ops[alu], a, 0, -1, 0, o);
		} else if (form >= 2) {			/* reg, r/m */
			if (!cmp)
				out->writes |= rb;
			if (alu_ops[alu] != DECODE_OP_OTHER)
				binary(out, alu_ops[alu], reg, 0, rm, o->rm_mem, o);
		} else {				/* r/m, reg */
			if (!cmp && rm_w)
				out->writes |= mb;
			if (alu_ops[alu] != DECODE_OP_OTHER)
				binary(out, alu_ops[alu], rm, o->rm_mem, reg, 0, o);
		}
		return;
	}
	if (op >= 0x50 && op <= 0x5f) {			/* push, pop r */
		int g = (op & 7) | (l->rex & 1 ? 8 : 0);
		out->width = (uint8_t)(o->size == 2 ? 2 : 8);
		out->writes = 1u << DECODE_RSP;
		if (op < 0x58) {
			out->op = DECODE_OP_PUSH;
			out->src = (int8_t)g;
		} else {
			out->op = DECODE_OP_POP;
			out->dst = (int8_t)g;
			out->writes |= 1u << g;
		}
		return;
	}
	if (op >= 0x70 && op <= 0x7f) {
		out->op = DECODE_OP_JCC;
		out->cond = op & 0xf;
		out->target = r->rip + out->len + (uint64_t)o->imm;
		return;
	}
	if (op >= 0xb0 && op <= 0xbf) {			/* mov r, imm */
		int g = gpr_op(l, (op & 7) | (l->rex & 1 ? 8 : 0), o->size, &out->writes);
		binary(out, DECODE_OP_MOV_REG, g, 0, -1, 0, o);
		return;
	}
	if (op >= 0x90 && op <= 0x97) {			/* nop, xchg rax, r */
		int g = (op & 7) | (l->rex & 1 ? 8 : 0);
		if (l->pfx == 0xf3 && op == 0x90)
			return;				/* pause */
		if (g == 0) {
			out->op = DECODE_OP_NOP;
			return;
		}
		out->writes = 1u << DECODE_RAX | 1u << g;
		return;
	}
	switch (op) {
	case 0x63:					/* movsxd */
		out->writes = rb;
		if (source(out, o->rm_is_mem ? -1 : o->rm, o->rm_mem)) {
			decode_set_movx(out, reg, 8, 4, 1);
		}
		return;
	case 0x68: case 0x6a:				/* push imm */
		out->op = DECODE_OP_PUSH;
		out->width = (uint8_t)(o->size == 2 ? 2 : 8);
		out->imm = o->imm;
		out->has_imm = 1;
		out->writes = 1u << DECODE_RSP;
		return;
	case 0x69: case 0x6b:				/* imul r, r/m, imm */
		out->writes = rb | FLAGS_BITS;
		if (o->size >= 4 && source(out, rm, o->rm_mem)) {
			out->op = DECODE_OP_IMUL;
			out->imm = o->imm;
			out->has_imm = 1;
			out->dst = (int8_t)reg;
			out->width = (uint8_t)o->size;
		}
		return;
	case 0x80: case 0x81: case 0x83:		/* ALU r/m, imm */
		out->writes = FLAGS_BITS | (ext != 7 && rm_w ? mb : 0);
		if (alu_ops[ext] != DECODE_OP_OTHER)
			binary(out, alu_ops[ext], rm, o->rm_mem, -1, 0, o);
		return;
	case 0x84: case 0x85:				/* test r/m, r */
		out->writes = FLAGS_BITS;
		binary(out, DECODE_OP_TEST, rm, o->rm_mem, reg, 0, o);
		return;
	case 0x86: case 0x87:				/* xchg */
		out->writes = rb | (rm_w ? mb : 0);
		return;
	case 0x88: case 0x89:				/* mov r/m, r */
		out->writes = rm_w ? mb : 0;
		binary(out, DECODE_OP_MOV_REG, rm, o->rm_mem, reg, 0, o);
		return;
	case 0x8a: case 0x8b:				/* mov r, r/m */
		out->writes = rb;
		binary(out, DECODE_OP_MOV_REG, reg, 0, rm, o->rm_mem, o);
		return;
	case 0xa4: case 0xa5:				/* movs */
		out->writes = 1u << DECODE_RSI | 1u << DECODE_RDI |
			      (out->rep ? 1u << DECODE_RCX : 0);
		return;
	case 0xaa: case 0xab:				/* stos */
		out->writes = 1u << DECODE_RDI | (out->rep ? 1u << DECODE_RCX : 0);
		return;
	case 0xc9:					/* leave */
		out->writes = 1u << DECODE_RSP | 1u << DECODE_RBP;
		return;
	case 0x98:					/* cbw cwde cdqe */
		out->writes = 1u << DECODE_RAX;
		if (o->size == 8) {
			out->src = DECODE_RAX;
			decode_set_movx(out, DECODE_RAX, 8, 4, 1);
		}
		return;
	case 0x99:					/* cwd cdq cqo */
		out->writes = 1u << DECODE_RDX;
		if (o->size >= 4) {
			out->op = DECODE_OP_CQO;
			out->dst = DECODE_RDX;
			out->src = DECODE_RAX;
			out->width = (uint8_t)o->size;
		}
		return;
	case 0xa8: case 0xa9: {				/* test al/eax, imm */
		uint32_t ab;
		out->writes = FLAGS_BITS;
		binary(out, DECODE_OP_TEST, gpr_op(l, DECODE_RAX, o->size, &ab), 0, -1, 0, o);
		return;
	}
	case 0xc0: case 0xc1: case 0xd0: case 0xd1: case 0xd2: case 0xd3:	/* shifts */
		out->writes = FLAGS_BITS | (rm_w ? mb : 0);
		if (rm >= 0 && o->size >= 4 && op < 0xd2 && (ext == 4 || ext == 5 || ext == 7)) {
			out->op = ext == 4 ? DECODE_OP_SHL : ext == 5 ? DECODE_OP_SHR : DECODE_OP_SAR;
			out->imm = (int64_t)((uint64_t)o->imm & (o->size == 8 ? 63 : 31));
			out->dst = (int8_t)rm;
			out->width = (uint8_t)o->size;
		}
		return;
	case 0xc2: case 0xc3:				/* ret */
		out->op = DECODE_OP_RET;
		out->width = 8;
		out->writes = 1u << DECODE_RSP;
		if (op == 0xc2) {
			out->imm = (int64_t)(uint16_t)o->imm;
			out->has_imm = 1;
		}
		return;
	case 0xc6: case 0xc7:				/* mov r/m, imm */
		out->writes = rm_w ? mb : 0;
		binary(out, DECODE_OP_MOV_REG, rm, o->rm_mem, -1, 0, o);
		return;
	case 0xe8:					/* call rel32 */
		out->op = DECODE_OP_CALL;
		out->width = 8;
		out->target = r->rip + out->len + (uint64_t)o->imm;
		out->writes = 1u << DECODE_RSP;
		return;
	case 0xe9: case 0xeb:				/* jmp */
		out->op = DECODE_OP_JMP;
		out->target = r->rip + out->len + (uint64_t)o->imm;
		return;
	case 0xf6: case 0xf7:
		if (ext == 0) {				/* test r/m, imm */
			out->writes = FLAGS_BITS;
			binary(out, DECODE_OP_TEST, rm, o->rm_mem, -1, 0, o);
		} else if (ext == 2 || ext == 3) {	/* not, neg */
			out->writes = (rm_w ? mb : 0) | (ext == 3 ? FLAGS_BITS : 0);
		} else {				/* mul imul div idiv: rdx:rax */
			out->writes = 1u << DECODE_RAX | FLAGS_BITS |
				      (o->size > 1 ? 1u << DECODE_RDX : 0);
			if (ext >= 6 && o->size >= 4 && source(out, rm, o->rm_mem)) {
				out->op = ext == 6 ? DECODE_OP_DIV : DECODE_OP_IDIV;
				out->dst = DECODE_RAX;
				out->width = (uint8_t)o->size;
			}
		}
		return;
	case 0xfe: case 0xff:
		if (ext <= 1) {				/* inc dec */
			out->writes = FLAGS_BITS | (rm_w ? mb : 0);
			if (rm >= 0 || o->rm_mem) {
				out->op = ext == 0 ? DECODE_OP_INC : DECODE_OP_DEC;
				out->mem_arg = o->rm_mem ? DECODE_ARG_DST : 0;
				out->dst = (int8_t)rm;
				out->width = (uint8_t)o->size;
			}
		} else if (ext == 2) {			/* call r/m */
			out->writes = 1u << DECODE_RSP;
		} else if (ext == 4) {			/* jmp r/m */
			if (source(out, o->rm_is_mem ? -1 : o->rm, o->rm_mem)) {
				out->op = DECODE_OP_JMP_IND;
				out->width = 8;
			}
		} else {				/* push r/m */
			out->op = DECODE_OP_PUSH;
			out->width = 8;
			out->src = (int8_t)(o->rm_is_mem ? -1 : o->rm);
			out->writes = 1u << DECODE_RSP;
		}
		return;
	default:
		return;
	}
}

SIGSAFE static void describe_map2(const struct lite *l, uint8_t op, const struct ops *o,
				  const struct decode_regs *r, struct decode_insn *out)
{
	uint32_t rb = 0, mb = 0;
	int reg = gpr_op(l, o->reg, o->size, &rb);
	int rm = o->rm_is_mem ? -1 : gpr_op(l, o->rm, o->size, &mb);

	if (op >= 0x80 && op <= 0x8f && !l->pfx) {		/* jcc rel32 */
		out->op = DECODE_OP_JCC;
		out->cond = op & 0xf;
		out->target = r->rip + out->len + (uint64_t)o->imm;
		return;
	}
	if (op >= 0x40 && op <= 0x4f && !l->pfx) {		/* cmovcc */
		out->writes = rb;
		out->cond = op & 0xf;
		if (o->size >= 4 && source(out, rm, o->rm_mem)) {
			out->op = DECODE_OP_CMOV;
			out->dst = (int8_t)reg;
			out->width = (uint8_t)o->size;
		}
		return;
	}
	if (op >= 0x90 && op <= 0x9f && !l->pfx) {		/* setcc r/m8 */
		int d = o->rm_is_mem ? -1 : gpr_op(l, o->rm, 1, &mb);
		out->writes = o->rm_is_mem ? 0 : mb;
		if (d >= 0) {
			out->op = DECODE_OP_SETCC;
			out->cond = op & 0xf;
			out->dst = (int8_t)d;
			out->width = 1;
		}
		return;
	}
	switch (op) {
	case 0x1f:					/* nop r/m */
		out->op = DECODE_OP_NOP;
		return;
	case 0x05:					/* syscall: rcx, r11 = rip, rflags */
		out->syscall = DECODE_SYSCALL_64;
		out->writes = 1u << DECODE_RCX | 1u << 11 | FLAGS_BITS;
		return;
	case 0x1e:					/* endbr64, endbr32 */
	case 0x77:					/* vzeroupper, emms */
		return;
	case 0xaf:					/* imul r, r/m */
		out->writes = rb | FLAGS_BITS;
		if (o->size >= 4 && source(out, rm, o->rm_mem)) {
			out->op = DECODE_OP_IMUL;
			out->dst = (int8_t)reg;
			out->width = (uint8_t)o->size;
		}
		return;
	case 0xb6: case 0xbe: case 0xb7: case 0xbf: {	/* movzx movsx */
		int sw = op & 1 ? 2 : 1;
		int s = o->rm_is_mem ? -1 : gpr_op(l, o->rm, sw, &mb);
		out->writes = rb;
		if (source(out, s, o->rm_mem)) {
			decode_set_movx(out, reg, o->size, sw, op >= 0xbe);
		}
		return;
	}
	case 0xb0: case 0xb1:				/* cmpxchg */
		out->writes = 1u << DECODE_RAX | FLAGS_BITS | (o->rm_is_mem ? 0 : mb);
		return;
	case 0xc0: case 0xc1:				/* xadd */
		out->writes = rb | FLAGS_BITS | (o->rm_is_mem ? 0 : mb);
		return;
	case 0x2c: case 0x2d:				/* cvt(t)ss2si cvt(t)sd2si: a GPR */
		out->writes = 1u << (o->reg);
		return;
	case 0x2e: case 0x2f:				/* (u)comiss (u)comisd */
		out->writes = FLAGS_BITS;
		return;
	case 0x31:					/* rdtsc */
		out->writes = 1u << DECODE_RAX | 1u << DECODE_RDX;
		return;
	case 0x50:					/* movmskps movmskpd */
		out->writes = 1u << o->reg;
		return;
	case 0xbc: case 0xbd: case 0xb8:		/* bsf bsr tzcnt lzcnt popcnt */
		out->writes = rb | FLAGS_BITS;
		return;
	case 0x7e:					/* movd/movq r/m, x */
		if (l->pfx == 0x66) {
			out->writes = o->rm_is_mem ? 0 : 1u << o->rm;
			return;
		}
		break;
	case 0x11: case 0x13: case 0x17: case 0x29: case 0x7f: case 0xd6: case 0xe7:
		/* vector stores: a register only in the register form */
		out->writes = o->rm_is_mem ? 0 : DECODE_KNOWN_VEC;
		return;
	}
	out->writes = DECODE_KNOWN_VEC;	/* the SSE/AVX rest: a vector register */
}

SIGSAFE int decode_access_lite(const uint8_t *code, size_t avail, const struct decode_regs *r,
			       struct decode_insn *out)
{
	struct lite l = { .p = code, .end = code + (avail < 15 ? avail : 15), .opsize = 4 };
	int p66 = 0, rep = 0, len = 0, imm = 0, no_modrm = 0, extra = X_NONE, branch = 0;
	int kind, vex = 0, map = 1;
	uint8_t b;

	memset(out, 0, sizeof(*out));
	for (;;) {			/* legacy prefixes */
		if (get(&l, &b))
			return -1;
		if (b == 0x66)
			p66 = 1;
		else if (b == 0xf2 || b == 0xf3)
			rep = b;
		else if (b == 0xf0)
			l.lock = 1;
		else if (b == 0x64)
			l.seg = 1;
		else if (b == 0x65)
			l.seg = 2;
		else if (b == 0x2e || b == 0x3e || b == 0x26 || b == 0x36)
			;	/* no segment base in 64-bit mode */
		else
			break;
	}
	if (b >= 0x40 && b <= 0x4f) {	/* REX: right before the opcode */
		l.rex = b;
		l.rex_byte = 1;
		if (get(&l, &b))
			return -1;
		if ((b >= 0x40 && b <= 0x4f) || b == 0x66 || b == 0xf2 || b == 0xf3 || b == 0xf0 ||
		    b == 0xc4 || b == 0xc5)
			return -1;
	}
	if (l.seg == 2 && r->gs_lazy)
		return -1;	/* the gs base would be a system call: decode_access's */
	l.opsize = l.rex & 8 ? 8 : p66 ? 2 : 4;
	if (b == 0xc4 || b == 0xc5) {	/* VEX */
		uint8_t v1, v2 = 0;
		if (p66 || rep || l.lock || get(&l, &v1))
			return -1;
		if (b == 0xc4) {
			if (get(&l, &v2))
				return -1;
			l.rex = (v1 & 0x80 ? 0 : 4) | (v1 & 0x40 ? 0 : 2) | (v1 & 0x20 ? 0 : 1);
			map = (v1 & 0x1f) == 1 ? 2 : (v1 & 0x1f) == 2 ? 3 : -1;
			l.vex_w = v2 >> 7;
		} else {
			v2 = v1;
			l.rex = v1 & 0x80 ? 0 : 4;
			map = 2;
		}
		if (map < 0)
			return -1;
		static const int pp[4] = { 0, 0x66, 0xf3, 0xf2 };
		l.pfx = pp[v2 & 3];
		l.vvvv = (~v2 >> 3) & 0xf;
		l.vex_l = (v2 >> 2) & 1;
		vex = 1;
		if (get(&l, &b))
			return -1;
	} else if (b == 0x0f) {
		map = 2;
		if (get(&l, &b))
			return -1;
		if (b == 0x38 || b == 0x3a || b == 0x0f)
			return -1;
		/* the mandatory prefix: f2/f3 before 66 */
		l.pfx = rep ? rep : p66 ? 0x66 : 0;
	}
	if (map == 1) {
		if (rep && !(rep == 0xf3 && (b == 0x90 || b == 0xc3 || b == 0xa4 || b == 0xa5 ||
					     b == 0xaa || b == 0xab)))
			return -1;	/* rep/bnd forms are left to Zydis */
		l.pfx = rep;	/* pause, rep ret */
		kind = map1(&l, b, &len, &imm, &no_modrm, &extra, &branch);
	} else if (map == 2) {
		if (rep && p66)
			return -1;
		kind = map2(&l, b, vex, &len, &imm, &no_modrm, &branch);
	} else {
		kind = map_0f38(&l, b, &len);
	}
	if (kind == -1)
		return -1;
	if (vex && l.vvvv && l.nov == NOV_ALWAYS)
		return -1;
	if (!no_modrm) {
		if (modrm(&l))
			return -1;
		if (map == 1 && kind <= -2)
			kind = group1(&l, b, kind, &len, &imm, &extra, &branch);
		else if (kind == -3)
			kind = l.has_mem || map == 2 ? M_NONE : -1;	/* nop r/m */
		if (kind < 0)
			return -1;
		if ((vex && l.vvvv && l.nov == NOV_MEM && l.has_mem) || (l.mem_only > 0 && !l.has_mem) ||
		    (l.mem_only < 0 && l.has_mem))
			return -1;
	}
	if (l.lock && (no_modrm || !l.has_mem || kind != M_RMW))
		return -1;	/* lock where it is #UD */
	int64_t immv = 0;
	if (imm && l.end - l.p >= imm) {	/* little-endian, sign-extended */
		uint64_t u = 0;
		for (int i = imm - 1; i >= 0; i--)
			u = u << 8 | l.p[i];
		immv = imm == 8 ? (int64_t)u : (int64_t)(u << (64 - 8 * imm)) >> (64 - 8 * imm);
	}
	if (skip(&l, imm))
		return -1;
	out->len = (uint8_t)(l.p - code);
	out->branch = (uint8_t)branch;
	/* the explicit operand first, then the stack slot (as decode_access orders them) */
	if (!no_modrm && l.has_mem && kind != M_NONE)
		add_rm(&l, code, r, out, len, kind);
	/* push imm16, push r16 and pop r16 under 0x66, unless REX.W (it wins: 8) */
	int slot16 = p66 && !(l.rex & 8);
	if (extra == X_PUSH || extra == X_CALL)
		add_stack(r, out, extra == X_PUSH && no_modrm && slot16 ? 2 : 8, 1);
	else if (extra == X_POP || extra == X_RET)
		add_stack(r, out, extra == X_POP && slot16 ? 2 : 8, 0);
	else if (extra == X_LEAVE)
		add_reg_access(r, out, DECODE_RBP, 8, 0);
	else if (extra == X_MOVS || extra == X_STOS) {
		out->rep = rep != 0;
		if (!rep || r->gpr[DECODE_RCX]) {	/* rep with rcx = 0 does nothing */
			add_reg_access(r, out, DECODE_RDI, len, 1);
			if (extra == X_MOVS)
				add_reg_access(r, out, DECODE_RSI, len, 0);
		}
		for (int k = 0; rep && k < out->n_mem; k++)
			out->mem[k].needs |= 1u << DECODE_RCX;
	}

	/* the emulation's descriptor, as decode_access's */
	struct ops o = {
		.reg = REG(&l) | (l.rex & 4 ? 8 : 0),
		.rm = (l.modrm & 7) | (l.rex & 1 ? 8 : 0),
		.rm_is_mem = !no_modrm && l.has_mem,
		.rm_mem = !no_modrm && l.has_mem && kind != M_NONE && out->n_mem == 1,
		.size = l.opsize,
		.imm = immv,
		.has_imm = imm > 0,
	};
	out->dst = out->src = -1;
	if (map == 1) {
		if ((b < 0x40 && !(b & 1)) || (b >= 0xb0 && b <= 0xb7))
			o.size = 1;
		switch (b) {
		case 0x80: case 0x84: case 0x86: case 0x88: case 0x8a: case 0xa8: case 0xc0:
		case 0xc6: case 0xd0: case 0xd2: case 0xf6: case 0xfe:
			o.size = 1;
			break;
		}
		if (b == 0xd0 || b == 0xd1) {	/* the shift by 1: its count as an immediate */
			o.imm = 1;
			o.has_imm = 1;
		}
		if (b == 0x8d) {			/* lea */
			uint32_t bit;
			int d = gpr_op(&l, o.reg, o.size, &bit);
			out->writes = bit;
			if (o.size >= 4) {	/* the offset: no segment base */
				struct lite off = l;
				off.seg = 0;
				fill_rm(&off, code, r, &out->lea, 0, M_NONE);
				out->op = DECODE_OP_LEA;
				out->dst = (int8_t)d;
				out->width = (uint8_t)o.size;
			}
		} else {
			describe_map1(&l, b, &o, r, out);
		}
	} else if (map == 2) {
		if (b == 0xb0 || b == 0xc0)	/* cmpxchg, xadd r/m8, r8 */
			o.size = 1;
		describe_map2(&l, b, &o, r, out);
	} else {
		out->writes = DECODE_KNOWN_VEC;	/* broadcasts, FMA */
	}
	return out->len;
}

/*
 * The instruction at or after a callback's return address `ret` that makes the access it
 * reported (source-inst.c).  The callback returns to the instruction after its call, which
 * is usually the access.  But vector registers do not survive a call, so before a vector
 * store clang reloads the value from a spill slot first, and the reload has no source line.
 * Look at the next few instructions for the first one that accesses memory in the
 * callback's direction and whose address is not a stack slot other than `addr`.  Only rsp
 * and rbp are known at the return point (from the callback's frame); an address that needs
 * any other register is taken to be the access, since spills and reloads address the
 * frame through rsp or rbp.  An instruction `decode` cannot decode ends the search, and is
 * taken to be the access: the ones before it were decoded and are not (a spill reload
 * before an access the lite decoder does not know, e.g. an x87 or EVEX store), and the
 * first is `ret` itself, as it always was.  (Taking `ret` after skipping a reload named
 * an instruction known not to be the access: review of 2026-11-26, `call store8; movaps
 * reload; movlps %xmm0,(%rbx)`.)  A branch ends it too: then `ret`.
 */
SIGSAFE uint64_t decode_call_access(decode_access_fn decode, const uint8_t *code, long n,
				    uint64_t ret, uint64_t addr, int store, uint64_t rsp,
				    uint64_t rbp)
{
	const uint32_t known = (1u << DECODE_RSP) | (1u << DECODE_RBP);
	struct decode_regs r = { .rip = ret };
	struct decode_insn in;

	r.gpr[DECODE_RSP] = rsp;
	r.gpr[DECODE_RBP] = rbp;
	for (long off = 0, i = 0; i < DECODE_CALL_WINDOW && off < n; i++) {
		int len = decode(code + off, (size_t)(n - off), &r, &in);

		if (len <= 0)
			return r.rip;
		for (int m = 0; m < in.n_mem; m++) {
			uint16_t f = in.mem[m].flags;
			int writes = f & (SONDE_MEM_STORE | SONDE_MEM_RMW);
			int reads = !(f & SONDE_MEM_STORE) || (f & SONDE_MEM_RMW);

			if (store ? !writes : !reads)
				continue;
			if ((f & DECODE_MEM_UNKNOWN) || (in.mem[m].needs & ~known) ||
			    in.mem[m].addr == addr)
				return r.rip;
		}
		if (in.branch)
			break;
		off += len;
		r.rip += (uint64_t)len;
	}
	return ret;
}
