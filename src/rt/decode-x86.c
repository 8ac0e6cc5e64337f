/* SPDX-License-Identifier: MIT */
/*
 * decode-x86.c - effective addresses of x86-64 instructions (Zydis 4), and a small emulator
 * of the instructions that update address registers, so the clock source can look ahead
 * along the code instead of single-stepping.  Handler-reachable: see decode-x86.h.
 */
#include <asm/prctl.h>
#include <errno.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <Zydis/Zydis.h>

#include "rt/decode-x86.h"
#include "rt/decode-zydis.h"
#include "rt/rt.h"
#include "rt/sigsafe.h"

#ifndef HWCAP2_FSGSBASE
#define HWCAP2_FSGSBASE (1 << 1)
#endif

#define EFL_CF 0x1u
#define EFL_PF 0x4u
#define EFL_ZF 0x40u
#define EFL_SF 0x80u
#define EFL_OF 0x800u
#define EFL_ARITH (EFL_CF | EFL_PF | EFL_ZF | EFL_SF | EFL_OF | 0x10u)

static ZydisDecoder decoder;
static int decoder_ready;	/* 1: decoder usable; -1: libZydis could not be loaded */
static int have_fsgsbase;
static volatile pid_t self_pid;	/* for process_vm_readv; 0: ask getpid */

/* libZydis's entry points, set by decode_init (decode-load.c, which loads the library
 * only there: a process whose source decodes nothing, sonde variance's, never maps it). */
struct decode_zydis decode_zy;

void decode_after_fork(void)
{
	self_pid = getpid();
}

/* A vfork child sharing our memory reads it through the parent's pid: the same memory. */
SIGSAFE static pid_t mem_pid(void)
{
	pid_t p = self_pid;
	return p ? p : getpid();
}

/* decode-load.c: libZydis's entry points are in decode_zy (0: it could not be loaded).
 * Called once: decode_init, its only caller, runs once. */
void decode_ready(int loaded)
{
	if (loaded)
		decode_zy.decoder_init(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	have_fsgsbase = !!(getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE);
	decode_after_fork();
	decoder_ready = loaded ? 1 : -1;
}

SIGSAFE static uint64_t read_fs_base(void)
{
	uint64_t v;
	if (have_fsgsbase) {
		__asm__ volatile("rdfsbase %0" : "=r"(v));
		return v;
	}
	/* glibc (and musl) keep the thread pointer itself at %fs:0 */
	__asm__ volatile("mov %%fs:0, %0" : "=r"(v));
	return v;
}

SIGSAFE static uint64_t read_gs_base(void)
{
	uint64_t v = 0;
	if (have_fsgsbase) {
		__asm__ volatile("rdgsbase %0" : "=r"(v));
		return v;
	}
	if (syscall(SYS_arch_prctl, ARCH_GET_GS, &v))
		v = 0;
	return v;
}

SIGSAFE void decode_regs_from_ucontext(const ucontext_t *uc, struct decode_regs *r)
{
	static const int map[16] = {
		REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
		REG_R8,	 REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
	};
	const greg_t *g = uc->uc_mcontext.gregs;

	for (int i = 0; i < 16; i++)
		r->gpr[i] = (uint64_t)g[map[i]];
	r->rip = (uint64_t)g[REG_RIP];
	r->rflags = (uint64_t)g[REG_EFL];
	r->fs_base = read_fs_base();
	r->gs_base = 0;
	r->gs_lazy = 1;		/* read on first use (mem_address) */
	r->xmm = uc->uc_mcontext.fpregs ?
			 (const uint8_t(*)[16])(const void *)uc->uc_mcontext.fpregs->_xmm :
			 NULL;
}

SIGSAFE long decode_read_code(uint64_t addr, uint8_t *buf, size_t len)
{
	/* Two remote pieces split at the page boundary: a transfer stops at the first piece
	 * that faults, so the bytes of a mapped first page still come back. */
	uint64_t page_end = (addr | 4095) + 1;
	size_t first = page_end - addr < len ? page_end - addr : len;
	struct iovec local = { buf, len };
	struct iovec remote[2] = { { (void *)(uintptr_t)addr, first },
				   { (void *)(uintptr_t)page_end, len - first } };
	ssize_t n = process_vm_readv(mem_pid(), &local, 1, remote, len > first ? 2 : 1, 0);
	if (n >= 0)
		return n;
	if (errno != ENOSYS && errno != EPERM)
		return -errno;
	/* process_vm_readv filtered (seccomp): the PC's own page is mapped, executable and
	 * therefore readable on x86 (no execute-only pages without protection keys). */
	memcpy(buf, (const void *)(uintptr_t)addr, first);
	return (long)first;
}

SIGSAFE uint64_t decode_call_target(uint64_t ret)
{
	uint8_t p[5];
	int32_t rel;

	if (ret < 4096 + 5 || decode_read_code(ret - 5, p, 5) != 5 || p[0] != 0xe8)
		return 0;
	memcpy(&rel, p + 1, 4);
	return ret + (uint64_t)(int64_t)rel;
}

SIGSAFE uint64_t decode_plt_target(uint64_t fn)
{
	uint8_t c[11];
	int o = 0;

	if (decode_read_code(fn, c, sizeof(c)) != (long)sizeof(c))
		return 0;
	if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa)
		o = 4;				/* endbr64 */
	if (c[o] == 0xf2)
		o++;				/* bnd */
	if (c[o] != 0xff || c[o + 1] != 0x25)
		return 0;
	int32_t disp;
	memcpy(&disp, c + o + 2, 4);
	uint64_t got = fn + (uint64_t)o + 6 + (uint64_t)(int64_t)disp, target = 0;
	uint8_t b[5];
	if (decode_read_code(got, (uint8_t *)&target, 8) != 8 || target < 4096 ||
	    decode_read_code(target, b, sizeof(b)) != (long)sizeof(b))
		return 0;
	if (b[0] == 0x68 || (b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == 0xfa &&
			     b[4] == 0x68))
		return 0;			/* not bound yet */
	return target;
}

SIGSAFE uint64_t decode_next_call(uint64_t at, int max, uint64_t *after)
{
	uint8_t code[16 * 15];
	long n = decode_read_code(at, code, sizeof(code));
	struct decode_regs r;
	struct decode_insn in;
	long o = 0;

	memset(&r, 0, sizeof(r));
	for (int k = 0; k < max && n - o >= 5; k++) {
		int32_t rel;
		if (code[o] == 0xe8) {
			memcpy(&rel, code + o + 1, 4);
			*after = at + (uint64_t)o + 5;
			return *after + (uint64_t)(int64_t)rel;
		}
		r.rip = at + (uint64_t)o;
		int len = decode_access_lite(code + o, (size_t)(n - o), &r, &in);
		if (len <= 0 || in.branch)
			return 0;
		o += len;
	}
	return 0;
}

/* ---- registers ---- */

SIGSAFE static int gpr_index(ZydisRegister reg)
{
	ZydisRegister big = decode_zy.largest_enclosing(ZYDIS_MACHINE_MODE_LONG_64, reg);
	if (big >= ZYDIS_REGISTER_RAX && big <= ZYDIS_REGISTER_R15)
		return (int)(big - ZYDIS_REGISTER_RAX);
	return -1;
}

SIGSAFE static int is_high_byte(ZydisRegister reg)
{
	return reg == ZYDIS_REGISTER_AH || reg == ZYDIS_REGISTER_CH || reg == ZYDIS_REGISTER_DH ||
	       reg == ZYDIS_REGISTER_BH;
}

