/* SPDX-License-Identifier: MIT */
/*
 * u-decode.c - the x86-64 access decoder: a table of encoded instructions (bytes taken from
 * `as`, embedded) with addresses expected from the architectural formula, the look-ahead
 * emulator, and live instructions run on known buffers and decoded from their signal context.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "rt/decode-x86.h"
#include "sonde/format.h"

static struct decode_regs R;
static uint8_t XMM[16][16];

#define G(r) R.gpr[DECODE_##r]
#define KNOWN(known, r) (!!((known) & (1u << DECODE_##r)))
#define BYTES(...) (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ })

static void regs_init(void)
{
	memset(&R, 0, sizeof(R));
	for (int i = 0; i < 16; i++)
		R.gpr[i] = 0x10000000ull + (uint64_t)i * 0x1010 + 0x8;
	R.rip = 0x400000;
	R.fs_base = 0x7f0000001000ull;
	R.gs_base = 0x7e0000002000ull;
	memset(XMM, 0, sizeof(XMM));
	int32_t m3 = -3;			/* dword index -3; as a qword: 0xfffffffd */
	memcpy(XMM[1], &m3, 4);
	R.xmm = (const uint8_t(*)[16])XMM;
}

/* One access expected: instruction length, address, bytes, flags (SONDE_MEM_*). */
#define EXPECT1(bytes, ilen, addr_, mlen, fl)                                 \
	do {                                                                  \
		struct decode_insn d_;                                        \
		CHECK(decode_access(bytes, &R, &d_) == (ilen));               \
		CHECK(d_.n_mem == 1);                                         \
		CHECK_EQ_U64(d_.mem[0].addr, (addr_));                        \
		CHECK_EQ_U64(d_.mem[0].len, (mlen));                          \
		CHECK_EQ_U64(d_.mem[0].flags & 0xff, (fl));                   \
		CHECK(!(d_.mem[0].flags & DECODE_MEM_UNKNOWN));               \
	} while (0)

#define EXPECT0(bytes, ilen)                                    \
	do {                                                    \
		struct decode_insn d_;                          \
		CHECK(decode_access(bytes, &R, &d_) == (ilen)); \
		CHECK(d_.n_mem == 0);                           \
	} while (0)

#define ST SONDE_MEM_STORE
#define RMW (SONDE_MEM_STORE | SONDE_MEM_RMW)

TEST(base_index_scale_disp)
{
	regs_init();
	/* mov rdx, [r12+r13*8+0x12345] */
	EXPECT1(BYTES(0x4b, 0x8b, 0x94, 0xec, 0x45, 0x23, 0x01, 0x00), 8,
		G(R12) + G(R13) * 8 + 0x12345, 8, 0);
	/* mov [rsp+rbx*2-8], ecx */
	EXPECT1(BYTES(0x89, 0x4c, 0x5c, 0xf8), 4, G(RSP) + G(RBX) * 2 - 8, 4, ST);
	/* mov rax, [rax+rcx] */
	EXPECT1(BYTES(0x48, 0x8b, 0x04, 0x08), 4, G(RAX) + G(RCX), 8, 0);
	/* movzx eax, byte [rcx] */
	EXPECT1(BYTES(0x0f, 0xb6, 0x01), 3, G(RCX), 1, 0);
	/* cmovz rax, [rbx]: the load happens whatever the condition */
	EXPECT1(BYTES(0x48, 0x0f, 0x44, 0x03), 4, G(RBX), 8, 0);
	/* addr32 mov eax, [ebx]: the address wraps at 32 bits */
	G(RBX) = 0xabcdef0012345678ull;
	EXPECT1(BYTES(0x67, 0x8b, 0x03), 3, 0x12345678ull, 4, 0);
}

TEST(rip_relative_and_segments)
{
	regs_init();
	/* mov rax, [rip+0x100]: relative to the next instruction */
	EXPECT1(BYTES(0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00), 7, R.rip + 7 + 0x100, 8, 0);
	/* mov rax, fs:[0x10] */
	EXPECT1(BYTES(0x64, 0x48, 0x8b, 0x04, 0x25, 0x10, 0x00, 0x00, 0x00), 9,
		R.fs_base + 0x10, 8, 0);
	/* mov rax, gs:[rbx] */
	EXPECT1(BYTES(0x65, 0x48, 0x8b, 0x03), 4, R.gs_base + G(RBX), 8, 0);
	/* xlat: [rbx + al] */
	G(RAX) = 0x1234;
	EXPECT1(BYTES(0xd7), 1, G(RBX) + 0x34, 1, 0);
}

TEST(stack)
{
	regs_init();
	struct decode_insn d;
	EXPECT1(BYTES(0x50), 1, G(RSP) - 8, 8, ST);		/* push rax */
	EXPECT1(BYTES(0x58), 1, G(RSP), 8, 0);			/* pop rax */
	EXPECT1(BYTES(0xc3), 1, G(RSP), 8, 0);			/* ret */
	EXPECT1(BYTES(0xc9), 1, G(RBP), 8, 0);			/* leave reads [rbp] */
	EXPECT1(BYTES(0x9c), 1, G(RSP) - 8, 8, ST);		/* pushfq */
	EXPECT1(BYTES(0xc8, 0x10, 0x00, 0x00), 4, G(RSP) - 8, 8, ST);	/* enter 16, 0 */
	/* call rel32: pushes the return address */
	EXPECT1(BYTES(0xe8, 0x00, 0x00, 0x00, 0x00), 5, G(RSP) - 8, 8, ST);

	/* push [rax+8]: load the operand, store the slot */
	CHECK(decode_access(BYTES(0xff, 0x70, 0x08), &R, &d) == 3);
	CHECK(d.n_mem == 2);
	CHECK_EQ_U64(d.mem[0].addr, G(RAX) + 8);
	CHECK_EQ_U64(d.mem[0].flags & 0xff, 0);
	CHECK_EQ_U64(d.mem[1].addr, G(RSP) - 8);
	CHECK_EQ_U64(d.mem[1].flags & 0xff, ST);

	/* pop [rsp+8]: the destination is addressed with rsp after the pop */
	CHECK(decode_access(BYTES(0x8f, 0x44, 0x24, 0x08), &R, &d) == 4);
	CHECK(d.n_mem == 2);
	CHECK_EQ_U64(d.mem[0].addr, G(RSP) + 8 + 8);
	CHECK_EQ_U64(d.mem[0].flags & 0xff, ST);
	CHECK_EQ_U64(d.mem[1].addr, G(RSP));

	/* call [rax]: loads the target, pushes the return address; a branch */
	CHECK(decode_access(BYTES(0xff, 0x10), &R, &d) == 2);
	CHECK(d.n_mem == 2 && d.branch);
	CHECK_EQ_U64(d.mem[0].addr, G(RAX));
	CHECK_EQ_U64(d.mem[1].addr, G(RSP) - 8);
	CHECK_EQ_U64(d.mem[1].flags & 0xff, ST);
}

