#!/usr/bin/env bash
# t018-rt-heap-maps: heavy use of the allocator and of mappings under `sonde mem` leaves the
# program's output and status as natively, and a recording whose ALLOC/FREE records are
# consistent (checked by rt2-sdtcheck, a second reader: every FREE ends a live block, no
# block is allocated twice while live, no torn record):
#  - 4 threads x 50,000 alloc/free pairs of tracked sizes;
#  - 1.2 M live 64-byte blocks with --min-object 64: more than the table of tracked blocks
#    holds; the block allocated after they are all freed is still tracked;
#  - realloc growth (doubling and linear) to 16 MiB, shrinking, realloc(p, 0);
#  - mmap/munmap churn with partial unmaps and mremap (mremap was not followed: the old
#    address stayed live for ever, 63 blocks "allocated while live" in this run);
#  - a thread id given again by the kernel (ids wrap at pid_max): the second thread's
#    stream replaced the first one's, whose allocation vanished from the profile;
#  - C++ exceptions thrown through 20-220 frames in 3 threads, with the clock and inst
#    sources (the runtime's libunwind also exports _Unwind_*: the program's must win).
. "$(dirname "$0")/lib.sh"
report_ok() { "$SONDE" report "$1" >/dev/null 2>&1; }

run_mode() {	# run_mode NAME SONDE-OPTIONS -- ARGS
	local n=$1; shift
	local opts=()
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	( timeout 60 "$W/rt2-heap" "$@" >"n-$n.out" 2>/dev/null ); local nrc=$?
	( timeout 60 "$SONDE" mem -q "${opts[@]}" -o "p-$n" -- "$W/rt2-heap" "$@" \
		>"s-$n.out" 2>"s-$n.err" )
	local rc=$?
	check "t018-$n-status ($rc, native $nrc)" [ "$rc" -eq "$nrc" -a "$rc" -eq 0 ]
	check "t018-$n-stdout" cmp -s "n-$n.out" "s-$n.out"
	check "t018-$n-report" report_ok "p-$n"
	"$W/rt2-sdtcheck" "p-$n" >"c-$n.txt"
	local c
	c=$(cat "c-$n.txt")
	check "t018-$n-records ($c)" \
		grep -q ' empty=0 corrupt=0 .* free_unmatched=0 alloc_live=0 ' "c-$n.txt"
}

run_mode churn -- churn 50000
# 4 x 50,000 tracked allocations, all freed: each one an ALLOC and a FREE record, or
# counted in a SUMMARY record when nothing was observed in the process during its life.
# Every one must be accounted for, in the records and in the object's allocs column (all
# of them made at one line, by construction); the counted ones must be most of them: the
# run makes a few hundred observations, and each can make at most the 128 held blocks of
# each thread be written (more than half recorded means the counting does not work).
a=$(sed -n 's/.* alloc=\([0-9]*\) free=\([0-9]*\) .* counted=\([0-9]*\)$/\1 \2 \3/p' c-churn.txt)
read -r na nf nc <<<"$a"
check "t018-churn-counted ($a)" [ "$((na + nc))" -ge 200000 -a "$((nf + nc))" -ge 200000 ]
check "t018-churn-summarized ($a)" [ "${nc:-0}" -ge 100000 ]
line=$(grep -n 'live\[k\] = malloc(len\[k\]);' "$SONDE_TOP/tests/workloads/rt2-heap.c" | cut -d: -f1)
n=$(csv_get p-churn/mem/objects.csv object "churner (rt2-heap.c:$line)" allocs)
check "t018-churn-allocs-column (${n:-no row})" [ "${n:-0}" = 200000 ]

run_mode fill --min-object 64 -- fill
src=$SONDE_TOP/tests/workloads/rt2-heap.c
line=$(grep -n 'uint64_t \*a = malloc(n \* 8)' "$src" | cut -d: -f1)
n=$(csv_get p-fill/mem/objects.csv object "after_fill (rt2-heap.c:$line)" samples)
check "t018-fill-tracked-after (${n:-no row})" [ "${n:-0}" -gt 0 ]