/* The "known" bits a register write invalidates. */
SIGSAFE static uint32_t reg_bits(ZydisRegister reg)
{
	int g = gpr_index(reg);
	if (g >= 0)
		return 1u << g;
	switch (decode_zy.reg_class(reg)) {
	case ZYDIS_REGCLASS_FLAGS:
		return DECODE_KNOWN_FLAGS | DECODE_KNOWN_FLAGS_NC;
	case ZYDIS_REGCLASS_XMM:
	case ZYDIS_REGCLASS_YMM:
	case ZYDIS_REGCLASS_ZMM:
		return DECODE_KNOWN_VEC;
	default:
		return 0;
	}
}

/* ---- memory operands ---- */

SIGSAFE static int index_is_dword(ZydisMnemonic m)
{
	/* v[p]gather{d,q}*, v[p]scatter{d,q}*: the letter after the verb sizes the indices */
	const char *s = decode_zy.mnemonic_string(m);
	for (; s && *s; s++) {
		if (!strncmp(s, "gather", 6))
			return s[6] == 'd';
		if (!strncmp(s, "scatter", 7))
			return s[7] == 'd';
	}
	return 0;
}

SIGSAFE static int vsib_index(const ZydisDecodedInstruction *in, ZydisRegister idx,
			      const struct decode_regs *r, uint64_t *val)
{
	int id;
	if (idx >= ZYDIS_REGISTER_XMM0 && idx <= ZYDIS_REGISTER_XMM31)
		id = (int)(idx - ZYDIS_REGISTER_XMM0);
	else if (idx >= ZYDIS_REGISTER_YMM0 && idx <= ZYDIS_REGISTER_YMM31)
		id = (int)(idx - ZYDIS_REGISTER_YMM0);
	else if (idx >= ZYDIS_REGISTER_ZMM0 && idx <= ZYDIS_REGISTER_ZMM31)
		id = (int)(idx - ZYDIS_REGISTER_ZMM0);
	else
		return -1;
	if (id >= 16 || !r->xmm)
		return -1;
	if (index_is_dword(in->mnemonic)) {
		int32_t e;
		memcpy(&e, r->xmm[id], 4);
		*val = (uint64_t)(int64_t)e;
	} else {
		memcpy(val, r->xmm[id], 8);
	}
	return 0;
}

SIGSAFE static uint64_t gs_base(const struct decode_regs *r)
{
	return r->gs_lazy ? read_gs_base() : r->gs_base;
}

SIGSAFE static void mem_address(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op,
				const struct decode_regs *r, struct decode_mem *m)
{
	const ZydisDecodedOperandMem *mo = &op->mem;
	uint64_t a = (uint64_t)mo->disp.value;

	m->base = m->index = -1;
	m->scale = 1;
	m->seg = 0;
	m->linear = in->address_width != 32 && mo->type != ZYDIS_MEMOP_TYPE_VSIB;

	if (mo->base == ZYDIS_REGISTER_RIP || mo->base == ZYDIS_REGISTER_EIP) {
		a += r->rip + in->length;	/* relative to the next instruction */
	} else if (mo->base != ZYDIS_REGISTER_NONE) {
		int g = gpr_index(mo->base);
		if (g < 0) {
			m->flags |= DECODE_MEM_UNKNOWN;
			return;
		}
		a += r->gpr[g];
		m->needs |= 1u << g;
		m->base = (int8_t)g;
	}
	if (mo->index != ZYDIS_REGISTER_NONE) {
		uint64_t v;
		if (mo->type == ZYDIS_MEMOP_TYPE_VSIB) {
			m->flags |= DECODE_MEM_VSIB;
			m->needs |= DECODE_KNOWN_VEC;
			if (vsib_index(in, mo->index, r, &v)) {
				m->flags |= DECODE_MEM_UNKNOWN;
				return;
			}
		} else {
			int g = gpr_index(mo->index);
			if (g < 0) {
				m->flags |= DECODE_MEM_UNKNOWN;
				return;
			}
			v = r->gpr[g];
			m->needs |= 1u << g;
			m->index = (int8_t)g;
			m->scale = (uint8_t)(mo->scale ? mo->scale : 1);
		}
		a += v * (mo->scale ? mo->scale : 1);
	}
	if (in->address_width == 32)
		a &= 0xffffffffu;
	if (mo->segment == ZYDIS_REGISTER_FS) {
		a += r->fs_base;
		m->seg = 1;
	} else if (mo->segment == ZYDIS_REGISTER_GS) {
		a += gs_base(r);
		m->seg = 2;
	}
	m->addr = a;
}

/* The register part of m's address under r (see struct decode_mem). */
SIGSAFE static uint64_t linear_part(const struct decode_mem *m, const struct decode_regs *r)
{
	uint64_t a = m->base >= 0 ? r->gpr[m->base] : 0;
	if (m->index >= 0)
		a += r->gpr[m->index] * m->scale;
	if (m->seg == 1)
		a += r->fs_base;
	else if (m->seg == 2)
		a += gs_base(r);
	return a;
}

/* Once addr is final: its constant part. */
SIGSAFE static void set_disp(struct decode_mem *m, const struct decode_regs *r)
{
	if (m->flags & DECODE_MEM_UNKNOWN)
		m->linear = 0;
	if (m->linear)
		m->disp = (int64_t)(m->addr - linear_part(m, r));
}

SIGSAFE int decode_rebase(struct decode_insn *d, const struct decode_regs *r)
{
	if (d->rep)
		return -1;	/* rcx = 0 changes the accesses */
	for (int k = 0; k < d->n_mem; k++)
		if (!d->mem[k].linear)
			return -1;
	if (d->op == DECODE_OP_LEA && !d->lea.linear)
		return -1;
	for (int k = 0; k < d->n_mem; k++)
		d->mem[k].addr = (uint64_t)d->mem[k].disp + linear_part(&d->mem[k], r);
	if (d->op == DECODE_OP_LEA)
		d->lea.addr = (uint64_t)d->lea.disp + linear_part(&d->lea, r);
	return 0;
}


SIGSAFE static int not_an_access(const ZydisDecodedInstruction *in)
{
	switch (in->meta.category) {
	case ZYDIS_CATEGORY_PREFETCH:
	case ZYDIS_CATEGORY_PREFETCHWT1:
	case ZYDIS_CATEGORY_WIDENOP:
	case ZYDIS_CATEGORY_NOP:
	case ZYDIS_CATEGORY_CLDEMOTE:
	case ZYDIS_CATEGORY_CLFLUSHOPT:
	case ZYDIS_CATEGORY_CLWB:
		return 1;
	default:
		return in->mnemonic == ZYDIS_MNEMONIC_CLFLUSH;
	}
}

