/* SPDX-License-Identifier: MIT */
/*
 * u-variance-gate - the return slot variance finds for the function a sample interrupted
 * (rt-variance.c: gate_slot, which places the gate and names a self-pick's instance, and
 * leaf_ret, which gives a frameless leaf or a prologue its caller in the sample's path), on
 * scripted register and stack states: a stack array stands for the thread's stack, and
 * the return addresses are real ones of this program (after a direct call, after an
 * indirect one), since a return address is recognised by the call before it.
 * rt-variance.c is included whole, as libsonde.so builds it, for its static functions.
 */
#define SONDE_SIGSAFE_NO_POISON
#include "tools/variance/rt-variance.c"

#include "check.h"

static uint64_t stk[64] __attribute__((aligned(16)));
static uint8_t not_code[64];	/* zeros: no call before any of its addresses */
static struct rt_thread th;

__attribute__((noinline)) static uint64_t here_ret(void)
{
	return (uint64_t)(uintptr_t)__builtin_return_address(0);
}

/* callee: the function whose call a direct return address follows */
__attribute__((noinline)) static uint64_t callee(void)
{
	uint64_t r = here_ret();	/* a direct call: r follows `call here_ret` */
	__asm__ volatile("" : "+r"(r));
	return r;
}

static uint64_t (*volatile via_ptr)(void) = here_ret;

static uint64_t A(int i)
{
	return (uint64_t)(uintptr_t)&stk[i];
}

static void setup(void)
{
	memset(stk, 0, sizeof(stk));
	th.stack_lo = A(0);
	th.stack_hi = A(64);
}

/* The return addresses used are what the slot finder takes for ones. */
TEST(return_addresses)
{
	uint64_t d = callee(), ind = via_ptr();

	setup();
	CHECK(decode_call_target(d) == (uint64_t)(uintptr_t)here_ret);
	CHECK(!decode_call_target(ind) && indirect_call_before(ind));
	CHECK(ret_like(&th, d) && ret_like(&th, ind));
	CHECK(!ret_like(&th, (uint64_t)(uintptr_t)(not_code + 32)));
	CHECK(!ret_like(&th, A(20)));	/* a stack address is never code */
}

/* A leaf that pushed nothing (gcc's frameless leaf): the word at RSP. */
TEST(leaf_slot_at_rsp)
{
	uint64_t ret = callee();

	setup();
	stk[10] = ret;
	CHECK_EQ_U64(gate_slot(&th, A(10), A(30)), A(10));
	/* RBP anything, even not a stack address */
	CHECK_EQ_U64(gate_slot(&th, A(10), 0), A(10));
}

/* The prologue: `push %rbp` done, `mov %rsp,%rbp` not yet.  The word at RSP is the
 * caller's RBP, still in RBP; the slot is the word above it, not RBP + 8 (the caller's
 * slot, itself a valid frame here: t814's wrong gate). */
TEST(prologue_slot_above_pushed_rbp)
{
	uint64_t ret = callee(), cret = via_ptr();

	setup();
	/* the caller's frame at stk[30]: its caller's RBP above it, its return address */
	stk[30] = A(40);
	stk[31] = cret;
	stk[10] = A(30);	/* pushed RBP */
	stk[11] = ret;		/* the function's return address */
	CHECK_EQ_U64(gate_slot(&th, A(10), A(30)), A(11));
	/* the word above the pushed RBP is no return address: no slot (armed at once),
	 * not the caller's */
	stk[11] = (uint64_t)(uintptr_t)(not_code + 32);
	CHECK_EQ_U64(gate_slot(&th, A(10), A(30)), 0);
}

/* A function with a frame of its own: RBP + 8, when [RBP] is a stack address above RBP
 * (the caller's frame) and RBP + 8 holds a return address. */
TEST(frame_slot_at_rbp_plus_8)
{
	uint64_t ret = via_ptr();

	setup();
	stk[10] = 12345;	/* a local at RSP */
	stk[14] = A(30);	/* saved RBP: the caller's frame */
	stk[15] = ret;
	CHECK_EQ_U64(gate_slot(&th, A(10), A(14)), A(15));
	/* RBP below RSP, or [RBP] not above it, or not a stack address: not a frame */
	CHECK_EQ_U64(gate_slot(&th, A(16), A(14)), 0);
	stk[14] = A(8);
	CHECK_EQ_U64(gate_slot(&th, A(10), A(14)), 0);
	stk[14] = 0x1000;
	CHECK_EQ_U64(gate_slot(&th, A(10), A(14)), 0);
	/* [RBP + 8] no return address */
	stk[14] = A(30);
	stk[15] = (uint64_t)(uintptr_t)(not_code + 40);
	CHECK_EQ_U64(gate_slot(&th, A(10), A(14)), 0);
}

/* Off the thread's stack, misaligned, or at its very top: nothing read, no slot. */
TEST(outside_the_stack)
{
	uint64_t ret = callee();

	setup();
	stk[63] = ret;
	CHECK_EQ_U64(gate_slot(&th, A(63), 0), 0);	/* no word above it in the stack */
	stk[10] = ret;
	CHECK_EQ_U64(gate_slot(&th, A(10) + 4, 0), 0);
	CHECK_EQ_U64(gate_slot(&th, A(0) - 64, 0), 0);
	th.stack_lo = th.stack_hi = 0;			/* the thread's stack unknown */
	CHECK_EQ_U64(gate_slot(&th, A(10), 0), 0);
}

/* leaf_ret: the caller of a sample's function in its path, from the word at RSP, or in
 * a prologue the word above it (before, the prologue's caller was missing: t814's time
 * share read 0%).  The leaf is `here_ret` (its return address follows a direct call of
 * it, by the symbol table) or any function called indirectly. */
TEST(leaf_ret_in_a_prologue)
{
	uint64_t ret = callee(), ind = via_ptr();
	uint64_t cret = via_ptr();	/* another call site: the caller's return */
	uint64_t leaf = (uint64_t)(uintptr_t)here_ret + 1;

	if (rt_fnmap_load() || rt_fn_start(leaf) != (uint64_t)(uintptr_t)here_ret)
		SKIP("no symbol table for this program");
	setup();
	CHECK(cret != ind);
	stk[30] = A(40);
	stk[31] = cret;
	stk[10] = ret;		/* a frameless leaf */
	CHECK_EQ_U64(leaf_ret(&th, leaf, A(10), A(30)), ret);
	stk[10] = A(30);	/* a prologue: the pushed RBP */
	stk[11] = ret;
	CHECK_EQ_U64(leaf_ret(&th, leaf, A(10), A(30)), ret);
	stk[11] = ind;		/* called indirectly */
	CHECK_EQ_U64(leaf_ret(&th, leaf, A(10), A(30)), ind);
	/* the word above is what the chain gives first (the caller's own return): no */
	stk[11] = stk[31];
	CHECK_EQ_U64(leaf_ret(&th, leaf, A(10), A(30)), 0);
	/* a word at RSP that is not RBP: the prologue case does not apply */
	stk[10] = A(31);
	stk[11] = ret;
	CHECK_EQ_U64(leaf_ret(&th, leaf, A(10), A(30)), 0);
}

int main(void)
{
	RUN(return_addresses);
	RUN(leaf_slot_at_rsp);
	RUN(prologue_slot_above_pushed_rbp);
	RUN(frame_slot_at_rbp_plus_8);
	RUN(outside_the_stack);
	RUN(leaf_ret_in_a_prologue);
	return check_total_failed_ ? 1 : 0;
}
