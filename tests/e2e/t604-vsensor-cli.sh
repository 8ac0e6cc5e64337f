#!/usr/bin/env bash
# t604-vsensor-cli: sonde vsensor's usage errors (2) and failures (1), each a one-line
# "sonde: ..." message; cc passes the compiler's status through, and compiles a file
# libclang cannot parse without sensors.
. "$(dirname "$0")/lib.sh"
status() { "$@" >out 2>err; echo $?; }
check t604-vsensor-no-subcommand test "$(status "$SONDE" vsensor)" -eq 2
check t604-vsensor-bad-subcommand test "$(status "$SONDE" vsensor frobnicate)" -eq 2
check t604-vsensor-help test "$(status "$SONDE" vsensor --help)" -eq 0
check t604-vsensor-list-missing test "$(status "$SONDE" vsensor list /nonexistent.c)" -eq 1
check t604-vsensor-list-missing-msg grep -q "^sonde: cannot read '/nonexistent.c'" err
check t604-vsensor-list-one-line test "$(wc -l <err)" -eq 1
printf 'int main(void) { return nope; }\n' >bad.c
check t604-vsensor-list-parse test "$(status "$SONDE" vsensor list bad.c)" -eq 1
check t604-vsensor-list-parse-msg grep -q "^sonde: cannot parse 'bad.c'" err
# the message says where and what (clang's first error), not only that it failed
check t604-vsensor-list-parse-where grep -q "bad.c:1:[0-9]*: error: .*nope" err
# code gcc compiles and libclang 14 rejects (a GNU nested function): cc says so and
# compiles that file without sensors instead of failing the build
printf 'int main(void)\n{\n\tint twice(int x) { return 2 * x; }\n\treturn twice(0);\n}\n' >nested.c
if gcc -c nested.c -o /dev/null 2>/dev/null; then
	check t604-vsensor-cc-unparsable test "$(status "$SONDE" vsensor cc gcc -c nested.c)" -eq 0
	check t604-vsensor-cc-unparsable-obj test -s nested.o
	check t604-vsensor-cc-unparsable-msg \
		grep -qx "sonde: warning: vsensor: compiling 'nested.c' without sensors" err
else
	skip t604-vsensor-cc-unparsable "gcc does not take nested functions here"
fi
check t604-vsensor-list-no-file test "$(status "$SONDE" vsensor list)" -eq 2
check t604-vsensor-report-no-dir test "$(status "$SONDE" vsensor report)" -eq 2
mkdir empty
check t604-vsensor-report-empty test "$(status "$SONDE" vsensor report empty)" -eq 1
check t604-vsensor-report-empty-msg grep -q "^sonde: no matrix-\*.csv in 'empty'" err
check t604-vsensor-score-usage test "$(status "$SONDE" vsensor score empty)" -eq 2
printf 'int main(void) { for (int i = 0; i < 10; i++) ; return 0; }\n' >ok.c
check t604-vsensor-cc-status test "$(status "$SONDE" vsensor cc sh -c 'exit 3' ok.c)" -eq 3
# -c with several sources: each object is named after its source (gcc takes no -o with
# -c and several files), with one of them unparsable too (then cc appended '-o ok.o' and
# gcc refused; with two parsable ones the objects were 0-ok.o and 1-ok2.o)
printf 'double v[100];\nvoid g(void) { for (int r = 0; r < 10; r++) for (int i = 0; i < 100; i++) v[i] += 1; }\n' >ok2.c
rm -f ok.o ok2.o nested.o
check t604-vsensor-cc-c-two test "$(status "$SONDE" vsensor cc gcc -c ok.c ok2.c)" -eq 0
check t604-vsensor-cc-c-two-objs test -s ok.o -a -s ok2.o
check t604-vsensor-cc-c-two-instrumented grep -q vs_tick <<<"$(nm ok2.o)"
if gcc -c nested.c -o /dev/null 2>/dev/null; then
	rm -f ok2.o
	check t604-vsensor-cc-c-unparsable-too test "$(status "$SONDE" vsensor cc gcc -c ok2.c nested.c)" -eq 0
	check t604-vsensor-cc-c-unparsable-too-objs test -s ok2.o -a -s nested.o
fi
# many sources on one command line (a program linked from its .c files): each becomes two
# arguments (-iquote DIR and its instrumented copy); 40 of them overran the vector
mkdir many
for i in $(seq 40); do printf 'int f%d(void) { return %d; }\n' "$i" "$i" >"many/s$i.c"; done
check t604-vsensor-cc-many-sources test "$(status "$SONDE" vsensor cc true many/s*.c)" -eq 0
# several directories (a glob over several jobs): one report after the other; --csv
# and --html take one (hand-written one-rank matrices: no MPI needed)
for d in job1 job2; do
	mkdir "$d"
	printf 'rank,0.000,0.200\n0,1.000,0.950\n' >"$d/matrix-compute.csv"
done
check t604-vsensor-report-dirs test "$(status "$SONDE" vsensor report job1 job2)" -eq 0
check t604-vsensor-report-dirs-headers test "$(grep -c '^== job[12]$' out)" -eq 2
check t604-vsensor-report-dirs-csv test "$(status "$SONDE" vsensor report --csv job1 job2)" -eq 2
check t604-vsensor-report-dirs-csv-msg grep -q "^sonde: --csv takes one directory" err
# numeric options: a bad value is a usage error (atof/atoi used to read 'abc' as 0: a
# threshold of 0 flags nothing, and the report said nothing was wrong)
for a in "--threshold abc" "--threshold 0" "--threshold 1.5" "--min-slices 0" "--min-slices 2x"; do
	check "t604-vsensor-report-bad ($a)" test "$(status "$SONDE" vsensor report $a job1)" -eq 2
	check "t604-vsensor-report-bad-msg ($a)" grep -q "^sonde: ${a%% *} wants a" err