SIGSAFE static int is_branch(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops)
{
	switch (in->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_CALL:
	case ZYDIS_CATEGORY_RET:
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_SYSRET:
	case ZYDIS_CATEGORY_INTERRUPT:
	case ZYDIS_CATEGORY_SYSTEM:
	case ZYDIS_CATEGORY_RDWRFSGS:	/* changes the segment bases addresses depend on */
		return 1;
	default:
		break;
	}
	for (int i = 0; i < in->operand_count; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    (ops[i].reg.value == ZYDIS_REGISTER_RIP) &&
		    (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			return 1;
	return 0;
}

SIGSAFE static void add_access(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op,
			       const struct decode_regs *r, struct decode_insn *out)
{
	struct decode_mem *m = &out->mem[out->n_mem++];
	int wr = !!(op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE);
	int rd = !!(op->actions & ZYDIS_OPERAND_ACTION_MASK_READ);
	unsigned bits = op->mem.type == ZYDIS_MEMOP_TYPE_VSIB ? op->element_size : op->size;

	m->len = (uint16_t)(bits ? (bits + 7) / 8 : 1);
	if (wr)
		m->flags |= SONDE_MEM_STORE;
	if ((wr && rd) || (in->attributes & ZYDIS_ATTRIB_HAS_LOCK))
		m->flags |= SONDE_MEM_RMW;
	mem_address(in, op, r, m);
	if (in->mnemonic == ZYDIS_MNEMONIC_XLAT) {
		/* Zydis reports [rbx]; the CPU reads [rbx + al] */
		m->addr += r->gpr[DECODE_RAX] & 0xff;
		m->needs |= 1u << DECODE_RAX;
		m->linear = 0;
	}

	int stack_slot = op->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN &&
			 op->mem.base == ZYDIS_REGISTER_RSP;
	ZydisInstructionCategory c = in->meta.category;
	if (stack_slot && wr &&
	    (c == ZYDIS_CATEGORY_PUSH || c == ZYDIS_CATEGORY_CALL ||
	     in->mnemonic == ZYDIS_MNEMONIC_ENTER))
		m->addr -= m->len;		/* the slot below the current top */
	if (!stack_slot && c == ZYDIS_CATEGORY_POP && wr && op->mem.base == ZYDIS_REGISTER_RSP)
		m->addr += in->operand_width / 8;	/* pop [rsp+d]: rsp after the pop */
	set_disp(m, r);
}

/* ---- emulation descriptors ---- */

SIGSAFE static int simple_gpr(const ZydisDecodedOperand *op)
{
	if (op->type != ZYDIS_OPERAND_TYPE_REGISTER || is_high_byte(op->reg.value))
		return -1;
	return gpr_index(op->reg.value);
}

SIGSAFE static uint8_t arith_op(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_ADD: return DECODE_OP_ADD;
	case ZYDIS_MNEMONIC_SUB: return DECODE_OP_SUB;
	case ZYDIS_MNEMONIC_CMP: return DECODE_OP_CMP;
	case ZYDIS_MNEMONIC_AND: return DECODE_OP_AND;
	case ZYDIS_MNEMONIC_OR: return DECODE_OP_OR;
	case ZYDIS_MNEMONIC_XOR: return DECODE_OP_XOR;
	case ZYDIS_MNEMONIC_TEST: return DECODE_OP_TEST;
	case ZYDIS_MNEMONIC_MOV: return DECODE_OP_MOV_REG;
	default: return DECODE_OP_OTHER;
	}
}

/* A plain memory operand that is the instruction's only access (then it is mem[0]). */
SIGSAFE static int sole_mem(const ZydisDecodedOperand *op, const struct decode_insn *out)
{
	return op->type == ZYDIS_OPERAND_TYPE_MEMORY && op->mem.type == ZYDIS_MEMOP_TYPE_MEM &&
	       out->n_mem == 1 && !out->mem_dropped;
}

/* A source operand the emulation can read: a register, or the instruction's one memory
 * operand.  Sets out->src or out->mem_arg; 0 if it is neither. */
SIGSAFE static int src_operand(const ZydisDecodedOperand *op, struct decode_insn *out)
{
	int s = simple_gpr(op);
	if (s >= 0)
		out->src = (int8_t)s;
	else if (sole_mem(op, out))
		out->mem_arg = DECODE_ARG_SRC;
	else
		return 0;
	return 1;
}

/* Two-operand forms: reg or mem destination; reg, mem or imm source (not mem and mem). */
SIGSAFE static void describe_binary(const ZydisDecodedInstruction *in,
				    const ZydisDecodedOperand *ops, struct decode_insn *out)
{
	uint8_t op = arith_op(in->mnemonic);
	int d = simple_gpr(&ops[0]);
	if (op == DECODE_OP_OTHER || in->operand_count_visible != 2)
		return;
	if (d < 0 && !sole_mem(&ops[0], out))
		return;
	if (ops[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
		out->imm = ops[1].imm.value.s;
		out->has_imm = 1;
		op = op == DECODE_OP_MOV_REG ? DECODE_OP_MOV_IMM : op;
	} else if (d >= 0 && sole_mem(&ops[1], out) && ops[1].size == ops[0].size) {
		out->mem_arg = DECODE_ARG_SRC;
	} else if (simple_gpr(&ops[1]) >= 0 && ops[1].size == ops[0].size) {
		out->src = (int8_t)simple_gpr(&ops[1]);
	} else {
		return;
	}
	if (d < 0)
		out->mem_arg = DECODE_ARG_DST;
	out->dst = (int8_t)d;
	out->width = (uint8_t)(ops[0].size / 8);
	out->op = op;
}

/* movzx, movsx, movsxd: a register destination, a register or memory source. */
SIGSAFE static void describe_extend(const ZydisDecodedInstruction *in,
				    const ZydisDecodedOperand *ops, struct decode_insn *out)
{
	int d = simple_gpr(&ops[0]);
	if (d < 0 || ops[0].size < 16 || ops[1].size < 8 || ops[1].size > ops[0].size ||
	    !src_operand(&ops[1], out))
		return;
	decode_set_movx(out, d, ops[0].size / 8, ops[1].size / 8,
			in->mnemonic != ZYDIS_MNEMONIC_MOVZX);
}

/* shl/shr/sar r, imm (or 1) and imul r, r/m[, imm]: common in index arithmetic. */
SIGSAFE static void describe_scale(const ZydisDecodedInstruction *in,
				   const ZydisDecodedOperand *ops, struct decode_insn *out)
{
	int d = simple_gpr(&ops[0]);
	if (d < 0 || ops[0].size < 32)
		return;
	if (in->mnemonic == ZYDIS_MNEMONIC_IMUL) {
		if (in->operand_count_visible < 2)
			return;		/* one-operand imul writes rdx:rax */
		if (!src_operand(&ops[1], out))
			return;
		if (in->operand_count_visible == 3) {
			if (ops[2].type != ZYDIS_OPERAND_TYPE_IMMEDIATE)
				return;
			out->imm = ops[2].imm.value.s;
			out->has_imm = 1;
		}
		out->op = DECODE_OP_IMUL;
	} else {
		if (ops[1].type != ZYDIS_OPERAND_TYPE_IMMEDIATE)
			return;		/* shift by cl: not modelled */
		out->imm = (int64_t)(ops[1].imm.value.u & (ops[0].size == 64 ? 63 : 31));
		out->op = in->mnemonic == ZYDIS_MNEMONIC_SHL ? DECODE_OP_SHL :
			  in->mnemonic == ZYDIS_MNEMONIC_SHR ? DECODE_OP_SHR : DECODE_OP_SAR;
	}
	out->dst = (int8_t)d;
	out->width = (uint8_t)(ops[0].size / 8);
}

/* div/idiv r/m32, r/m64 (an index modulo a count: `rand() % n`, hashing): rdx:rax by src.
 * The 8- and 16-bit forms (ah, dx:ax) are not modelled. */
SIGSAFE static void describe_div(const ZydisDecodedInstruction *in,
				 const ZydisDecodedOperand *ops, struct decode_insn *out)
{
	if (in->operand_count_visible != 1 || (ops[0].size != 32 && ops[0].size != 64) ||
	    !src_operand(&ops[0], out))
		return;
	out->op = in->mnemonic == ZYDIS_MNEMONIC_DIV ? DECODE_OP_DIV : DECODE_OP_IDIV;
	out->dst = DECODE_RAX;
	out->width = (uint8_t)(ops[0].size / 8);
}

/* jmp reg / jmp [m] (jump tables, PLT stubs): the target is a value. */
SIGSAFE static void describe_jmp_ind(const ZydisDecodedOperand *ops, struct decode_insn *out)
{
	if (ops[0].size != 64 || !src_operand(&ops[0], out))
		return;
	out->op = DECODE_OP_JMP_IND;
	out->width = 8;
}

/* setcc r8 (0f 90+cc) and cmovcc r, r/m (0f 40+cc): branch-free selects in index code. */
SIGSAFE static void describe_cond(const ZydisDecodedInstruction *in,
				  const ZydisDecodedOperand *ops, struct decode_insn *out)
{
	int d = simple_gpr(&ops[0]);
	if (d < 0 || in->encoding != ZYDIS_INSTRUCTION_ENCODING_LEGACY)
		return;
	out->cond = in->opcode & 0xf;
	if ((in->opcode & 0xf0) == 0x90) {
		if (ops[0].size != 8)
			return;
		out->op = DECODE_OP_SETCC;
		out->width = 1;
	} else {
		if (ops[0].size < 32 || ops[1].size != ops[0].size || !src_operand(&ops[1], out))
			return;
		out->op = DECODE_OP_CMOV;
		out->width = (uint8_t)(ops[0].size / 8);
	}
	out->dst = (int8_t)d;
}

SIGSAFE static void describe(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
			     const struct decode_regs *r, struct decode_insn *out)
{
	out->dst = out->src = -1;
	out->op = DECODE_OP_OTHER;
	switch (in->meta.category) {
	case ZYDIS_CATEGORY_NOP:
	case ZYDIS_CATEGORY_WIDENOP:
	case ZYDIS_CATEGORY_PREFETCH:
		out->op = DECODE_OP_NOP;
		return;
	default:
		break;
	}
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_LEA: {
		int d = simple_gpr(&ops[0]);
		if (d < 0 || ops[0].size < 32)
			return;
		mem_address(in, &ops[1], r, &out->lea);
		set_disp(&out->lea, r);
		out->op = DECODE_OP_LEA;
		out->dst = (int8_t)d;
		out->width = (uint8_t)(ops[0].size / 8);
		return;
	}
	case ZYDIS_MNEMONIC_INC:
	case ZYDIS_MNEMONIC_DEC: {
		int d = simple_gpr(&ops[0]);
		if (d < 0 && !sole_mem(&ops[0], out))
			return;
		if (d < 0)
			out->mem_arg = DECODE_ARG_DST;
		out->op = in->mnemonic == ZYDIS_MNEMONIC_INC ? DECODE_OP_INC : DECODE_OP_DEC;
		out->dst = (int8_t)d;
		out->width = (uint8_t)(ops[0].size / 8);
		return;
	}
	case ZYDIS_MNEMONIC_PUSH:
	case ZYDIS_MNEMONIC_PUSHFQ:
		out->op = DECODE_OP_PUSH;
		out->width = (uint8_t)(in->operand_width / 8);
		/* the value pushed, when it is a register or an immediate */
		if (in->mnemonic == ZYDIS_MNEMONIC_PUSH) {
			if (ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
				out->imm = ops[0].imm.value.s;
				out->has_imm = 1;
			} else if (ops[0].size / 8 == out->width) {
				out->src = (int8_t)simple_gpr(&ops[0]);
			}
		}
		return;
	case ZYDIS_MNEMONIC_MOVZX:
	case ZYDIS_MNEMONIC_MOVSX:
	case ZYDIS_MNEMONIC_MOVSXD:
		describe_extend(in, ops, out);
		return;
	case ZYDIS_MNEMONIC_CDQE:
		out->src = DECODE_RAX;
		decode_set_movx(out, DECODE_RAX, 8, 4, 1);
		return;
	case ZYDIS_MNEMONIC_SHL:
	case ZYDIS_MNEMONIC_SHR:
	case ZYDIS_MNEMONIC_SAR:
	case ZYDIS_MNEMONIC_IMUL:
		describe_scale(in, ops, out);
		return;
	case ZYDIS_MNEMONIC_DIV:
	case ZYDIS_MNEMONIC_IDIV:
		describe_div(in, ops, out);
		return;
	case ZYDIS_MNEMONIC_CQO:
	case ZYDIS_MNEMONIC_CDQ:
		/* the sign extension before an idiv */
		out->op = DECODE_OP_CQO;
		out->dst = DECODE_RDX;
		out->src = DECODE_RAX;
		out->width = in->mnemonic == ZYDIS_MNEMONIC_CQO ? 8 : 4;
		return;
	case ZYDIS_MNEMONIC_POP:
		out->op = DECODE_OP_POP;
		out->width = (uint8_t)(in->operand_width / 8);
		out->dst = (int8_t)simple_gpr(&ops[0]);
		return;
	case ZYDIS_MNEMONIC_CALL:
		if (ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && in->operand_width == 64) {
			out->op = DECODE_OP_CALL;
			out->width = 8;
			out->target = r->rip + in->length + (uint64_t)ops[0].imm.value.s;
		}
		return;
	case ZYDIS_MNEMONIC_RET:
		if (in->operand_width != 64)
			return;
		out->op = DECODE_OP_RET;
		out->width = 8;
		if (ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
			out->imm = (int64_t)ops[0].imm.value.u;
			out->has_imm = 1;
		}
		return;
	case ZYDIS_MNEMONIC_JMP:
		if (ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
			out->op = DECODE_OP_JMP;
			out->target = r->rip + in->length + (uint64_t)ops[0].imm.value.s;
		} else {
			describe_jmp_ind(ops, out);
		}
		return;
	default:
		break;
	}
	if (in->opcode_map == ZYDIS_OPCODE_MAP_0F && ((in->opcode & 0xf0) == 0x90 ||
						     (in->opcode & 0xf0) == 0x40)) {
		describe_cond(in, ops, out);
		return;
	}
	if (in->meta.category == ZYDIS_CATEGORY_COND_BR && ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
	    ((in->opcode_map == ZYDIS_OPCODE_MAP_DEFAULT && (in->opcode & 0xf0) == 0x70) ||
	     (in->opcode_map == ZYDIS_OPCODE_MAP_0F && (in->opcode & 0xf0) == 0x80))) {
		out->op = DECODE_OP_JCC;
		out->cond = in->opcode & 0xf;
		out->target = r->rip + in->length + (uint64_t)ops[0].imm.value.s;
		return;
	}
	describe_binary(in, ops, out);
}

SIGSAFE int decode_access_zydis(const uint8_t *code, size_t avail, const struct decode_regs *r,
				struct decode_insn *out)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];

	memset(out, 0, sizeof(*out));
	/* not loaded here: decode_init is dlopen, and this runs in handlers; the sources and
	 * the unit tests call it at start */
	if (decoder_ready <= 0 ||
	    ZYAN_FAILED(decode_zy.decode_full(&decoder, code, avail, &in, ops)))
		return -1;
	out->len = in.length;
	out->branch = (uint8_t)is_branch(&in, ops);
	out->rep = (in.meta.category == ZYDIS_CATEGORY_STRINGOP ||
		    in.meta.category == ZYDIS_CATEGORY_IOSTRINGOP) &&
		   (in.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
				     ZYDIS_ATTRIB_HAS_REPNE));
	out->pushf = in.mnemonic == ZYDIS_MNEMONIC_PUSHFQ || in.mnemonic == ZYDIS_MNEMONIC_PUSHF;
	out->sets_tf = in.mnemonic == ZYDIS_MNEMONIC_POPF || in.mnemonic == ZYDIS_MNEMONIC_POPFQ ||
		       in.mnemonic == ZYDIS_MNEMONIC_IRET || in.mnemonic == ZYDIS_MNEMONIC_IRETQ ||
		       in.mnemonic == ZYDIS_MNEMONIC_IRETD;
	out->pushf_image = in.mnemonic == ZYDIS_MNEMONIC_POPF || in.mnemonic == ZYDIS_MNEMONIC_POPFQ;
	if (in.mnemonic == ZYDIS_MNEMONIC_SYSCALL)
		out->syscall = DECODE_SYSCALL_64;
	else if (in.mnemonic == ZYDIS_MNEMONIC_INT && in.operand_count > 0 &&
		 ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ops[0].imm.value.u == 0x80)
		out->syscall = DECODE_SYSCALL_INT80;

	int skip = not_an_access(&in);
	uint64_t count = in.address_width == 32 ? r->gpr[DECODE_RCX] & 0xffffffffu :
						  r->gpr[DECODE_RCX];
	if (out->rep && count == 0)
		skip = 1;	/* rep with rcx = 0 does nothing */
	for (int i = 0; i < in.operand_count; i++) {
		const ZydisDecodedOperand *op = &ops[i];
		if (op->type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			out->writes |= reg_bits(op->reg.value);
		if (op->type != ZYDIS_OPERAND_TYPE_MEMORY || skip || !op->actions ||
		    (op->mem.type != ZYDIS_MEMOP_TYPE_MEM && op->mem.type != ZYDIS_MEMOP_TYPE_VSIB))
			continue;
		if (out->n_mem == DECODE_MAX_MEM) {
			out->mem_dropped = 1;
			continue;
		}
		add_access(&in, op, r, out);
		if (out->rep)
			out->mem[out->n_mem - 1].needs |= 1u << DECODE_RCX;
	}
	describe(&in, ops, r, out);
	return in.length;
}

