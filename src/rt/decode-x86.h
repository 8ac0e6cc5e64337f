/* SPDX-License-Identifier: MIT */
/*
 * decode-x86.h - the memory accesses of one x86-64 instruction, from its bytes and a
 * register file (Zydis 4 underneath).  Used by the clock source: a timer sample stops the
 * thread before some instruction; this tells which addresses that instruction will touch,
 * and, by emulating the simple instructions that follow, which addresses the next ones will
 * touch without executing them.
 *
 * Every function here is handler-safe: no allocation, no locks, no stdio, and the code
 * bytes are read with process_vm_readv so a bad PC gives an error instead of a fault.
 *
 * Conventions for what counts as an access (decisions, not accidents):
 *   - lea and the address operand of nop are not accesses (nothing is read).
 *   - prefetch* and cache-line maintenance (clflush, clflushopt, clwb, cldemote) are not
 *     accesses: they do not read data, never fault, and the demand access they anticipate is
 *     sampled on its own.
 *   - push/call/pushf/enter report the slot actually written (rsp - size), pop/ret/popf the
 *     slot read (rsp); `pop [rsp+d]` uses rsp after the pop, as the CPU does.
 *   - String instructions (movs, stos, lods, cmps, scas, with or without rep) report the
 *     element they access now: rsi and/or rdi as they are.  A rep instruction with rcx = 0
 *     accesses nothing.
 *   - Gathers and scatters (VSIB) report element 0 only: base + index[0] * scale + disp,
 *     with index[0] read from the low lane of the XMM register (regs->xmm).  An index in
 *     xmm16..31, or regs->xmm == NULL, makes the address unknown (DECODE_MEM_UNKNOWN).
 *   - xchg with memory and lock-prefixed instructions are read-modify-write (SONDE_MEM_RMW);
 *     an operand both read and written (add [m], r) is RMW too.
 *   - Segment overrides: fs and gs add the thread's segment bases; es/ds/ss/cs add 0.
 *
 * Look-ahead through loads (decode_emulate_mem): the emulated path is the path the program
 * is about to run, so a load on it reads what the program will read, unless another thread
 * (or the kernel, a device) writes that memory in between.  The emulator asks a
 * struct decode_shadow for such values: the program's memory, read without faulting, under
 * the stores the emulated path has made so far.  Racy programs can therefore get an address
 * computed from a value that is stale by the time the program loads it; such accesses are
 * predictions (the clock source marks them SONDE_MEM_PREDICTED) and are plausible addresses
 * (an old value of the pointer), not exact ones.
 */
#ifndef SONDE_RT_DECODE_X86_H
#define SONDE_RT_DECODE_X86_H

#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

/* General-purpose registers in hardware encoding order (gpr[] index). */
enum decode_gpr {
	DECODE_RAX, DECODE_RCX, DECODE_RDX, DECODE_RBX, DECODE_RSP, DECODE_RBP, DECODE_RSI,
	DECODE_RDI, DECODE_R8, DECODE_R9, DECODE_R10, DECODE_R11, DECODE_R12, DECODE_R13,
	DECODE_R14, DECODE_R15,
};

/* Bits of a "known" mask (decode_emulate): GPRs are bits 0..15. */
#define DECODE_KNOWN_GPRS 0xffffu
#define DECODE_KNOWN_FLAGS (1u << 16)	/* the arithmetic flags in rflags */
#define DECODE_KNOWN_VEC (1u << 17)	/* the vector registers (regs->xmm) */
/* The arithmetic flags but CF (known whenever DECODE_KNOWN_FLAGS is): inc and dec set them
 * from their result and keep CF as it was, so `dec r; jnz` after flags that came from an
 * unknown value is still followed. */
#define DECODE_KNOWN_FLAGS_NC (1u << 18)
#define DECODE_KNOWN_ALL (DECODE_KNOWN_GPRS | DECODE_KNOWN_FLAGS | DECODE_KNOWN_VEC | \
			  DECODE_KNOWN_FLAGS_NC)

