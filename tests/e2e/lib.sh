# tests/e2e/lib.sh - sourced by every end-to-end test.
# Gives: $SONDE (the CLI), $W (built workloads), $T (a fresh temporary directory, removed
# at exit), and pass/fail/skip/check helpers that print the lines tests/run.sh counts.
set -u
: "${SONDE_TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${SONDE_BUILD:=$SONDE_TOP/build}"
: "${SONDE:=$SONDE_BUILD/sonde}"
W=$SONDE_BUILD/workloads
T=$(mktemp -d "${TMPDIR:-/tmp}/sonde-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
# `sonde bench`'s verdict sets clock's de-biasing for mem and comm (cmd/verdict.h): each test
# reads and writes its own, never the user's.
export SONDE_VERDICT=$T/sonde-verdict.csv
cd "$T" || exit 1

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1${2:+: $2}"; }
skip() { echo "SKIP $1: $2"; }

# flat FILE: FILE's text on one line, runs of spaces and newlines as one space: a summary
# folded to 80 columns (ui/text.h, text_fold) read as the sentences it prints, for greps of
# a phrase that a number's width may move across a line's end.
flat() { tr '\n' ' ' <"$1" | tr -s ' '; echo; }

# header_value LABEL FILE: the value of a summary header's line "  LABEL   value", its folded
# continuation lines (indented deeper) joined to it with one space each.
header_value() {
	awk -v l="  $1" 'index($0, l) == 1 && !on { v = substr($0, length(l) + 1); sub(/^ +/, "", v); on = 1; next }
		on && /^      / { t = $0; sub(/^ +/, "", t); v = v " " t; next }
		on { exit }
		END { if (on) print v }' "$2"
}

# check NAME COMMAND...: PASS if the command succeeds, FAIL otherwise.
check() {
	local name=$1; shift
	if "$@"; then pass "$name"; else fail "$name" "$*"; fi
}

# csv_get FILE KEYCOL KEY COL: the value of column COL in the first row whose KEYCOL equals KEY.
csv_get() {
	awk -F, -v kc="$2" -v k="$3" -v c="$4" '
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$h[kc] == k { print $h[c]; exit }' "$1"
}

# float_between X LO HI: true if LO <= X <= HI.
float_between() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }

# chromium_find: set CHROME to headless Chromium's path, or print SKIP NAME and return 1.
chromium_find() {
	CHROME=$(command -v chromium || command -v chromium-browser || true)
	[ -n "$CHROME" ] && return 0
	skip "$1" "chromium is not installed"
	return 1
}

# chromium URL [FLAGS...]: run it headless with the flags this closed network needs
# (no background connections, a fresh profile), console on chrome.log (appended);
# `--dump-dom` or `--screenshot=FILE` among FLAGS say what to do.
chromium() {
	local url=$1; shift
	timeout 60 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$T/chrome" --enable-logging=stderr --v=0 --virtual-time-budget=5000 \
		"$@" "$url" 2>>chrome.log
}

# chromium_console_errors: the console errors chrome.log holds (empty if none).
chromium_console_errors() { grep -E 'CONSOLE|Uncaught' chrome.log | grep -iE 'error|uncaught' | head -3 | tr '\n' ' '; }

# run_native_and_tools NAME PROG CHECK TOOL...: PROG.c (in the test's directory) built by
# gcc -O2 -pthread into ./PROG (FAIL NAME-build and return 1 where it cannot be), run
# natively (check NAME-native) and under each TOOL (sonde TOOL -q -o rec-TOOL; check
# NAME-TOOL-CHECK): each must exit 0.  Each run's stdout is printed, and kept in
# out-native, out-TOOL (stderr in err-TOOL).
run_native_and_tools() {
	local name=$1 prog=$2 what=$3 tool st
	shift 3
	gcc -O2 -pthread "$prog.c" -o "$prog" ||
		{ fail "$name-build" "cannot build the workload"; return 1; }
	"./$prog" >out-native
	check "$name-native" [ $? -eq 0 ]
	cat out-native
	for tool in "$@"; do
		"$SONDE" "$tool" -q -o "rec-$tool" -- "./$prog" >"out-$tool" 2>"err-$tool"
		st=$?
		cat "out-$tool"
		check "$name-$tool-$what" [ "$st" -eq 0 ]
	done
}

# run_doc_example NAME DOC WORKLOAD: run the "    $ ..." command lines of DOC's "## Worked
# example" section as written (sonde-cc and sonde only), in the test's directory, with the
# workload source (a path under tests/workloads/) copied to the same relative path first.
# Checks NAME-three-commands and NAME-command-N-status; command N's stdout and stderr go
# to outN and errN.
run_doc_example() {
	local name=$1 doc=$2 src=$3 n=0 cmd tool
	awk '/^## Worked example/ { w = 1; next } w && /^## / { exit } w && /^    \$ / { sub(/^    \$ /, ""); print }' "$doc" >cmds
	check "$name-three-commands" [ "$(wc -l <cmds)" -eq 3 ]
	mkdir -p "$(dirname "$src")" && cp "$SONDE_TOP/$src" "$src"
	while read -r cmd; do
		n=$((n + 1))
		set -- $cmd
		tool=$1
		shift
		case $tool in
		sonde-cc) "$SONDE_BUILD/sonde-cc" "$@" ;;
		sonde) "$SONDE" "$@" >out$n 2>err$n ;;
		*) fail "$name-command-$n" "unexpected command '$cmd'"; continue ;;
		esac
		check "$name-command-$n-status" [ $? -eq 0 ]
	done <cmds
}
