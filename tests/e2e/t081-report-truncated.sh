#!/usr/bin/env bash
# t081: a recording of a process that died (tests/fixtures/profile/truncated): no END
# records, thread 1's last record cut in half.  The report reads up to the cut, exits 0,
# and says so.
source "$(dirname "$0")/lib.sh"
cp -r "$SONDE_TOP/tests/fixtures/profile/truncated" rec

"$SONDE" report rec >out.txt 2>err.txt
check trunc_exit_0 test $? -eq 0
check trunc_warning grep -q 'warning: 2 thread streams were cut short' out.txt
check trunc_signal grep -q 'process 1234 ended by signal 11' out.txt
check trunc_note grep -qE '^  1 +1240 +5 +27\.8% +truncated$' out.txt
# all complete records are kept: same 18 samples as the valid recording (the half record
# is dropped)
check trunc_samples grep -q '^  samples   16 taken, counted as 18 periods ' out.txt
check trunc_csv test "$(csv_get rec/mem/threads.csv thread 1 samples)" = 5
if command -v sqlite3 >/dev/null; then
	check trunc_db_flag test "$(sqlite3 rec/profile.db 'SELECT SUM(truncated) FROM threads')" = 2
else
	skip trunc_db_flag "no sqlite3 command"
fi
