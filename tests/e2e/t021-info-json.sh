#!/usr/bin/env bash
# t021-info-json: `sonde info --json` is one JSON object with the documented keys
# (doc/sonde-info.md), and its facts match independent readings of the machine.
. "$(dirname "$0")/lib.sh"

"$SONDE" info --json >info.json 2>err.txt
check json-exit-0 test $? -eq 0
if ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' info.json 2>/dev/null; then
	fail json-parses "$(head -c 300 info.json)"
	exit 0
fi
pass json-parses

# j EXPR: a value from the document, printed by python (True/False/None as is).
j() { python3 -c 'import json,sys; d=json.load(open("info.json")); print(eval(sys.argv[1]))' "$1"; }

missing=$(python3 - <<'PY'
import json
d = json.load(open("info.json"))
want = {
    "": ["cpu", "caches", "cache_line", "kernel", "perf_event_paranoid",
         "perf_event_paranoid_meaning", "privileged", "pmu", "precise", "hw_source",
         "debug_registers", "debug_registers_limit", "modify_attributes", "sigtrap",
         "cpu_clock_sampling", "tools", "inst", "fixes"],
    "cpu": ["vendor", "model", "family", "model_number", "stepping", "cpus_online",
            "cpus_available", "cores", "sockets", "hypervisor"],
    "kernel": ["sysname", "release", "machine"],
    "pmu": ["cpu_pmu", "max_precise", "hw_counting", "hw_sampling", "why"],
    "precise": ["pebs", "ibs", "arm_spe", "arm_spe_implemented"],
    "hw_source": ["usable", "kind", "events", "why"],
    "inst": ["needs_rebuild", "compiler"],
}
out = []
for sect, keys in want.items():
    obj = d[sect] if sect else d
    out += [f"{sect}.{k}" for k in keys if k not in obj]
for tool in ["mem", "comm", "reuse", "variance"]:
    for k in ["source", "available", "needs_debug_registers"]:
        if k not in d["tools"].get(tool, {}):
            out.append(f"tools.{tool}.{k}")
for c in d["caches"]:
    out += [f"caches[].{k}" for k in ["level", "type", "size", "line", "ways", "shared_cpus"]
            if k not in c]
print(" ".join(out))
PY
)
check json-documented-keys test -z "$missing"
[ -n "$missing" ] && echo "  missing: $missing"

check json-paranoid-matches-proc test "$(j 'd["perf_event_paranoid"]')" = \
	"$(cat /proc/sys/kernel/perf_event_paranoid)"
check json-cpus-available-is-nproc test "$(j 'd["cpu"]["cpus_available"]')" = "$(nproc)"
check json-cpus-online test "$(j 'd["cpu"]["cpus_online"]')" = "$(getconf _NPROCESSORS_ONLN)"

# Cores: distinct (package, core) pairs over the online CPUs, read here from sysfs.
cores=$(for c in /sys/devices/system/cpu/cpu[0-9]*; do
	[ -f "$c/online" ] && [ "$(cat "$c/online")" = 0 ] && continue
	[ -f "$c/topology/core_id" ] || continue
	echo "$(cat "$c/topology/physical_package_id"):$(cat "$c/topology/core_id")"
done | sort -u | wc -l)
check json-cores-match-sysfs test "$(j 'd["cpu"]["cores"]')" = "$cores"
# Without SMT every online CPU is a core of its own: then cores equal nproc too.
if [ "$(cat /sys/devices/system/cpu/smt/active 2>/dev/null || echo 1)" = 0 ] &&
   [ "$(nproc)" = "$(getconf _NPROCESSORS_ONLN)" ]; then
	check json-cores-equal-nproc-without-smt test "$(j 'd["cpu"]["cores"]')" = "$(nproc)"
fi

check json-kernel-release test "$(j 'd["kernel"]["release"]')" = "$(uname -r)"
# Caches: sysfs where it has them; else CPUID (this VM has no cpu0/cache directory).
if [ -d /sys/devices/system/cpu/cpu0/cache/index0 ]; then
	line=$(cat /sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size)
	check json-cache-line test "$(j 'd["cache_line"]')" = "$line"
	check json-caches-from-sysfs test "$(j 'd["caches"][0]["source"]')" = sysfs
	l1d=$(for i in /sys/devices/system/cpu/cpu0/cache/index*; do
		[ "$(cat "$i/level")" = 1 ] && [ "$(cat "$i/type")" = Data ] && cat "$i/size"
	done | head -1)
	case "$l1d" in *K) l1d=$((${l1d%K} * 1024)) ;; *M) l1d=$((${l1d%M} * 1048576)) ;; esac
