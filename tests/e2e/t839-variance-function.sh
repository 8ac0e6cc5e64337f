#!/usr/bin/env bash
# t839-variance-function: `sonde variance --function NAME` picks only NAME and waits for
# its calls however far apart (the usability review of 2026-11-29, L6: a function of 65%
# of the time called 6 times a run got no instance; SONDE_VARIANCE_PATIENCE=40 got 3).
# By construction (sonde-cc's call hooks, as debug registers do not trap everywhere):
# rare() is ~20 M additions, called 6 times, most of the run's time; hot() is a short loop
# called 4000 times between two calls of rare().
#  - with --function rare: rare's rows only (no other function picked), at least 3 of
#    its 5 calls after the first one timed (the first sampled call defers to its return;
#    3: a margin for a sample that lands in hot() on a busy machine, which picks nothing
#    and so costs nothing but that sample), none of hot's;
#  - the header's `only:` line, meta `only`, the JSON's `only`, the page's row;
#  - no "not measured" for hot (not asked for), no unpicked samples counted for it;
#  - bad names: one line naming the fix, exit 2, the program not run.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"
command -v clang >/dev/null || { skip t839 "clang is not installed (sonde-cc needs it)"; exit 0; }
cat >fo.c <<'C'
#include <stdio.h>
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) void rare(void)
{
	unsigned long x = sink;
	for (long i = 0; i < 20000000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}
__attribute__((noinline)) void hot(unsigned i)
{
	volatile unsigned x = i;
	for (int k = 0; k < 2000; k++)
		x += k;
}
__attribute__((noinline)) void once(void)
{
	rare();
}
int main(void)
{
	int rounds = getenv("FO_ROUNDS") ? atoi(getenv("FO_ROUNDS")) : 6;
	if (getenv("FO_ONCE"))
		once();
	for (int r = 0; r < rounds; r++) {
		for (unsigned i = 0; i < 4000; i++)
			hot(i);
		rare();
	}
	printf("fo %d\n", sink != 1);
	return 0;
}
C
"$SONDE_BUILD/sonde-cc" --sonde-calls-only -O1 fo.c -o fo 2>cc.err || { fail t839-build "$(head -3 cc.err)"; exit 0; }
"$SONDE" variance -o rec --function rare -- ./fo >out 2>err
check t839-exit-status [ $? -eq 0 ]
check t839-stdout [ "$(cat out)" = "fo 1" ]
F=rec/variance/functions.csv
[ -f $F ] || { fail t839-functions "no $F: $(tail -3 err)"; exit 0; }
n=$(var_col $F rare "main > rare" cpu-time instances)
echo "    rare: ${n:-0} instances of its 5 calls after the first"
check "t839-rare-instances-$n" [ "${n:-0}" -ge 3 -a "${n:-0}" -le 5 ]
others=$(awk -F, 'NR > 1 && $1 != "rare"' $F | wc -l)
check "t839-only-rare-rows-$others" [ "$others" -eq 0 ]
check t839-only-meta [ "$(sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = 'only'")" = rare ]
flat err >err.flat
check t839-only-line grep -q "only: rare (--function: the samples pick these functions only" err.flat
check t839-no-unmeasured-hot [ -z "$(grep 'not measured:' err.flat)" ]
check t839-no-unpicked [ "$(sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = 'no_frame'")" = 0 ]
"$SONDE" report rec --format json >j.json
check t839-json-only python3 -c 'import json,sys; d=json.load(open("j.json")); sys.exit(d["only"] != "rare")'
"$SONDE" report rec --html page.html >/dev/null 2>&1
check t839-html-only grep -q "only (--function)" page.html
# without --function the JSON says "" (all functions)
"$SONDE" variance -q -o all -- ./fo >/dev/null 2>&1
"$SONDE" report all --format json >ja.json
check t839-json-all python3 -c 'import json,sys; d=json.load(open("ja.json")); sys.exit(d["only"] != "")'
# bad names: exit 2 before the run, one line that says what to do
"$SONDE" variance -o bad1 --function nosuch -- ./fo >o1 2>e1
check t839-nosuch-status [ $? -eq 2 ]
check t839-nosuch-text grep -q "no function 'nosuch' in ./fo ('nm -C ./fo' lists them" e1
check t839-nosuch-not-run [ ! -s o1 -a ! -e bad1 ]
"$SONDE" variance -o bad2 --function main -- ./fo >o2 2>e2
check t839-main-status [ $? -eq 2 ]
check t839-main-text grep -q "main is called once and never timed" e2
"$SONDE" variance --function rare --timeline rare rec >o3 2>e3
check t839-timeline-status [ $? -eq 2 ]
check t839-help grep -q -- "--function NAME" <("$SONDE" variance --help)
# two asked, the first called once (a pick of it, waiting for a second call that never
# comes, expires: 16 times the patience, SONDE_VARIANCE_PATIENCE=1 here, 16 samples, to
# keep the run short), so the second still gets its instances (the code review of
# 2026-11-29: a pick that never expired starved it).  12 rounds; at least 3 instances
# (a wait of 16 samples costs 1-2 calls of rare, and each self-pick one more: 4-9 here)
FO_ONCE=1 FO_ROUNDS=12 SONDE_VARIANCE_PATIENCE=1 "$SONDE" variance -q -o two \
	--function once --function rare -- ./fo >/dev/null 2>&1
n2=$(var_col two/variance/functions.csv rare "main > rare" cpu-time instances)
echo "    once then rare: rare ${n2:-0} instances in main > rare (12 calls)"
check "t839-two-names-rare-${n2:-0}" [ "${n2:-0}" -ge 3 ]
check t839-two-names-meta [ "$(sqlite3 two/profile.db "SELECT value FROM meta WHERE key = 'only'")" = "once; rare" ]
# a C++ name as 'nm -C' gives it, its parameters optional (the names are resolved before
# the run, whichever build: a plain one here)
if command -v g++ >/dev/null; then
	cat >cx.cc <<'C'
#include <cstdio>
namespace ns {
__attribute__((noinline)) unsigned work(unsigned n)
{
	volatile unsigned x = 0;
	for (unsigned i = 0; i < n; i++)
		x += i;
	return x;
}
}
int main() { std::printf("cx %u\n", ns::work(1000) > 0); return 0; }
C
	g++ -O1 -g cx.cc -o cx 2>/dev/null
	for name in "ns::work" "ns::work(unsigned int)"; do
		"$SONDE" variance -q -o "cx-${name%%(*}" -f --function "$name" -- ./cx >cxo 2>cxe
		st=$? only=$(sqlite3 "cx-${name%%(*}/profile.db" "SELECT value FROM meta WHERE key = 'only'")
		check "t839-cxx-$name" [ $st -eq 0 -a "$(cat cxo)" = "cx 1" -a "$only" = "$name" ]
	done
	"$SONDE" variance -q -o cx-bad --function "ns::wor" -- ./cx >/dev/null 2>&1
	check t839-cxx-prefix-is-not-a-name [ $? -eq 2 ]
fi
