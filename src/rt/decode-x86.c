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
static int decoder_ready;
static int have_fsgsbase;

void decode_init(void)
{
	if (decoder_ready)
		return;
	ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	have_fsgsbase = !!(getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE);
	decoder_ready = 1;
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
	r->gs_base = read_gs_base();
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
	ssize_t n = process_vm_readv(getpid(), &local, 1, remote, len > first ? 2 : 1, 0);
	if (n >= 0)
		return n;
	if (errno != ENOSYS && errno != EPERM)
		return -errno;
	/* process_vm_readv filtered (seccomp): the PC's own page is mapped, executable and
	 * therefore readable on x86 (no execute-only pages without protection keys). */
	memcpy(buf, (const void *)(uintptr_t)addr, first);
	return (long)first;
}

/* ---- registers ---- */

SIGSAFE static int gpr_index(ZydisRegister reg)
{
	ZydisRegister big = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, reg);
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
	switch (ZydisRegisterGetClass(reg)) {
	case ZYDIS_REGCLASS_FLAGS:
		return DECODE_KNOWN_FLAGS;
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
	const char *s = ZydisMnemonicGetString(m);
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

SIGSAFE static void mem_address(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op,
				const struct decode_regs *r, struct decode_mem *m)
{
	const ZydisDecodedOperandMem *mo = &op->mem;
	uint64_t a = (uint64_t)mo->disp.value;

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
		}
		a += v * (mo->scale ? mo->scale : 1);
	}
	if (in->address_width == 32)
		a &= 0xffffffffu;
	if (mo->segment == ZYDIS_REGISTER_FS)
		a += r->fs_base;
	else if (mo->segment == ZYDIS_REGISTER_GS)
		a += r->gs_base;
	m->addr = a;
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

/* Two-operand forms: reg, reg or reg, imm with a register destination. */
SIGSAFE static void describe_binary(const ZydisDecodedInstruction *in,
				    const ZydisDecodedOperand *ops, struct decode_insn *out)
{
	uint8_t op = arith_op(in->mnemonic);
	if (op == DECODE_OP_OTHER || in->operand_count_visible != 2)
		return;
	int d = simple_gpr(&ops[0]);
	if (d < 0)
		return;
	out->dst = (int8_t)d;
	out->width = (uint8_t)(ops[0].size / 8);
	if (ops[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
		out->imm = ops[1].imm.value.s;
		out->op = op == DECODE_OP_MOV_REG ? DECODE_OP_MOV_IMM : op;
	} else if (simple_gpr(&ops[1]) >= 0 && ops[1].size == ops[0].size) {
		out->src = (int8_t)simple_gpr(&ops[1]);
		out->op = op;
	}
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
		out->op = DECODE_OP_LEA;
		out->dst = (int8_t)d;
		out->width = (uint8_t)(ops[0].size / 8);
		return;
	}
	case ZYDIS_MNEMONIC_INC:
	case ZYDIS_MNEMONIC_DEC: {
		int d = simple_gpr(&ops[0]);
		if (d < 0)
			return;
		out->op = in->mnemonic == ZYDIS_MNEMONIC_INC ? DECODE_OP_INC : DECODE_OP_DEC;
		out->dst = (int8_t)d;
		out->width = (uint8_t)(ops[0].size / 8);
		return;
	}
	case ZYDIS_MNEMONIC_PUSH:
	case ZYDIS_MNEMONIC_PUSHFQ:
		out->op = DECODE_OP_PUSH;
		out->width = (uint8_t)(in->operand_width / 8);
		return;
	case ZYDIS_MNEMONIC_POP:
		out->op = DECODE_OP_POP;
		out->width = (uint8_t)(in->operand_width / 8);
		out->dst = (int8_t)simple_gpr(&ops[0]);
		return;
	case ZYDIS_MNEMONIC_JMP:
		if (ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
			out->op = DECODE_OP_JMP;
			out->target = r->rip + in->length + (uint64_t)ops[0].imm.value.s;
		}
		return;
	default:
		break;
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

SIGSAFE int decode_access(const uint8_t *code, size_t avail, const struct decode_regs *r,
			  struct decode_insn *out)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];

	if (!decoder_ready)
		decode_init();
	memset(out, 0, sizeof(*out));
	if (ZYAN_FAILED(ZydisDecoderDecodeFull(&decoder, code, avail, &in, ops)))
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
		    (op->mem.type != ZYDIS_MEMOP_TYPE_MEM && op->mem.type != ZYDIS_MEMOP_TYPE_VSIB) ||
		    out->n_mem == DECODE_MAX_MEM)
			continue;
		add_access(&in, op, r, out);
		if (out->rep)
			out->mem[out->n_mem - 1].needs |= 1u << DECODE_RCX;
	}
	describe(&in, ops, r, out);
	return in.length;
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

