#!/usr/bin/env bash
# t406-comm-clock: the clock source (an ordinary gcc build, sampled on CPU time with
# single-stepping): the summary says volumes are sample-scaled, the matrices keep their
# invariants, and what communication is found is between the constructed pairs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t40-comm-lib.bash"
comm_build_gcc || { fail t406-build "gcc could not build commbench"; exit 0; }

# 20000 hand-offs: ~0.1 s of CPU time, ~25 clock samples (3000 gave 0-6: the waits are
# sched_yield, which uses little CPU, and a loaded machine left none at times)
"$SONDE" comm --source clock -o rec -- "$T/cb-gcc" pairs 20000 >/dev/null 2>summary
check t406-status [ $? -eq 0 ]
check t406-source grep -q 'source clock' summary
check t406-sample-scaled grep -q 'volumes are sample-scaled' summary
check t406-invariants-thread mat_invariants rec thread
check t406-invariants-core mat_invariants rec core
check t406-samples [ "$(comm_meta rec samples)" -gt 0 ]
all=$(mat_sum rec/comm/matrix-all-thread.csv)
# found little or none (fewer than 30 events: the ~25 samples of this run): the summary says
# why the clock source misses hand-offs between waiting threads (the usability review of
# 2026-11-28: 2M hand-offs with sched_yield read "no communication", unexplained)
ev=$(comm_meta rec events)
if [ "${ev:-0}" -lt 30 ]; then
	check t406-clock-reach grep -q "The clock source samples by CPU time: hand-offs between threads that mostly wait" <(flat summary)
else
	skip t406-clock-reach "$ev events in this run: the summary's few-events paragraph is not given"
fi
if [ "$all" -gt 0 ]; then
	check t406-pairs float_between "$(mat_share rec/comm/matrix-all-thread.csv "1-2 3-4")" 0.9 1
else
	skip t406-pairs "no communication sampled in this run (clock samples: $(comm_meta rec samples))"
fi

# A trap's event names the observer's code (the instruction after its access: the debug
# exception comes after it), as a sample's does: before 2026-11-27 a trap's was 0, and a
# thread seen only by its traps had no code in pairs.csv (NPB MG: "code_a" empty).  Read
# from the recording's COMM_REC_EVENT records (src/tools/comm/format.h): fs, free running,
# gives a few traps a run at a 1 ms period (1-6 in 3 runs, ~1 s each); up to 3 runs.
if ! "$SONDE" info 2>/dev/null | grep -q "their traps fire"; then
	skip t406-trap-code "debug registers do not trap here: no traps with the clock source"
	exit 0
fi
trap_ips() {
	python3 - "$1" <<'PY'
import glob, struct, sys
EVENT, TRAP = 64 + 0, 0x2	# COMM_REC_EVENT, COMM_F_TRAP
n = unknown = 0
for f in glob.glob(sys.argv[1] + "/*.sdt"):
	b = open(f, "rb").read()
	off = struct.unpack_from("<I", b, 12)[0]	# header_size
	while off + 8 <= len(b):
		t, size = struct.unpack_from("<HH", b, off)
		if size < 8:
			break
		if t == EVENT and size >= 80:
			flags, = struct.unpack_from("<I", b, off + 24)
			ip, = struct.unpack_from("<Q", b, off + 48)
			if flags & TRAP:
				n += 1
				unknown += ip == 0
		off += size
print(n, unknown)
PY
}
for try in 1 2 3; do
	rm -rf fs
	"$SONDE" comm -q --source clock -p 1000000 -o fs -- "$T/cb-gcc" fs 10000000 50 >/dev/null 2>&1
	read -r ntrap nzero < <(trap_ips fs)
	[ "${ntrap:-0}" -gt 0 ] && break
done
if [ "${ntrap:-0}" -gt 0 ]; then
	check "t406-trap-events-$ntrap-without-code-$nzero" [ "$nzero" -eq 0 ]
else
	skip t406-trap-code "no trap in 3 runs of commbench fs (clock samples land elsewhere)"
fi
