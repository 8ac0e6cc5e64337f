# Allocation call paths are cached per call site: every allocation still lands on its own
# site, and allocations made inside a wrapper (strdup) are named by the wrapper's caller.
. "$(dirname "$0")/lib.sh"
"$SONDE" mem -q -o rec -- "$W/allocsites" >out 2>err
check "exit-and-output" [ "$(cat out)" = "allocsites: ok" ]
allocs() { awk -F, -v f="$1" 'NR > 1 && index($1, f " (") == 1 { n += $8 } END { print n + 0 }' rec/mem/objects.csv; }
for want in "site_a 1000" "site_b 1000" "dup_a 500" "dup_b 300"; do
	set -- $want
	got=$(allocs "$1")
	check "allocs-$1 ($got)" [ "$got" -eq "$2" ]
done
