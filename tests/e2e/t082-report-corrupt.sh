#!/usr/bin/env bash
# t082: a corrupt recording (tests/fixtures/profile/corrupt: the size field of thread 1's
# third MEM record is 12, not a multiple of 8): exit 1, one line naming the file and the
# byte offset, nothing on stdout, no database left behind.
source "$(dirname "$0")/lib.sh"
cp -r "$SONDE_TOP/tests/fixtures/profile/corrupt" rec

"$SONDE" report rec >out.txt 2>err.txt
rc=$?
check corrupt_exit_1 test $rc -eq 1
check corrupt_one_line test "$(wc -l <err.txt)" -eq 1
# offset = header 72 + 2 CTX records of 24 + 2 MEM records of 48
check corrupt_message grep -qx "sonde: rec/1234-1240.sdt: offset 216: bad record size 12 (type 2)" err.txt
check corrupt_no_stdout test ! -s out.txt
check corrupt_no_db test ! -e rec/profile.db
