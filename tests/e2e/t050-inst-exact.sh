#!/usr/bin/env bash
# t050-inst-exact: the inst source's callbacks (src/rt/source-inst.c) count a sonde-cc
# program's accesses exactly.  The real callbacks are loaded by a small preloaded harness
# built here (it stands in for the rest of the runtime: one profiled thread, a tool that
# counts what it is handed), so this tests the source alone.  Truth comes from
# tests/workloads/inst-loop.c's construction: 10,000 loads of 4 bytes in chase(), 1,024
# stores of 4 bytes in fill().
. "$(dirname "$0")/lib.sh"

command -v clang >/dev/null || { skip t050-inst-exact "clang is not installed"; exit 0; }
CCW=$SONDE_BUILD/sonde-cc
[ -x "$CCW" ] || { fail t050-build "$CCW missing (make build-tests)"; exit 0; }

cat >harness.c <<'EOC'
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include "rt/rt.h"

struct rt_config rt_cfg;
static struct rt_thread main_thread;
RT_TLS struct rt_thread *rt_self_tls;
static uint64_t loads, stores, bytes, weight, first_load_ip, exe_base;
static uint64_t store_ips[32];
static int bad_len, n_store_ips;

struct rt_thread *rt_self(void) { return rt_self_tls; }
/* The soft watchpoint backend's entry points (never armed here). */
const struct rt_source *rt_source;
__attribute__((visibility("hidden"))) int watch_soft_live;
__attribute__((visibility("hidden"))) int watch_soft_calls_live;
__attribute__((visibility("hidden"))) int watch_soft_hooks = 1;
__attribute__((visibility("hidden"))) struct { unsigned gen; } __attribute__((aligned(64))) watch_soft_gen_line;
void watch_soft_exec(struct rt_thread *t, uint64_t fn, uint64_t slot) { (void)t; (void)fn; (void)slot; }
unsigned watch_soft_match(struct rt_thread *t, uint64_t a, uint32_t l, int s) { return 0; }
void watch_soft_trap(struct rt_thread *t, unsigned m, uint64_t a, uint32_t l, int s,
		     uint64_t ip) { }
uint64_t rt_now(void) { return 0; }
/* the probe's test for a --sonde-calls-only build (no access callbacks): none here */
int rt_exe_imports(const char *n) { (void)n; return 0; }
int rt_exe_imports_n(const char *n, size_t k) { (void)n; (void)k; return 0; }
/* the windows' draw under rt_inst_jitter (HARNESS_JITTER=1): a xorshift */
uint64_t rt_rand(struct rt_thread *t)
{
	static uint64_t x = 88172645463325252ull;

	(void)t;
	x ^= x << 13, x ^= x >> 7, x ^= x << 17;
	return x;
}
uint64_t rt_rand_next(uint64_t *x)
{
	*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
	return *x;
}
uint64_t rt_rand_split(const struct rt_thread *t, uint64_t salt) { return salt | 1; }
void *arena_alloc(struct arena *a, size_t size) { return calloc(1, size); }
/* rt_inst_probe's hook (HARNESS_PROBE=1): the probes and the accesses they fall on */
static uint64_t probes;
static void harness_probe(struct rt_thread *t, uint64_t addr) { (void)t; (void)addr; probes++; }

void rt_deliver_access(struct rt_thread *t, const struct rt_access *a, const ucontext_t *uc,
		       int skip)
{
	t->stats.samples++;	/* as the mem tool does */
	if (a->flags & SONDE_MEM_STORE) {
		int i;

		stores++;
		for (i = 0; i < n_store_ips && store_ips[i] != a->ip; i++)
			;
		if (i == n_store_ips && n_store_ips < 32)
			store_ips[n_store_ips++] = a->ip;
	} else if (!loads++) {
		first_load_ip = a->ip;
	}
	if (a->len != 4)
		bad_len = 1;
	bytes += a->len;
	weight += a->weight;
}

static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
	exe_base = info->dlpi_addr;
	return 1;
}