else
	case "$(uname -m)" in
	x86_64 | i?86)
		check json-caches-from-cpuid test "$(j 'd["caches"][0]["source"][:5]')" = cpuid
		check json-cache-line-from-cpuid test "$(j 'd["cache_line"] in (32, 64, 128)')" = True
		;;
	esac
	l1d=""
fi
# --cache prints the L1/L2/L3 data or unified sizes of the same list, in bytes.
for lvl in 1 2 3; do
	want=$(j "next((c['size'] for c in d['caches'] if c['level'] == $lvl and c['type'] != 'Instruction'), '')")
	got=$("$SONDE" info --cache "L$lvl" 2>/dev/null)
	check "cache-L$lvl-matches-json" test "$got" = "$want"
done
[ -n "$l1d" ] && check cache-L1-matches-sysfs test "$("$SONDE" info --cache L1)" = "$l1d"
"$SONDE" info --cache L9 >/dev/null 2>err.txt
check cache-bad-level-exit-2 test $? -eq 2
check cache-bad-level-message grep -q "^sonde: bad cache level 'L9'" err.txt
if grep -qw hypervisor /proc/cpuinfo; then hv=True; else hv=False; fi
check json-hypervisor-flag test "$(j 'd["cpu"]["hypervisor"]')" = "$hv"

# Debug registers: against an independent probe (read-write breakpoints on the stack).
dregs=$("$W/info-dregs")
check json-debug-registers-match-probe test "$(j 'd["debug_registers"]')" = "$dregs"
case "$(uname -m)" in
x86_64 | i?86) check json-debug-registers-x86-at-most-4 test "$dregs" -le 4 ;;
esac
if [ "$dregs" -ge 1 ]; then
	pass debug-registers-present
else
	skip debug-registers-present "no debug registers usable on this machine"
fi
# The text report says the same number.
"$SONDE" info >info.txt
check text-agrees-on-debug-registers grep -q "^debug registers  $dregs per thread" info.txt
# Opening is not firing: when they open but no trap fires (some VMs), the report says so
# in the text, the JSON and the fixes, and no watchpoint tool counts as ready.
fire=$(j 'd["debug_registers_fire"]')
if [ "$dregs" -ge 1 ] && [ "$fire" = False ]; then
	check text-says-no-trap-fires grep -q "^debug registers  $dregs per thread: they open, but no trap fires" info.txt
	check json-why-no-trap-fires test "$(j '"no trap fires" in d["debug_registers_why"]')" = True
	check fixes-name-debug-registers test "$(j 'int(any(f.startswith("debug registers: ") for f in d["fixes"]))')" = 1
	check watch-tools-not-ready test "$(j '[d["tools"][t]["machine_ready"] for t in ("comm", "reuse", "variance")]')" = "[False, False, False]"
elif [ "$fire" = True ]; then
	check json-no-why-when-firing test "$(j 'd["debug_registers_why"]')" = None
	check json-firing-is-all test "$(j 'd["debug_registers_firing"]')" = "$dregs"
fi
# A tool is labelled planned exactly when `sonde --help` has no such command.
cmds=$("$SONDE" --help | awk '/^  [a-z]/ { print $1 }' | tr '\n' ' ')
want=$(python3 -c 'import sys; c = sys.argv[1].split(); print([t not in c for t in ("mem", "comm", "reuse", "variance")])' "$cmds")
check "planned-tools-labelled ($want)" test "$(j '[d["tools"][t]["planned"] for t in ("mem", "comm", "reuse", "variance")]')" = "$want"
# The watchpoint tools are available where debug registers trap (clock source), and not
# where they only open (they then need a sonde-cc build: machine_ready is False).
if [ "$fire" = True ]; then want_av="[True, True, True]"; else want_av="[False, False, False]"; fi
check "watch-tools-available-($want_av)" test "$(j '[d["tools"][t]["available"] for t in ("comm", "reuse", "variance")]')" = "$want_av"

# The sample source follows the hw verdict.
usable=$(j 'd["hw_source"]["usable"]')
src=$(j 'd["tools"]["mem"]["source"]')
if [ "$usable" = True ]; then want=hw; else want=clock; fi
[ "$(j 'd["cpu_clock_sampling"]')" = False ] && [ "$usable" = False ] && want=none
check json-mem-source-follows-hw-verdict test "$src" = "$want"
check json-hw-why-not-empty test -n "$(j 'd["hw_source"]["why"]')"
