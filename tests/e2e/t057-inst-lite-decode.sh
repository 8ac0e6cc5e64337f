#!/usr/bin/env bash
# t057-inst-lite-decode: the inst source finds each access's instruction after its call
# site with decode_access_lite, without libZydis (src/rt/decode-lite.c: Zydis's pages were
# 272 KB of `sonde comm --source inst`'s resident memory on commbench).  u-decode-lite
# sweeps programs built by sonde-cc (clang's code, at -O2 and with AVX2/FMA at -O3 for the
# VEX reloads before vector stores) against Zydis: the same length, branches and accesses
# wherever the lite decoder answers, and the same instruction taken for the access at 99%
# of the call sites (its bar).  Then a comm run with the inst source must not map libZydis
# (the recording's copy of the process's maps at its end).  That the code locations stay
# right is checked where they are used: t051, t055, t061 (mem and comm with inst).
. "$(dirname "$0")/lib.sh"
command -v clang >/dev/null || { skip t057 "clang is not installed (sonde-cc needs it)"; exit 0; }
WS=$SONDE_TOP/tests/workloads
progs=
for f in comm/commbench.c comm/omp-stencil.c reuse/rbench.c membound.c inst-loop.c; do
	n=$(basename "$f" .c)
	"$SONDE_BUILD/sonde-cc" -std=gnu11 -O2 -g -pthread -fopenmp "$WS/$f" -o "o2-$n" -lm ||
		{ fail "t057-build-$n" "sonde-cc could not build $f"; continue; }
	progs="$progs o2-$n"
	# the vector forms only where the compiler and the machine's assembler have them
	"$SONDE_BUILD/sonde-cc" -std=gnu11 -O3 -mavx2 -mfma -g -pthread -fopenmp "$WS/$f" \
		-o "v-$n" -lm 2>/dev/null && progs="$progs v-$n"
done
# shellcheck disable=SC2086
"$SONDE_BUILD/tests/u-decode-lite" $progs >lite.out 2>&1
check t057-decode-agrees [ $? -eq 0 ]
grep -q "^PASS files" lite.out || { fail t057-decode-files "$(tail -5 lite.out)"; }
grep "covered by" lite.out >&2

"$SONDE" comm --source inst -q -o rc -- ./o2-commbench fs 200000 10 >out 2>err
check t057-comm-status [ $? -eq 0 ]
m=$(find rc -name '*.maps' | head -1)
check t057-comm-maps-copied [ -n "$m" ]
no_zydis() { [ -n "$m" ] && grep -q libsonde.so "$m" && ! grep -q libZydis "$m"; }
check t057-comm-no-zydis no_zydis