/* The lite decoder first (decode-lite.c: the common instructions, to the same answer), Zydis
 * for the rest: most of the look-ahead's decodes then touch no page of libZydis. */
SIGSAFE int decode_access(const uint8_t *code, size_t avail, const struct decode_regs *r,
			  struct decode_insn *out)
{
	int n = decode_access_lite(code, avail, r, out);
	return n > 0 ? n : decode_access_zydis(code, avail, r, out);
}

/*
 * Which instruction ends at the PC, told by decoding forwards: a chain of decodes from a
 * start inside an instruction falls into step with the real stream within a few
 * instructions, so from each of the bytes before the PC (up to 64, in the PC's page) the
 * chain is followed to the PC and votes[k] counts the starts
 * whose chain ends there with a k-byte instruction.  Each byte is decoded once: a chain
 * from a byte ends where the chain from its next instruction ends.  -1 if too little code
 * could be read.
 */
SIGSAFE static int trap_votes(uint64_t next, struct decode_regs *r, int votes[16])
{
	enum { BACK = 64 };
	uint8_t code[BACK];
	int8_t ends[BACK];
	struct decode_insn d;
	int w = BACK;

	/* within the PC's page only: decode_read_code's fallback (process_vm_readv filtered)
	 * copies from the first page asked for, which before the PC's may be unmapped (the
	 * code review of 2026-11-28: SIGSEGV in the handler, a seccomp filter and code at a
	 * page's start after a hole) */
	if ((int)(next & 4095) < BACK)
		w = (int)(next & 4095);
	if (w < 16 || decode_read_code(next - (uint64_t)w, code, (size_t)w) != w)
		return -1;
	for (int k = 0; k < 16; k++)
		votes[k] = 0;
	for (int pos = w - 1; pos >= 0; pos--) {
		r->rip = next - (uint64_t)(w - pos);
		int n = decode_access(code + pos, (size_t)(w - pos), r, &d);
		ends[pos] = n <= 0 || pos + n > w ? 0 : pos + n == w ? (int8_t)n : ends[pos + n];
		if (pos <= w - 16)	/* a start at least an instruction's length back */
			votes[ends[pos]]++;
	}
	return 0;
}