TEST(string_ops)
{
	regs_init();
	struct decode_insn d;
	/* movsb: store [rdi], load [rsi] */
	CHECK(decode_access(BYTES(0xa4), &R, &d) == 1);
	CHECK(d.n_mem == 2 && !d.rep);
	CHECK_EQ_U64(d.mem[0].addr, G(RDI));
	CHECK_EQ_U64(d.mem[0].flags & 0xff, ST);
	CHECK_EQ_U64(d.mem[1].addr, G(RSI));
	CHECK_EQ_U64(d.mem[1].len, 1);
	EXPECT1(BYTES(0xad), 1, G(RSI), 4, 0);		/* lodsd */
	EXPECT1(BYTES(0xae), 1, G(RDI), 1, 0);		/* scasb */
	/* cmpsw: two loads of 2 bytes */
	CHECK(decode_access(BYTES(0x66, 0xa7), &R, &d) == 2);
	CHECK(d.n_mem == 2);
	CHECK_EQ_U64(d.mem[0].addr, G(RSI));
	CHECK_EQ_U64(d.mem[1].addr, G(RDI));
	CHECK_EQ_U64(d.mem[0].len, 2);
	/* rep stosq: the current element; rep with rcx = 0 touches nothing */
	CHECK(decode_access(BYTES(0xf3, 0x48, 0xab), &R, &d) == 3);
	CHECK(d.rep && d.n_mem == 1);
	CHECK_EQ_U64(d.mem[0].addr, G(RDI));
	CHECK_EQ_U64(d.mem[0].len, 8);
	CHECK_EQ_U64(d.mem[0].flags & 0xff, ST);
	CHECK(d.mem[0].needs & (1u << DECODE_RCX));
	G(RCX) = 0;
	EXPECT0(BYTES(0xf3, 0x48, 0xab), 3);
	EXPECT0(BYTES(0xf3, 0xa4), 2);			/* rep movsb, rcx = 0 */
}

TEST(rmw)
{
	regs_init();
	EXPECT1(BYTES(0x48, 0x87, 0x08), 3, G(RAX), 8, RMW);		/* xchg [rax], rcx */
	EXPECT1(BYTES(0xf0, 0x83, 0x03, 0x01), 4, G(RBX), 4, RMW);	/* lock add [rbx], 1 */
	EXPECT1(BYTES(0x48, 0x01, 0x07), 3, G(RDI), 8, RMW);		/* add [rdi], rax */
}

TEST(vector)
{
	regs_init();
	struct decode_insn d;
	EXPECT1(BYTES(0x0f, 0x28, 0x00), 3, G(RAX), 16, 0);		/* movaps xmm0, [rax] */
	/* vmovdqu ymm0, [rsi+rcx*4+16] */
	EXPECT1(BYTES(0xc5, 0xfe, 0x6f, 0x44, 0x8e, 0x10), 6, G(RSI) + G(RCX) * 4 + 16, 32, 0);
	/* vmovdqu64 zmm1, [rdi] */
	EXPECT1(BYTES(0x62, 0xf1, 0xfe, 0x48, 0x6f, 0x0f), 6, G(RDI), 64, 0);
	/* vmovdqa64 zmm16, [rax]: a high register is no obstacle for a plain load */
	EXPECT1(BYTES(0x62, 0xe1, 0xfd, 0x48, 0x6f, 0x00), 6, G(RAX), 64, 0);
	/* vpgatherdd ymm0, [rax+ymm1*4], ymm2: element 0, dword index -3 sign-extended */
	CHECK(decode_access(BYTES(0xc4, 0xe2, 0x6d, 0x90, 0x04, 0x88), &R, &d) == 6);
	CHECK(d.n_mem == 1 && (d.mem[0].flags & DECODE_MEM_VSIB));
	CHECK_EQ_U64(d.mem[0].addr, G(RAX) + (uint64_t)(-3 * 4));
	CHECK_EQ_U64(d.mem[0].len, 4);
	/* vgatherqpd zmm0{k1}, [rax+zmm1*8+8]: qword index 0xfffffffd */
	CHECK(decode_access(BYTES(0x62, 0xf2, 0xfd, 0x49, 0x93, 0x44, 0xc8, 0x01), &R, &d) == 8);
	CHECK(d.n_mem == 1);
	CHECK_EQ_U64(d.mem[0].addr, G(RAX) + 0xfffffffdull * 8 + 8);
	CHECK_EQ_U64(d.mem[0].len, 8);
	/* vpscatterdd [rax+zmm1*4]{k1}, zmm2: a store */
	CHECK(decode_access(BYTES(0x62, 0xf2, 0x7d, 0x49, 0xa0, 0x14, 0x88), &R, &d) == 7);
	CHECK(d.n_mem == 1);
	CHECK_EQ_U64(d.mem[0].addr, G(RAX) - 12);
	CHECK(d.mem[0].flags & SONDE_MEM_STORE);
	/* vpgatherdd xmm0{k1}, [rax+xmm17*4]: xmm17 is not in the signal frame */
	CHECK(decode_access(BYTES(0x62, 0xf2, 0x7d, 0x01, 0x90, 0x04, 0x88), &R, &d) == 7);
	CHECK(d.n_mem == 1 && (d.mem[0].flags & DECODE_MEM_UNKNOWN));
	R.xmm = NULL;
	CHECK(decode_access(BYTES(0xc4, 0xe2, 0x6d, 0x90, 0x04, 0x88), &R, &d) == 6);
	CHECK(d.mem[0].flags & DECODE_MEM_UNKNOWN);
}

TEST(not_accesses)
{
	regs_init();
	struct decode_insn d;
	EXPECT0(BYTES(0x0f, 0x1f, 0x04, 0x00), 4);		/* nop [rax+rax] */
	EXPECT0(BYTES(0x0f, 0x18, 0x08), 3);			/* prefetcht0 [rax] */
	EXPECT0(BYTES(0x0f, 0xae, 0x38), 3);			/* clflush [rax] */
	EXPECT0(BYTES(0x48, 0x83, 0xc0, 0x08), 4);		/* add rax, 8 */
	/* lea rax, [rbx+rcx*2+4]: no access, but the emulator learns the value */
	CHECK(decode_access(BYTES(0x48, 0x8d, 0x44, 0x4b, 0x04), &R, &d) == 5);
	CHECK(d.n_mem == 0 && d.op == DECODE_OP_LEA);
	CHECK_EQ_U64(d.lea.addr, G(RBX) + G(RCX) * 2 + 4);
	/* undecodable: 0x06 (push es) is invalid in 64-bit mode */
	CHECK(decode_access(BYTES(0x06), &R, &d) == -1);
	/* truncated: the first byte of a longer instruction */
	CHECK(decode_access(BYTES(0x48), &R, &d) == -1);
}

TEST(branches_and_writes)
{
	regs_init();
	struct decode_insn d;
	CHECK(decode_access(BYTES(0x75, 0x0e), &R, &d) == 2);		/* jne +0xe */
	CHECK(d.branch && d.op == DECODE_OP_JCC && d.cond == 5);
	CHECK_EQ_U64(d.target, R.rip + 2 + 0xe);
	CHECK(decode_access(BYTES(0x0f, 0x05), &R, &d) == 2);		/* syscall */
	CHECK(d.branch);
	CHECK(decode_access(BYTES(0x4b, 0x8b, 0x94, 0xec, 0x45, 0x23, 0x01, 0x00), &R, &d) > 0);
	CHECK(!d.branch && (d.writes & (1u << DECODE_RDX)) && !(d.writes & (1u << DECODE_R12)));
	CHECK(decode_access(BYTES(0x50), &R, &d) == 1);			/* push writes rsp */
	CHECK(d.writes & (1u << DECODE_RSP));
	CHECK(decode_access(BYTES(0x48, 0x39, 0xd1), &R, &d) == 3);	/* cmp writes flags only */
	CHECK_EQ_U64(d.writes, DECODE_KNOWN_FLAGS | DECODE_KNOWN_FLAGS_NC);
}

/* Emulate a byte sequence from R, with everything known at the start. */
static int run(const uint8_t *code, size_t n, uint32_t *known, uint64_t stop)
{
	struct decode_insn d;
	uint64_t base = R.rip;
	while (R.rip != stop) {
		uint64_t off = R.rip - base;
		if (off >= n || decode_access(code + off, n - off, &R, &d) < 0)
			return -1;
		if (decode_emulate(&d, &R, known))
			return -1;
	}
	return 0;
}

