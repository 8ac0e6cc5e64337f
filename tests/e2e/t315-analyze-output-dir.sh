#!/usr/bin/env bash
# t315: `sonde analyze -o DIR` writes into a new or empty directory, or over an earlier
# analysis, and refuses one that holds anything else (a sonde recording: the usability
# review of 2026-11-28 got an analysis mixed in with a recording's files) unless --force;
# it says where the analysis went.  A fixture from another kernel, no perf needed.
. "$(dirname "$0")/lib.sh"
F=$SONDE_TOP/tests/fixtures/perfdata/singleprocess-3.8.perf.data
"$SONDE" analyze -o an "$F" >out 2>err
check t315-new-status [ $? -eq 0 ]
check t315-new-written test -s an/summary.json -a -s an/index.html
check t315-says-where grep -q "^sonde: analysis of .*singleprocess-3.8.perf.data in an (index.html" err
"$SONDE" analyze -o an "$F" >/dev/null 2>&1
check t315-again-over-analysis [ $? -eq 0 ]
"$SONDE" mem -q -o rec -- /bin/true >/dev/null 2>&1
cp rec/profile.db before.db
ls rec >before.ls
"$SONDE" analyze -o rec "$F" >/dev/null 2>err2
check t315-recording-refused [ $? -eq 1 ]
check t315-recording-said grep -q "output directory 'rec' is not empty (a sonde recording).*--force" err2
check t315-recording-untouched bash -c 'ls rec | cmp -s - before.ls && cmp -s rec/profile.db before.db'
"$SONDE" analyze --force -o rec "$F" >/dev/null 2>&1
check t315-force-writes [ -s rec/summary.json ]
check t315-force-keeps-recording cmp -s rec/profile.db before.db
mkdir other && touch other/notes.txt
"$SONDE" analyze -o other "$F" >/dev/null 2>err3
check t315-other-refused grep -q "not empty (files of something else)" err3
touch afile
"$SONDE" analyze -o afile "$F" >/dev/null 2>err4
check t315-file-refused grep -q "output 'afile' is not a directory" err4