/* The registers at uc and the 15 bytes before its PC (*next), from the PC's page only (see
 * trap_votes: an instruction that starts on the page before is not decoded): 0, or -1. */
SIGSAFE static int before_pc(const ucontext_t *uc, struct decode_regs *r, uint8_t code[15],
			     uint64_t *next)
{
	decode_regs_from_ucontext(uc, r);
	*next = r->rip;
	if (*next < 4096 + 64 || (*next & 4095) < 15 ||
	    decode_read_code(*next - 15, code, 15) < 15)
		return -1;
	return 0;
}

/* Do the last k of the 15 bytes before next decode as one k-byte instruction (into *d,
 * with r's registers)? */
SIGSAFE static int ends_at_pc(const uint8_t code[15], int k, uint64_t next,
			      struct decode_regs *r, struct decode_insn *d)
{
	r->rip = next - (uint64_t)k;
	return decode_access(code + 15 - k, (size_t)k, r, d) == k;
}

/*
 * The access a data breakpoint trapped on: the debug exception comes after the
 * instruction, at the next one (uc's rip), so the instruction is found backwards: each
 * length k of 1-15 whose decode at rip - k is k bytes long and has a memory access
 * overlapping the watched [lo, hi), with the registers as the trap left them.  An
 * instruction that changed its own address registers (mov (%rax),%rax; pop) computes
 * another address and is not taken.  Readings that differ are told apart by the forward
 * decodes (trap_votes): an SSE instruction's mandatory prefix read as the instruction
 * before's last byte leaves another instruction on the same operand (f2 0f 59 04 c6,
 * mulsd of 8 bytes; 0f 59 04 c6, mulps of 16), and before the votes every such trap went
 * undecoded (NPB CG.A: 0 of 3).  0 and *addr, *len for the reading the most chains reach;
 * -1 where none overlaps or the votes tie.  Handler-safe.
 */
SIGSAFE int decode_trap_access(const ucontext_t *uc, uint64_t lo, uint64_t hi, uint64_t *addr,
			       uint32_t *len)
{
	uint8_t code[15];	/* the bytes before the trap's PC: the instruction ends there */
	struct decode_regs r;
	struct decode_insn d;
	struct {
		uint64_t addr;
		uint32_t len;
	} cand[16] = { { 0, 0 } };	/* by instruction length; len 0: none */
	int found = 0, differ = 0, first = 0;

	uint64_t next;
	if (before_pc(uc, &r, code, &next))
		return -1;
	for (int k = 1; k <= 15; k++) {
		if (!ends_at_pc(code, k, next, &r, &d))
			continue;
		for (int i = 0; i < d.n_mem; i++) {
			const struct decode_mem *m = &d.mem[i];
			if (!m->len || m->addr >= hi || m->addr + m->len <= lo)
				continue;
			if (cand[k].len && (m->addr != cand[k].addr || m->len != cand[k].len))
				return -1;	/* one instruction, two accesses there: none */
			cand[k].addr = m->addr;
			cand[k].len = m->len;
			if (found && (m->addr != cand[first].addr || m->len != cand[first].len))
				differ = 1;
			if (!found)
				first = k;
			found = 1;
		}
	}
	if (!found)
		return -1;
	int best = first;
	if (differ) {
		int votes[16], most = 0, tie = 0;
		if (trap_votes(next, &r, votes))
			return -1;
		/* a reading's votes: those of every length that gives it (a redundant prefix
		 * gives the same access at two lengths) */
		int total[16] = { 0 };
		for (int k = 1; k <= 15; k++)
			for (int j = 1; j <= 15 && cand[k].len; j++)
				if (cand[j].len && cand[j].addr == cand[k].addr &&
				    cand[j].len == cand[k].len)
					total[k] += votes[j];
		best = 0;
		for (int k = 1; k <= 15; k++) {
			if (!cand[k].len || !total[k] || total[k] < most)
				continue;
			if (total[k] > most) {
				most = total[k];
				best = k;
				tie = 0;
			} else if (cand[k].addr != cand[best].addr || cand[k].len != cand[best].len) {
				tie = 1;
			}
		}
		if (!best || tie)
			return -1;
	}
	*addr = cand[best].addr;
	*len = cand[best].len;
	return 0;
}