TEST(emulate)
{
	static const uint8_t code[] = {
		0x48, 0x83, 0xc0, 0x08,		/* 0: add rax, 8 */
		0x48, 0x83, 0xec, 0x20,		/* 4: sub rsp, 0x20 */
		0x31, 0xc9,			/* 8: xor ecx, ecx */
		0x48, 0xff, 0xc1,		/* a: inc rcx */
		0xbe, 0x05, 0x00, 0x00, 0x00,	/* d: mov esi, 5 */
		0x48, 0x89, 0xf7,		/* 12: mov rdi, rsi */
		0x48, 0x8d, 0x54, 0x4b, 0x04,	/* 15: lea rdx, [rbx+rcx*2+4] */
		0x50,				/* 1a: push rax */
		0x4b, 0x8b, 0x84, 0xec, 0x45, 0x23, 0x01, 0x00, /* 1b: mov rax, [r12+r13*8+..] */
	};
	regs_init();
	uint64_t rsp = G(RSP), rbx = G(RBX);
	uint32_t known = DECODE_KNOWN_ALL;
	CHECK(run(code, sizeof(code), &known, R.rip + 0x23) == 0);
	CHECK_EQ_U64(G(RCX), 1);
	CHECK_EQ_U64(G(RSI), 5);
	CHECK_EQ_U64(G(RDI), 5);
	CHECK_EQ_U64(G(RDX), rbx + 2 + 4);
	CHECK_EQ_U64(G(RSP), rsp - 0x20 - 8);
	CHECK(known & (1u << DECODE_RSP));
	CHECK(known & (1u << DECODE_RDX));
	CHECK(!(known & (1u << DECODE_RAX)));		/* loaded from memory */
	/* inc sets flags: known, and ZF clear (rcx = 1) */
	CHECK(known & DECODE_KNOWN_FLAGS);
}

TEST(emulate_branches)
{
	/* cmp rcx, rdx ; jne +2 ; push rax ; push rax */
	static const uint8_t code[] = { 0x48, 0x39, 0xd1, 0x75, 0x01, 0x50, 0x50 };
	regs_init();
	uint64_t base = R.rip, rsp = G(RSP);
	uint32_t known = DECODE_KNOWN_ALL;
	struct decode_insn d;
	CHECK(decode_access(code, sizeof(code), &R, &d) == 3);
	CHECK(decode_emulate(&d, &R, &known) == 0);
	CHECK(decode_access(code + 3, sizeof(code) - 3, &R, &d) == 2);
	CHECK(decode_emulate(&d, &R, &known) == 0);
	CHECK_EQ_U64(R.rip, base + 6);			/* rcx != rdx: taken, one push skipped */
	(void)rsp;

	regs_init();
	G(RDX) = G(RCX);
	known = DECODE_KNOWN_ALL;
	decode_access(code, sizeof(code), &R, &d);
	decode_emulate(&d, &R, &known);
	decode_access(code + 3, sizeof(code) - 3, &R, &d);
	CHECK(decode_emulate(&d, &R, &known) == 0);
	CHECK_EQ_U64(R.rip, base + 5);			/* equal: falls through */

	/* flags unknown: the branch cannot be resolved */
	regs_init();
	known = DECODE_KNOWN_GPRS;
	decode_access(code + 3, sizeof(code) - 3, &R, &d);
	CHECK(decode_emulate(&d, &R, &known) == -1);
	/* cmp with an unknown operand makes the flags unknown */
	regs_init();
	known = DECODE_KNOWN_ALL & ~(1u << DECODE_RDX);
	decode_access(code, sizeof(code), &R, &d);
	decode_emulate(&d, &R, &known);
	CHECK(!(known & DECODE_KNOWN_FLAGS));
}

/* An instruction decoded under one register file, rebased to another, has the addresses a
 * fresh decode under the other gives; the forms that are not linear refuse. */
TEST(rebase)
{
	static const struct {
		uint8_t b[10];
		size_t n;
		int ok;
	} c[] = {
		{ { 0x4b, 0x8b, 0x84, 0xec, 0x45, 0x23, 0x01, 0x00 }, 8, 1 },	/* mov rax, [r12+r13*8+..] */
		{ { 0x64, 0x48, 0x8b, 0x04, 0x25, 0x10, 0, 0, 0 }, 9, 1 },	/* mov rax, fs:[0x10] */
		{ { 0x65, 0x48, 0x8b, 0x03 }, 4, 1 },				/* mov rax, gs:[rbx] */
		{ { 0x50 }, 1, 1 },						/* push rax */
		{ { 0x8f, 0x44, 0x24, 0x08 }, 4, 1 },				/* pop [rsp+8] */
		{ { 0xff, 0x10 }, 2, 1 },					/* call [rax] */
		{ { 0x48, 0x8d, 0x54, 0x4b, 0x04 }, 5, 1 },			/* lea rdx, [rbx+rcx*2+4] */
		{ { 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00 }, 6, 1 },		/* mov eax, [rip+0x100] */
		{ { 0xa4 }, 1, 1 },						/* movsb */
		{ { 0x67, 0x8b, 0x03 }, 3, 0 },					/* mov eax, [ebx] */
		{ { 0xd7 }, 1, 0 },						/* xlat */
		{ { 0xf3, 0xa4 }, 2, 0 },					/* rep movsb */
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct decode_insn a, b;
		regs_init();
		CHECK(decode_access(c[i].b, c[i].n, &R, &a) == (int)c[i].n);
		for (int g = 0; g < 16; g++)
			R.gpr[g] = R.gpr[g] * 3 + 0x5000 + (uint64_t)g;
		R.fs_base += 0x40;
		R.gs_base += 0x80;
		CHECK(decode_access(c[i].b, c[i].n, &R, &b) == (int)c[i].n);
		CHECK(decode_rebase(&a, &R) == (c[i].ok ? 0 : -1));
		if (!c[i].ok)
			continue;
		CHECK(a.n_mem == b.n_mem);
		for (int k = 0; k < a.n_mem; k++)
			CHECK_EQ_U64(a.mem[k].addr, b.mem[k].addr);
		if (a.op == DECODE_OP_LEA)
			CHECK_EQ_U64(a.lea.addr, b.lea.addr);
	}
}

/* setcc and cmovcc follow the flags; unknown flags make their results unknown. */
TEST(emulate_selects)
{
	static const uint8_t code[] = {
		0x31, 0xd2,			/* 0: xor edx, edx */
		0x48, 0x39, 0xd9,		/* 2: cmp rcx, rbx */
		0x0f, 0x94, 0xc2,		/* 5: sete dl */
		0x0f, 0x92, 0xc6,		/* 8: setb dh (high byte: not modelled) */
		0x48, 0x0f, 0x45, 0xc6,		/* b: cmovne rax, rsi */
		0x0f, 0x44, 0xff,		/* f: cmove edi, edi (32 bits: zero-extends) */
	};
	struct decode_insn d;
	regs_init();
	uint64_t rsi = G(RSI), rax = G(RAX);
	G(RDI) = 0xffffffff00000007ull;
	uint32_t known = DECODE_KNOWN_ALL;
	CHECK(run(code, sizeof(code), &known, R.rip + 0x12) == 0);
	CHECK_EQ_U64(G(RDX) & 0xff, 0);			/* rcx != rbx */
	CHECK(KNOWN(known, RAX) && G(RAX) == rsi);	/* ne holds: moved */
	CHECK(!KNOWN(known, RDX));			/* setb dh */
	CHECK(KNOWN(known, RDI) && G(RDI) == 7);	/* e fails: still zero-extended */
	(void)rax;

	regs_init();
	G(RCX) = G(RBX);
	rax = G(RAX);
	known = DECODE_KNOWN_ALL;
	CHECK(run(code, 8, &known, R.rip + 8) == 0);
	CHECK(KNOWN(known, RDX) && G(RDX) == 1);	/* rcx == rbx */
	CHECK(decode_access(code + 0xb, 4, &R, &d) == 4 && d.op == DECODE_OP_CMOV);
	R.rip += 0xb - 8;
	CHECK(decode_emulate(&d, &R, &known) == 0);
	CHECK(KNOWN(known, RAX) && G(RAX) == rax);	/* ne fails: unchanged */

	/* unknown flags */
	known = DECODE_KNOWN_GPRS;
	CHECK(decode_access(code + 5, 3, &R, &d) == 3 && d.op == DECODE_OP_SETCC);
	CHECK(decode_emulate(&d, &R, &known) == 0);
	CHECK(!KNOWN(known, RDX));
}