__attribute__((constructor)) static void harness_init(void)
{
	char why[256] = "";
	const char *p = getenv("HARNESS_PERIOD");
	int r = rt_source_inst.probe(why, sizeof(why));

	fprintf(stderr, "harness: probe=%d why=%s\n", r, why);
	dl_iterate_phdr(first_object, NULL);
	rt_cfg.period = p ? strtoull(p, NULL, 10) : 0;
	rt_source_inst.start();
	if (getenv("HARNESS_JITTER")) {
		rt_source = &rt_source_inst;
		fprintf(stderr, "harness: jitter=%d\n", rt_inst_jitter());
	}
	if (getenv("HARNESS_PROBE")) {
		rt_source = &rt_source_inst;
		fprintf(stderr, "harness: probe hook=%d\n", rt_inst_probe(harness_probe));
	}
	rt_self_tls = &main_thread;
	rt_source_inst.thread_start(rt_self_tls);
}

__attribute__((destructor)) static void harness_fini(void)
{
	rt_source_inst.thread_stop(rt_self_tls);
	rt_source_inst.thread_stop(rt_self_tls);	/* a second stop must add nothing */
	rt_self_tls = NULL;
	fprintf(stderr, "harness: accesses=%lu samples=%lu loads=%lu stores=%lu bytes=%lu "
		"weight=%lu badlen=%d ip=0x%lx probes=%lu\n",
		(unsigned long)main_thread.stats.accesses,
		(unsigned long)main_thread.stats.samples, (unsigned long)loads,
		(unsigned long)stores, (unsigned long)bytes, (unsigned long)weight, bad_len,
		(unsigned long)(first_load_ip - exe_base), (unsigned long)probes);
	for (int i = 0; i < n_store_ips; i++)
		fprintf(stderr, "store-ip 0x%lx\n", (unsigned long)(store_ips[i] - exe_base));
}
EOC

if ! gcc -std=gnu11 -O2 -D_GNU_SOURCE -shared -fPIC -fvisibility=hidden -ftls-model=initial-exec \
	-fno-omit-frame-pointer -I"$SONDE_TOP/include" -I"$SONDE_TOP/src" -Wl,-z,defs harness.c \
	"$SONDE_TOP/src/rt/source-inst.c" "$SONDE_TOP/src/rt/decode-x86.c" "$SONDE_TOP/src/rt/decode-lite.c" \
	"$SONDE_TOP/src/rt/decode-load.c" "$SONDE_TOP/src/rt/libtrim.c" "$SONDE_TOP/src/rt/sigsafe.c" \
	-o harness.so \
	-lZydis 2>build.err; then
	fail t050-harness "cannot build the harness: $(head -3 build.err)"
	exit 0
fi
if ! "$CCW" -O2 "$SONDE_TOP/tests/workloads/inst-loop.c" -o inst-loop 2>cc.err; then
	fail t050-sonde-cc "sonde-cc failed: $(head -3 cc.err)"
	exit 0
fi

# field NAME: a value from the harness's summary line.
field() { grep '^harness: accesses=' h.err | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# insn_at PROG IP: the instruction at IP, AT&T syntax.
insn_at() {
	objdump -d --no-show-raw-insn --start-address="$2" --stop-address=$(($2 + 16)) "$1" |
		awk -F'\t' '/^ *[0-9a-f]+:/ { print $2; exit }'
}

# Exact mode: every access is a sample.
LD_PRELOAD=$PWD/harness.so HARNESS_PERIOD=1 ./inst-loop >out 2>h.err
check t050-exit-status [ $? -eq 0 ]
check t050-output-unchanged [ "$(cat out)" = "$(./inst-loop)" ]
check t050-probe-accepts [ "$(head -1 h.err | sed 's/ why=.*//')" = "harness: probe=0" ]
check t050-exact-loads [ "$(field loads)" = 10000 ]
check t050-exact-stores [ "$(field stores)" = 1024 ]
check t050-exact-accesses [ "$(field accesses)" = $((10000 + 1024)) ]
check t050-exact-samples [ "$(field samples)" = $((10000 + 1024)) ]
check t050-exact-bytes [ "$(field bytes)" = $(((10000 + 1024) * 4)) ]
check t050-exact-len [ "$(field badlen)" = 0 ]

# The sample's ip is the accessing instruction, in chase(), on the line of the load.
ip=$(field ip)
want_line=$(grep -n 'p = ring\[p\];' "$SONDE_TOP/tests/workloads/inst-loop.c" | cut -d: -f1)
loc=$(addr2line -f -e inst-loop "$ip" | tr '\n' ' ')
case "$loc" in
"chase "*":$want_line"*) pass t050-ip-is-the-load ;;
*) fail t050-ip-is-the-load "ip $ip is at '$loc', want chase at line $want_line" ;;
esac
insn=$(insn_at inst-loop "$ip")
case "$insn" in
mov*"("*")"*) pass t050-ip-insn-reads-memory ;;
*) fail t050-ip-insn-reads-memory "instruction at $ip is '$insn'" ;;
esac