SIGSAFE int decode_prev_access(const ucontext_t *uc, struct decode_mem *m, uint64_t *ip)
{
	uint8_t code[15];
	struct decode_regs r;
	struct decode_insn d;
	struct decode_mem cm[16];
	int ok[16] = { 0 }, has[16] = { 0 }, any = 0;

	uint64_t next;
	if (before_pc(uc, &r, code, &next))
		return -1;
	for (int k = 1; k <= 15; k++) {
		if (!ends_at_pc(code, k, next, &r, &d))
			continue;
		ok[k] = 1;
		/* (not a branch: it does not fall through to the PC, and an indirect call's
		 * address registers hold what the callee left: the second code review) */
		if (d.n_mem > 0 && !d.rep && !d.branch && !(d.mem[0].flags & DECODE_MEM_UNKNOWN) &&
		    !(d.writes & d.mem[0].needs) && d.mem[0].len) {
			cm[k] = d.mem[0];
			has[k] = any = 1;
		}
	}
	if (!any)	/* no reading has an access: whichever it is, none */
		return -1;
	int votes[16], best = 0, most = 0, tie = 0;
	if (trap_votes(next, &r, votes))
		return -1;
	for (int k = 1; k <= 15; k++) {
		if (!ok[k] || !votes[k] || votes[k] < most)
			continue;
		tie = votes[k] == most;
		most = votes[k];
		best = k;
	}
	if (!best || tie || !has[best])
		return -1;
	*m = cm[best];
	*ip = next - (uint64_t)best;
	return 0;
}

/* ---- emulation ---- */

SIGSAFE static int parity_even(uint64_t v)
{
	return !__builtin_parity((unsigned)(v & 0xff));
}

SIGSAFE static uint64_t width_mask(int w)
{
	return w >= 8 ? ~0ull : (1ull << (8 * w)) - 1;
}

/* Result and flags of an arithmetic or logic op at width w (bytes). */
SIGSAFE static uint64_t alu(int op, uint64_t a, uint64_t b, int w, uint64_t *fl)
{
	uint64_t mask = width_mask(w), sign = 1ull << (8 * w - 1), res;
	uint64_t f = *fl & ~(uint64_t)EFL_ARITH;
	a &= mask;
	b &= mask;
	switch (op) {
	case DECODE_OP_ADD:
	case DECODE_OP_INC:
		res = (a + b) & mask;
		if (op == DECODE_OP_ADD ? res < a : (*fl & EFL_CF))
			f |= EFL_CF;
		if ((a ^ res) & (b ^ res) & sign)
			f |= EFL_OF;
		break;
	case DECODE_OP_SUB:
	case DECODE_OP_CMP:
	case DECODE_OP_DEC:
		res = (a - b) & mask;
		if (op == DECODE_OP_DEC ? (*fl & EFL_CF) : a < b)
			f |= EFL_CF;
		if ((a ^ b) & (a ^ res) & sign)
			f |= EFL_OF;
		break;
	case DECODE_OP_AND:
	case DECODE_OP_TEST:
		res = a & b;
		break;
	case DECODE_OP_OR:
		res = a | b;
		break;
	default:
		res = a ^ b;
		break;
	}
	if (!res)
		f |= EFL_ZF;
	if (res & sign)
		f |= EFL_SF;
	if (parity_even(res))
		f |= EFL_PF;
	*fl = f;
	return res;
}

SIGSAFE static int cond_holds(int cc, uint64_t f)
{
	int cf = !!(f & EFL_CF), zf = !!(f & EFL_ZF), sf = !!(f & EFL_SF);
	int of = !!(f & EFL_OF), pf = !!(f & EFL_PF), v;
	switch (cc >> 1) {
	case 0: v = of; break;
	case 1: v = cf; break;
	case 2: v = zf; break;
	case 3: v = cf || zf; break;
	case 4: v = sf; break;
	case 5: v = pf; break;
	case 6: v = sf != of; break;
	default: v = zf || sf != of; break;
	}
	return (cc & 1) ? !v : v;
}

SIGSAFE uint32_t decode_cond_needs(int cond)
{
	int test = (cond & 0xf) >> 1;	/* 1: b/ae (CF), 3: be/a (CF or ZF) */
	return test == 1 || test == 3 ? DECODE_KNOWN_FLAGS : DECODE_KNOWN_FLAGS_NC;
}

/* Write a result into a GPR the way the CPU does: 32-bit writes zero-extend, 8- and 16-bit
 * writes merge. */
SIGSAFE static void set_gpr(struct decode_regs *r, int g, uint64_t v, int w)
{
	if (w >= 4)
		r->gpr[g] = v & width_mask(w);
	else
		r->gpr[g] = (r->gpr[g] & ~width_mask(w)) | (v & width_mask(w));
}

SIGSAFE static uint64_t extend(uint64_t v, int w, int sext)
{
	uint64_t mask = width_mask(w);
	v &= mask;
	if (sext && w < 8 && (v >> (8 * w - 1)) & 1)
		v |= ~mask;
	return v;
}

/* ---- memory seen by the look-ahead ---- */

static volatile int data_reads_refused;	/* process_vm_readv filtered: stop trying */

SIGSAFE long decode_read_data(uint64_t addr, uint8_t *buf, size_t len)
{
	/* Not a direct read, even of an address the program is about to load: a wrong
	 * prediction (another thread changed the pointer) or a program that relies on its
	 * own SIGSEGV handler (guard pages, GC barriers) would fault inside our handler, and
	 * a watchpoint a tool armed on that address would fire on our read.  The kernel's
	 * copy does neither, and refuses device (VM_IO) mappings whose reads have effects. */
	if (data_reads_refused)
		return -ENOSYS;
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(mem_pid(), &local, 1, &remote, 1, 0);
	if (n >= 0)
		return n;
	if (errno == ENOSYS || errno == EPERM)
		data_reads_refused = 1;
	return -errno;
}

SIGSAFE void decode_shadow_init(struct decode_shadow *s, decode_reader read, void *ctx,
				int max_reads)
{
	s->read = read;
	s->ctx = ctx;
	s->max_reads = max_reads;
	s->reads = s->loads = s->poisoned = 0;
	s->n_stores = s->n_lines = s->next_line = 0;
}

/* The cached 64-byte line holding addr, read on first use; NULL if unreadable. */
SIGSAFE static const uint8_t *shadow_line(struct decode_shadow *s, uint64_t addr)
{
	uint64_t base = addr & ~63ull;
	for (int i = 0; i < s->n_lines; i++)
		if (s->line[i].addr == base)
			return s->line[i].ok ? s->line[i].b : NULL;
	if (!s->read || s->reads >= s->max_reads)
		return NULL;
	s->reads++;
	int slot = s->n_lines < DECODE_SHADOW_LINES ? s->n_lines++ :
						      s->next_line++ % DECODE_SHADOW_LINES;
	struct decode_line *l = &s->line[slot];
	l->addr = base;
	/* a whole aligned line never crosses a page: it reads entirely or not at all */
	l->ok = s->read(s->ctx, base, l->b, sizeof(l->b)) == 0;
	return l->ok ? l->b : NULL;
}

/* The byte at addr as the path sees it: 0, or -1 if unknown. */
SIGSAFE static int shadow_byte(struct decode_shadow *s, uint64_t addr, uint8_t *b)
{
	for (int j = s->n_stores - 1; j >= 0; j--) {
		const struct decode_store *st = &s->st[j];
		if (addr - st->addr >= st->len)
			continue;
		if (!st->known)
			return -1;
		*b = (uint8_t)(st->val >> (8 * (addr - st->addr)));
		return 0;
	}
	const uint8_t *line = shadow_line(s, addr);
	if (!line)
		return -1;
	*b = line[addr & 63];
	return 0;
}

SIGSAFE int decode_shadow_load(struct decode_shadow *s, uint64_t addr, unsigned len, uint64_t *val)
{
	uint8_t b[8];
	uint64_t v = 0;

	if (!s || s->poisoned || len == 0 || len > sizeof(b))
		return -1;
	for (unsigned i = 0; i < len; i++)
		if (shadow_byte(s, addr + i, &b[i]))
			return -1;
	memcpy(&v, b, len);		/* x86 is little-endian */
	*val = v;
	s->loads++;
	return 0;
}

