#!/usr/bin/env bash
# t087-report-terminal-width: on a terminal, a table wider than the screen has its last
# column (a name: object, function) cut to fit with "...", as perf report does; piped or
# redirected, whole (ui/text.c, clip_last_column).  The checked-in valid recording (t080):
# its objects table is 63 columns wide, "[unknown] (0x401200)" its longest name.
#  - piped: the names whole;
#  - a terminal of 60 columns (script(1)'s pty, its width set by stty):
#    the objects' rows fit in 60, the long names end in "...", the short ones ("[unknown]",
#    9) whole; the header and the other tables untouched where they fit;
#  - a terminal of 200 columns: whole.
source "$(dirname "$0")/lib.sh"
command -v script >/dev/null || { skip t087 "script(1) is not installed (util-linux)"; exit 0; }
script -qec true /dev/null </dev/null >/dev/null 2>&1 || { skip t087 "script(1) cannot open a pty here"; exit 0; }
cp -r "$SONDE_TOP/tests/fixtures/profile/valid" rec
"$SONDE" report rec >piped.txt 2>&1
check t087-piped-whole grep -q "  heap   \[unknown\] (0x401200)$" piped.txt
# (stty sets the pty's width, which script copies from a terminal it runs in; stdin from
# /dev/null, or script stopped reading the terminal from a background group: the review)
COLUMNS=60 script -qec "stty cols 60; $SONDE report rec" /dev/null </dev/null | tr -d '\r' >tty60.txt
rows=$(grep -E '^ +[0-9]+ +[0-9.]+%' tty60.txt | grep -E ' (heap|stack|other) ')
check t087-tty-rows [ "$(wc -l <<<"$rows")" -eq 5 ]
check t087-tty-rows-fit awk '{ if (length($0) > 60) exit 1 }' <<<"$rows"
check t087-tty-cut grep -q "  heap   \[unknown\] (0x4\.\.\.$" <<<"$rows"
check t087-tty-short-whole grep -q "  other  \[unknown\]$" <<<"$rows"
check t087-tty-threads-whole grep -q "^  0       1234       13  72.2%" tty60.txt
COLUMNS=200 script -qec "stty cols 200; $SONDE report rec" /dev/null </dev/null | tr -d '\r' >tty200.txt
check t087-tty-wide-whole grep -q "  heap   \[unknown\] (0x401200)$" tty200.txt