done
check t604-vsensor-report-threshold-missing test "$(status "$SONDE" vsensor report job1 --threshold)" -eq 2
check t604-vsensor-report-threshold-ok test "$(status "$SONDE" vsensor report --threshold 0.5 --min-slices 3 job1)" -eq 0
check t604-vsensor-report-threshold-used grep -q "rule: compute < 0.50, network < 0.50, io < 0.50 for 3+ slices" out
check t604-vsensor-list-bad-depth test "$(status "$SONDE" vsensor list --max-depth -3 ok.c)" -eq 2
check t604-vsensor-list-bad-depth-msg grep -q "^sonde: --max-depth wants a number of loops, not '-3'" err
check t604-vsensor-cc-bad-depth test "$(status "$SONDE" vsensor cc --max-depth x cc ok.c)" -eq 2
# --with and --max-depth with no value after them (the compiler would have been taken for it)
check t604-vsensor-cc-with-no-value test "$(status "$SONDE" vsensor cc --with)" -eq 2
check t604-vsensor-cc-depth-no-value test "$(status "$SONDE" vsensor cc --max-depth)" -eq 2
check t604-vsensor-list-with-no-value test "$(status "$SONDE" vsensor list --with)" -eq 2
check t604-vsensor-list-with-no-value-msg grep -qx "sonde: --with needs a value" err
# list and cc read the two options with one parser: the same messages, in any order
check t604-vsensor-list-depth-no-value test "$(status "$SONDE" vsensor list ok.c --max-depth)" -eq 2
check t604-vsensor-list-depth-no-value-msg grep -qx "sonde: --max-depth needs a value" err
check t604-vsensor-cc-with-after-depth test "$(status "$SONDE" vsensor cc --max-depth 2 --with)" -eq 2
check t604-vsensor-cc-with-after-depth-msg grep -qx "sonde: --with needs a value" err
check t604-vsensor-cc-bad-depth-after-with \
	test "$(status "$SONDE" vsensor cc --with 'none*.c' --max-depth x cc ok.c)" -eq 2
check t604-vsensor-cc-bad-depth-msg grep -q "^sonde: --max-depth wants a number of loops, not 'x'" err

# a FIFO named like a matrix is not read (it blocked the report for ever): an error, at once
mkdir -p fifo-dir && mkfifo fifo-dir/matrix-compute.csv
( timeout 20 "$SONDE" vsensor report fifo-dir >/dev/null 2>err )
rc=$?
check "t604-vsensor-report-fifo-no-hang ($rc)" [ "$rc" -eq 1 ]
# and says what every other reader says for it (it said "Invalid argument")
check t604-vsensor-report-fifo-message grep -qx "sonde: fifo-dir/matrix-compute.csv: not a regular file" err
# a matrix file with no header is named, not "Invalid argument" either
mkdir -p empty-dir && : >empty-dir/matrix-compute.csv
"$SONDE" vsensor report empty-dir >/dev/null 2>err
check t604-vsensor-report-not-matrix-message \
	grep -qx "sonde: empty-dir/matrix-compute.csv: not a vsensor matrix (no 'rank,...' header)" err

# where the network cannot be judged or flagged, the report says so instead of a bare "no
# variance events" (NPB IS: 11-12 slices of network data a rank; CoMD: one slice in four)
net_matrix() {	# DIR SLICES EVERY V0 V1: data in every EVERY-th slice, rank 0 at V0, rank 1 at V1
	mkdir -p "$1"
	awk -v n="$2" -v e="$3" -v a="$4" -v b="$5" 'BEGIN {
		printf "rank"; for (s = 0; s < n; s++) printf ",%.3f", s * 0.2; print ""
		for (r = 0; r < 2; r++) { printf "%d", r
			for (s = 0; s < n; s++) printf ",%s", s % e ? "" : (r ? b : a); print "" } }' \
		>"$1/matrix-network.csv"
}
net_matrix net-few 10 1 1 1
"$SONDE" vsensor report net-few >net.out 2>&1
check t604-vsensor-report-net-few grep -qx \
	"network not judged on ranks 0,1: 10 slices with network data, the rule wants 20+" net.out
# the HTML page says it too, under its events
"$SONDE" vsensor report --html net.html net-few >/dev/null 2>&1
check t604-vsensor-report-net-few-html grep -q "network not judged on ranks 0,1: 10 slices" net.html
net_matrix net-sparse 50 2 0.1 1
"$SONDE" vsensor report net-sparse >net.out 2>&1
check t604-vsensor-report-net-sparse grep -qx \
	"network cannot be flagged on ranks 0,1: at most 1 slice with network data" net.out
check t604-vsensor-report-net-mostly-low grep -q \
	"^network on ranks 0: under 0.50 in 100% of their slices with network data" net.out
check t604-vsensor-report-net-sparse-nothing-flagged grep -qx "no variance events" net.out
net_matrix net-dense 30 1 1 1
"$SONDE" vsensor report net-dense >net.out 2>&1
no_note() { ! grep -q "^network \(on\|not\|cannot\|: no\)" net.out; }
check t604-vsensor-report-net-dense-no-note no_note

# the report states the whole rule: the median check, the CPU-share check and step 6
mkdir -p rule-dir && printf 'rank,0,1,2\n0,1,0.9,0.95\n1,1,0.3,0.2\n' >rule-dir/matrix-compute.csv
"$SONDE" vsensor report rule-dir >rule.out 2>&1
check t604-vsensor-report-rule-median grep -q "compute also under 0.60 x the slice's median rank, or short of CPU" rule.out
check t604-vsensor-report-rule-network grep -q "network only on ranks with 20+ slices of it" rule.out