struct decode_regs {
	uint64_t gpr[16];		/* enum decode_gpr order */
	uint64_t rip;			/* address of the instruction being decoded */
	uint64_t rflags;
	uint64_t fs_base, gs_base;
	const uint8_t (*xmm)[16];	/* xmm0..15 (low lanes), or NULL; not owned */
	/* gs_base is not read yet: the first gs-relative address reads the calling thread's
	 * (decode_regs_from_ucontext sets it: without FSGSBASE the read is a system call and,
	 * in a VM, a trapped MSR read, while user code almost never addresses through gs) */
	int gs_lazy;
};

#define DECODE_MAX_MEM 2		/* movs, push [m], call [m]: two accesses */

/* decode_mem.flags: SONDE_MEM_STORE / SONDE_MEM_RMW from format.h, plus: */
#define DECODE_MEM_UNKNOWN 0x100	/* the address could not be computed */
#define DECODE_MEM_VSIB 0x200		/* a gather/scatter: element 0 only */

struct decode_mem {
	uint64_t addr;
	uint16_t len;			/* bytes */
	uint16_t flags;
	uint32_t needs;			/* "known" bits the address depends on */
	/* How addr follows from the registers, for decode_rebase: addr = disp + gpr[base] +
	 * gpr[index] * scale + the segment's base (fs 1, gs 2); base, index -1 if none.
	 * linear is 0 when addr is not of that form (32-bit addresses, gathers, xlat). */
	int64_t disp;
	int8_t base, index;
	uint8_t scale, seg, linear;
};

/* What decode_emulate can do with an instruction (decode_insn.op). */
enum decode_op {
	DECODE_OP_OTHER,	/* effects beyond `writes` unknown: written registers become unknown */
	DECODE_OP_MOV_IMM,	/* dst = imm */
	DECODE_OP_MOV_REG,	/* dst = src */
	DECODE_OP_LEA,		/* dst = address of mem (no access) */
	DECODE_OP_ADD,		/* dst += src or imm, flags */
	DECODE_OP_SUB,		/* dst -= src or imm, flags */
	DECODE_OP_CMP,		/* flags of dst - src/imm */
	DECODE_OP_AND, DECODE_OP_OR, DECODE_OP_XOR, DECODE_OP_TEST,
	DECODE_OP_INC, DECODE_OP_DEC,
	DECODE_OP_PUSH,		/* rsp -= width, nothing else written but memory */
	DECODE_OP_POP,		/* rsp += width, destination unknown */
	DECODE_OP_JMP,		/* direct jump to target */
	DECODE_OP_JCC,		/* direct conditional jump: cond (low nibble of the opcode) */
	DECODE_OP_NOP,		/* no register effect at all */
	DECODE_OP_MOVX,		/* dst = zero/sign extension of src (movzx, movsx, movsxd, cdqe) */
	DECODE_OP_JMP_IND,	/* jump to the value of src (register or memory) */
	DECODE_OP_SHL, DECODE_OP_SHR, DECODE_OP_SAR,	/* dst by imm bits; flags unknown */
	DECODE_OP_IMUL,		/* dst = src * imm, or dst *= src; flags unknown */
	DECODE_OP_CALL,		/* direct call to target: push the return address */
	DECODE_OP_RET,		/* return (near): pop the target, then rsp += imm */
	DECODE_OP_SETCC,	/* dst (a low byte register) = cond ? 1 : 0 */
	DECODE_OP_CMOV,		/* if (cond) dst = src (register or memory); a 32-bit dst is
				 * zero-extended either way */
	DECODE_OP_DIV,		/* div src (32/64-bit register or memory): rax, rdx = the
				 * quotient and remainder of rdx:rax by src; flags unknown */
	DECODE_OP_IDIV,		/* idiv src: the same, signed (quotient rounded toward 0) */
	DECODE_OP_CQO,		/* cqo, cdq: rdx (edx) = the sign of rax (eax), all ones or 0 */
};

