# t80-variance-lib.bash - helpers for the variance tests (t800-t849), sourced after lib.sh.
# Not a test itself (tests/run.sh runs t*.sh only).

# var_build NAME SRC OUT [FLAGS...]: build a workload of tests/workloads/variance with
# `sonde-cc --sonde-calls -O1`, or SKIP NAME and return 1 when clang is missing.
var_build() {
	local name=$1 src=$2 out=$3; shift 3
	command -v clang >/dev/null || { skip "$name" "clang is not installed (sonde-cc needs it)"; return 1; }
	[ -x "$SONDE_BUILD/sonde-cc" ] || { fail "$name" "$SONDE_BUILD/sonde-cc missing (make build-tests)"; return 1; }
	"$SONDE_BUILD/sonde-cc" --sonde-calls -O1 "$SONDE_TOP/tests/workloads/variance/$src" \
		-o "$out" "$@" || { fail "$name" "sonde-cc could not build $src"; return 1; }
}

# var_gcc_src NAME SRC OUT FLAGS...: a workload of tests/workloads/variance built by plain
# gcc with FLAGS, measured on the debug registers; SKIP NAME and return 1 when gcc is
# missing or their traps do not fire.
var_gcc_src() {
	local name=$1 src=$2 out=$3; shift 3
	command -v gcc >/dev/null || { skip "$name" "gcc is not installed"; return 1; }
	"$SONDE" info 2>/dev/null | grep -q "their traps fire" ||
		{ skip "$name" "the debug registers do not trap here (a plain build gets no instance)"; return 1; }
	gcc "$@" "$SONDE_TOP/tests/workloads/variance/$src" -o "$out" ||
		{ fail "$name" "gcc could not build $src"; return 1; }
}

# var_gcc_build NAME OUT: vwork.c built by plain gcc (-O1 -g, frame pointers), as above.
var_gcc_build() {
	var_gcc_src "$1" vwork.c "$2" -O1 -g -fno-omit-frame-pointer -pthread
}

# var_col FILE FUNCTION CONTEXT METRIC COLUMN: a column of functions.csv (or threads.csv's
# first matching row).  Contexts hold no comma.
var_col() {
	awk -F, -v f="$2" -v c="$3" -v m="$4" -v col="$5" '
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$1 == f && $2 == c && $h["metric"] == m { print $h[col]; exit }' "$1"
}

# var_count FILE COND: rows of instances.csv where the awk condition COND holds (columns
# by name: f function, c context, t time, cpu cpu_time, pf page_faults).
var_count() {
	awk -F, "NR > 1 { f = \$1; c = \$2; t = \$6; cpu = \$7; pf = \$8; if ($2) n++ } END { print n + 0 }" "$1"
}

# cut_stats DIR BYTES: cut every STATS record of DIR's streams by BYTES (a recording of
# an older runtime, whose STATS records ended before the fields cut: t800, t812)
cut_stats() {	# DIR BYTES: cut every STATS record of DIR's streams by BYTES
	python3 - "$1" "$2" <<'PY'
import glob, struct, sys
STATS = 64 + 1	# VAR_REC_STATS
by = int(sys.argv[2])
cut = 0
for f in glob.glob(sys.argv[1] + "/*.sdt"):
	b = bytearray(open(f, "rb").read())
	off = struct.unpack_from("<I", b, 12)[0]	# header_size
	out = b[:off]
	while off + 8 <= len(b):
		t, n = struct.unpack_from("<HH", b, off)
		if n < 8:
			break
		r = b[off:off + n]
		if t == STATS:
			struct.pack_into("<H", r, 2, n - by)
			r = r[:n - by]
			cut += 1
		out += r
		off += n
	open(f, "wb").write(out + b[off:])
assert cut > 0, "no STATS record"
PY
}