TEST(alu_flags)
{
	/* Each jcc after cmp a, b must agree with C's comparison. */
	static const uint64_t vals[] = { 0, 1, 2, 0x7fffffffffffffffull, 0x8000000000000000ull,
					 ~0ull, 0x80, 0xff };
	int bad = 0;
	for (unsigned i = 0; i < 8; i++)
		for (unsigned j = 0; j < 8; j++)
			for (int cc = 0; cc < 16; cc++) {
				uint8_t code[] = { 0x48, 0x39, 0xd1, (uint8_t)(0x70 | cc), 0x10 };
				regs_init();
				G(RCX) = vals[i];
				G(RDX) = vals[j];
				uint64_t a = vals[i], b = vals[j], base = R.rip;
				int64_t sa = (int64_t)a, sb = (int64_t)b;
				uint64_t r = a - b;
				int want;
				switch (cc) {
				case 0x2: want = a < b; break;
				case 0x3: want = a >= b; break;
				case 0x4: want = a == b; break;
				case 0x5: want = a != b; break;
				case 0x6: want = a <= b; break;
				case 0x7: want = a > b; break;
				case 0x8: want = (int64_t)r < 0; break;
				case 0x9: want = (int64_t)r >= 0; break;
				case 0xa: want = !__builtin_parity((unsigned)(r & 0xff)); break;
				case 0xb: want = __builtin_parity((unsigned)(r & 0xff)); break;
				case 0xc: want = sa < sb; break;
				case 0xd: want = sa >= sb; break;
				case 0xe: want = sa <= sb; break;
				case 0xf: want = sa > sb; break;
				default: {
					int64_t d;
					int ovf = __builtin_sub_overflow(sa, sb, &d);
					want = cc == 0 ? ovf : !ovf;
				}
				}
				uint32_t known = DECODE_KNOWN_ALL;
				struct decode_insn d;
				decode_access(code, 5, &R, &d);
				decode_emulate(&d, &R, &known);
				decode_access(code + 3, 2, &R, &d);
				if (decode_emulate(&d, &R, &known) ||
				    R.rip != base + 5 + (want ? 0x10 : 0)) {
					printf("  cmp %llx,%llx j%x: wrong\n", (unsigned long long)a,
					       (unsigned long long)b, cc);
					bad++;
				}
			}
	CHECK(bad == 0);
}

/* dec/inc then jcc with CF unknown: a condition that does not test CF follows from the
 * result alone (ZF, SF, OF as defined for dec and inc); one that tests CF cannot. */
TEST(inc_dec_flags_without_cf)
{
	const uint32_t no_flags = DECODE_KNOWN_ALL & ~(DECODE_KNOWN_FLAGS | DECODE_KNOWN_FLAGS_NC);
	struct {
		uint8_t op;		/* modrm of 48 ff /1 rcx (dec, c9) or /0 (inc, c1) */
		uint64_t rcx;
		uint8_t cc;		/* condition of the jcc (7x rel8) */
		int want;		/* 1 taken, 0 not, -1 unresolved */
	} cases[] = {
		{ 0xc9, 1, 0x5, 0 },			/* dec 1 = 0: jne not taken */
		{ 0xc9, 1, 0x4, 1 },			/* je taken */
		{ 0xc9, 2, 0x5, 1 },			/* dec 2 = 1: jne taken */
		{ 0xc9, 0, 0x8, 1 },			/* dec 0 = -1: js taken */
		{ 0xc9, 0, 0x9, 0 },			/* jns not */
		{ 0xc9, 1ull << 63, 0x0, 1 },		/* INT64_MIN - 1 overflows: jo */
		{ 0xc9, 1ull << 63, 0xc, 1 },		/* jl: SF 0 != OF 1 */
		{ 0xc1, ~0ull >> 1, 0x0, 1 },		/* inc INT64_MAX overflows: jo */
		{ 0xc1, ~0ull >> 1, 0xf, 1 },		/* jg: ZF 0, SF 1 == OF 1: taken */
		{ 0xc1, ~0ull >> 1, 0xc, 0 },		/* jl: not */
		{ 0xc1, ~0ull, 0x4, 1 },		/* inc -1 = 0: je */
		{ 0xc9, 1, 0x2, -1 },			/* jb tests CF, unknown: unresolved */
		{ 0xc9, 1, 0x7, -1 },			/* ja tests CF too */
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t code[] = { 0x48, 0xff, cases[i].op, (uint8_t)(0x70 | cases[i].cc), 0x10 };
		struct decode_insn d;
		regs_init();
		G(RCX) = cases[i].rcx;
		uint64_t base = R.rip;
		uint32_t known = no_flags;
		CHECK(decode_access(code, 3, &R, &d) == 3);
		CHECK(decode_emulate(&d, &R, &known) == 0);
		CHECK(!(known & DECODE_KNOWN_FLAGS));	/* CF is still unknown */
		CHECK(known & DECODE_KNOWN_FLAGS_NC);
		CHECK(decode_access(code + 3, 2, &R, &d) == 2);
		int r = decode_emulate(&d, &R, &known);
		int got = r ? -1 : R.rip == base + 5 + 0x10;
		if (got != cases[i].want)
			printf("  case %u: got %d, want %d\n", i, got, cases[i].want);
		CHECK(got == cases[i].want);
	}
	/* cmp then dec: CF from cmp survives dec, so jb is followed (1 < 2: CF set) */
	regs_init();
	G(RAX) = 1, G(RDX) = 2, G(RCX) = 5;
	uint64_t base = R.rip;
	uint32_t known = no_flags;
	static const uint8_t seq[] = { 0x48, 0x39, 0xd0, 0x48, 0xff, 0xc9, 0x72, 0x10 };
	CHECK(run(seq, sizeof(seq), &known, base + 6) == 0);
	CHECK(known & DECODE_KNOWN_FLAGS);
	struct decode_insn d;
	CHECK(decode_access(seq + 6, 2, &R, &d) == 2);
	CHECK(decode_emulate(&d, &R, &known) == 0);
	CHECK_EQ_U64(R.rip, base + 8 + 0x10);
	/* setcc and cmov follow the same rule: setne after dec with CF unknown */
	regs_init();
	G(RCX) = 3;
	known = no_flags;
	static const uint8_t setne[] = { 0x48, 0xff, 0xc9, 0x0f, 0x95, 0xc0 };	/* setne al */
	CHECK(run(setne, sizeof(setne), &known, R.rip + 6) == 0);
	CHECK(known & (1u << DECODE_RAX));
	CHECK_EQ_U64(G(RAX) & 0xff, 1);
}

/* ---- look-ahead through memory ---- */

/* Fake program memory: two 64-byte lines at FAKE_BASE; everything else unreadable. */
#define FAKE_BASE 0x500000ull
static uint8_t fake[128];
static int fake_calls;

static int fake_read(void *ctx, uint64_t addr, uint8_t *buf, size_t len)
{
	fake_calls++;
	if (addr < FAKE_BASE || addr + len > FAKE_BASE + sizeof(fake))
		return -1;
	memcpy(buf, fake + (addr - FAKE_BASE), len);
	return 0;
}

