#!/usr/bin/env bash
# t069-record-closing-line: the closing line's `sonde report DIR` is a command a shell
# takes as it is.
. "$(dirname "$0")/lib.sh"
# the closing line's command is one a shell takes as it is: a directory with a space and a
# quote in its name, quoted (it was printed bare: the usability review of 2026-11-27)
d="$T/out dir's"
"$SONDE" mem -o "$d" -- true >/dev/null 2>close.txt
cmd=$(sed -n "s/^sonde: profile in .* (profile.db, mem\/\*.csv); \(sonde report .*\) shows it again$/\1/p" close.txt)
check t069-closing-line-quoted [ "$cmd" = "sonde report '$T/out dir'\\''s'" ]
eval "set -- $cmd"
check t069-closing-line-one-word [ "$#" -eq 3 -a "$3" = "$d" ]
