#!/usr/bin/env bash
# t052-workloads-native: the bundled workloads behave as their comments say when run
# natively (no sonde): outputs, exit statuses, and the answers known by construction that
# can be checked from outside.  The tests that run them under sonde rely on this.
. "$(dirname "$0")/lib.sh"

for w in demo-hotcold threads1000 forkexec sigrtmin segv stdout membound inst-loop; do
	[ -x "$W/$w" ] || { fail "t052-$w-built" "$W/$w missing (make build-tests)"; exit 0; }
done

# expect NAME WANT_STATUS WANT_STDOUT_FILE COMMAND...
expect() {
	local name=$1 want_rc=$2 want=$3; shift 3
	"$@" >"$name.out" 2>"$name.err"
	local rc=$?
	if [ "$rc" -ne "$want_rc" ]; then
		fail "$name" "exit status $rc, want $want_rc ($(head -c 200 "$name.err"))"
	elif ! cmp -s "$name.out" "$want"; then
		fail "$name" "stdout '$(head -c 200 "$name.out")', want '$(head -c 200 "$want")'"
	else
		pass "$name"
	fi
}

echo "demo-hotcold: threads=2 rounds=200 ok" >want
expect t052-demo-hotcold-default 0 want "$W/demo-hotcold"
echo "demo-hotcold: threads=4 rounds=3 ok" >want
expect t052-demo-hotcold-4-threads 0 want "$W/demo-hotcold" 4 3
expect t052-demo-hotcold-usage 2 /dev/null "$W/demo-hotcold" 0

echo "threads1000: threads=1000 ok" >want
expect t052-threads1000 0 want "$W/threads1000"

# The three processes run concurrently: compare the lines, not their order.
{
	echo "forkexec: echo"
	echo "forkexec: child sum=$((64 * (1048576 * 1048575 / 2)))"
	echo "forkexec: parent ok"
} | sort >want
"$W/forkexec" >fe.out 2>fe.err
rc=$?
sort fe.out >fe.sorted
check t052-forkexec-status [ "$rc" -eq 0 ]
check t052-forkexec-lines cmp -s fe.sorted want

echo "sigrtmin: signals=4000 rtmin=2000 rtmin1=2000 ok" >want
expect t052-sigrtmin 0 want "$W/sigrtmin"

# A shell reports death by SIGSEGV as 128 + 11.
echo "segv: working" >want
expect t052-segv 139 want "$W/segv"

# stdout: the same lines as an independent awk computation, byte for byte.
awk 'BEGIN { for (i = 0; i < 100000; i++) { a = (i * 2654435761) % 1000003; s += a; printf "%.0f %.0f %.0f\n", i, a, s } }' >want
expect t052-stdout 0 want "$W/stdout"

# membound: a[N-1] = (N-1) + 3 * 1; the chase's end is checked for shape only.
"$W/membound" >mb.out 2>mb.err
rc=$?
check t052-membound-status [ "$rc" -eq 0 ]
check t052-membound-line grep -q -x "membound: stream=$((4194304 - 1 + 3)) chase=[0-9]* ok" mb.out

# inst-loop (built by gcc here): fill(7) then 10,000 steps of p = ring[p] from p = 1.
awk 'BEGIN { for (i = 0; i < 1024; i++) r[i] = (i * 7 + 1) % 1024;
	p = 1; for (i = 0; i < 10000; i++) p = r[p]; print "inst-loop: " p }' >want
expect t052-inst-loop 0 want "$W/inst-loop"