static void fake_put(unsigned off, uint64_t v, unsigned len)
{
	memcpy(fake + off, &v, len);
}

/* Emulate with memory from R until rip == stop; -1 if the emulator stops first. */
static int run_mem(const uint8_t *code, size_t n, uint32_t *known, uint64_t stop,
		   struct decode_shadow *mem)
{
	struct decode_insn d;
	uint64_t base = R.rip;
	for (int i = 0; i < 100 && R.rip != stop; i++) {
		uint64_t off = R.rip - base;
		if (off >= n || decode_access(code + off, n - off, &R, &d) < 0)
			return -1;
		if (decode_emulate_mem(&d, &R, known, mem))
			return -1;
	}
	return R.rip == stop ? 0 : -1;
}


/* One instruction emulated from R (all known): its return; *known gets the known bits. */
static int emulate1(const uint8_t *code, size_t n, uint32_t *known, struct decode_shadow *mem)
{
	struct decode_insn d;
	*known = DECODE_KNOWN_ALL;
	if (decode_access(code, n, &R, &d) != (int)n)
		return -2;
	return decode_emulate_mem(&d, &R, known, mem);
}

/* div/idiv (and cqo/cdq before idiv): each expected quotient q and remainder r is checked
 * against the definition n = q * d + r (|r| < |d|, r of n's sign) by the values chosen. */
TEST(emulate_div)
{
	uint32_t known;
	const uint32_t ax_dx = 1u << DECODE_RAX | 1u << DECODE_RDX;

	/* div rcx: 1000 = 7 * 142 + 6 */
	regs_init();
	G(RDX) = 0, G(RAX) = 1000, G(RCX) = 7;
	CHECK(emulate1(BYTES(0x48, 0xf7, 0xf1), &known, NULL) == 0);
	CHECK_EQ_U64(G(RAX), 142);
	CHECK_EQ_U64(G(RDX), 6);
	CHECK((known & ax_dx) == ax_dx);
	CHECK(!(known & DECODE_KNOWN_FLAGS));		/* undefined after div */
	/* a 128-bit dividend: 2^64 = 2 * 2^63 + 0 */
	regs_init();
	G(RDX) = 1, G(RAX) = 0, G(RCX) = 2;
	CHECK(emulate1(BYTES(0x48, 0xf7, 0xf1), &known, NULL) == 0);
	CHECK_EQ_U64(G(RAX), 1ull << 63);
	CHECK_EQ_U64(G(RDX), 0);
	/* #DE: a quotient over 64 bits (5 * 2^64 / 3), and a zero divisor: unknown */
	regs_init();
	G(RDX) = 5, G(RAX) = 0, G(RCX) = 3;
	CHECK(emulate1(BYTES(0x48, 0xf7, 0xf1), &known, NULL) == 0);
	CHECK((known & ax_dx) == 0);
	regs_init();
	G(RDX) = 0, G(RAX) = 9, G(RCX) = 0;
	CHECK(emulate1(BYTES(0x48, 0xf7, 0xf1), &known, NULL) == 0);
	CHECK((known & ax_dx) == 0);
	/* div ecx: edx:eax only, results zero-extended; 100 = 9 * 11 + 1 */
	regs_init();
	G(RAX) = 0xffffffff00000064ull, G(RDX) = 0xdeadbeef00000000ull;
	G(RCX) = 0x1234567800000009ull;
	CHECK(emulate1(BYTES(0xf7, 0xf1), &known, NULL) == 0);
	CHECK_EQ_U64(G(RAX), 11);
	CHECK_EQ_U64(G(RDX), 1);
	/* cqo; idiv rcx: -7 = 2 * -3 + -1 (C's truncation, as idiv) */
	regs_init();
	G(RAX) = (uint64_t)-7, G(RDX) = 12345, G(RCX) = 2;
	CHECK(emulate1(BYTES(0x48, 0x99), &known, NULL) == 0);
	CHECK_EQ_U64(G(RDX), ~0ull);
	CHECK(known & (1u << DECODE_RDX));
	CHECK(emulate1(BYTES(0x48, 0xf7, 0xf9), &known, NULL) == 0);
	CHECK_EQ_U64(G(RAX), (uint64_t)-3);
	CHECK_EQ_U64(G(RDX), (uint64_t)-1);
	CHECK((known & ax_dx) == ax_dx);
	/* cdq; idiv ecx: -100 = 7 * -14 + -2, in 32 bits, zero-extended */
	regs_init();
	G(RAX) = 0x55555555ffffff9cull, G(RDX) = 0x77777777ull << 32, G(RCX) = 7;
	CHECK(emulate1(BYTES(0x99), &known, NULL) == 0);
	CHECK_EQ_U64(G(RDX), 0xffffffffull);
	CHECK(emulate1(BYTES(0xf7, 0xf9), &known, NULL) == 0);
	CHECK_EQ_U64(G(RAX), 0xfffffff2ull);
	CHECK_EQ_U64(G(RDX), 0xfffffffeull);
	/* cqo of a positive rax: 0 */
	regs_init();
	G(RAX) = 5, G(RDX) = 77;
	CHECK(emulate1(BYTES(0x48, 0x99), &known, NULL) == 0);
	CHECK_EQ_U64(G(RDX), 0);
	/* idiv overflow: -2^63 / -1 = 2^63 does not fit in 64 bits: #DE, unknown */
	regs_init();
	G(RAX) = 1ull << 63, G(RDX) = ~0ull, G(RCX) = ~0ull;
	CHECK(emulate1(BYTES(0x48, 0xf7, 0xf9), &known, NULL) == 0);
	CHECK((known & ax_dx) == 0);
	/* an unknown divisor: unknown results */
	regs_init();
	G(RDX) = 0, G(RAX) = 1000, G(RCX) = 7;
	struct decode_insn d;
	known = DECODE_KNOWN_ALL & ~(1u << DECODE_RCX);
	decode_access(BYTES(0x48, 0xf7, 0xf1), &R, &d);
	CHECK(decode_emulate(&d, &R, &known) == 0);
	CHECK((known & ax_dx) == 0);
	/* div qword [rbx], the divisor loaded: 95 = 10 * 9 + 5; its address is the access */
	regs_init();
	memset(fake, 0, sizeof(fake));
	fake_put(8, 10, 8);
	G(RBX) = FAKE_BASE + 8, G(RDX) = 0, G(RAX) = 95;
	struct decode_shadow mem;
	decode_shadow_init(&mem, fake_read, NULL, 4);
	decode_access(BYTES(0x48, 0xf7, 0x33), &R, &d);
	CHECK(d.n_mem == 1);
	CHECK_EQ_U64(d.mem[0].addr, FAKE_BASE + 8);
	CHECK(emulate1(BYTES(0x48, 0xf7, 0x33), &known, &mem) == 0);
	CHECK_EQ_U64(G(RAX), 9);
	CHECK_EQ_U64(G(RDX), 5);
	CHECK((known & ax_dx) == ax_dx);
	/* without memory the loaded divisor is unknown */
	regs_init();
	G(RBX) = FAKE_BASE + 8, G(RDX) = 0, G(RAX) = 95;
	CHECK(emulate1(BYTES(0x48, 0xf7, 0x33), &known, NULL) == 0);
	CHECK((known & ax_dx) == 0);
}

