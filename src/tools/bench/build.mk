# sonde bench's microbenchmarks (src/tools/bench/micro/bench-micro.c), built beside the CLI in
# $(B)/bench/: `sonde bench` looks for them there (next to the sonde binary), or in
# $SONDE_BENCH_DIR.  The assembly build is for sources that sample the running program (clock,
# hw); the sonde-cc build is for inst (the compiler instruments C accesses, never inline asm),
# and is made only when clang is installed.
# Rules here come before the Makefile's `all`: keep `all` the default goal.
.DEFAULT_GOAL := all
BENCH_MICRO_SRC := src/tools/bench/micro/bench-micro.c
EXTRA_TARGETS += $(B)/bench/bench-micro
ifneq ($(shell command -v clang 2>/dev/null),)
EXTRA_TARGETS += $(B)/bench/bench-micro-inst
endif

$(B)/bench/bench-micro: $(BENCH_MICRO_SRC)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $@")
	$(Q)gcc -std=gnu11 -O2 -g -Wall -fno-omit-frame-pointer $< -o $@

$(B)/bench/bench-micro-inst: $(BENCH_MICRO_SRC) $(B)/sonde-cc $(B)/libsonde-inst.so
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $@ (sonde-cc)")
	$(Q)$(B)/sonde-cc -std=gnu11 -O2 -DBENCH_C $< -o $@

# make install: the benchmarks go to PREFIX/lib/sonde/bench/, where an installed sonde looks
# (cmd.c, find_binaries).  The inst build is relinked with the installed library's rpath, so
# that it still runs once the build tree is gone.
install: install-bench
install-bench: $(filter $(B)/bench/%,$(EXTRA_TARGETS))
	install -d $(DESTDIR)$(PREFIX)/lib/sonde/bench
	install -m 755 $(B)/bench/bench-micro $(DESTDIR)$(PREFIX)/lib/sonde/bench/
	if [ -x $(B)/bench/bench-micro-inst ]; then $(B)/sonde-cc -std=gnu11 -O2 -DBENCH_C \
		$(BENCH_MICRO_SRC) -Wl,-rpath,$(PREFIX)/lib/sonde \
		-o $(DESTDIR)$(PREFIX)/lib/sonde/bench/bench-micro-inst; fi
.PHONY: install-bench
