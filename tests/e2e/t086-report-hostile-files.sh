#!/usr/bin/env bash
# t086: a recording holding what is not a regular file never blocks or crashes `sonde
# report`: a FIFO or a directory named like a thread stream is refused in one line (open
# blocked for ever on the FIFO before), and so is one in place of launch.txt; a FIFO or a
# device named in .maps as the file of a mapping (a GPU or InfiniBand /dev file is mapped
# and sampled in HPC programs) is not opened: its code is shown by file name, exit 0; a
# FIFO or a directory in place of the .maps copy itself leaves the process unsymbolized,
# exit 0.
source "$(dirname "$0")/lib.sh"

cp -r "$SONDE_TOP/tests/fixtures/profile/valid" rec
mkfifo rec/1234-1299.sdt
timeout 20 "$SONDE" report rec >out.txt 2>err.txt
rc=$?
check fifo_stream_exit_1 test $rc -eq 1
check fifo_stream_message grep -qx "sonde: rec/1234-1299.sdt: not a regular file" err.txt
rm rec/1234-1299.sdt
mkdir rec/1234-1299.sdt
timeout 20 "$SONDE" report rec >out.txt 2>err.txt
check dir_stream_exit_1 test $? -eq 1
check dir_stream_message grep -qx "sonde: rec/1234-1299.sdt: not a regular file" err.txt
rmdir rec/1234-1299.sdt

# the fixture's allocation sites are at 0x401100 and 0x401200: map them from a FIFO
mkfifo prog.fifo
printf '00400000-00402000 r-xp 00000000 fe:00 4242 %s/prog.fifo\n' "$PWD" >rec/1234.maps
timeout 20 "$SONDE" report rec >out.txt 2>err.txt
rc=$?
check fifo_module_exit_0 test $rc -eq 0
check fifo_module_named grep -q 'prog.fifo' out.txt
rm -f rec/profile.db
printf '00400000-00402000 rw-s 00000000 00:05 4243 /dev/zero\n' >rec/1234.maps
timeout 20 "$SONDE" report rec >out.txt 2>err.txt
check device_module_exit_0 test $? -eq 0

# what is not a regular file in place of the recording's maps copy: the process is reported
# unsymbolized, exit 0, and the database says why.  A FIFO (size 0) reads as no copy; a
# directory was read as an empty maps file before and the symbolizer called "ok"
for kind in fifo dir; do
	rm -rf rec/profile.db rec/1234.maps
	if [ $kind = fifo ]; then
		mkfifo rec/1234.maps
		want="none: no maps copy"
	else
		mkdir rec/1234.maps
		want="none: the maps copy is not a regular file"
	fi
	timeout 20 "$SONDE" report rec >out.txt 2>err.txt
	check ${kind}_maps_exit_0 test $? -eq 0
	check ${kind}_maps_symbols_state \
		test "$(sqlite3 rec/profile.db 'SELECT symbols FROM processes')" = "$want"
done
rm -rf rec/profile.db rec/1234.maps
cp "$SONDE_TOP/tests/fixtures/profile/valid/1234.maps" rec/

# a FIFO in place of launch.txt (the launcher's notes, read into meta): refused in one line,
# as a FIFO in place of a stream is
mkfifo rec/launch.txt
timeout 20 "$SONDE" report rec >out.txt 2>err.txt
rc=$?
check fifo_launch_exit_1 test $rc -eq 1
check fifo_launch_message grep -qx "sonde: rec/launch.txt: not a regular file" err.txt
rm rec/launch.txt

# --html into a folder that does not exist: the page is what is missing, not the
# recording (the message began "no recording in 'rec'" before)
"$SONDE" report rec --html "$PWD/no-such-dir/p.html" >out.txt 2>err.txt
check html_missing_folder_exit_1 test $? -eq 1
check html_missing_folder_message grep -qx "sonde: cannot write '$PWD/no-such-dir/p.html': No such file or directory" err.txt