# Sampled mode: every 1000th access; the count stays exact.
LD_PRELOAD=$PWD/harness.so HARNESS_PERIOD=1000 ./inst-loop >/dev/null 2>h.err
check t050-sampled-accesses [ "$(field accesses)" = 11024 ]
check t050-sampled-samples [ "$(field samples)" = $((11024 / 1000)) ]
check t050-sampled-weight [ "$(field weight)" = $((11024 / 1000)) ]

# Windows drawn around the period (rt_inst_jitter, comm's): in [500, 1500], so 7 to 22
# samples of the 11,024 accesses, and the count still exact (a window of w adds w).
LD_PRELOAD=$PWD/harness.so HARNESS_PERIOD=1000 HARNESS_JITTER=1 ./inst-loop >/dev/null 2>h.err
check t050-jitter-on grep -q '^harness: jitter=0$' h.err
check t050-jitter-accesses [ "$(field accesses)" = 11024 ]
n=$(field samples)
check "t050-jitter-samples ($n)" test "$n" -ge 7 -a "$n" -le 22
check t050-jitter-weight [ "$(field weight)" = "$n" ]

# A probe in each window (rt_inst_probe, reuse's footprint): the windows and the samples
# unchanged (the same 11 loads and stores, a sample's first load the same instruction),
# one probe in each of the 11 whole windows and maybe in the 12th's first 24 accesses, and
# the count still exact (the countdown stops at the probe and runs on for the rest).
LD_PRELOAD=$PWD/harness.so HARNESS_PERIOD=1000 ./inst-loop >/dev/null 2>h.err
plain="$(field loads) $(field stores) $(field ip)"
LD_PRELOAD=$PWD/harness.so HARNESS_PERIOD=1000 HARNESS_PROBE=1 ./inst-loop >/dev/null 2>h.err
check t050-probe-on grep -q '^harness: probe hook=0$' h.err
check t050-probe-accesses [ "$(field accesses)" = 11024 ]
check t050-probe-samples [ "$(field samples)" = $((11024 / 1000)) ]
check t050-probe-same-samples [ "$(field loads) $(field stores) $(field ip)" = "$plain" ]
n=$(field probes)
check "t050-probe-count ($n)" test "$n" -ge 11 -a "$n" -le 12
LD_PRELOAD=$PWD/harness.so HARNESS_PERIOD=1000 HARNESS_PROBE=1 HARNESS_JITTER=1 ./inst-loop >/dev/null 2>h.err
check t050-probe-jitter-accesses [ "$(field accesses)" = 11024 ]

# Vectorised stores: clang reloads the value from a spill slot between the callback and the
# store; the sample's ip must still be the store (memory destination), not the reload.
if "$CCW" -O2 -pthread "$SONDE_TOP/tests/workloads/demo-hotcold.c" -o hotcold 2>cc.err; then
	LD_PRELOAD=$PWD/harness.so HARNESS_PERIOD=997 ./hotcold 1 1 >/dev/null 2>h.err
	n=0 bad=""
	for sip in $(sed -n 's/^store-ip //p' h.err); do
		n=$((n + 1))
		insn=$(insn_at hotcold "$sip")
		case "$insn" in
		*,*"("*")") ;;
		*) bad="$bad $sip:'$insn'" ;;
		esac
	done
	check t050-store-ips-seen [ "$n" -gt 0 ]
	if [ -z "$bad" ]; then pass t050-store-ip-is-the-store; else
		fail t050-store-ip-is-the-store "not stores:$bad"; fi
else
	fail t050-sonde-cc-hotcold "$(head -3 cc.err)"
fi

# A program not built by sonde-cc: the probe refuses and says why.
LD_PRELOAD=$PWD/harness.so /bin/true 2>h.err
case "$(head -1 h.err)" in
"harness: probe=-"*"rebuild it with sonde-cc"*) pass t050-probe-refuses ;;
*) fail t050-probe-refuses "$(head -1 h.err)" ;;
esac

# Without any runtime, the program runs on the no-op stubs and prints what an
# uninstrumented build prints.
clang -O2 "$SONDE_TOP/tests/workloads/inst-loop.c" -o plain
check t050-runs-without-runtime [ "$(./inst-loop)" = "$(./plain)" ]
