#!/usr/bin/env bash
# t020-info-cli: `sonde info` is a report (exit 0), has --help, and rejects bad usage
# with a message on stderr and exit status 2.
. "$(dirname "$0")/lib.sh"

"$SONDE" info >out.txt 2>err.txt
rc=$?
check info-exits-0 test "$rc" -eq 0
check info-text-has-sections grep -q '^debug registers' out.txt
check info-text-has-hw-verdict grep -q '^hw source' out.txt
check info-text-names-mem-source grep -Eq '^  mem +(hw|clock|none)' out.txt
# Every command the report offers is one `sonde --help` lists; the rest are "planned".
"$SONDE" --help >cmds.txt 2>&1
offered=$(sed -n '/^commands and their sample source/,/^$/p' out.txt | awk 'NR > 1 && NF { print $1 }' | sort -u)
missing=""
for c in $offered; do grep -Eq "^  $c " cmds.txt || missing="$missing $c"; done
check info-offers-only-existing-commands test -n "$offered" -a -z "$missing"
[ -n "$missing" ] && echo "  offered but not commands:$missing"
for t in comm reuse variance; do
	if grep -Eq "^  $t " cmds.txt; then
		skip "info-labels-$t-planned" "$t is a command now"
	else
		check "info-labels-$t-planned" sh -c "sed -n '/^planned tools/,/^\$/p' out.txt | grep -q '^  $t '"
	fi
done
check info-no-stderr test ! -s err.txt

"$SONDE" info --help >help.txt 2>&1
check info-help-exits-0 test $? -eq 0
check info-help-usage grep -q '^usage: sonde info' help.txt
"$SONDE" help info >help2.txt 2>&1
check info-help-via-hub cmp -s help.txt help2.txt

"$SONDE" info --bogus >out.txt 2>err.txt
rc=$?
check info-unknown-option-exit-2 test "$rc" -eq 2
check info-unknown-option-stdout-empty test ! -s out.txt
check info-unknown-option-message grep -q "^sonde: unknown option '--bogus'" err.txt
check info-unknown-option-hint grep -q "sonde info --help" err.txt

"$SONDE" info extra >out.txt 2>err.txt
check info-extra-argument-exit-2 test $? -eq 2
check info-extra-argument-message grep -q "^sonde: " err.txt

# SONDE_VERDICT naming a FIFO: said, not waited on for ever (open blocked before)
mkfifo verdict.fifo
SONDE_VERDICT=$PWD/verdict.fifo timeout 20 "$SONDE" info >out.txt 2>err.txt
check "info-verdict-fifo-exit-0 ($?)" test $? -eq 0
check info-verdict-fifo-said grep -q "verdict.fifo is not a sonde bench verdict (not a regular file)" out.txt
