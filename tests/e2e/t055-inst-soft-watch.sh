#!/usr/bin/env bash
# t055-inst-soft-watch: the watchpoint engine's soft backend (rt/watch.h) on a real program
# built by sonde-cc.  A small preloaded harness built here from the runtime's objects
# (build/librt-pure.a: the real inst callbacks and watch engine) stands in for the rest of
# the runtime: it sets up the profiled threads, chooses the backend with the runtime's own
# rule, and counts traps in a test tool's trap hook; the workload arms and disarms through
# it.  Truth comes from the workload's construction (N stores, N loads per case).  Then the
# real libsonde.so: the backend chosen at start-up and its reason, in the debug line and
# in the .proc file.
. "$(dirname "$0")/lib.sh"

command -v clang >/dev/null || { skip t055-soft-watch "clang is not installed"; exit 0; }
CCW=$SONDE_BUILD/sonde-cc
[ -x "$CCW" ] || { fail t055-build "$CCW missing (make build-tests)"; exit 0; }

cat >harness.c <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "rt/decode-x86.h"
#include "rt/rt.h"
#include "rt/watch.h"

#define EXPORT __attribute__((visibility("default")))

static struct rt_thread threads[4];
static long traps[4], loads, stores, bad;
static uint64_t last_ip;

static void count_trap(struct rt_thread *t, const struct watch_trap *w, const ucontext_t *uc)
{
	__atomic_fetch_add(&traps[t->index], 1, __ATOMIC_RELAXED);
	if (w->stored == WATCH_TRAP_STORE)
		__atomic_fetch_add(&stores, 1, __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&loads, 1, __ATOMIC_RELAXED);
	if (!w->soft || uc || !(w->access_addr < w->addr + w->len &&
				w->addr < w->access_addr + w->access_len))
		__atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
	last_ip = w->ip;
}

/* A test tool: counts the traps of watchpoints armed without a callback. */
static const struct rt_tool count_tool = { .name = "t055", .trap = count_trap };

EXPORT void wt_thread_begin(int i)
{
	struct rt_thread *t = &threads[i];
	memset(t, 0, sizeof(*t));
	t->tid = (int)syscall(SYS_gettid);
	t->index = (uint32_t)i;
	arena_init(&t->arena, 1 << 20);
	rt_set_self(t);
}

EXPORT void wt_thread_end(void)
{
	struct rt_thread *t = rt_self();
	watch_thread_release(t);
	rt_set_self(NULL);
}

EXPORT int wt_arm(int i, void *addr, int len, int type, int persist)
{
	struct watch_req r = { .addr = (uintptr_t)addr, .len = (uint32_t)len, .type = type,
			       .flags = persist ? WATCH_PERSIST : 0 };
	return watch_arm(&threads[i], &r);
}

EXPORT int wt_disarm(int i, int slot) { return watch_disarm(&threads[i], slot); }
EXPORT long wt_traps(int i) { return __atomic_load_n(&traps[i], __ATOMIC_RELAXED); }
EXPORT uint64_t wt_last_ip(void) { return last_ip; }

__attribute__((constructor)) static void harness_init(void)
{
	int id = watch_backend_init(getenv("HARNESS_WATCH"), rt_source_inst.probe(NULL, 0) == 0, 1);
	fprintf(stderr, "harness: backend=%s id=%d why=%s\n", watch_backend_name(), id,
		watch_backend_why());
	rt_tool = &count_tool;
	/* as the runtime's start does (watch_start, the sources): the decoder that finds a
	 * soft trap's instruction is loaded at start, never from a hook or handler */
	decode_init();
	wt_thread_begin(0);
}

__attribute__((destructor)) static void harness_fini(void)
{
	fprintf(stderr, "harness: live=%d loads=%ld stores=%ld bad=%ld\n", watch_soft_live,
		loads, stores, bad);
}
EOC

cat >w.c <<'EOC'
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

int wt_arm(int thread, void *addr, int len, int type, int persist);
int wt_disarm(int thread, int slot);
long wt_traps(int thread);
uint64_t wt_last_ip(void);
void wt_thread_begin(int i);
void wt_thread_end(void);

#define N 1000
#define W 2
#define RW 3

long x[4];			/* x[1] is watched; x[0] and x[2] are its neighbours */
volatile int go, done;

static __attribute__((noinline)) void store_n(long *p, int n)
{
	for (int i = 0; i < n; i++)
		*(volatile long *)p = i;			/* the store line */
}

