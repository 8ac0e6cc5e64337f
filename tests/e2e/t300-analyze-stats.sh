#!/usr/bin/env bash
# t300: `sonde analyze --stats` counts the same records per type and samples per event as
# `perf report --stats` (run here, on the same file), for every perf.data fixture from other
# kernels and for files recorded here (pipe mode, zstd-compressed); the corrupted fixture
# gives a one-line error naming the offset, not a crash.  The fixtures are checked in
# (tests/fixtures/perfdata, see its README.md): a missing one is a failure.
. "$(dirname "$0")/lib.sh"
FIX=$SONDE_TOP/tests/fixtures/perfdata
FIXTURES="branch-4.14 callgraph-3.8 group_desc-4.14 hw_and_sw-3.4 lost_samples-4.4
	piped.header_features_aligned-6.12 singleprocess-3.8 weight_struct"

if ! command -v perf >/dev/null; then
	skip t300-analyze-stats "perf is not installed"
	exit 0
fi

# perf's --stats output -> "NAME count" lines (aggregated), then "@i event count" lines for
# each event with samples, in perf's order, and "@i lost count" for lost samples.
perf_stats() {
	perf report -i "$1" --stats 2>/dev/null | awk '
		/^Aggregated stats:/ { agg = 1; next }
		/ stats:$/ { agg = 0; ev++; sub(/ stats:$/, ""); sub(/^ +/, ""); name[ev] = $0; next }
		/ events: / {
			n = $0; sub(/ events:.*/, "", n); sub(/^ +/, "", n)
			c = $0; sub(/.* events: +/, "", c); sub(/ .*/, "", c)
			if (agg) print n, c
			else if (n == "SAMPLE") print "@" ev, name[ev], c
			else if (n == "LOST_SAMPLES") print "@" ev, "lost", c
		}' | sed 's/:.* / /'
}

# sonde's output in the same shape (events with no sample left out, as perf does).
sonde_stats() {
	"$SONDE" analyze --stats "$1" | awk '
		/^samples:/ { n = $1; sub(/^samples:/, "", n); c = $2
			if (c > 0) { ev++; print "@" ev, n, c } ; last = ev; next }
		/^lost_samples:/ { if (last == ev && ev > 0) print "@" ev, "lost", $2; next }
		$1 == "UNKNOWN" || $1 == "SAMPLE_UNKNOWN_ID" { next }
		{ print }' | sed 's/:.* / /'
}

compare() {
	local name=$1 f=$2
	perf_stats "$f" >"$T/perf.txt"
	sonde_stats "$f" >"$T/sonde.txt"
	if [ ! -s "$T/perf.txt" ]; then
		fail "$name" "perf gave no stats for $f"
	elif diff "$T/perf.txt" "$T/sonde.txt" >"$T/diff.txt"; then
		pass "$name"
	else
		fail "$name" "differs from perf: $(tr '\n' ' ' <"$T/diff.txt" | cut -c1-300)"
	fi
}

for b in $FIXTURES; do
	f=$FIX/$b.perf.data
	if [ -e "$f" ]; then
		compare "t300-stats-$b" "$f"
	else
		fail "t300-stats-$b" "fixture $f is missing"
	fi
done

# The corrupted fixture: status 1, one "sonde: ..." line naming an offset.
c=$FIX/piped.corrupted.zero_size_sample-3.2.perf.data
if [ ! -e "$c" ]; then
	fail t300-corrupted-clean-error "fixture $c is missing"
else
	"$SONDE" analyze --stats "$c" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] &&
		grep -q '^sonde: .*offset [0-9]' "$T/err"; then
		pass t300-corrupted-clean-error
	else
		fail t300-corrupted-clean-error "rc=$rc: $(cat "$T/err")"
	fi
	# Every truncation of a real file: a clean status (0 or 1), never a crash or a hang.
	g=$FIX/lost_samples-4.4.perf.data
	bad=0
	size=$(stat -c %s "$g")
	for cut in 0 7 16 50 103 104 300 536 600 1000 5000 9999 15000 15551 15600 $((size - 1)); do
		head -c "$cut" "$g" >"$T/cut.data"
		timeout 20 "$SONDE" analyze --stats "$T/cut.data" >/dev/null 2>"$T/err"
		rc=$?
		if [ "$rc" -gt 1 ] || ! { [ "$rc" -eq 0 ] || grep -q '^sonde: ' "$T/err"; }; then
			bad=1
			echo "cut at $cut: rc=$rc $(cat "$T/err")"
		fi
	done
	check t300-truncated-files-clean [ "$bad" -eq 0 ]
fi

# Files recorded here: pipe mode with two events, and zstd compression.
cat >"$T/w.c" <<'C'
#include <stdio.h>
__attribute__((noinline)) double spin(long n) { double s = 0; for (long i = 0; i < n; i++) s += i * 0.5; return s; }
int main(void) { printf("%f\n", spin(30000000)); return 0; }
C
gcc -O1 -g -o "$T/w" "$T/w.c"
if perf record -q -e cpu-clock,task-clock -g -o - "$T/w" >"$T/pipe.data" 2>/dev/null &&
	[ -s "$T/pipe.data" ]; then
	compare t300-stats-recorded-pipe "$T/pipe.data"
else
	skip t300-stats-recorded-pipe "perf record failed here"
fi
if perf record -q -z -e cpu-clock -o "$T/z.data" "$T/w" >/dev/null 2>&1 && [ -s "$T/z.data" ]; then
	compare t300-stats-recorded-zstd "$T/z.data"
else
	skip t300-stats-recorded-zstd "perf record -z failed here"
fi
