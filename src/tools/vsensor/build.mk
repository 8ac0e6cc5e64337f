# src/tools/vsensor/build.mk - sonde vsensor's own pieces (included by the top Makefile).
# rt-less tool: the runtime linked into instrumented MPI programs is libsonde-vsensor.a,
# built with mpicc from vsrt.c and the detection model it shares with the CLI.
VS_DIR := src/tools/vsensor
CLI_EXCLUDE += $(VS_DIR)/vsrt.c
EXTRA_TARGETS += $(B)/libsonde-vsensor.a
# libclang is dlopen'd by the analysis (clang-dl.c), not linked: every sonde command
# mapped it (59 MB of RSS for sonde --version)
CFLAGS_CLI += -I/usr/lib/llvm-14/include -DSONDE_VSENSOR_LIBDIR='"$(abspath $(B))"'
VS_MPICC ?= mpicc
# this file is read before the top Makefile's "all": keep "all" the default goal
.DEFAULT_GOAL := all

$(B)/vsrt/%.o: $(VS_DIR)/%.c $(wildcard $(VS_DIR)/*.h)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  MPICC   $<")
	$(Q)$(VS_MPICC) -std=gnu11 -O2 -g -fPIC $(WARN) -Isrc -D_GNU_SOURCE -c $< -o $@

$(B)/vsrt/csv.o: src/ui/csv.c src/ui/csv.h
	@mkdir -p $(dir $@)
	$(Q)$(VS_MPICC) -std=gnu11 -O2 -g -fPIC $(WARN) -Isrc -D_GNU_SOURCE -c $< -o $@

$(B)/vsrt/file.o: src/prof/file.c src/prof/file.h
	@mkdir -p $(dir $@)
	$(Q)$(VS_MPICC) -std=gnu11 -O2 -g -fPIC $(WARN) -Isrc -D_GNU_SOURCE -c $< -o $@

$(B)/libsonde-vsensor.a: $(B)/vsrt/vsrt.o $(B)/vsrt/judge.o $(B)/vsrt/model.o $(B)/vsrt/rec.o $(B)/vsrt/csv.o $(B)/vsrt/file.o
	$(Q)rm -f $@ && ar rcs $@ $^