static __attribute__((noinline)) long load_n(long *p, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += *(volatile long *)p;
	return s;
}

/* One case: traps of thread 0 during `body`. */
#define CASE(name, body)                                               \
	do {                                                           \
		long before = wt_traps(0);                             \
		body;                                                  \
		printf("%s %ld\n", name, wt_traps(0) - before);        \
	} while (0)

static void *peer(void *arg)
{
	wt_thread_begin(1);
	go = 1;
	while (go != 2)
		;
	store_n(&x[1], N);
	done = 1;
	while (go != 3)
		;
	store_n(&x[1], N);
	done = 2;
	wt_thread_end();
	return arg;
}

int main(void)
{
	int s;
	pthread_t th;

	CASE("unarmed", store_n(&x[1], N));
	s = wt_arm(0, &x[1], 8, W, 1);
	printf("arm %d\n", s);
	CASE("w-stores", store_n(&x[1], N));
	printf("ip-off %ld\n", (long)(wt_last_ip() - (uintptr_t)&store_n));
	CASE("w-loads", load_n(&x[1], N));
	CASE("w-neighbours", (store_n(&x[0], N), store_n(&x[2], N)));
	wt_disarm(0, s);
	CASE("disarmed", store_n(&x[1], N));
	s = wt_arm(0, &x[1], 8, RW, 1);
	CASE("rw-both", (load_n(&x[1], N), store_n(&x[1], N)));
	wt_disarm(0, s);
	s = wt_arm(0, &x[1], 8, W, 0);
	CASE("oneshot", store_n(&x[1], N));
	CASE("oneshot-after", store_n(&x[1], N));
	printf("x-arm %d\n", wt_arm(0, (void *)(uintptr_t)&store_n, 8, 4, 0));

	/* Another thread's slot, armed from here. */
	pthread_create(&th, NULL, peer, NULL);
	while (!go)
		;
	s = wt_arm(1, &x[1], 8, W, 1);
	CASE("main-on-peer-slot", store_n(&x[1], N));
	go = 2;
	while (!done)
		;
	printf("peer %ld\n", wt_traps(1));
	wt_disarm(1, s);
	go = 3;
	pthread_join(th, NULL);
	printf("peer-disarmed %ld\n", wt_traps(1));
	wt_thread_end();
	return 0;
}
EOC

if ! gcc -std=gnu11 -O2 -D_GNU_SOURCE -shared -fPIC -fvisibility=hidden -ftls-model=initial-exec \
	-fno-omit-frame-pointer -I"$SONDE_TOP/include" -I"$SONDE_TOP/src" -Wl,-z,defs harness.c \
	-Wl,--whole-archive "$SONDE_BUILD/librt-pure.a" -Wl,--no-whole-archive -o harness.so \
	-lZydis -lunwind -lpfm -ldl -lpthread -lrt 2>build.err; then
	fail t055-harness "cannot build the harness: $(head -3 build.err)"
	exit 0
fi
if ! "$CCW" -O2 -pthread w.c ./harness.so -Wl,-rpath,"$PWD" -o w 2>cc.err; then
	fail t055-sonde-cc "sonde-cc failed: $(head -3 cc.err)"
	exit 0
fi

# get NAME: the count the workload printed for a case.
get() { sed -n "s/^$1 //p" out; }

LD_PRELOAD=$PWD/harness.so HARNESS_WATCH=soft ./w >out 2>h.err
check t055-exit-status [ $? -eq 0 ]
check t055-backend-soft grep -q '^harness: backend=soft ' h.err
check t055-unarmed [ "$(get unarmed)" = 0 ]
check t055-arm [ "$(get arm)" -ge 0 ]
check t055-w-every-store [ "$(get w-stores)" = 1000 ]
check t055-w-not-loads [ "$(get w-loads)" = 0 ]
check t055-w-not-neighbours [ "$(get w-neighbours)" = 0 ]
check t055-disarm-stops [ "$(get disarmed)" = 0 ]
check t055-rw-loads-and-stores [ "$(get rw-both)" = 2000 ]
check t055-oneshot-once [ "$(get oneshot)" = 1 ]
check t055-oneshot-stays-off [ "$(get oneshot-after)" = 0 ]
# Soft execute breakpoints arm (they fire in the call hooks of sonde-cc --sonde-calls).
check t055-execute-arms-soft [ "$(get x-arm)" -ge 0 ]
check t055-other-threads-slot-not-mine [ "$(get main-on-peer-slot)" = 0 ]
check t055-armed-from-another-thread [ "$(get peer)" = 1000 ]
check t055-peer-disarmed-from-main [ "$(get peer-disarmed)" = 1000 ]
sum=$(sed -n 's/^harness: live=\([0-9-]*\) loads=\([0-9]*\) stores=\([0-9]*\) bad=\([0-9]*\)$/\1 \2 \3 \4/p' h.err)
check t055-load-store-split [ "$sum" = "0 1000 3001 0" ]