/* Write a result into a GPR the way the CPU does: 32-bit writes zero-extend, 8- and 16-bit
 * writes merge. */
SIGSAFE static void set_gpr(struct decode_regs *r, int g, uint64_t v, int w)
{
	if (w >= 4)
		r->gpr[g] = v & width_mask(w);
	else
		r->gpr[g] = (r->gpr[g] & ~width_mask(w)) | (v & width_mask(w));
}

SIGSAFE static int emulate_alu(const struct decode_insn *in, struct decode_regs *r, uint32_t *known)
{
	uint32_t need = 1u << in->dst;
	uint64_t b = (uint64_t)in->imm;
	if (in->op == DECODE_OP_INC || in->op == DECODE_OP_DEC) {
		b = 1;
		need |= DECODE_KNOWN_FLAGS;	/* CF survives */
	} else if (in->src >= 0) {
		need |= 1u << in->src;
		b = r->gpr[in->src];
	}
	if (in->op == DECODE_OP_XOR && in->src == in->dst)
		need = 1u << in->dst;	/* xor r, r: zero whatever r was */
	if ((*known & need) != need) {
		*known &= ~in->writes;
		return 0;
	}
	uint64_t fl = r->rflags;
	uint64_t res = alu(in->op, r->gpr[in->dst], b, in->width, &fl);
	r->rflags = fl;
	*known |= DECODE_KNOWN_FLAGS;
	if (in->op != DECODE_OP_CMP && in->op != DECODE_OP_TEST)
		set_gpr(r, in->dst, res, in->width);
	return 0;
}

SIGSAFE static int emulate_branch(const struct decode_insn *in, struct decode_regs *r,
				  uint32_t *known)
{
	if (in->op == DECODE_OP_JMP) {
		r->rip = in->target;
		return 0;
	}
	if (in->op == DECODE_OP_JCC && (*known & DECODE_KNOWN_FLAGS)) {
		r->rip = cond_holds(in->cond, r->rflags) ? in->target : r->rip + in->len;
		return 0;
	}
	return -1;
}

SIGSAFE int decode_emulate(const struct decode_insn *in, struct decode_regs *r, uint32_t *known)
{
	uint32_t k = *known;
	const uint32_t rsp = 1u << DECODE_RSP;

	if (in->branch)
		return emulate_branch(in, r, known);
	switch (in->op) {
	case DECODE_OP_MOV_IMM:
		set_gpr(r, in->dst, (uint64_t)in->imm, in->width);
		k = (k & ~in->writes) | (1u << in->dst);
		if (in->width < 4 && !(*known & (1u << in->dst)))
			k &= ~(1u << in->dst);	/* merged into an unknown value */
		break;
	case DECODE_OP_MOV_REG:
		set_gpr(r, in->dst, r->gpr[in->src], in->width);
		k &= ~in->writes;
		if ((*known & (1u << in->src)) && (in->width >= 4 || (*known & (1u << in->dst))))
			k |= 1u << in->dst;
		break;
	case DECODE_OP_LEA:
		set_gpr(r, in->dst, in->lea.addr, in->width);
		k &= ~in->writes;
		if (!(in->lea.flags & DECODE_MEM_UNKNOWN) && (*known & in->lea.needs) == in->lea.needs)
			k |= 1u << in->dst;
		break;
	case DECODE_OP_PUSH:
		r->gpr[DECODE_RSP] -= in->width;
		k &= ~(in->writes & ~rsp);
		break;
	case DECODE_OP_POP:
		r->gpr[DECODE_RSP] += in->width;
		k &= ~(in->writes & ~rsp);
		if (in->dst == DECODE_RSP)
			k &= ~rsp;
		break;
	case DECODE_OP_ADD: case DECODE_OP_SUB: case DECODE_OP_CMP: case DECODE_OP_AND:
	case DECODE_OP_OR: case DECODE_OP_XOR: case DECODE_OP_TEST: case DECODE_OP_INC:
	case DECODE_OP_DEC:
		emulate_alu(in, r, &k);
		break;
	case DECODE_OP_NOP:
		break;
	default:
		k &= ~in->writes;
		break;
	}
	*known = k;
	r->rip += in->len;
	return 0;
}