/* decode_insn.syscall: how the instruction calls the kernel (the number is in rax). */
enum decode_syscall { DECODE_SYSCALL_NONE, DECODE_SYSCALL_64, DECODE_SYSCALL_INT80 };

/* decode_insn.mem_arg: which operand of op is in memory (always mem[0]). */
#define DECODE_ARG_DST 1
#define DECODE_ARG_SRC 2

struct decode_insn {
	uint8_t len;			/* bytes */
	uint8_t n_mem;			/* accesses in mem[] */
	uint8_t branch;			/* may continue elsewhere than rip + len */
	uint8_t rep;			/* rep-prefixed string instruction (repeats in place) */
	uint8_t op;			/* enum decode_op */
	uint8_t width;			/* operand width in bytes for op (1, 2, 4, 8) */
	int8_t dst, src;		/* GPR operands of op, -1 if none */
	uint8_t cond;			/* DECODE_OP_JCC, SETCC, CMOV: condition code 0..15 */
	uint8_t pushf;			/* pushf: the flags image written to the stack */
	uint8_t sets_tf;		/* popf, iret: may rewrite the trap flag */
	uint8_t pushf_image;		/* popf: the flags come from the 16 bits at [rsp] */
	uint8_t mem_arg;		/* 0, DECODE_ARG_DST or DECODE_ARG_SRC: op's memory operand */
	uint8_t swidth;			/* DECODE_OP_MOVX: source bytes */
	uint8_t sext;			/* DECODE_OP_MOVX: sign-extend (else zero-extend) */
	uint8_t has_imm;		/* imm is op's source (push imm, imul r, r/m, imm) */
	uint8_t mem_dropped;		/* more accesses than DECODE_MAX_MEM: some not in mem[] */
	uint8_t syscall;		/* enum decode_syscall: enters the kernel by a system call */
	uint32_t writes;		/* "known" bits this instruction may change */
	int64_t imm;			/* immediate operand of op */
	uint64_t target;		/* DECODE_OP_JMP/JCC/CALL: destination */
	struct decode_mem mem[DECODE_MAX_MEM];
	struct decode_mem lea;		/* DECODE_OP_LEA: the address computed */
};

/* DECODE_OP_MOVX into d: dst = the zero (sext 0) or sign extension of swidth source bytes
 * to width bytes (both decoders' movzx, movsx, movsxd, cdqe). */
static inline void decode_set_movx(struct decode_insn *d, int dst, int width, int swidth,
				   int sext)
{
	d->op = DECODE_OP_MOVX;
	d->dst = (int8_t)dst;
	d->width = (uint8_t)width;
	d->swidth = (uint8_t)swidth;
	d->sext = (uint8_t)sext;
}

/* The "known" bit a condition code (0..15, jcc/setcc/cmovcc) reads: DECODE_KNOWN_FLAGS if
 * it tests CF (b, ae, be, a), else DECODE_KNOWN_FLAGS_NC.  Handler-safe. */
uint32_t decode_cond_needs(int cond);

/*
 * decode_access without Zydis, for the common instructions only (decode-lite.c): every
 * field of struct decode_insn as decode_access_zydis gives it (u-decode-lite checks them
 * on real code and random encodings).  -1 for an instruction it does not cover (x87, EVEX,
 * string instructions, most of 0F38/0F3A...) or cannot read.  Needs no decode_init.
 * Handler-safe.
 */
int decode_access_lite(const uint8_t *code, size_t avail, const struct decode_regs *r,
		       struct decode_insn *out);

/* decode_access or decode_access_lite. */
typedef int (*decode_access_fn)(const uint8_t *code, size_t avail, const struct decode_regs *r,
				struct decode_insn *out);

/* Instructions decode_call_access looks at after the call. */
#define DECODE_CALL_WINDOW 8

/*
 * The address of the instruction that made the access an `inst` callback reported: `code`
 * holds n bytes read at `ret`, the callback's return address; `addr` and `store` are the
 * access's, rsp and rbp the instrumented code's at the return point.  `ret` when no later
 * instruction of the window is it; the first instruction `decode` cannot decode when the
 * ones before it are not.  Handler-safe.
 */
