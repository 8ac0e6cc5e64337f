#!/usr/bin/env bash
# t025-info-hw-source-pagefaults: the hw sample source, end to end inside a real program
# (libsonde.so preloaded), in its test mode SONDE_HW_EVENT=page-faults: per-thread rings,
# overflow signals to each thread, draining, delivery to the mem tool.  Every first write
# to a fresh page faults once at an address the workload prints: with period 1 each one
# must be in that thread's stream, and the source must be recorded as hw.  Then, without
# the test mode, the fallback reason recorded matches the one `sonde info` gives.
. "$(dirname "$0")/lib.sh"

LIB=$SONDE_BUILD/libsonde.so
[ -f "$LIB" ] || { fail hw-pagefaults "libsonde.so not built"; exit 0; }
mkdir out
SONDE_DIR=$T/out SONDE_TOOL=mem SONDE_SOURCE=hw SONDE_HW_EVENT=page-faults SONDE_PERIOD=1 \
	LD_PRELOAD=$LIB "$W/hw-pagefaults" >regions.txt 2>err.txt
check workload-exit-0 test $? -eq 0
check four-regions test "$(grep -c '^region ' regions.txt)" = 4
check source-is-hw grep -qx 'source=hw' out/*.proc

python3 - regions.txt out <<'PY' >verdict.txt
import glob, struct, sys
regions = [l.split() for l in open(sys.argv[1]) if l.startswith("region ")]
bad = []
for _, tid, base, pages, pg in regions:
    base, pages, pg = int(base, 16), int(pages), int(pg)
    files = glob.glob(f"{sys.argv[2]}/*-{tid}.sdt")
    if len(files) != 1:
        bad.append(f"tid {tid}: {len(files)} streams"); continue
    b = open(files[0], "rb").read()
    off = struct.unpack_from("<I", b, 12)[0]   # header_size
    addrs, stats = set(), None
    while off + 8 <= len(b):
        t, sz, _ = struct.unpack_from("<HHI", b, off)
        if sz < 8: break
        if t == 2:     # SONDE_REC_MEM: hdr, ctx u32, len u16, flags u16, ip, addr, time, weight
            addrs.add(struct.unpack_from("<Q", b, off + 24)[0])
        elif t == 5:   # SONDE_REC_STATS: samples, dropped, signals, ...
            stats = struct.unpack_from("<3Q", b, off + 8)
        off += sz
    want = {base + i * pg + 8 * (i % 64) for i in range(pages)}
    if want - addrs:
        bad.append(f"tid {tid}: {len(want - addrs)} of {pages} page writes missing")
    if stats is None or stats[2] < 1:
        bad.append(f"tid {tid}: no sample signals ({stats})")
print("ok" if not bad else "; ".join(bad))
PY
check every-page-fault-delivered grep -qx ok verdict.txt
grep -vx ok verdict.txt | sed 's/^/  /'

# Without the test mode the runtime falls back (or uses a real PMU) and says why.
mkdir out2
SONDE_DIR=$T/out2 SONDE_TOOL=mem LD_PRELOAD=$LIB "$W/hw-pagefaults" >/dev/null 2>&1
"$SONDE" info --json >info.json 2>/dev/null
usable=$(python3 -c 'import json; print(json.load(open("info.json"))["hw_source"]["usable"])' 2>/dev/null)
why=$(python3 -c 'import json; print(json.load(open("info.json"))["hw_source"]["why"])' 2>/dev/null)
if [ "$usable" = True ]; then
	check auto-source-hw grep -qx 'source=hw' out2/*.proc
elif [ -n "$why" ]; then
	check fallback-reason-matches-info grep -qF "source_why=hw: $why" out2/*.proc
else
	fail fallback-reason-matches-info "sonde info gave no hw verdict"
fi
