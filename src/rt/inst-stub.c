/* SPDX-License-Identifier: MIT */
/*
 * inst-stub.c - libsonde-inst.so: no-op sanitizer-coverage callbacks.
 *
 * Programs built by sonde-cc are compiled with
 * -fsanitize-coverage=edge,trace-loads,trace-stores, so every load and store calls
 * __sanitizer_cov_loadN / __sanitizer_cov_storeN first.  They are linked against this
 * library (not clang's sanitizer runtime) so they run without sonde, at the cost of one
 * empty call per access.  When the program runs under `sonde mem --source inst`, the
 * preloaded libsonde.so defines the same symbols and wins by symbol lookup order
 * (executable, then LD_PRELOAD, then DT_NEEDED): this file is never called then.
 *
 * clang 14 with `edge` plus trace-loads/stores emits only the load/store callbacks (no
 * guard or counter instrumentation, checked with nm).  The guard, inline-counter and
 * pc-table initialisers are defined too, as no-ops, so that objects built with a
 * different coverage level (or a later clang that adds a default one) still link.
 *
 * Every function here is handler-safe (it does nothing), and must stay so: instrumented
 * code runs in the program's signal handlers too.
 */
#include <stdint.h>

#include "rt/sigsafe.h"

#define STUB __attribute__((visibility("default")))

/* Lets `sonde mem --source inst` (and tests) tell that a program was built by sonde-cc. */
STUB const char sonde_inst_marker[] = "sonde-inst 1";

STUB void __sanitizer_cov_load1(uint8_t *addr) { (void)addr; }
STUB void __sanitizer_cov_load2(uint16_t *addr) { (void)addr; }
STUB void __sanitizer_cov_load4(uint32_t *addr) { (void)addr; }
STUB void __sanitizer_cov_load8(uint64_t *addr) { (void)addr; }
STUB void __sanitizer_cov_load16(void *addr) { (void)addr; }

STUB void __sanitizer_cov_store1(uint8_t *addr) { (void)addr; }
STUB void __sanitizer_cov_store2(uint16_t *addr) { (void)addr; }
STUB void __sanitizer_cov_store4(uint32_t *addr) { (void)addr; }
STUB void __sanitizer_cov_store8(uint64_t *addr) { (void)addr; }
STUB void __sanitizer_cov_store16(void *addr) { (void)addr; }

/* Other coverage levels: accepted and ignored. */
STUB void __sanitizer_cov_trace_pc_guard(uint32_t *guard) { (void)guard; }

STUB void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop)
{
	(void)start;
	(void)stop;
}

STUB void __sanitizer_cov_trace_pc(void) {}

STUB void __sanitizer_cov_8bit_counters_init(uint8_t *start, uint8_t *stop)
{
	(void)start;
	(void)stop;
}

STUB void __sanitizer_cov_bool_flag_init(uint8_t *start, uint8_t *stop)
{
	(void)start;
	(void)stop;
}

STUB void __sanitizer_cov_pcs_init(const uintptr_t *start, const uintptr_t *stop)
{
	(void)start;
	(void)stop;
}

/* Function entry/exit hooks of `sonde-cc --sonde-calls` (-finstrument-functions-after-inlining):
 * no-ops here, the soft backend's execute breakpoints and return watches in libsonde.so. */
STUB void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)fn;
	(void)site;
}

STUB void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
}
