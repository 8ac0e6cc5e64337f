#!/usr/bin/env bash
# t301: a short, bounded libFuzzer run of the perf.data reader (ASan + UBSan): no crash, no
# leak, no hang on mutated perf.data files.  Seeds: tests/fuzz/corpus-perfdata and the small
# checked-in fixtures (tests/fixtures/perfdata).  A longer run: FUZZ_SECONDS=600 bash tests/e2e/t301-analyze-fuzz.sh
. "$(dirname "$0")/lib.sh"
if ! command -v clang >/dev/null; then
	skip t301-analyze-fuzz "clang is not installed"
	exit 0
fi
# Can this machine build a fuzzer at all (clang's libFuzzer runtime)?  If not, SKIP; if it
# can, a failure to build the reader is a failure.
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return (int)(n && d[0]); }\n' >"$T/probe.c"
if ! clang -fsanitize=fuzzer "$T/probe.c" -o "$T/probe" 2>"$T/cc.err"; then
	skip t301-analyze-fuzz "cannot build with -fsanitize=fuzzer: $(head -1 "$T/cc.err")"
	exit 0
fi
if ! clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -I"$SONDE_TOP/src" \
	"$SONDE_TOP/tests/fuzz/fuzz-perfdata.c" "$SONDE_TOP/src/analyze/perfdata.c" \
	"$SONDE_TOP/src/rt/perf-sample.c" -lzstd -o "$T/fuzz" 2>"$T/cc.err"; then
	fail t301-analyze-fuzz "the reader does not build: $(grep -m1 error "$T/cc.err")"
	exit 0
fi
mkdir -p "$T/corpus"
cp "$SONDE_TOP"/tests/fuzz/corpus-perfdata/* "$T/corpus/" 2>/dev/null
n=0
for f in "$SONDE_TOP"/tests/fixtures/perfdata/*.perf.data; do
	[ -e "$f" ] && [ "$(stat -c %s "$f")" -lt 30000 ] && cp "$f" "$T/corpus/" && n=$((n + 1))
done
if [ "$n" -lt 5 ]; then
	fail t301-analyze-fuzz "only $n small fixtures in tests/fixtures/perfdata (expected 5)"
	exit 0
fi
"$T/fuzz" -max_total_time="${FUZZ_SECONDS:-20}" -max_len=20000 -timeout=10 -rss_limit_mb=2048 \
	"$T/corpus" >"$T/fuzz.log" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && grep -q '^Done ' "$T/fuzz.log"; then
	pass "t301-analyze-fuzz ($(grep '^Done ' "$T/fuzz.log"))"
else
	fail t301-analyze-fuzz "rc=$rc: $(grep -m3 -E 'ERROR|SUMMARY|crash-' "$T/fuzz.log" | tr '\n' ' ')"
	cp "$T"/crash-* "$T"/leak-* "$T"/timeout-* "$SONDE_BUILD/" 2>/dev/null
fi