uint64_t decode_call_access(decode_access_fn decode, const uint8_t *code, long n, uint64_t ret,
			    uint64_t addr, int store, uint64_t rsp, uint64_t rbp);

/* One-time setup: loads libZydis (dlopen: decode-load.c; where it cannot, decode_access
 * fails) and chooses how to read the fs/gs bases.  Call before any handler can run;
 * idempotent.  Not handler-safe the first time.  decode_read_code needs only
 * decode_after_fork. */
void decode_init(void);

/*
 * Fill a register file from a signal context (the interrupted thread is the caller, so fs
 * and gs bases are read from the current thread).  `uc` is not kept.  Handler-safe.
 */
void decode_regs_from_ucontext(const ucontext_t *uc, struct decode_regs *r);

/*
 * Decode the instruction at r->rip, whose bytes are code[0..avail), and compute its memory
 * accesses from r.  Returns the instruction length (>0), or -1 if the bytes do not decode.
 * decode_access_lite where it covers the instruction, else decode_access_zydis (libZydis,
 * loaded by decode_init).  Handler-safe.
 */
int decode_access(const uint8_t *code, size_t avail, const struct decode_regs *r,
		  struct decode_insn *out);
int decode_access_zydis(const uint8_t *code, size_t avail, const struct decode_regs *r,
			struct decode_insn *out);

/*
 * Recompute the addresses of an instruction decoded at the same rip with other registers
 * (mem[].addr, lea.addr), so that a decoded instruction can be kept and reused: 0, or -1
 * if it cannot be (decode_access it again).  Handler-safe.
 */
int decode_rebase(struct decode_insn *d, const struct decode_regs *r);

/*
 * The access of the instruction before uc's rip (a data breakpoint's trap: it comes after
 * the access) that overlaps [lo, hi), decoded backwards with the registers as they are:
 * 0 with its address and length, -1 when none, or more than one reading, is
 * found.  Handler-safe.
 */
int decode_trap_access(const ucontext_t *uc, uint64_t lo, uint64_t hi, uint64_t *addr,
		       uint32_t *len);

/*
 * The memory access of the instruction just before uc's rip in memory (a timer sample's
 * last retired instruction, where it fell through to the PC), its address from the
 * registers as they are: 0 with it in *m and its address in *ip; -1 when that instruction
 * has no access, is not known for sure (the forward votes of decode_trap_access), repeats
 * (rep), or changed its own address registers.  Handler-safe.
 */
int decode_prev_access(const ucontext_t *uc, struct decode_mem *m, uint64_t *ip);

/*
 * Advance a register file over a decoded instruction, as far as it is understood: the
 * registers it writes get their new values when op says how, else their bits are cleared in
 * *known; r->rip becomes the next instruction's address.  Returns 0 when the next address is
 * known (fall-through, a resolved direct branch, a direct call), -1 when it is not (indirect
 * branch, return, system call, a conditional branch on unknown flags).  With memory
 * (decode_emulate_mem), a return is followed too: its address is the value the path's call
 * pushed, or the one on the stack.  Memory is never read: loaded
 * registers become unknown (decode_emulate_mem reads them).
 * Handler-safe.
 */
int decode_emulate(const struct decode_insn *in, struct decode_regs *r, uint32_t *known);

/* ---- memory as the look-ahead sees it ---- */

/* Read len bytes of the program's memory at addr into buf: 0, or <0 if they cannot be read.
 * Must never fault.  Called from decode_emulate_mem, so handler-safe if that is. */
typedef int (*decode_reader)(void *ctx, uint64_t addr, uint8_t *buf, size_t len);

#define DECODE_SHADOW_STORES 64	/* stores remembered; one more poisons the shadow */
#define DECODE_SHADOW_LINES 4	/* 64-byte lines of memory cached per look-ahead */

struct decode_store {
	uint64_t addr, val;
	uint32_t len;
	uint32_t known;			/* val is what was written (len <= 8) */
};

