#!/usr/bin/env bash
# t806-variance-backends: what each watch backend gives.  A program built by plain gcc
# uses the debug registers: where they trap it is measured like the soft one (the mix's
# functions get instances); where they do not (a Firecracker VM), this prints SKIP with
# the reason, and the run still ends normally with a report saying nothing was measured.
# A sonde-cc program without --sonde-calls has no call hooks: where the debug registers
# trap they measure it as they measure the gcc build; elsewhere the report must say to
# rebuild with --sonde-calls.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"

command -v gcc >/dev/null || { skip t806 "gcc is not installed"; exit 0; }
gcc -O1 -g -fno-omit-frame-pointer -pthread "$SONDE_TOP/tests/workloads/variance/vwork.c" -o vgcc
"$SONDE" variance -o hw -p 1000000 -- ./vgcc mix 1 >out.txt 2>err.txt
check t806-gcc-run-ends-normally [ $? -eq 0 ]
check t806-gcc-program-output grep -q "vwork mix done" out.txt
if "$SONDE" info 2>/dev/null | grep -q "no trap fires"; then
	check t806-no-backend-says-nothing-measured grep -q "no instance was measured" err.txt
	skip t806-hw-instances "debug registers do not trap on this machine ($("$SONDE" info 2>/dev/null | grep -m1 -o 'they open, but no trap fires[^:]*'))"
else
	n=$(awk -F, 'NR > 1 && ($1 == "saw" || $1 == "flat" || $1 == "bimodal" || $1 == "spin")' hw/variance/instances.csv | wc -l)
	check "t806-hw-instances-$n" [ "$n" -ge 5 ]
	# A function called only through a pointer (as libgomp calls an OpenMP region's
	# outlined function): its call site names no callee, the symbol table does.  Its
	# instances are 4 or 12 units at random: the 90th/10th percentile ratio of CPU time
	# is 3 by construction (3.0 here), about 2 if the two traps' kernel time (~28 us on
	# the Linux 6.18 VM) were left in the instances: the bar is 1.4.  Above, 20: CPU time
	# on this shared VM includes steal time, which lands in some instances (doc Limits):
	# 11.3 with a clean-clone make check beside this one.
	VWORK_ITERS=4000 "$SONDE" variance -o ind -p 1000000 -- ./vgcc indirect 0 >out.txt 2>err.txt
	check t806-indirect-run [ $? -eq 0 ]
	awk -F, 'NR > 1 && $1 == "ind" { print $7 }' ind/variance/instances.csv | sort -n >ind.txt
	n=$(wc -l <ind.txt)
	check "t806-indirect-instances-$n" [ "$n" -ge 10 ]
	r=$(awk '{ a[NR] = $1 } END { lo = a[int(NR * 0.1) + 1]; hi = a[int(NR * 0.9)];
		printf "%.2f\n", (lo > 0 ? hi / lo : 0) }' ind.txt)
	check "t806-indirect-two-sizes-p90/p10-$r" float_between "$r" 1.4 20
	# With the traps' calibrated cost subtracted: the CV by construction is 0.5 (4 or 12
	# units), the mean is the program's own CPU time per call (run alone, best of 3:
	# other jobs only add to it).  Bars: CV 0.3-1.2 (187 instances give +-0.05 by
	# sampling; steal time on this shared VM lands in a few instances and raises it:
	# 0.51-0.96 over 4 runs at load 5, 0.52-0.55 at load 2), the mean below; a share
	# over 0.5: ind is
	# a leaf without a frame pointer, seen through the word at RSP.
	cv=$(var_col ind/variance/functions.csv ind "main > ind" cpu-time cv)
	# (an empty cv: the row was below the resolution; its bound and the calibration go
	# into the check's name for the log: seen once with a clean-clone make check beside)
	below=$(var_col ind/variance/functions.csv ind "main > ind" cpu-time below)
	res=$(var_col ind/variance/functions.csv ind "main > ind" cpu-time resolution)
	# The mean against the program's own CPU time per call, in 3 rounds that alternate a
	# native run and a profiled one (the first round's profiled run is the one above); the
	# check takes the median of the 3 ratios.  Why rounds: on this shared VM a native run
	# took 0.17 s or 0.29-0.31 s within a minute, so a mean and a native time taken apart
	# can be 0.6x or 1.6x of each other by the machine alone (CI read 1.60 once with the
	# lower of 2 means against the best of 3 natives); a median of 3 side-by-side ratios
	# needs 2 rounds off the same way.  Without the traps' calibrated cost subtracted it
	# reads ~1.65x: the bar, 0.6-1.5, fails that.  The subtracted cost, from the report,
	# goes into the check's name for the log.
	trap_us=$(sed -n 's/.*traps: [0-9.]* us of time and \([0-9.]*\) us of CPU time per instance.*/\1/p' err.txt)
	# Beside another suite (a CI clone and a make check, 2026-11-27 13:34 UTC) two of the
	# three rounds read 1.89 and 1.93 where a quiet run reads 1.0-1.5: when the median of 3
	# misses the bar, 2 more rounds are made and the median of the 5 is checked (the same
	# bar; 3 rounds off the same way are then needed).
	ratios=""
	for i in 1 2 3 4 5; do
		if [ "$i" -eq 4 ] && float_between "$(printf '%s\n' $ratios | sort -g | sed -n 2p)" 0.6 1.5; then
			break
		fi
		u=$(VWORK_ITERS=4000 /usr/bin/time -f %U ./vgcc indirect 0 2>&1 >/dev/null)
		if [ "$i" -gt 1 ]; then
			VWORK_ITERS=4000 "$SONDE" variance -q -o ind$i -p 1000000 -- ./vgcc indirect 0 >/dev/null 2>&1
			d=ind$i
		else
			d=ind
		fi
		mean=$(var_col $d/variance/functions.csv ind "main > ind" cpu-time mean)
		ratios="$ratios $(awk -v m="${mean:-0}" -v u="$u" 'BEGIN { printf "%.2f\n", (u > 0 ? m / (u * 1e9 / 4000) : 0) }')"
	done
	n=$(printf '%s\n' $ratios | wc -l)
	ratio=$(printf '%s\n' $ratios | sort -g | sed -n "$(( (n + 1) / 2 ))p")
	check "t806-indirect-mean-over-native-$ratio-of-$(echo $ratios | tr ' ' '/')-traps-${trap_us:-none}us" float_between "$ratio" 0.6 1.5
	# The CV checked is the median of the first three runs' (the rounds made them): one
	# instance of 12 ms among 187 of ~0.1 ms (the VM's vCPU taken away by its host for a
	# while, counted as the thread's CPU time) reads 7.9 (a CI run alone, 2026-11-28).
	cvs=$cv
	for d in ind2 ind3; do
		cvs="$cvs $(var_col $d/variance/functions.csv ind "main > ind" cpu-time cv)"
	done
	cvm=$(printf '%s\n' $cvs 9 9 9 | head -3 | sort -g | sed -n 2p)
	check "t806-indirect-cv-$cvm-of-$(echo $cvs | tr ' ' '/')-near-0.5-below-$below-resolution-$res" float_between "$cvm" 0.3 1.2
	sh=$(var_col ind/variance/functions.csv ind "main > ind" cpu-time share)
	check "t806-indirect-share-$sh" float_between "${sh:-0}" 0.5 1