TEST(emulate_loads)
{
	static const uint8_t code[] = {
		0x48, 0x8b, 0x07,			/* 0: mov rax, [rdi] */
		0x0f, 0xb6, 0x4f, 0x08,			/* 3: movzx ecx, byte [rdi+8] */
		0x48, 0x0f, 0xbe, 0x57, 0x09,		/* 7: movsx rdx, byte [rdi+9] */
		0x48, 0x63, 0x77, 0x0c,			/* c: movsxd rsi, dword [rdi+12] */
		0x44, 0x0f, 0xb7, 0x47, 0x10,		/* 10: movzx r8d, word [rdi+16] */
		0x48, 0x89, 0x47, 0x20,			/* 15: mov [rdi+32], rax */
		0x4c, 0x8b, 0x4f, 0x20,			/* 19: mov r9, [rdi+32] (forwarded) */
		0xc7, 0x47, 0x28, 0xfb, 0xff, 0xff, 0xff, /* 1d: mov dword [rdi+40], -5 */
		0x4c, 0x63, 0x57, 0x28,			/* 24: movsxd r10, dword [rdi+40] */
		0x83, 0x47, 0x28, 0x03,			/* 28: add dword [rdi+40], 3 */
		0x83, 0x7f, 0x28, 0xfe,			/* 2c: cmp dword [rdi+40], -2 */
		0x74, 0x02,				/* 30: je 34 */
		0x0f, 0x0b,				/* 32: ud2 */
		0x4c, 0x03, 0x0f,			/* 34: add r9, [rdi] */
		0x50,					/* 37: push rax */
		0x41, 0x5b,				/* 38: pop r11 (forwarded from the push) */
		0xff, 0x67, 0x30,			/* 3a: jmp [rdi+48] -> 3d */
		0x48, 0xc1, 0xe0, 0x04,			/* 3d: shl rax, 4 */
		0x48, 0xc1, 0xfa, 0x02,			/* 41: sar rdx, 2 */
		0x48, 0xd1, 0xe8,			/* 45: shr rax, 1 */
		0x48, 0x6b, 0xd9, 0x18,			/* 48: imul rbx, rcx, 24 */
		0x48, 0x0f, 0xaf, 0xd9,			/* 4c: imul rbx, rcx */
		0x48, 0x98,				/* 50: cdqe */
		0xff, 0x47, 0x28,			/* 52: inc dword [rdi+40] */
		0x48, 0x8b, 0x0b,			/* 55: mov rcx, [rbx] (unreadable) */
		0x59,					/* 58: pop rcx (unreadable) */
	};
	const uint64_t v = 0x1122334455667788ull;
	memset(fake, 0, sizeof(fake));
	fake_put(0, v, 8);
	fake[8] = 0xf0;
	fake[9] = 0x80;
	fake_put(12, 0xfffffffe, 4);
	fake_put(16, 0xbeef, 2);
	fake_put(32, 0x5a5a5a5a5a5a5a5aull, 8);	/* overwritten by the path before it is read */
	regs_init();
	fake_put(48, R.rip + 0x3d, 8);
	G(RDI) = FAKE_BASE;
	G(RSP) = FAKE_BASE + 0x1000;		/* the stack is not readable: only forwarding */
	uint64_t rsp = G(RSP);
	struct decode_shadow mem;
	decode_shadow_init(&mem, fake_read, NULL, 16);
	fake_calls = 0;
	uint32_t known = DECODE_KNOWN_ALL;

	CHECK(run_mem(code, sizeof(code), &known, R.rip + 0x3d, &mem) == 0);
	CHECK_EQ_U64(G(RAX), v);
	CHECK_EQ_U64(G(RCX), 0xf0);
	CHECK_EQ_U64(G(RDX), (uint64_t)(int64_t)(int8_t)0x80);
	CHECK_EQ_U64(G(RSI), (uint64_t)-2ll);
	CHECK_EQ_U64(G(R8), 0xbeef);
	CHECK_EQ_U64(G(R10), (uint64_t)-5ll);
	CHECK_EQ_U64(G(R9), v + v);
	CHECK_EQ_U64(G(R11), v);
	CHECK_EQ_U64(G(RSP), rsp);
	CHECK(KNOWN(known, RAX) && KNOWN(known, RCX) && KNOWN(known, RDX) && KNOWN(known, RSI));
	CHECK(KNOWN(known, R8) && KNOWN(known, R9) && KNOWN(known, R10) && KNOWN(known, R11));
	CHECK(known & DECODE_KNOWN_FLAGS);
	CHECK_EQ_U64(fake_calls, 1);		/* one line, read once */

	CHECK(run_mem(code + 0x3d, sizeof(code) - 0x3d, &known, R.rip + 0x59 - 0x3d, &mem) == 0);
	CHECK_EQ_U64(G(RDX), (uint64_t)(-0x80 / 4));	/* sar keeps the sign */
	CHECK_EQ_U64(G(RBX), 0xf0ull * 24 * 0xf0);
	uint64_t rax = (v << 4) >> 1;
	CHECK_EQ_U64(G(RAX), (uint64_t)(int64_t)(int32_t)(uint32_t)rax);
	CHECK(KNOWN(known, RBX) && KNOWN(known, RAX));
	CHECK(!KNOWN(known, RCX));		/* [rbx] and [rsp] are unreadable */
	CHECK(!(known & DECODE_KNOWN_FLAGS));	/* shifts and imul: not modelled */
	uint64_t m40;
	CHECK(decode_shadow_load(&mem, FAKE_BASE + 40, 4, &m40) == 0);
	CHECK_EQ_U64(m40, 0xffffffffu);		/* -5 + 3 + 1 */
	CHECK_EQ_U64(fake[40], 0);		/* program memory itself untouched */
}

TEST(shadow_store_buffer)
{
	struct decode_shadow mem;
	uint64_t x;
	memset(fake, 0xab, sizeof(fake));
	decode_shadow_init(&mem, fake_read, NULL, 16);
	/* a store of a known value forwards, byte by byte over memory */
	decode_shadow_store(&mem, FAKE_BASE + 4, 2, 0x1234, 1);
	CHECK(decode_shadow_load(&mem, FAKE_BASE + 3, 4, &x) == 0);
	CHECK_EQ_U64(x, 0xab1234abull);
	/* a load crossing two lines */
	CHECK(decode_shadow_load(&mem, FAKE_BASE + 60, 8, &x) == 0);
	CHECK_EQ_U64(x, 0xababababababababull);
	/* an unknown value hides the bytes it covers, not the others */
	decode_shadow_store(&mem, FAKE_BASE + 16, 8, 0, 0);
	CHECK(decode_shadow_load(&mem, FAKE_BASE + 20, 4, &x) == -1);
	CHECK(decode_shadow_load(&mem, FAKE_BASE + 24, 4, &x) == 0);
	/* the newest store wins */
	decode_shadow_store(&mem, FAKE_BASE + 16, 8, 7, 1);
	CHECK(decode_shadow_load(&mem, FAKE_BASE + 16, 8, &x) == 0);
	CHECK_EQ_U64(x, 7);
	/* outside program memory: unknown */
	CHECK(decode_shadow_load(&mem, 0x1000, 8, &x) == -1);
	/* too many stores, then everything is unknown */
	for (int i = 0; i < DECODE_SHADOW_STORES; i++)
		decode_shadow_store(&mem, FAKE_BASE + 64, 1, 0, 1);
	CHECK(decode_shadow_load(&mem, FAKE_BASE + 24, 4, &x) == -1);

	/* the read bound: no reads allowed, nothing known */
	decode_shadow_init(&mem, fake_read, NULL, 0);
	CHECK(decode_shadow_load(&mem, FAKE_BASE, 8, &x) == -1);

	/* a store at an unknown address may alias anything: later loads are unknown */
	static const uint8_t st[] = { 0x48, 0x89, 0x03 };	/* mov [rbx], rax */
	regs_init();
	decode_shadow_init(&mem, fake_read, NULL, 16);
	uint32_t known = DECODE_KNOWN_ALL & ~(1u << DECODE_RBX);
	CHECK(run_mem(st, sizeof(st), &known, R.rip + 3, &mem) == 0);
	CHECK(mem.poisoned);
	CHECK(decode_shadow_load(&mem, FAKE_BASE, 8, &x) == -1);
}

