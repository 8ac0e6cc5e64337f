#!/usr/bin/env bash
# t032-rt-record-size: the records never fill the disk nor pass SONDE_MAX_SIZE (rt/out.c).
# A flush that would pass either is not written; the thread's later records count as
# dropped, the program runs on unchanged, and the command warns once.
#  - SONDE_MAX_SIZE=50000 on commbench under the inst source (about 170 KB of records
#    uncapped): the streams stay under the cap plus what always goes (each stream's header
#    and its last records, STATS and END, well under 4 KiB) for each of its 5 threads.
#  - a 72 MiB tmpfs (root only; SKIP otherwise): the runtime keeps 64 MiB of it free, so
#    a recording of ~36 MB stops with about 8 MiB written.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t40-comm-lib.bash"
comm_build t032-build || exit 0

"$SONDE" mem --source inst -o plain -- "$T/cb-inst" fs 3000000 50 >out0 2>err0
check t032-plain-status [ $? -eq 0 ]
check t032-plain-no-warning bash -c '! grep -q "stopped growing" err0'
plain=$(cat plain/*.sdt | wc -c)

CAP=50000
SONDE_MAX_SIZE=$CAP "$SONDE" mem --source inst -o capped -- "$T/cb-inst" fs 3000000 50 >out1 2>err1
check t032-capped-status [ $? -eq 0 ]
check t032-capped-stdout cmp -s out0 out1
check t032-capped-warning grep -q "^sonde: warning: the recording stopped growing at .*SONDE_MAX_SIZE was reached" err1
size=$(cat capped/*.sdt | wc -c)
streams=$(ls capped/*.sdt | wc -l)
check t032-capped-size [ "$size" -le $((CAP + streams * (4096 + 4096))) ]
check t032-capped-smaller [ "$size" -lt "$plain" ]
check t032-capped-proc grep -q '^records_stopped=size$' capped/*.proc
dropped=$(sqlite3 capped/profile.db "SELECT value FROM meta WHERE key = 'dropped'")
check t032-capped-dropped [ "${dropped:-0}" -gt 0 ]
check t032-capped-report "$SONDE" report capped --format csv -q

# The disk: a small tmpfs whose last 64 MiB the runtime leaves free.
mnt=$PWD/small
mkdir -p "$mnt"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=72m tmpfs "$mnt" 2>/dev/null; then
	trap 'umount "$mnt" 2>/dev/null' EXIT
	# ~800,000 samples of ~50 bytes: about 40 MB of records if nothing stopped them
	"$SONDE" mem --source inst --period 50 -o "$mnt/rec" -- "$T/cb-inst" fs 3000000 50 >out2 2>err2
	check t032-disk-status [ $? -eq 0 ]
	check t032-disk-stdout cmp -s out0 out2
	check t032-disk-warning grep -q "stopped growing at .*kept its last 1% (at least 64 MiB) free" err2
	# The streams: at most the 8 MiB above the reserve, plus a 256 KiB buffer and a last
	# flush per thread (the threads check the room before writing, side by side).
	size=$(cat "$mnt"/rec/*.sdt | wc -c)
	streams=$(ls "$mnt"/rec/*.sdt | wc -l)
	check t032-disk-size [ "$size" -le $(((8 << 20) + streams * ((256 << 10) + 8192))) ]
	# and the profile the command built afterwards (a few MiB) left most of the reserve
	free_kb=$(df -k --output=avail "$mnt" | tail -1)
	check t032-disk-room [ "$free_kb" -ge $((48 * 1024)) ]
	umount "$mnt" 2>/dev/null
	trap - EXIT
else
	skip t032-disk "cannot mount a small tmpfs here (needs root)"
fi