SIGSAFE void decode_shadow_store(struct decode_shadow *s, uint64_t addr, unsigned len, uint64_t val,
				 int known)
{
	if (!s || s->poisoned)
		return;
	if (s->n_stores == DECODE_SHADOW_STORES) {
		s->poisoned = 1;	/* forgetting a store would expose stale memory */
		return;
	}
	struct decode_store *st = &s->st[s->n_stores++];
	st->addr = addr;
	st->len = len ? len : 1;
	st->val = val;
	st->known = known && len <= 8;
}

/* ---- emulation ---- */

/* One instruction being emulated. */
struct emu {
	const struct decode_insn *in;
	struct decode_regs *r;
	uint32_t before;		/* known bits before the instruction */
	uint32_t k;			/* known bits after it, being built */
	struct decode_shadow *mem;	/* NULL: memory is never read */
	int stored;			/* the op recorded its stores itself */
};

SIGSAFE static int mem0_addr_known(const struct emu *e)
{
	const struct decode_mem *m = &e->in->mem[0];
	return e->in->n_mem > 0 && !(m->flags & DECODE_MEM_UNKNOWN) &&
	       (e->before & m->needs) == m->needs;
}

SIGSAFE static int load_mem0(const struct emu *e, uint64_t *v)
{
	if (!e->mem || !mem0_addr_known(e))
		return -1;
	return decode_shadow_load(e->mem, e->in->mem[0].addr, e->in->mem[0].len, v);
}

SIGSAFE static void poison(struct emu *e)
{
	if (e->mem)
		e->mem->poisoned = 1;
}

SIGSAFE static void store_mem0(struct emu *e, uint64_t v, int ok)
{
	e->stored = 1;
	if (!e->mem)
		return;
	if (!mem0_addr_known(e)) {
		poison(e);
		return;
	}
	decode_shadow_store(e->mem, e->in->mem[0].addr, e->in->mem[0].len, v, ok);
}

/* A GPR's value before the instruction: 0, or -1 if unknown. */
SIGSAFE static int reg_value(const struct emu *e, int g, uint64_t *v)
{
	if (g < 0 || !(e->before & (1u << g)))
		return -1;
	*v = e->r->gpr[g];
	return 0;
}

SIGSAFE static int src_value(const struct emu *e, uint64_t *v)
{
	if (e->in->mem_arg == DECODE_ARG_SRC)
		return load_mem0(e, v);
	if (e->in->src >= 0)
		return reg_value(e, e->in->src, v);
	*v = (uint64_t)e->in->imm;
	return e->in->has_imm ? 0 : -1;
}

SIGSAFE static int dst_value(const struct emu *e, uint64_t *v)
{
	if (e->in->mem_arg == DECODE_ARG_DST)
		return load_mem0(e, v);
	return reg_value(e, e->in->dst, v);
}

/* Write op's result (ok: known) to its register or memory destination. */
SIGSAFE static void put_result(struct emu *e, uint64_t v, int ok)
{
	const struct decode_insn *in = e->in;
	if (in->mem_arg == DECODE_ARG_DST) {
		store_mem0(e, v, ok);
		return;
	}
	uint32_t bit = 1u << in->dst;
	e->k &= ~bit;
	/* 8- and 16-bit writes merge into the old value, which must be known too */
	if (ok && (in->width >= 4 || (e->before & bit))) {
		set_gpr(e->r, in->dst, v, in->width);
		e->k |= bit;
	}
}

SIGSAFE static void emulate_move(struct emu *e)
{
	const struct decode_insn *in = e->in;
	uint64_t v = 0;
	int ok = src_value(e, &v) == 0;
	if (in->op == DECODE_OP_MOVX)
		v = extend(v, in->swidth, in->sext);
	e->k &= ~in->writes;
	put_result(e, v, ok);
}

SIGSAFE static void emulate_alu(struct emu *e)
{
	const struct decode_insn *in = e->in;
	uint64_t a = 0, b = 1;
	int ok = dst_value(e, &a) == 0, flags_ok = 1;
	if (in->op == DECODE_OP_INC || in->op == DECODE_OP_DEC)
		flags_ok = !!(e->before & DECODE_KNOWN_FLAGS);	/* CF survives */
	else
		ok = src_value(e, &b) == 0 && ok;
	if (in->op == DECODE_OP_XOR && in->src == in->dst && in->src >= 0) {
		a = b = 0;	/* xor r, r: zero whatever r was */
		ok = 1;
	}
	int writes_dst = in->op != DECODE_OP_CMP && in->op != DECODE_OP_TEST;
	if (!ok) {
		e->k &= ~in->writes;
		if (writes_dst && in->mem_arg == DECODE_ARG_DST)
			store_mem0(e, 0, 0);
		return;
	}
	uint64_t fl = e->r->rflags;
	uint64_t res = alu(in->op, a, b, in->width, &fl);
	e->r->rflags = fl;
	/* all but CF come from the result; inc/dec's CF is the old one, known or not */
	e->k |= DECODE_KNOWN_FLAGS_NC;
	if (flags_ok)
		e->k |= DECODE_KNOWN_FLAGS;
	else
		e->k &= ~DECODE_KNOWN_FLAGS;
	if (writes_dst)
		put_result(e, res, 1);
}

/* shl/shr/sar by an immediate, imul: the result; the flags become unknown. */
SIGSAFE static void emulate_scale(struct emu *e)
{
	const struct decode_insn *in = e->in;
	uint64_t a = 0, b = 0;
	int ok, n = (int)in->imm;

	if (in->op == DECODE_OP_IMUL) {
		ok = (in->mem_arg == DECODE_ARG_SRC ? load_mem0(e, &a) : reg_value(e, in->src, &a)) == 0;
		if (in->has_imm)
			b = (uint64_t)in->imm;
		else
			ok = reg_value(e, in->dst, &b) == 0 && ok;
		a *= b;		/* the low bits of a product do not depend on signedness */
	} else {
		ok = reg_value(e, in->dst, &a) == 0;
		if (in->op == DECODE_OP_SHL)
			a <<= n;
		else if (in->op == DECODE_OP_SHR)
			a = (a & width_mask(in->width)) >> n;
		else
			a = (uint64_t)((int64_t)extend(a, in->width, 1) >> n);
	}
	e->k &= ~in->writes;
	put_result(e, a, ok);
}

/*
 * The quotient and remainder of hi:lo by d as div (sign 0) or idiv (sign 1) of width w (4 or
 * 8 bytes) computes them: 0, or -1 where the CPU raises #DE (d = 0, a quotient that does
 * not fit in w bytes): the program faults there, and the look-ahead stops.
 */
SIGSAFE static int divide(int sign, int w, uint64_t lo, uint64_t hi, uint64_t d, uint64_t *q,
			  uint64_t *rem)
{
	unsigned __int128 n;
	if (w == 8)
		n = (unsigned __int128)hi << 64 | lo;
	else
		n = (unsigned __int128)((hi & 0xffffffffull) << 32 | (lo & 0xffffffffull));
	d &= width_mask(w);
	if (d == 0)
		return -1;
	if (!sign) {
		unsigned __int128 uq = n / d;
		if (uq > width_mask(w))
			return -1;
		*q = (uint64_t)uq;
		*rem = (uint64_t)(n % d);
		return 0;
	}
	/* signed: the dividend is 2w bytes, the divisor w bytes, both two's complement */
	__int128 sn = w == 8 ? (__int128)n : (__int128)(int64_t)(uint64_t)n;
	int64_t sd = (int64_t)extend(d, w, 1);
	__int128 lim = (__int128)1 << (8 * w - 1);
	/* the quotient fits in __int128 except for -2^127 / -1 (w = 8), which fits no w */
	if (sd == -1 && sn == (__int128)((unsigned __int128)1 << 127))
		return -1;
	__int128 sq = sn / sd;
	if (sq < -lim || sq >= lim)
		return -1;
	*q = (uint64_t)sq & width_mask(w);
	*rem = (uint64_t)(sn % sd) & width_mask(w);
	return 0;
}