static int real_read(void *ctx, uint64_t addr, uint8_t *buf, size_t len)
{
	return decode_read_data(addr, buf, len) == (long)len ? 0 : -1;
}

TEST(dependent_loads_real_memory)
{
	/* chase: mov rdi, [rdi]; dec rsi; jnz chase -- over a real ring, read with
	 * decode_read_data: after k iterations rdi is the node k links on */
	static const uint8_t code[] = { 0x48, 0x8b, 0x3f, 0x48, 0xff, 0xce, 0x75, 0xf8 };
	static uint64_t ring[256];
	for (int i = 0; i < 256; i++)
		ring[i] = (uintptr_t)&ring[(i * 37 + 11) % 256];
	regs_init();
	G(RDI) = (uintptr_t)&ring[5];
	G(RSI) = 1000;
	uint64_t expect = (uintptr_t)&ring[5];
	struct decode_shadow mem;
	decode_shadow_init(&mem, real_read, NULL, 64);
	uint32_t known = DECODE_KNOWN_ALL;
	int wrong = 0;
	for (int k = 1; k <= 12; k++) {
		CHECK(run_mem(code, sizeof(code), &known, R.rip + 3, &mem) == 0);	/* the load */
		expect = *(uint64_t *)(uintptr_t)expect;
		wrong += G(RDI) != expect || !KNOWN(known, RDI);
		CHECK(run_mem(code + 3, sizeof(code) - 3, &known, R.rip - 3, &mem) == 0);
	}
	CHECK(wrong == 0);
	CHECK_EQ_U64(G(RSI), 1000 - 12);

	/* decode_read_data never faults: an unmapped page gives an error */
	uint8_t *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t buf[8];
	CHECK(p != MAP_FAILED);
	CHECK(decode_read_data((uintptr_t)p, buf, 8) < 0);
	CHECK(decode_read_data((uintptr_t)&ring[3], buf, 8) == 8);
	CHECK(!memcmp(buf, &ring[3], 8));
	munmap(p, 4096);
}

TEST(read_code_page_end)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	if (p == MAP_FAILED)
		return;
	munmap(p + pg, pg);
	uint8_t *end = p + pg - 3;
	end[0] = 0x0f;	/* movzx eax, byte [rcx]: 3 bytes, the last of the page */
	end[1] = 0xb6;
	end[2] = 0x01;
	uint8_t buf[16];
	CHECK(decode_read_code((uint64_t)(uintptr_t)end, buf, sizeof(buf)) == 3);
	regs_init();
	struct decode_insn d;
	CHECK(decode_access(buf, 3, &R, &d) == 3);
	CHECK(decode_read_code((uint64_t)(uintptr_t)(p + pg), buf, sizeof(buf)) == -EFAULT);
	CHECK(decode_read_code(0, buf, sizeof(buf)) == -EFAULT);
	munmap(p, pg);
}

/* ---- a data breakpoint's access, decoded backwards from the trap's PC ---- */

/* NPB CG's inner loop (cg.c:426, gcc 12 -O2: conj_grad._omp_fn.1 at 0x2720-0x2777) with
 * the code before it: its SSE loads carry a mandatory prefix, and without it the same bytes
 * read as another instruction on the same operand (mulps, 16 bytes, for mulsd, 8). */
static const uint8_t cg_loop[] = {
	0x01, 0xca, 0x8d, 0x0c, 0x10, 0x39, 0xca, 0x7d, 0x69, 0x8d, 0x7a, 0x01, 0x89, 0xc0, 0x48,
	0x63, 0xd2, 0x49, 0x8b, 0x77, 0x18, 0x48, 0x63, 0xff, 0x4c, 0x8d, 0x54, 0x02, 0x01, 0x4d,
	0x8b, 0x4f, 0x08, 0x49, 0x8b, 0x0f, 0x48, 0xc1, 0xe7, 0x02, 0x49, 0xc1, 0xe2, 0x02, 0x0f,
	0x1f, 0x40, 0x00, 0x49, 0x63, 0x04, 0x39, 0x41, 0x8b, 0x54, 0x39, 0x04, 0x66, 0x0f, 0xef,
	0xc9, 0x39, 0xd0, 0x7d, 0x22, 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00, 0x4c, 0x63, 0x1c,
	0x81, 0xf2, 0x42, 0x0f, 0x10, 0x04, 0xdb, 0xf2, 0x0f, 0x59, 0x04, 0xc6,
};

/* the other way round: a move of an immediate ending in 0x66, then mov (%rax),%ecx; with
 * the 0x66 as its prefix it would read 2 bytes, not 4 */
static const uint8_t imm66[] = {
	0x48, 0x89, 0xc2, 0x48, 0x8b, 0x44, 0x24, 0x48, 0x48, 0x83, 0xc4, 0x08, 0x41, 0x89, 0xd0,
	0x48, 0x8b, 0x54, 0x24, 0x10, 0x48, 0x89, 0xd8, 0x31, 0xc9, 0x44, 0x89, 0xc6, 0x48, 0x83,
	0xec, 0x18, 0x48, 0x63, 0xf6, 0x48, 0x89, 0xf7, 0x48, 0x8d, 0x14, 0x37, 0x48, 0x89, 0xd1,
	0x45, 0x31, 0xc0, 0x41, 0x89, 0xc9, 0x4c, 0x89, 0xc8, 0x48, 0x89, 0xc6, 0xb8, 0x00, 0x00,
	0x00, 0x66, 0x8b, 0x08,
};

