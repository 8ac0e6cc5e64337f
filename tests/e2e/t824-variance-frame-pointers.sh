#!/usr/bin/env bash
# t824-variance-frame-pointers: a program built without frame pointers (gcc's -O2 default)
# is said in the report's header and on the HTML page, since variance's contexts and
# picks walk the frame-pointer chain (callers' time shares read low there: the helper's
# trial of 2026-11-27, NPB MG and miniFE); a -fno-omit-frame-pointer build is not.  The
# share of the executable's functions that set up a frame pointer (meta exe_fp_functions
# of exe_functions, src/prof/symbols.c): gcc -O2 gives vwork none, the flag nearly all.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"

var_gcc_src t824-nofp vwork.c nofp -O2 -pthread || exit 0
var_gcc_src t824-fp vwork.c fp -O2 -fno-omit-frame-pointer -pthread || exit 0
for b in nofp fp; do
	VWORK_ITERS=200 "$SONDE" variance -o $b.d -p 1000000 -- ./$b mix 0 >/dev/null 2>$b.err
	check "t824-$b-run" [ $? -eq 0 ]
	"$SONDE" report $b.d --html $b.html >/dev/null 2>&1
done
# the header names the program as it was run
check t824-header-program grep -q "^  program: ./nofp mix 0$" nofp.err
n=$(vr_meta nofp.d exe_functions) f=$(vr_meta nofp.d exe_fp_functions)
check "t824-nofp-functions-${f:-none}-of-${n:-none}" [ "${n:-0}" -ge 5 -a "$(( ${f:-99} * 4 ))" -lt "${n:-0}" ]
check t824-nofp-said grep -q "call paths: .*nofp sets up a frame pointer in ${f:-x} of its ${n:-x} functions.*-fno-omit-frame-pointer" <(flat nofp.err)
check t824-nofp-html grep -q "call paths</th><td>.*-fno-omit-frame-pointer" nofp.html
n=$(vr_meta fp.d exe_functions) f=$(vr_meta fp.d exe_fp_functions)
check "t824-fp-functions-${f:-none}-of-${n:-none}" [ "${n:-0}" -ge 5 -a "$(( ${f:-0} * 2 ))" -ge "${n:-1}" ]
check t824-fp-not-said [ "$(grep -c "call paths:" fp.err)" -eq 0 ]
check t824-fp-html-not-said [ "$(grep -c "call paths</th>" fp.html)" -eq 0 ]
# The time share without frame pointers: the samples' paths stop at spin (the walk cannot
# go past a frame without one) and so start with no context; they count for the context
# they are the tail of.  spin is the loop every unit of mix's work runs in (the rest is a
# few calls and the loop's bookkeeping), so by construction its share is most of the
# samples in both builds; 0.5 leaves room for the samples that land in main's own code
# and in the runtime's start.  (It read 0.0 without frame pointers before, against 1.0
# with them: the helper's trial of 2026-11-27 on SimpleMOC, miniAMR, PENNANT.)
for b in nofp fp; do
	sh=$(var_col $b.d/variance/functions.csv spin "main > spin" time share)
	check "t824-$b-spin-share-${sh:-none}" awk -v s="${sh:-0}" 'BEGIN { exit !(s >= 0.5) }'
done
# A "varies but N% of the time" verdict without frame pointers says the share may read low
# (the trial of 2026-11-28: graph500's BFS kernel told to be set aside at 5.0%); with them
# it does not.  small() has work() do 20,000 or 200,000 loop turns in turn (CV 0.82 by
# construction), about 3% of the time beside big()'s 4,000,000: work in the context
# "... small > work" is "varies ... but" (1.9% without frame pointers, 3.8% with them, in
# one run each).
cat >vs.c <<'EOF'
static volatile unsigned long sink;
__attribute__((noinline)) void work(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void small(int k) { work(k % 2 ? 20000 : 200000); sink++; }
__attribute__((noinline)) void big(void) { work(4000000); sink++; }
int main(void) { for (int k = 0; k < 400; k++) { small(k); big(); } return 0; }
EOF
for b in nofp fp; do
	flags=-O2
	[ $b = fp ] && flags="-O2 -fno-omit-frame-pointer"
	gcc $flags -g vs.c -o vs-$b 2>/dev/null || { fail "t824-vs-$b-build" "gcc vs.c"; continue; }
	"$SONDE" variance -q -o vs-$b.d -- ./vs-$b >/dev/null 2>&1
	v=$(python3 -c 'import csv,sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["function"] == "work" and r["context"].endswith("small > work") and r["metric"] == "time":
        print(r["verdict"]); break' vs-$b.d/variance/functions.csv 2>/dev/null)
	case "$v" in
	varies*)
		if [ $b = nofp ]; then
			check "t824-nofp-varies-hedged" grep -q "without frame pointers a caller's share reads low" <<<"$v"
		else
			check "t824-fp-varies-not-hedged" sh -c "! grep -q 'without frame pointers' <<'X'
$v
X"
		fi ;;
	*) skip "t824-$b-varies-hedge" "small > work's verdict in this run: '${v:-none}'" ;;
	esac
done
