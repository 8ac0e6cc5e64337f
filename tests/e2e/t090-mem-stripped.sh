#!/usr/bin/env bash
# t090-mem-stripped: a stripped program's heap objects (tests/workloads/strip-sites.c: a
# 37.5%, u 25%, v 25%, b 12.5% of the accesses; a and b two mallocs of one function, u and v
# one malloc called from two lines) are four objects, each named by its allocation call's
# return address and its two callers' ([strip-sites.s]+0x... (from +0x... < +0x...)), and a
# note says the program has no symbols and how to keep them.  Before, every function of
# it was one "[no symbols]": a and b were one object, ranked first, and the labels read
# "[call 3 of 3 on the line]" (the usability review of 2026-11-29, H1).  With its symbols
# kept in a file beside it (--add-gnu-debuglink), the objects have their source lines.
. "$(dirname "$0")/lib.sh"
cp "$W/strip-sites" strip-sites.s && strip strip-sites.s ||
	{ fail t090-strip "strip failed"; exit 0; }
"$SONDE" mem -o s -- ./strip-sites.s >out 2>err
check t090-status [ $? -eq 0 ]
check t090-output [ "$(cat out)" = $((4 + 8 * 2000)) ]
# the program's heap objects (not libc's own)
sqlite3 -separator '|' s/profile.db "SELECT name, share FROM objects WHERE kind = 'heap' AND
	name LIKE '[strip-sites.s]+0x%' ORDER BY share DESC" >objs
check "t090-four-objects ($(wc -l <objs))" [ "$(wc -l <objs)" -eq 4 ]
check t090-labels-addresses [ "$(grep -cE '^\[strip-sites\.s\]\+0x[0-9a-f]+ \(from \+0x[0-9a-f]+ < \+0x[0-9a-f]+\)\|' objs)" -eq 4 ]
check t090-labels-distinct [ "$(cut -d'|' -f1 objs | sort -u | wc -l)" -eq 4 ]
# u and v: one malloc (one return address), two callers
check t090-wrapper-two-callers [ "$(cut -d' ' -f1 objs | sort | uniq -c | awk '$1 == 2' | wc -l)" -eq 1 ]
# a first at 37.5% (clock sampling, ~1,500 samples: a share's 95% interval is about +-2.5
# points; +-7.5 allows a loaded machine's fewer samples)
top=$(head -1 objs | cut -d'|' -f2)
check "t090-top-share ($top)" float_between "$top" 0.30 0.45
# the top one is a setup() malloc (its return address once), not buf()'s
check t090-top-is-a [ "$(cut -d' ' -f1 objs | sort | uniq -c | awk '$1 == 1 {print $2}' | grep -Fxc "$(head -1 objs | cut -d' ' -f1)")" -eq 1 ]
"$SONDE" report s >rep 2>&1
flat rep >rep.flat
check t090-note grep -q "which has no symbols (stripped).*objcopy --only-keep-debug, then --add-gnu-debuglink" rep.flat
# symbols kept beside it: source lines again
objcopy --only-keep-debug "$W/strip-sites" strip-sites.debug &&
	cp strip-sites.s strip-sites.d && objcopy --add-gnu-debuglink=strip-sites.debug strip-sites.d ||
	{ fail t090-debuglink "objcopy failed"; exit 0; }
"$SONDE" mem -o d -- ./strip-sites.d 500 >/dev/null 2>&1
check t090-debuglink-status [ $? -eq 0 ]
n=$(sqlite3 d/profile.db "SELECT count(*) FROM objects WHERE kind = 'heap' AND name NOT LIKE '[%'
	AND name LIKE '%(strip-sites.c:%'")
check "t090-debuglink-lines ($n)" [ "$n" -eq 4 ]
