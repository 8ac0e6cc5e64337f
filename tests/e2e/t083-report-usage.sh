#!/usr/bin/env bash
# t083: `sonde report` usage errors (exit 2), missing recordings (exit 1), --help (exit 0).
source "$(dirname "$0")/lib.sh"

expect() {	# expect NAME STATUS STDERR-REGEX -- ARGS...
	local name=$1 status=$2 re=$3
	shift 4
	"$SONDE" report "$@" >out.txt 2>err.txt
	local rc=$?
	if [ $rc -ne "$status" ]; then
		fail "$name" "exit $rc, expected $status: $(head -2 err.txt)"
	elif [ -n "$re" ] && ! grep -qE "$re" err.txt; then
		fail "$name" "stderr: $(head -2 err.txt)"
	else
		pass "$name"
	fi
}

mkdir empty
expect usage_no_dir 2 "^sonde: missing recording directory$" --
expect usage_bad_format 2 "^sonde: unknown format 'xml' .text, csv or json; --html FILE for a page.$" -- empty --format xml
expect usage_format_html 2 "^sonde: --format html: the page is written by --html FILE" -- empty --format html
expect usage_format_missing 2 "needs a value" -- empty --format
expect usage_top_zero 2 "^sonde: bad --top value '0'$" -- empty --top 0
expect usage_top_text 2 "bad --top value" -- empty --top=x
expect usage_unknown_opt 2 "^sonde: unknown option '--frob'$" -- empty --frob
expect usage_two_dirs 2 "more than one directory" -- empty empty
check usage_hint grep -q "^try 'sonde report --help'$" err.txt
expect missing_dir 1 "^sonde: no recording in 'nope': No such file or directory$" -- nope
expect empty_dir 1 "^sonde: no recording in 'empty': no .proc file .a directory a recording tool wrote: sonde mem, comm, reuse, variance.$" -- empty
# what sonde wrote there instead, named (the usability review of 2026-11-27)
mkdir -p an && : >an/summary.json && : >an/index.html
expect analyze_dir 1 "^sonde: no recording in 'an': no .proc file: this is a 'sonde analyze' output .open its index.html" -- an
# a vsensor job's directory gets vsensor's report (since 2026-11-28; t604): here a rank
# file alone, no matrices, no sensors file to judge it by: vsensor's own message
mkdir -p vs && : >vs/rank-0.rec
expect vsensor_dir 1 "^sonde: no matrix-\*.csv in 'vs': the job did not reach MPI_Finalize" -- vs
expect help 0 "" -- --help
check help_text grep -q '^usage: sonde report DIR' out.txt
# a .proc file of garbage: said as such, not as "a profile of tool ''"
mkdir -p gp && echo garbage >gp/1.proc
expect garbage_proc 1 "^sonde: gp: its .proc file names no tool: not a file sonde wrote, or one cut short$" -- gp
# --html prints nothing: a terminal option beside it is refused, not ignored
expect html_with_format 2 "^sonde: --html writes the whole page and prints nothing: --format, --top and --quiet are for the terminal's report" -- empty --html x.html --format csv