TEST(trap_access)
{
	static double x[64];
	static int32_t col[64];
	ucontext_t uc;
	uint64_t a = 0;
	uint32_t l = 0;
	/* the code at a known place in a page (decode_trap_access reads only the PC's page),
	 * after an unmapped one */
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *map = mmap(NULL, 3 * (size_t)pg, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(map != MAP_FAILED);
	if (map == MAP_FAILED)
		return;
	munmap(map, (size_t)pg);
	uint8_t *page = map + pg;
	uint8_t *cg = page + 1024, *im = page + 2048;
	memcpy(cg, cg_loop, sizeof(cg_loop));
	memcpy(im, imm66, sizeof(imm66));

	memset(&uc, 0, sizeof(uc));
	greg_t *g = uc.uc_mcontext.gregs;
	g[REG_RBX] = (greg_t)(uintptr_t)x;		/* movsd (%rbx,%r11,8): x[r11] */
	g[REG_R11] = 5;
	g[REG_RSI] = (greg_t)(uintptr_t)(x + 32);	/* mulsd (%rsi,%rax,8): x[32 + rax] */
	g[REG_RCX] = (greg_t)(uintptr_t)col;
	g[REG_RAX] = 3;
	uint64_t x5 = (uintptr_t)&x[5], x35 = (uintptr_t)&x[35];

	g[REG_RIP] = (greg_t)(uintptr_t)(cg + sizeof(cg_loop) - 5);	/* after movsd */
	CHECK(decode_trap_access(&uc, x5, x5 + 8, &a, &l) == 0);
	CHECK_EQ_U64(a, x5);
	CHECK_EQ_U64(l, 8);
	g[REG_RIP] = (greg_t)(uintptr_t)(cg + sizeof(cg_loop));		/* after mulsd */
	CHECK(decode_trap_access(&uc, x35, x35 + 8, &a, &l) == 0);
	CHECK_EQ_U64(a, x35);
	CHECK_EQ_U64(l, 8);
	/* a chunk no reading touches */
	CHECK(decode_trap_access(&uc, x5, x5 + 8, &a, &l) == -1);

	g[REG_RAX] = (greg_t)(uintptr_t)&x[9];
	g[REG_RIP] = (greg_t)(uintptr_t)(im + sizeof(imm66));
	CHECK(decode_trap_access(&uc, (uintptr_t)&x[9], (uintptr_t)&x[10], &a, &l) == 0);
	CHECK_EQ_U64(a, (uintptr_t)&x[9]);
	CHECK_EQ_U64(l, 4);
	/* its last 30 bytes at the page's start, the page before unmapped: the votes from
	 * those bytes alone, no read before the page */
	memcpy(page, imm66 + sizeof(imm66) - 30, 30);
	g[REG_RIP] = (greg_t)(uintptr_t)(page + 30);
	CHECK(decode_trap_access(&uc, (uintptr_t)&x[9], (uintptr_t)&x[10], &a, &l) == 0);
	CHECK_EQ_U64(l, 4);
	/* the access before a timer's PC (decode_prev_access): after CG's mulsd, its 8 bytes;
	 * after an instruction with no access, none; after one that changed its own address
	 * register (mov (%rax),%rax: a pointer chase), none, as its address is gone */
	struct decode_mem pm;
	uint64_t pip = 0;
	g[REG_RAX] = 3;
	g[REG_RIP] = (greg_t)(uintptr_t)(cg + sizeof(cg_loop));
	CHECK(decode_prev_access(&uc, &pm, &pip) == 0);
	CHECK_EQ_U64(pm.addr, x35);
	CHECK_EQ_U64(pm.len, 8);
	CHECK_EQ_U64(pip, (uintptr_t)(cg + sizeof(cg_loop) - 5));
	static const uint8_t tail[] = { 0x48, 0x83, 0xc0, 0x01, 0x48, 0x8b, 0x00,
					0xff, 0x50, 0x10 };
	uint8_t *tp = page + 3072;
	memcpy(tp - 64, cg_loop + sizeof(cg_loop) - 64, 64);	/* real code before it */
	memcpy(tp, tail, sizeof(tail));
	g[REG_RIP] = (greg_t)(uintptr_t)(tp + 4);	/* after add $1,%rax */
	CHECK(decode_prev_access(&uc, &pm, &pip) == -1);
	g[REG_RIP] = (greg_t)(uintptr_t)(tp + 7);	/* after mov (%rax),%rax */
	CHECK(decode_prev_access(&uc, &pm, &pip) == -1);
	/* after call *0x10(%rax): a branch, never fallen through to the PC (a return address:
	 * rax is what the callee left) */
	g[REG_RIP] = (greg_t)(uintptr_t)(tp + 10);
	CHECK(decode_prev_access(&uc, &pm, &pip) == -1);
	/* a PC under 15 bytes into its page: not decoded (the instruction may start on the
	 * page before), no read there */
	g[REG_RIP] = (greg_t)(uintptr_t)(page + 2);
	CHECK(decode_trap_access(&uc, (uintptr_t)&x[9], (uintptr_t)&x[10], &a, &l) == -1);
	munmap(page, 2 * (size_t)pg);
}

/* ---- live: run an instruction after an int3, decode it from the SIGTRAP context ---- */

static struct decode_insn live;
static int live_len;

static void on_int3(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	struct decode_regs r;
	uint8_t code[16];
	decode_regs_from_ucontext(uc, &r);	/* rip: just after the int3 */
	long n = decode_read_code(r.rip, code, sizeof(code));
	live_len = n > 0 ? decode_access(code, (size_t)n, &r, &live) : -1;
}

static uint64_t glob_var[4];
static __thread uint64_t tls_var[4];

TEST(live)
{
	struct sigaction sa = { 0 }, old;
	sa.sa_sigaction = on_int3;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, &old);
	uint64_t buf[16] = { 0 };
	uint64_t out;

	/* base + index * scale + disp */
	__asm__ volatile("int3; mov 8(%1,%2,4), %0" : "=r"(out) : "r"(buf), "r"(3L) : "memory");
	CHECK(live_len > 0 && live.n_mem == 1);
	CHECK_EQ_U64(live.mem[0].addr, (uintptr_t)buf + 20);

	/* a store: the value lands where decode said */
	__asm__ volatile("int3; movq %2, -8(%0,%1,8)" : : "r"(buf), "r"(5L), "r"(0x5a5aL) : "memory");
	CHECK(live.n_mem == 1 && (live.mem[0].flags & SONDE_MEM_STORE));
	CHECK_EQ_U64(*(uint64_t *)(uintptr_t)live.mem[0].addr, 0x5a5a);
	CHECK_EQ_U64(live.mem[0].addr, (uintptr_t)&buf[4]);

	/* RIP-relative */
	__asm__ volatile("int3; mov glob_var+16(%%rip), %0" : "=r"(out) : : "memory");
	CHECK_EQ_U64(live.mem[0].addr, (uintptr_t)&glob_var[2]);

	/* TLS through %fs */
	__asm__ volatile("int3; mov %%fs:tls_var@tpoff+8, %0" : "=r"(out) : : "memory");
	CHECK_EQ_U64(live.mem[0].addr, (uintptr_t)&tls_var[1]);

	/* push: the slot the CPU wrote */
	uint64_t slot;
	__asm__ volatile("int3; push %%rax; mov %%rsp, %0; pop %%rax" : "=r"(slot) : : "rax", "memory");
	CHECK_EQ_U64(live.mem[0].addr, slot);

	/* rep stosb: the first element */
	void *dst = (char *)buf + 5;
	long cnt = 4;
	__asm__ volatile("int3; rep stosb" : "+D"(dst), "+c"(cnt) : "a"(0x11) : "memory");
	CHECK(live.rep && live.n_mem == 1);
	CHECK_EQ_U64(live.mem[0].addr, (uintptr_t)buf + 5);

	/* lock add: read-modify-write */
	__asm__ volatile("int3; lock addq $1, (%0)" : : "r"(&buf[7]) : "memory");
	CHECK_EQ_U64(live.mem[0].addr, (uintptr_t)&buf[7]);
	CHECK(live.mem[0].flags & SONDE_MEM_RMW);

	/* AVX2 gather: element 0 of the index register */
	if (__builtin_cpu_supports("avx2")) {
		int32_t idx[4] = { 7, 1, 2, 3 };
		__asm__ volatile("vmovdqu %0, %%xmm1\n\t"
				 "vpcmpeqd %%xmm2, %%xmm2, %%xmm2\n\t"
				 "int3\n\t"
				 "vpgatherdd %%xmm2, (%1,%%xmm1,4), %%xmm0"
				 : : "m"(idx), "r"(buf) : "xmm0", "xmm1", "xmm2", "memory");
		CHECK(live.n_mem == 1 && (live.mem[0].flags & DECODE_MEM_VSIB));
		CHECK_EQ_U64(live.mem[0].addr, (uintptr_t)buf + 7 * 4);
	}
	if (__builtin_cpu_supports("avx512f")) {
		__asm__ volatile("int3; vmovdqu64 (%0), %%zmm1" : : "r"(&buf[8]) : "xmm1", "memory");
		CHECK_EQ_U64(live.mem[0].addr, (uintptr_t)&buf[8]);
		CHECK_EQ_U64(live.mem[0].len, 64);
	}
	sigaction(SIGTRAP, &old, NULL);
}

int main(void)
{
	decode_init();
	RUN(base_index_scale_disp);
	RUN(rip_relative_and_segments);
	RUN(stack);
	RUN(string_ops);
	RUN(rmw);
	RUN(vector);
	RUN(not_accesses);
	RUN(branches_and_writes);
	RUN(emulate);
	RUN(emulate_branches);
	RUN(emulate_selects);
	RUN(rebase);
	RUN(alu_flags);
	RUN(inc_dec_flags_without_cf);
	RUN(emulate_loads);
	RUN(emulate_div);
	RUN(shadow_store_buffer);
	RUN(dependent_loads_real_memory);
	RUN(read_code_page_end);
	RUN(trap_access);
	RUN(live);
	return CHECK_DONE();
}