run_mode realloc -- realloc
run_mode mmap -- mmap
a=$(sed -n 's/.* alloc=\([0-9]*\) .*/\1/p' c-mmap.txt)
# 20,000 mappings, 5,000 of them moved by mremap: 25,000 blocks
check "t018-mmap-mremap-followed ($a)" [ "${a:-0}" -ge 25000 ]

# Thread id reuse (needs root for /proc/sys/kernel/ns_last_pid).
"$SONDE" mem -q -o p-tid -- "$W/rt2-heap" tid-reuse >s-tid.out 2>s-tid.err
rc=$?
if [ "$(cat s-tid.out)" != "rt2-heap: tid reused" ]; then
	skip t018-tid-reuse "could not make the kernel reuse a thread id (not root?)"
else
	check "t018-tid-reuse-status ($rc)" [ "$rc" -eq 0 ]
	for f in first_thread second_thread; do
		check "t018-tid-reuse-$f" grep -q "^$f (rt2-heap.c:" p-tid/mem/objects.csv
	done
fi

# C++ exceptions through deep stacks while sampling.
if ! command -v g++ >/dev/null; then
	skip t018-cxx "needs g++"
	exit 0
fi
cat >exc.cc <<'C'
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>
static volatile unsigned long sink;
struct Guard {
	int *n;
	~Guard() { (*n)++; }
};
__attribute__((noinline)) static unsigned long dive(int depth, int at, int *dtors)
{
	Guard g{ dtors };
	unsigned long a[16], s;
	for (int i = 0; i < 16; i++)
		a[i] = depth * 16 + i;
	if (depth == at) {
		if (depth % 3 == 0)
			throw std::runtime_error("deep " + std::to_string(depth));
		throw depth;
	}
	s = dive(depth + 1, at, dtors);
	for (int i = 0; i < 16; i++)
		s += a[i];
	return s;
}
static void worker(int id, long *caught, int *dtors)
{
	for (int it = 0; it < 3000; it++) {
		int at = 20 + (it * 7 + id) % 200;
		try {
			sink += dive(0, at, dtors);
		} catch (const std::runtime_error &e) {
			caught[0] += e.what()[0] == 'd';
		} catch (int d) {
			caught[1] += d == at;
		}
	}
}
int main()
{
	std::vector<std::thread> th;
	long c[6] = { 0 };
	int d[3] = { 0 };
	for (int i = 0; i < 3; i++)
		th.emplace_back(worker, i, &c[2 * i], &d[i]);
	for (auto &t : th)
		t.join();
	printf("exc: runtime_error=%ld int=%ld dtors=%d\n", c[0] + c[2] + c[4], c[1] + c[3] + c[5],
	       d[0] + d[1] + d[2]);
	return 0;
}
C
# Known answer: throw depths 20..219; a multiple of 3 throws runtime_error; each throw
# destroys depth + 1 guards.
want=$(awk 'BEGIN { for (id = 0; id < 3; id++) for (it = 0; it < 3000; it++) {
	at = 20 + (it * 7 + id) % 200; if (at % 3 == 0) r++; else n++; g += at + 1 }
	printf "exc: runtime_error=%d int=%d dtors=%d\n", r, n, g }')
if g++ -O2 -g -pthread exc.cc -o exc 2>cc.err; then
	( timeout 60 "$SONDE" mem -q -o p-exc -- ./exc >s-exc.out 2>s-exc.err )
	check "t018-cxx-clock-status ($?)" [ $? -eq 0 ]
	check "t018-cxx-clock-answer" [ "$(cat s-exc.out)" = "$want" ]
	check "t018-cxx-clock-report" report_ok p-exc
else
	fail t018-cxx-build "$(head -1 cc.err)"
fi
if command -v clang++ >/dev/null && SONDE_CC=clang++ "$SONDE_BUILD/sonde-cc" -O2 -pthread \
	exc.cc -o exc-inst 2>cc.err; then
	( timeout 60 "$SONDE" mem -q --source inst -o p-exci -- ./exc-inst \
		>s-exci.out 2>s-exci.err )
	check "t018-cxx-inst-status ($?)" [ $? -eq 0 ]
	check "t018-cxx-inst-answer" [ "$(cat s-exci.out)" = "$want" ]
	check "t018-cxx-inst-report" report_ok p-exci
else
	skip t018-cxx-inst "cannot build with sonde-cc and clang++"
fi
