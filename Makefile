# sonde - the only build.  make, make check, make demo, make bench, make install PREFIX=...
# Switches: DEBUG=1 (-O0), ASAN=1, UBSAN=1, V=1 (show commands), WERROR=1 (make check sets it).

PREFIX ?= /usr/local
VERSION := 0.1.0
CC ?= gcc
ifeq ($(origin CC),default)
CC := gcc
endif
B := build
# One spelling of the build directory: relative under the source tree, else absolute.  The
# compiler's dependency files (-MMD) name each object as B spelled it, so objects built
# once with `make B=$PWD/build` (t012's and t700's install) kept their header dependencies
# under another name than `make`'s build/obj/...: a header changed after that did not
# rebuild them (a stale ctx.o with an older struct crashed variance, 2026-11-26).
override B := $(patsubst $(CURDIR)/%,%,$(abspath $(B)))

ifeq ($(V),1)
Q :=
else
Q := @
endif

OPT := -O2
ifeq ($(DEBUG),1)
OPT := -O0
endif
SAN :=
ifeq ($(ASAN),1)
SAN += -fsanitize=address
endif
ifeq ($(UBSAN),1)
SAN += -fsanitize=undefined
endif
WARN := -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
ifeq ($(WERROR),1)
WARN += -Werror
endif

CFLAGS_COMMON := -std=gnu11 $(OPT) -g $(WARN) -Iinclude -Isrc -D_GNU_SOURCE -MMD -MP \
	-DSONDE_VERSION='"$(VERSION)"'
CFLAGS_CLI := $(CFLAGS_COMMON) $(SAN) -DSONDE_SOURCE_DATADIR='"$(abspath data)"'
# The runtime never gets sanitizers: it lives inside other programs.
CFLAGS_RT := $(CFLAGS_COMMON) -fPIC -fvisibility=hidden -fno-omit-frame-pointer \
	-fno-stack-protector -ftls-model=initial-exec

# (libZydis and libunwind are loaded on demand, src/rt/decode-load.c and init.c: a tool
# that needs neither maps neither; the CLI links libZydis)
LIBS_RT := -ldl -lpthread -lrt
LIBS_CLI := -lsqlite3 -ldw -lelf -lzstd -lZydis -ldl -lm -lpthread