# The trap's ip is the store itself: in store_n, on the store line.  The workload prints it
# relative to store_n, so ASLR does not matter.
off=$(get ip-off)
line=$(grep -n 'the store line' w.c | cut -d: -f1)
fn=$(nm w | awk '$3 == "store_n" { print $1 }')
if [ -n "$off" ] && [ -n "$fn" ]; then
	rel=$(printf '%#x' $((0x$fn + off)))
	loc=$(addr2line -f -e w "$rel" | tr '\n' ' ')
	insn=$(objdump -d --no-show-raw-insn --start-address="$rel" --stop-address=$((rel + 16)) w |
		awk -F'\t' '/^ *[0-9a-f]+:/ { print $2; exit }')
else
	loc="" insn=""
fi
case "$loc" in
"store_n "*":$line"*) pass t055-ip-is-the-store-line ;;
*) fail t055-ip-is-the-store-line "ip store_n+$off is at '$loc', want store_n line $line" ;;
esac
case "$insn" in
mov*,*"("*")") pass t055-ip-insn-writes-memory ;;
*) fail t055-ip-insn-writes-memory "instruction at store_n+$off is '$insn'" ;;
esac

# Automatic choice for data watches in a program built by sonde-cc: soft, whether or not
# the debug registers trap here (the callbacks are exact and cheaper a trap).
LD_PRELOAD=$PWD/harness.so ./w >out 2>h.err
case "$(head -1 h.err)" in
"harness: backend=soft id=2 why=software watchpoints: the program is built by sonde-cc"*)
	pass t055-auto-soft
	check t055-auto-soft-counts [ "$(get w-stores)" = 1000 ] ;;
*) fail t055-auto "$(head -1 h.err)" ;;
esac

# The real runtime: the backend is chosen at start and reported with its reason.
echo 'int v; int main(void) { v = 1; return 0; }' >p.c
"$CCW" -O2 p.c -o p-inst && clang -O2 p.c -o p-plain
mkdir -p d1 d2 d3
SONDE_DIR=$PWD/d1 SONDE_DEBUG=1 SONDE_SOURCE=inst SONDE_WATCH=soft \
	LD_PRELOAD=$SONDE_BUILD/libsonde.so ./p-inst 2>rt1.err
check t055-rt-soft-debug grep -q '^sonde: watchpoints soft: software watchpoints (SONDE_WATCH=soft)$' rt1.err
check t055-rt-soft-proc grep -q '^watch=soft$' d1/*.proc
SONDE_DIR=$PWD/d2 SONDE_DEBUG=1 SONDE_WATCH=soft LD_PRELOAD=$SONDE_BUILD/libsonde.so ./p-plain 2>rt2.err
check t055-rt-none-not-sonde-cc grep -q '^sonde: watchpoints none: SONDE_WATCH=soft needs a program built with sonde-cc$' rt2.err
check t055-rt-none-proc grep -q '^watch=none$' d2/*.proc
# Automatic, with the clock source: soft serves a sonde-cc program too.
SONDE_DIR=$PWD/d3 SONDE_DEBUG=1 SONDE_SOURCE=clock LD_PRELOAD=$SONDE_BUILD/libsonde.so ./p-inst 2>rt3.err
case "$(grep '^sonde: watchpoints' rt3.err)" in
"sonde: watchpoints soft: software watchpoints: the program is built by sonde-cc"*) pass t055-rt-auto-soft ;;
*) fail t055-rt-auto "$(cat rt3.err)" ;;
esac
SONDE_DIR=$PWD/d3 SONDE_DEBUG=1 LD_PRELOAD=$SONDE_BUILD/libsonde.so ./p-plain 2>rt4.err
case "$(grep '^sonde: watchpoints' rt4.err)" in
"sonde: watchpoints hw") pass t055-rt-auto-plain-hw ;;
"sonde: watchpoints none: "*"; rebuild with sonde-cc for software watchpoints") pass t055-rt-auto-plain-none ;;
*) fail t055-rt-auto-plain "$(cat rt4.err)" ;;
esac
