# The manuals' indexes hold what the tree has: every bench/ script in doc/benchmarks.md's
# tables (the audit of 2026-11-28 found 14 missing), the scripts `make bench` leaves out
# marked and listed as such, and each tool in doc/sonde.md's list of commands.
. "$(dirname "$0")/lib.sh"
B=$SONDE_TOP/doc/benchmarks.md
for s in "$SONDE_TOP"/bench/*.sh; do
	n=${s##*/}
	case $n in run.sh|lib.sh) continue ;; esac
	check "t008-benchmarks-lists-$n" grep -q "^| \`bench/$n\` |" "$B"
done
# on demand: in the table after "Run by hand only", and marked for bench/run.sh
hand=$(awk '/^Run by hand only/ { h = 1 } h && /^\| `bench\// { print }' "$B" |
	sed 's/^| `bench\/\([^`]*\)`.*/\1/')
for s in "$SONDE_TOP"/bench/*.sh; do
	n=${s##*/}
	if grep -q '^# make bench: on demand' "$s"; then
		check "t008-on-demand-listed-$n" grep -qx "$n" <<<"$hand"
	fi
done
for n in $hand; do
	check "t008-by-hand-marked-$n" grep -q '^# make bench: on demand' "$SONDE_TOP/bench/$n"
done
# bench/run.sh leaves them out of a whole run (its own listing, no script run)
out=$(bash -c 'for s in "$1"/bench/*.sh; do grep -q "^# make bench: on demand" "$s" &&
	echo "${s##*/}"; done' _ "$SONDE_TOP" | sort)
check t008-some-on-demand [ -n "$out" ]
for t in $("$SONDE" --help 2>&1 | awk '/Commands:$/ { c = 1; next } c && /^  [a-z]/ { print $1 }'); do
	check "t008-sonde-md-lists-$t" grep -q "^| \`$t\` |" "$SONDE_TOP/doc/sonde.md"
done