# Where code lives (doc/architecture.md):
#   src/rt/                 libsonde.so's machinery, inside the profiled program
#   src/tools/<tool>/rt-*.c  a tool's runtime client (built into libsonde.so too)
#   src/tools/<tool>/*.c     the rest of a tool: model, views, command (the CLI)
#   src/tools/<tool>/build.mk  optional: a tool's own extra targets (see vsensor)
#   src/prof/ src/ui/ src/analyze/ src/machine/ src/cmd/   the CLI's shared layers
# Files that include rt/sigsafe.h hold handler-reachable code; the nm check
# (tests/e2e/t010-rt-handler-safety.sh) finds them by that include.
RT_SRC := $(wildcard src/rt/*.c src/tools/*/rt-*.c)
# Pure runtime modules that the CLI and unit tests may link too (no constructors, no interposers).
RT_PURE := $(filter-out src/rt/init.c src/rt/interpose.c src/rt/inst-stub.c,$(RT_SRC))
TOOL_CLI_SRC := $(foreach f,$(wildcard src/tools/*/*.c),$(if $(filter rt-%,$(notdir $(f))),,$(f)))
# A tool's build.mk adds files that are not part of the CLI (a library of its own) here.
CLI_EXCLUDE :=
RT_SO_EXCLUDE :=
EXTRA_TARGETS :=
-include $(wildcard src/tools/*/build.mk)
CLI_SRC := src/sonde.c $(filter-out $(CLI_EXCLUDE),$(wildcard src/cmd/*.c src/prof/*.c src/tools/*.c \
	src/ui/*.c src/analyze/*.c src/machine/*.c ) $(TOOL_CLI_SRC))

# RT_SO_EXCLUDE (a tool's build.mk): runtime files that libsonde.so does not link, because
# another runtime file includes them (librt-pure.a keeps them for the unit tests)
RT_OBJ := $(patsubst src/%.c,$(B)/obj/%.o,$(filter-out src/rt/inst-stub.c $(RT_SO_EXCLUDE),$(RT_SRC)))
RT_PURE_OBJ := $(patsubst src/%.c,$(B)/obj/%.o,$(RT_PURE))
# Handler-reachable code as it runs in the program, for t010's nm check: each runtime
# file that includes rt/sigsafe.h, and what holds its code, under $(B): its object in
# libsonde.so, libsonde-inst.so for inst-stub.c, "included" for a file another runtime
# file includes (RT_SO_EXCLUDE: its code is checked in that file's object).
# $(B)/sigsafe.list, one "SOURCE HOLDER" a line.
SIGSAFE_SRC := $(shell grep -l '^\#include "rt/sigsafe.h"' $(RT_SRC) /dev/null)
sigsafe_holder = $(if $(filter src/rt/inst-stub.c,$(1)),libsonde-inst.so,$(if \
	$(filter $(RT_SO_EXCLUDE),$(1)),included,$(patsubst src/%.c,obj/%.o,$(1))))
SIGSAFE_LIST := $(foreach f,$(SIGSAFE_SRC),$(f) $(call sigsafe_holder,$(f)))
CLI_OBJ := $(patsubst src/%.c,$(B)/cli/%.o,$(CLI_SRC))
CLI_LIB_OBJ := $(filter-out $(B)/cli/sonde.o,$(CLI_OBJ))

WORKLOADS := $(patsubst tests/workloads/%.c,$(B)/workloads/%,$(wildcard tests/workloads/*.c)) \
	$(patsubst tests/workloads/%.cc,$(B)/workloads/%,$(wildcard tests/workloads/*.cc))
UNIT := $(patsubst tests/unit/%.c,$(B)/tests/%,$(wildcard tests/unit/u-*.c))

all: $(B)/sonde $(B)/libsonde.so $(B)/libsonde-inst.so $(B)/sonde-cc $(B)/sigsafe.list \
	$(B)/resident.list $(EXTRA_TARGETS)

# rewritten when the list changes (a file added, removed or excluded), else left alone
$(B)/sigsafe.list: $(addprefix $(B)/,$(filter-out included,$(foreach f,$(SIGSAFE_SRC),$(call \
	sigsafe_holder,$(f))))) FORCE
	$(Q)printf '%s %s\n' $(SIGSAFE_LIST) >$@.tmp && \
		{ cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@; }

# The runtime's code is resident whole whatever a run uses of it (the kernel maps a file's
# cached pages 64 KB around each fault), so it is built for size (-Os: 134 -> 108 KB of
# text) except where it runs at every access or every allocation: the inst source's
# callbacks, the tools' hooks behind them, the soft watchpoints' filter, the malloc
# wrappers.  Per sample or per trap, the kernel's signal delivery (~25 us) dwarfs what -Os
# costs; once per run, nothing counts.  (bench/memory.sh; doc/architecture.md, "The
# runtime's fixed memory".)
RT_HOT := src/rt/source-inst.c src/rt/interpose.c src/rt/watch-sig.c src/rt/core.c \
	src/rt/arena.c src/tools/reuse/rt-reuse.c src/tools/reuse/rt-sampler.c \
	src/tools/comm/rt-comm.c src/tools/comm/rt-detect.c
RT_OPT = $(if $(filter -O2,$(OPT)),$(if $(filter $(RT_HOT),$<),-O2,-Os),$(OPT))

$(B)/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_RT) $(RT_OPT) -c $< -o $@

$(B)/cli/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_CLI) -c $< -o $@

# The code that a handler or an interposed call can run while `sonde variance -e
# page-faults` measures an instance (a fault on the runtime's code in one would count):
# the handlers' machinery, the interposers (malloc, mmap, pthread_create, longjmp...),
# the call hooks, the decoders (variance reads call sites with decode-x86.c, the inst
# source's accesses go through decode-lite.c's cache and decoder), variance's client, and the
# trimming, the clock source's thread stop and the process's end, which run after start-up
# whatever the tool (a granule of cold code each, in every process's peak RSS).  Linked
# first, then the marker rt_resident_end (src/rt/resident-end.c), then the rest (start-up,
# the other tools): the text segment's start up to the marker is all variance keeps mapped
# of libsonde.so's code (src/rt/libtrim.c).  A file whose code such a path reaches goes
# here (t802 counts every fault of an instance: one on the runtime shows there; t009
# fails on resident code that calls, jumps to or takes the address of code above the
# marker, but an allow-list of start-up and other tools' paths).
# In this order: the files that `sonde comm` (inst source) runs after start-up are linked
# last before the marker and comm's client (RT_NEXT) right after it, so that its code in
# use is one range of few 16 KB granules (libtrim.c), not spread over the resident part
# between variance's, the clock source's and start-up's code: 112 -> 88 KB of
# libsonde.so's code resident in commbench's run (which functions run after start-up:
# uprobes on each, doc/sonde-comm.md, "Memory").  libtrim.c, interpose.c and core.c
# together first of those: the runtime off runs them after start-up too (the trimming's
# end, malloc and close, rt_fd_mine and rt_self), 16 code pages of libsonde.so in vwork's
# run with the runtime off instead of 22 when they lay apart (12 before this order).
RT_RESIDENT := src/tools/variance/rt-variance.c src/tools/variance/rt-jump.c src/tools/variance/rt-omp.c \
	src/rt/source-clock-sig.c src/rt/source-clock.c src/rt/watch-calib.c \
	src/rt/fnmap.c src/rt/decode-x86.c src/rt/ctx.c src/rt/init.c \
	src/rt/libtrim.c src/rt/interpose.c src/rt/core.c \
	src/rt/watch.c src/rt/watch-sig.c src/rt/arena.c \
	src/rt/thread.c src/rt/out.c src/rt/tools.c src/rt/finish.c src/rt/sigsafe.c src/rt/decode-lite.c \
	src/rt/source-inst.c src/rt/omp.c src/rt/omp-sig.c src/rt/ompt.c
RT_RESIDENT_OBJ := $(patsubst src/%.c,$(B)/obj/%.o,$(RT_RESIDENT))
RT_NEXT := src/tools/comm/rt-comm.c src/tools/comm/rt-detect.c
RT_NEXT_OBJ := $(patsubst src/%.c,$(B)/obj/%.o,$(RT_NEXT))
RT_SO_OBJ := $(RT_RESIDENT_OBJ) $(B)/obj/rt/resident-end.o $(RT_NEXT_OBJ) \
	$(filter-out $(RT_RESIDENT_OBJ) $(B)/obj/rt/resident-end.o $(RT_NEXT_OBJ),$(RT_OBJ))

# The list for t009 (which checks that the objects' code lies below the marker and that
# none of it calls code above it), one object a line; rewritten only when it changes.
$(B)/resident.list: FORCE
	@mkdir -p $(B)
	$(Q)printf '%s\n' $(RT_RESIDENT_OBJ) >$@.tmp && \
		{ cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@; }

# -z now: every PLT slot bound at load, so that no handler runs the loader's lazy binding
# (which reads libsonde.so's symbol tables and libc's hash tables: pages a handler would
# fault on, and that variance no longer keeps mapped).  -fini: the loader calls the
# (empty) marker at exit, not crti's _fini, which is empty too but linked at the text's
# end: its call mapped a granule of cold code in every process's last moments, where its
# peak RSS is.
$(B)/libsonde.so: $(RT_SO_OBJ)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) -shared -fPIC -Wl,-z,defs -Wl,-z,now -Wl,-fini=rt_resident_end \
		-Wl,-soname,libsonde.so $^ -o $@ $(LIBS_RT)

# No-op access callbacks that programs built by sonde-cc link against, so they run
# without the runtime; the preloaded libsonde.so's definitions win when profiling.
$(B)/libsonde-inst.so: src/rt/inst-stub.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_RT) -shared -Wl,-soname,libsonde-inst.so $< -o $@

$(B)/sonde-cc: tools/sonde-cc.in
	@mkdir -p $(dir $@)
	$(Q)sed -e 's|@LIBDIR@|$(abspath $(B))|g' -e 's|@INCDIR@|$(abspath include)|g' $< > $@
	$(Q)chmod +x $@

$(B)/librt-pure.a: $(RT_PURE_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/libcli.a: $(CLI_LIB_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/sonde: $(CLI_OBJ) $(B)/librt-pure.a
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(SAN) $(CLI_OBJ) $(B)/librt-pure.a -o $@ $(LIBS_CLI) $(LIBS_RT)

# a program that calls libunwind itself (t017b)
$(B)/workloads/rt-ownunwind: tests/workloads/rt-ownunwind.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O0 -g $< -o $@ -lunwind

$(B)/workloads/%: tests/workloads/%.c $(wildcard tests/workloads/*.h)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 -g -fno-omit-frame-pointer -pthread -fopenmp $< -o $@ -lm

# C++ workloads (std::vector, templates: what real codes allocate through)
$(B)/workloads/%: tests/workloads/%.cc $(wildcard tests/workloads/*.h)
	@mkdir -p $(dir $@)
	$(Q)$(CXX) -O2 -g -fno-omit-frame-pointer -pthread -fopenmp $< -o $@ -lm

$(B)/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(B)/libcli.a $(B)/librt-pure.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_CLI) -Itests/unit $< $(B)/libcli.a $(B)/librt-pure.a -o $@ $(LIBS_CLI) $(LIBS_RT)

build-tests: all $(WORKLOADS) $(UNIT)

check:
	$(Q)tools/deps.sh --check-or-install
	$(Q)$(MAKE) --no-print-directory WERROR=1 build-tests
	$(Q)SONDE_BUILD=$(abspath $(B)) tests/run.sh

demo:
	$(Q)tools/deps.sh --check-or-install
	$(Q)$(MAKE) --no-print-directory all $(B)/workloads/demo-hotcold
	$(B)/sonde mem --force -o $(B)/demo-profile -- $(B)/workloads/demo-hotcold
	@echo "demo: the answer by construction: alloc_hot 62.5%, static_table 31.25%, alloc_cold 6.25%;"
	@echo "demo: threads 25% and 75%.  More: 'sonde mem --help', doc/sonde-mem.md"

bench:
	$(Q)tools/deps.sh --check-or-install
	$(Q)$(MAKE) --no-print-directory all $(WORKLOADS)
	$(Q)bench/run.sh $(BENCH)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/sonde $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(B)/sonde $(DESTDIR)$(PREFIX)/bin/sonde
	install -m 755 $(B)/libsonde.so $(B)/libsonde-inst.so $(DESTDIR)$(PREFIX)/lib/sonde/
	install -m 644 $(B)/libsonde-vsensor.a $(DESTDIR)$(PREFIX)/lib/sonde/
	sed -e 's|@LIBDIR@|$(PREFIX)/lib/sonde|g' -e 's|@INCDIR@|$(PREFIX)/include|g' tools/sonde-cc.in > $(DESTDIR)$(PREFIX)/bin/sonde-cc
	chmod 755 $(DESTDIR)$(PREFIX)/bin/sonde-cc
	install -d $(DESTDIR)$(PREFIX)/share/sonde/topdown
	install -m 644 data/topdown/*.txt $(DESTDIR)$(PREFIX)/share/sonde/topdown/
	install -d $(DESTDIR)$(PREFIX)/share/doc/sonde
	install -m 644 README.md doc/*.md $(DESTDIR)$(PREFIX)/share/doc/sonde/
	for f in doc/sonde*.md; do n=$$(basename $$f .md); h=$(B)/obj/$$n.help; \
		case $$n in *-history) continue ;; esac; \
		case $$n in sonde) $(B)/sonde --help ;; sonde-cc) $(B)/sonde-cc --help ;; \
		*) $(B)/sonde $${n#sonde-} --help ;; esac > $$h 2>/dev/null || : > $$h; \
		d=$$(case $$n in sonde) echo "lightweight profilers for parallel programs" ;; \
		sonde-cc) echo "build a program for the exact inst sample source" ;; \
		sonde-mpi) echo "sonde under mpirun: one recording per rank, merged" ;; \
		*) $(B)/sonde --help 2>/dev/null | awk -v t=$${n#sonde-} \
			'$$1 == t { sub(/^ *[^ ]+ +/, ""); print }' ;; esac); \
		awk -v name=$$n -v section=1 -v help=$$h -v desc="$$d" -f tools/md2man.awk $$f \
			> $(DESTDIR)$(PREFIX)/share/man/man1/$$n.1; done

# Everything install wrote (the list above and install-bench), and the folders it made if empty.
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/sonde $(DESTDIR)$(PREFIX)/bin/sonde-cc
	rm -f $(DESTDIR)$(PREFIX)/share/man/man1/sonde.1 $(DESTDIR)$(PREFIX)/share/man/man1/sonde-*.1
	rm -rf $(DESTDIR)$(PREFIX)/lib/sonde $(DESTDIR)$(PREFIX)/share/sonde
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/sonde

clean:
	rm -rf $(B)

.PHONY: all check demo bench install uninstall clean build-tests FORCE
FORCE:
-include $(shell find $(B) -name '*.d' 2>/dev/null)