struct decode_line {
	uint64_t addr;			/* 64-byte aligned */
	int ok;				/* read succeeded */
	uint8_t b[64];
};

/*
 * The memory one look-ahead sees: reads of the program's memory (through `read`, at most
 * max_reads calls, each a whole 64-byte line, cached) under the stores the emulated path
 * made (a store buffer: later loads of those bytes get the stored value, or no value when
 * the stored value is unknown).  A store at an unknown address, or more than
 * DECODE_SHADOW_STORES stores, poisons it: every later load is unknown.  Lives on the
 * caller's stack for one look-ahead (values go stale as the program runs).
 */
struct decode_shadow {
	decode_reader read;
	void *ctx;
	int max_reads, reads;		/* read() calls allowed and made */
	int loads;			/* values handed to the emulation */
	int poisoned;
	int n_stores, n_lines, next_line;
	struct decode_store st[DECODE_SHADOW_STORES];
	struct decode_line line[DECODE_SHADOW_LINES];
};

/* Start an empty shadow over `read` (NULL: no memory, only forwarded stores).  Handler-safe. */
void decode_shadow_init(struct decode_shadow *s, decode_reader read, void *ctx, int max_reads);

/* The len (1..8) bytes at addr, little-endian, zero-extended into *val: 0, or -1 if unknown.
 * Handler-safe if read is. */
int decode_shadow_load(struct decode_shadow *s, uint64_t addr, unsigned len, uint64_t *val);

/* Record that the path writes len bytes at addr (val if known).  Handler-safe. */
void decode_shadow_store(struct decode_shadow *s, uint64_t addr, unsigned len, uint64_t val,
			 int known);

/*
 * decode_emulate, with memory: loads on the path (mov/movzx/movsx into a register, ALU ops
 * with a memory operand, pop, jmp [m]) take their value from `mem`, stores are recorded in
 * it (a known value when the op says how, else unknown).  mem == NULL is decode_emulate.
 * Handler-safe if mem's reader is.
 */
int decode_emulate_mem(const struct decode_insn *in, struct decode_regs *r, uint32_t *known,
		       struct decode_shadow *mem);

/* The process id the memory reads address (cached: getpid is a system call).  Call in a
 * fork child before any handler can run there (the clock source's after-fork hook does).
 * Not handler-safe the first time; decode_init calls it. */
void decode_after_fork(void);

/*
 * Copy len bytes of this process's memory at addr into buf with process_vm_readv, never
 * faulting and never touching the memory from user mode (no watchpoint can fire).  Returns
 * the count copied or -errno; -ENOSYS/-EPERM when the system call is refused (seccomp), after
 * which it fails at once.  Handler-safe.
 */
long decode_read_data(uint64_t addr, uint8_t *buf, size_t len);

/*
 * Copy up to `len` bytes of this process's memory at `addr` into buf without faulting.
 * Returns the count copied (possibly short at an unmapped page), or -errno.  Handler-safe.
 */
long decode_read_code(uint64_t addr, uint8_t *buf, size_t len);

/* The callee of the direct call (E8 rel32) that returns to `ret`, 0 if the instruction
 * before `ret` is no such call.  Handler-safe (code reads). */
uint64_t decode_call_target(uint64_t ret);

/*
 * A PLT stub's target: `jmp *GOT(%rip)` (after endbr64, with or without bnd), the GOT
 * word read; 0 if fn is no such stub, or the word still leads to the lazy binder (a
 * `push imm32` next).  A direct call into the PLT (qsort from the program) is then the
 * library's function, not "_init" or whatever symbol precedes the stub.  Handler-safe.
 */
uint64_t decode_plt_target(uint64_t fn);

/* The callee of the first direct call (E8 rel32) among the `max` instructions from `at`
 * on, straight-line, and *after the address after that call: 0 when a branch, an
 * instruction decode_access_lite does not cover or unreadable code comes first.
 * Handler-safe. */
uint64_t decode_next_call(uint64_t at, int max, uint64_t *after);

#endif /* SONDE_RT_DECODE_X86_H */