fi

command -v clang >/dev/null || { skip t806-soft-no-hooks "clang is not installed"; exit 0; }
"$SONDE_BUILD/sonde-cc" -O1 -pthread "$SONDE_TOP/tests/workloads/variance/vwork.c" -o vnohooks
"$SONDE" variance -o nh -p 1000000 -- ./vnohooks mix 1 >out.txt 2>err.txt
check t806-no-hooks-run [ $? -eq 0 ]
if "$SONDE" info 2>/dev/null | grep -q "no trap fires"; then
	check t806-no-hooks-says-rebuild grep -q "sonde-cc --sonde-calls" err.txt
else
	# Where the registers trap they serve it (the soft backend would catch no entry: no
	# hooks).  Before, the runtime chose the backend before it knew the tool, so every
	# sonde-cc program got soft watchpoints: CoMD built with sonde-cc, 0 instances.
	check t806-no-hooks-hw-backend [ "$(sqlite3 nh/profile.db "SELECT value FROM meta WHERE key = 'watch_backend'")" = hw ]
	check t806-no-hooks-hw-summary grep -q "^  watch backend: hw$" err.txt
	n=$(awk -F, 'NR > 1 && ($1 == "saw" || $1 == "flat" || $1 == "bimodal" || $1 == "spin")' nh/variance/instances.csv | wc -l)
	check "t806-no-hooks-hw-instances-$n" [ "$n" -ge 5 ]
fi
# the backend is one meta key, the recording-wide watch_backend (doc/profile-db.md): before,
# variance wrote the same value again as `backend`
# (watch_backend itself may be absent where no backend could be set up: at most one)
check t806-no-backend-key [ "$(sqlite3 nh/profile.db "SELECT count(*) FROM meta WHERE key = 'backend'")" = 0 ]
check t806-one-backend-key [ "$(sqlite3 nh/profile.db "SELECT count(*) FROM meta WHERE key LIKE '%backend%'")" -le 1 ]