/* div, idiv: rax, rdx from rdx:rax and the source; flags (undefined) unknown. */
SIGSAFE static void emulate_div(struct emu *e)
{
	const struct decode_insn *in = e->in;
	uint64_t lo, hi, d, q, rem;
	int ok = reg_value(e, DECODE_RAX, &lo) == 0 && reg_value(e, DECODE_RDX, &hi) == 0 &&
		 src_value(e, &d) == 0 &&
		 divide(in->op == DECODE_OP_IDIV, in->width, lo, hi, d, &q, &rem) == 0;
	e->k &= ~in->writes;
	if (!ok)
		return;
	set_gpr(e->r, DECODE_RAX, q, in->width);
	set_gpr(e->r, DECODE_RDX, rem, in->width);
	e->k |= 1u << DECODE_RAX | 1u << DECODE_RDX;
}

/* setcc, cmovcc: a value chosen by the flags (unknown flags: an unknown result). */
SIGSAFE static void emulate_cond(struct emu *e)
{
	const struct decode_insn *in = e->in;
	uint64_t v = 0;
	int ok = !!(e->before & decode_cond_needs(in->cond));
	int holds = ok && cond_holds(in->cond, e->r->rflags);

	if (in->op == DECODE_OP_SETCC)
		v = (uint64_t)holds;
	else if (ok)
		ok = (holds ? src_value(e, &v) : reg_value(e, in->dst, &v)) == 0;
	e->k &= ~in->writes;
	put_result(e, v, ok);
}

SIGSAFE static void emulate_push(struct emu *e)
{
	const struct decode_insn *in = e->in;
	const uint32_t rsp = 1u << DECODE_RSP;
	uint64_t v = 0;
	int ok = in->has_imm ? (v = (uint64_t)in->imm, 1) : reg_value(e, in->src, &v) == 0;
	uint64_t top = e->r->gpr[DECODE_RSP] - in->width;

	e->stored = 1;
	if (e->mem && (e->before & rsp))
		decode_shadow_store(e->mem, top, in->width, v, ok);
	else
		poison(e);
	e->r->gpr[DECODE_RSP] = top;
	e->k &= ~(in->writes & ~rsp);
}

SIGSAFE static void emulate_pop(struct emu *e)
{
	const struct decode_insn *in = e->in;
	const uint32_t rsp = 1u << DECODE_RSP;
	uint64_t v = 0;
	int ok = e->mem && (e->before & rsp) &&
		 !decode_shadow_load(e->mem, e->r->gpr[DECODE_RSP], in->width, &v);

	e->r->gpr[DECODE_RSP] += in->width;
	e->k &= ~(in->writes & ~rsp);
	if (in->dst < 0)
		return;		/* pop [m]: its store is recorded with the others */
	if (in->dst == DECODE_RSP) {
		e->k &= ~rsp;	/* pop rsp: the popped value replaces the increment */
		if (ok)
			e->r->gpr[DECODE_RSP] = v;
	} else if (ok && (in->width >= 4 || (e->before & (1u << in->dst)))) {
		set_gpr(e->r, in->dst, v, in->width);
	} else {
		return;
	}
	if (ok)
		e->k |= 1u << in->dst;
}

/* The stores an op did not record itself: unknown values (or, unknown addresses, poison). */
SIGSAFE static void record_stores(struct emu *e)
{
	const struct decode_insn *in = e->in;
	if (!e->mem || e->stored)
		return;
	if (in->mem_dropped || in->rep) {
		poison(e);
		return;
	}
	for (int k = 0; k < in->n_mem; k++) {
		const struct decode_mem *m = &in->mem[k];
		if (!(m->flags & SONDE_MEM_STORE))
			continue;
		if ((m->flags & (DECODE_MEM_UNKNOWN | DECODE_MEM_VSIB)) ||
		    (e->before & m->needs) != m->needs)
			poison(e);
		else
			decode_shadow_store(e->mem, m->addr, m->len, 0, 0);
	}
}

SIGSAFE static int emulate_branch(struct emu *e)
{
	const struct decode_insn *in = e->in;
	uint64_t v;

	switch (in->op) {
	case DECODE_OP_JMP:
		e->r->rip = in->target;
		return 0;
	case DECODE_OP_JCC:
		if (!(e->before & decode_cond_needs(in->cond)))
			return -1;
		e->r->rip = cond_holds(in->cond, e->r->rflags) ? in->target : e->r->rip + in->len;
		return 0;
	case DECODE_OP_JMP_IND:
		if (src_value(e, &v))
			return -1;
		e->r->rip = v;
		return 0;
	case DECODE_OP_CALL:
		if (!(e->before & (1u << DECODE_RSP)))
			return -1;
		e->r->gpr[DECODE_RSP] -= 8;
		if (e->mem)
			decode_shadow_store(e->mem, e->r->gpr[DECODE_RSP], 8, e->r->rip + in->len, 1);
		e->r->rip = in->target;
		return 0;
	case DECODE_OP_RET:
		if (!(e->before & (1u << DECODE_RSP)) || !e->mem ||
		    decode_shadow_load(e->mem, e->r->gpr[DECODE_RSP], 8, &v))
			return -1;
		e->r->gpr[DECODE_RSP] += 8 + (uint64_t)(in->has_imm ? in->imm : 0);
		e->r->rip = v;
		return 0;
	default:
		return -1;
	}
}

SIGSAFE int decode_emulate_mem(const struct decode_insn *in, struct decode_regs *r, uint32_t *known,
			       struct decode_shadow *mem)
{
	struct emu e = { .in = in, .r = r, .before = *known, .k = *known, .mem = mem };

	if (in->branch)
		return emulate_branch(&e);
	switch (in->op) {
	case DECODE_OP_MOV_IMM: case DECODE_OP_MOV_REG: case DECODE_OP_MOVX:
		emulate_move(&e);
		break;
	case DECODE_OP_LEA:
		set_gpr(r, in->dst, in->lea.addr, in->width);
		e.k &= ~in->writes;
		if (!(in->lea.flags & DECODE_MEM_UNKNOWN) && (e.before & in->lea.needs) == in->lea.needs)
			e.k |= 1u << in->dst;
		break;
	case DECODE_OP_PUSH:
		emulate_push(&e);
		break;
	case DECODE_OP_POP:
		emulate_pop(&e);
		break;
	case DECODE_OP_ADD: case DECODE_OP_SUB: case DECODE_OP_CMP: case DECODE_OP_AND:
	case DECODE_OP_OR: case DECODE_OP_XOR: case DECODE_OP_TEST: case DECODE_OP_INC:
	case DECODE_OP_DEC:
		emulate_alu(&e);
		break;
	case DECODE_OP_SHL: case DECODE_OP_SHR: case DECODE_OP_SAR: case DECODE_OP_IMUL:
		emulate_scale(&e);
		break;
	case DECODE_OP_SETCC: case DECODE_OP_CMOV:
		emulate_cond(&e);
		break;
	case DECODE_OP_DIV: case DECODE_OP_IDIV:
		emulate_div(&e);
		break;
	case DECODE_OP_CQO: {
		uint64_t v;
		int ok = reg_value(&e, DECODE_RAX, &v) == 0;
		e.k &= ~in->writes;
		if (ok) {
			set_gpr(r, DECODE_RDX, extend(v, in->width, 1) >> 63 ? ~0ull : 0, in->width);
			e.k |= 1u << DECODE_RDX;
		}
		break;
	}
	case DECODE_OP_NOP:
		break;
	default:
		e.k &= ~in->writes;
		break;
	}
	record_stores(&e);
	*known = e.k;
	r->rip += in->len;
	return 0;
}

SIGSAFE int decode_emulate(const struct decode_insn *in, struct decode_regs *r, uint32_t *known)
{
	return decode_emulate_mem(in, r, known, NULL);
}
