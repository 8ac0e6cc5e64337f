#!/usr/bin/env bash
# bench/vsensor-real.sh - sonde vsensor on MPI programs it was not written with
# (doc/sonde-vsensor-history.md, "Real programs"): CoMD's MPI version (ECP-copa/CoMD, src-mpi),
# NPB 3.4 IS (C + MPI) and the Parallel Research Kernels' MPI1 kernels Stencil,
# Transpose, Reduce and Synch_p2p (ParRes/Kernels: fixed-size exchanges every iteration).
# Their sources are not in this repository: give their directories (they are copied to a
# temporary directory and built there):
#   COMD_SRC=/path/to/CoMD/src-mpi NPB_SRC=/path/to/NPB3.4-MPI PRK_SRC=/path/to/Kernels \
#       bench/vsensor-real.sh [--no-detect|--detect-only]
# VS_REAL_ONLY (e.g. "PRK") runs only the programs named (CoMD, IS, PRK).
# A program whose directory is missing is skipped, and says so; VS_REAL_ONLY naming
# anything else is an error (exit 2).  Prints, per program:
#   1. what 'list' finds: candidates per status, the most frequent reasons;
#   2. the original and the instrumented program's output and exit status, compared with
#      the lines that hold times and dates taken out;
#   3. overhead: VS_REAL_PAIRS (5) pairs, order alternating, 4 ranks on 2 cores, the
#      program's own timer (CoMD: its "loop" total; IS: "Time in seconds") and wall time;
#   4. detection (unless --no-detect): a clean run, a co-runner (4 spinning processes at
#      nice -15 pinned to CPU 1, ranks bound r -> CPU r % 2: truth ranks 1 and 3) and the
#      PMPI delay of tests/workloads/vsensor/pmpi-delay.c, scored by 'sonde vsensor score'.
# --detect-only: the build and step 4 only; VS_REAL_REPEAT (1) detection rounds;
# VS_REAL_KEEP=DIR keeps each run's directory there (DIR/<case>-<program>-<round>), so
# that a rule can be scored again on the same runs ('sonde vsensor score' re-reads them).
# Never fails on numbers.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
SONDE_BUILD=${SONDE_BUILD:-$top/build}
SONDE=$SONDE_BUILD/sonde
VSW=$top/tests/workloads/vsensor
COMD_SRC=${COMD_SRC:-/work/ext/CoMD/src-mpi}
NPB_SRC=${NPB_SRC:-/work/ext/npb/NPB3.4-MPI}
PRK_SRC=${PRK_SRC:-/work/ext/prk/Kernels}
only=${VS_REAL_ONLY:-CoMD IS PRK}
want() { case " $only " in *" $1 "*) return 0 ;; esac; return 1; }
for p in $only; do
	case $p in
	CoMD | IS | PRK) ;;
	*)
		echo "bench: vsensor-real: VS_REAL_ONLY names '$p': not one of CoMD, IS, PRK" >&2
		exit 2
		;;
	esac
done
[ -n "${only//[[:space:]]/}" ] || { echo "bench: vsensor-real: VS_REAL_ONLY names no program (CoMD, IS, PRK)" >&2; exit 2; }
pairs=${VS_REAL_PAIRS:-5}
repeat=${VS_REAL_REPEAT:-1}
keep=${VS_REAL_KEEP:-}
mode=${1:-}
T=$(mktemp -d)
hogs=""
trap 'for p in $hogs; do kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
cd "$T" || exit 1
. "$top/bench/lib.sh"
for c in mpicc mpirun python3; do
	command -v "$c" >/dev/null || { echo "bench: vsensor-real skipped: $c not found"; exit 0; }
done
# ranks bound r -> CPU r % 2 (Open MPI maps by core and wraps when oversubscribed), at
# nice -10 like the tests' jobs: other users' processes must not be what we measure
M="nice -n -10 mpirun --allow-run-as-root --oversubscribe --bind-to core:overload-allowed --mca btl self,vader -np 4"
load() { cut -d' ' -f1-3 /proc/loadavg; }

# list_summary NAME LIST-OPTIONS FLAGS FILE...: statuses and the main reasons over the files
list_summary() {
	local name=$1 opts=$2 flags=$3
	shift 3
	: >"list-$name.csv"
	for f in "$@"; do
		# split the options, but leave a --with pattern for sonde to expand
		set -f
		# shellcheck disable=SC2086
		"$SONDE" vsensor list --csv $opts "$f" -- $flags >>"list-$name.csv" 2>>"list-$name.err" ||
			echo "  $name: list failed on $(basename "$f"): $(tail -n 1 "list-$name.err")"
		set +f
	done
	python3 - "list-$name.csv" "$name" <<'PY'
import collections, csv, re, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["site"] != "site"]
st = collections.Counter(r["status"].split(",")[0] for r in rows)
print("  %s: %d candidates: %s" % (sys.argv[2], len(rows), ", ".join("%s %d" % kv for kv in sorted(st.items()))))
def short(x):
    x = re.sub(r"\(line \d+\)", "", x)
    x = re.sub(r"calls \w+, an undescribed", "calls an undescribed", x)
    x = re.sub(r"calls \w+ *, whose work is not fixed.*", "calls a function whose work is not fixed", x)
    x = re.sub(r"depends on (global )?[\w.]+, (changed|which).*", r"depends on a \1variable changed in an enclosing loop", x)
    x = re.sub(r"reads memory that loop \S+ writes", "reads memory an enclosing loop writes", x)
    x = re.sub(r"inside sensor \S+", "inside sensor", x)
    x = re.sub(r"\(about \d+ operations\)", "", x)
    return x.strip()
why = collections.Counter(short(r["reason"]) for r in rows if r["reason"])
for k, v in why.most_common(6):
    print("    %4d  %s" % (v, k))
for r in rows:
    if r["status"].startswith("sensor"):
        print("    sensor %s %s %s %s" % (r["site"], r["snippet"], r["kind"], r["status"]))
PY
}

# compare NAME FILTER: the outputs of orig and vs runs without lines matching FILTER
compare() {
	local name=$1 filter=$2
	grep -Ev "$filter" "out-$name-orig" >a.txt
	grep -Ev "$filter" "out-$name-vs" >b.txt
	if cmp -s a.txt b.txt && [ "$(cat "rc-$name-orig")" = "$(cat "rc-$name-vs")" ]; then
		echo "  $name: output identical apart from times ($(wc -l <a.txt) lines compared), exit status $(cat "rc-$name-orig") both"
	else
		echo "  $name: OUTPUT DIFFERS (exit $(cat "rc-$name-orig") vs $(cat "rc-$name-vs")):"
		diff a.txt b.txt | head -10 | sed 's/^/    /'
	fi
}

# overhead NAME TIMER-AWK ARGS...: pairs of runs; TIMER-AWK prints the program's seconds
overhead() {
	local name=$1 timer=$2 i o v
	shift 2
	: >"pairs-$name"
	for i in $(seq "$pairs"); do
		for o in $([ $((i % 2)) = 1 ] && echo "orig vs" || echo "vs orig"); do
			s=$(date +%s.%N)
			SONDE_DIR=$T/oh-$name-$i SONDE_VS_LIVE=0 $M -x SONDE_VS_LIVE "./$name-$o" "$@" >"oh.out" 2>/dev/null
			e=$(date +%s.%N)
			echo "$(awk "$timer" oh.out) $(echo "$e - $s" | bc)" >"t-$o"
		done
		echo "$(cat t-orig) $(cat t-vs)" >>"pairs-$name"	# orig prog, orig wall, vs prog, vs wall
	done
	awk '{ printf "    pair: %.3f s / %.3f s (%.3fx), wall %.2f / %.2f s\n", $1, $3, $3 / $1, $2, $4 }' "pairs-$name"
	r=$(awk '$1 > 0 { print $3 / $1 }' "pairs-$name" | median)
	w=$(awk '$2 > 0 { print $4 / $2 }' "pairs-$name" | median)
	b=$(awk 'NR == 1 || $1 < o { o = $1 } NR == 1 || $3 < v { v = $3 } END { if (o > 0) print v / o }' "pairs-$name")
	echo "  $name overhead: program timer median ratio ${r}x, best-of-$pairs ${b}x, wall median ${w}x (load after $(load))"
}

# instructions NAME ARGS...: callgrind's instruction counts of the original and the
# instrumented program, 1 rank (deterministic: the load of the machine cannot move them)
instructions() {
	local name=$1 p o v
	shift
	command -v valgrind >/dev/null || { echo "  $name instructions: valgrind not installed"; return; }
	for p in orig vs; do
		SONDE_DIR=$T/ir-$name-$p SONDE_VS_LIVE=0 mpirun --allow-run-as-root -np 1 valgrind --tool=callgrind \
			--callgrind-out-file=/dev/null "./$name-$p" "$@" >/dev/null 2>"ir-$name-$p.err"
	done
	o=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "ir-$name-orig.err")
	v=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "ir-$name-vs.err")
	awk -v n="$name" -v o="${o:-0}" -v v="${v:-0}" -v a="$*" 'BEGIN { if (o > 0 && v > 0)
		printf "  %s instructions (callgrind, 1 rank, %s): %d -> %d: %.4fx\n", n, a, o, v, v / o
		else printf "  %s: callgrind gave no count\n", n }'
}

# hog_window DIR START END: 4 spinning processes at nice -15 on CPU 1 from START to END s
# after DIR appears (rank 0 makes it in MPI_Init, next to the job clock's start)
hog_window() {
	local dir=$1 start=$2 end=$3 k
	for k in $(seq 500); do [ -d "$dir" ] && break; sleep 0.02; done
	sleep "$start"
	hogs=""
	for k in 1 2 3 4; do
		taskset -c 1 nice -n -15 sh -c 'while :; do :; done' &
		hogs="$hogs $!"
	done
	sleep "$(echo "$end - $start" | bc)"
	for k in $hogs; do kill "$k" 2>/dev/null; done
	wait $hogs 2>/dev/null
	hogs=""
}

# data_rate DIR: what the runtime wrote per rank and second of the job: every file of the
# run directory (the slices, and what the job's end adds): an upper bound
data_rate() {
	local b n
	b=$(cat "$1"/* 2>/dev/null | wc -c)
	n=$(head -1 "$1/matrix-compute.csv" | awk -F, '{ printf "%.3f", (NF - 1) * ($3 - $2) }')
	awk -v b="$b" -v n="$n" -v r="$(($(wc -l <"$1/matrix-compute.csv") - 1))" 'BEGIN {
		if (n > 0 && r > 0) printf "    data written (every file of the run directory): %d bytes, %d ranks, %.1f s: %.0f B/s per rank\n", b, r, n, b / r / n }'
}

# first_net DIR: the start (s) of the first slice with a network cell
first_net() {
	awk -F, 'NR == 1 { for (i = 2; i <= NF; i++) s[i] = $i; next }
		{ for (i = 2; i <= NF; i++) if ($i != "" && (f == "" || s[i] < f)) f = s[i] }
		END { print (f == "" ? 0 : f) }' "$1/matrix-network.csv"
}

# detect NAME START END DELAY-START|first|first:CALL ARGS...: the delay's window is START-END,
# or with "first:CALL" 0 to END-START s after the rank's first call of CALL (pmpi-delay.c's
# clock; "first": after its first intercepted call), scored from the first network cell of
# the run on
detect() {
	local round
	for round in $(seq "$repeat"); do
		[ "$repeat" = 1 ] || echo "  $1 detection, round $round of $repeat, $(date -u +%H:%M:%S) UTC, load $(load)"
		detect1 "$@"
		if [ -n "$keep" ]; then
			mkdir -p "$keep"
			for d in c b p; do
				rm -rf "${keep:?}/$d-$1-$round"
				cp -r "$T/$d-$1" "$keep/$d-$1-$round"
			done
		fi
		rm -rf "$T/c-$1" "$T/b-$1" "$T/p-$1"
	done
}

detect1() {
	local name=$1 start=$2 end=$3 dstart=$4 job ds de
	shift 4
	# others: the share of the CPUs other processes took during each run (bench/lib.sh)
	bench_others oth "$T/c-$name" env SONDE_DIR="$T/c-$name" $M "./$name-vs" "$@" >/dev/null 2>&1
	echo "  $name clean:             $("$SONDE" vsensor score --truth none "c-$name")  others $(cat oth)"
	data_rate "c-$name"
	bench_others oth "$T/b-$name" env SONDE_DIR="$T/b-$name" $M "./$name-vs" "$@" >/dev/null 2>"b-$name.err" &
	job=$!
	hog_window "$T/b-$name" "$start" "$end"
	wait "$job"
	echo "  $name co-runner CPU 1:   $("$SONDE" vsensor score --truth "compute:1,3:$start:$end" "b-$name")  (truth: ranks 1 and 3)  others $(cat oth) (our 4 hogs included)"
	grep '^sonde: vsensor: rank' "b-$name.err" | head -4 | sed 's/^/    live: /'
	if [ "${dstart%%:*}" = first ]; then
		# bare "first": the clock starts at the first intercepted call (no 4th field;
		# "first" itself was passed as the call's name, never made: no delay at all)
		local call=${dstart#first}
		call=${call#:}
		bench_others oth "$T/p-$name" env SONDE_DIR="$T/p-$name" $M -x LD_PRELOAD="$T/libpmpi-delay.so" \
			-x VS_DELAY="0:$(echo "$end - $start" | bc):3000${call:+:$call}" "./$name-vs" "$@" >/dev/null 2>"p-$name.err"
		# the injector says when it cannot delay (a call it does not intercept)
		grep '^pmpi-delay:' "p-$name.err" | sort -u | sed 's/^/    /'
		ds=$(first_net "p-$name")
		de=$(echo "$ds + $end - $start" | bc)
	else
		bench_others oth "$T/p-$name" env SONDE_DIR="$T/p-$name" $M -x LD_PRELOAD="$T/libpmpi-delay.so" -x VS_DELAY="$start:$end:3000" \
			"./$name-vs" "$@" >/dev/null 2>&1
		ds=$start de=$end
	fi
	echo "  $name PMPI delay 3 ms, $ds-$de s:   $("$SONDE" vsensor score --truth "network:0-3:$ds:$de" "p-$name")  others $(cat oth)"
	echo "network:0-3:$ds:$de" >"p-$name/truth"
	echo "compute:1,3:$start:$end" >"b-$name/truth"
	echo none >"c-$name/truth"
	for d in c b p; do
		"$SONDE" vsensor report "$d-$name" | sed -n '/^ranks  start/,/^$/p' | sed "s/^/    $d: /"
	done
	"$SONDE" vsensor report "b-$name" | sed -n '/^compute/,/^$/p' | sed "s/^/    b: /"
	"$SONDE" vsensor report "p-$name" | sed -n '/^network/,/^$/p' | sed "s/^/    p: /"
	# the program's sensors on rank 0 of the delayed run: how often each sensed
	awk -F, '$1 == 0 && $2 !~ /^\(/ { printf "    p: rank 0 %s (%s): %s senses, standard %s us\n", $2, $3, $6, $5 }' "p-$name/sensors.csv"
	if "$SONDE" vsensor report --html "$name.html" "b-$name" >/dev/null; then
		echo "    report --html: $(wc -c <"$name.html") bytes, matrices: $(grep -o 'id="matrix-[a-z]*"' "$name.html" | sed 's/id="matrix-//; s/"//' | tr '\n' ' ')"
	else
		echo "    report --html failed"
	fi
}

echo "bench: vsensor on real programs, $(date -u '+%Y-%m-%d %H:%M UTC'), 4 ranks on $(nproc) cores, load $(load)"
mpicc -O2 -shared -fPIC "$VSW/pmpi-delay.c" -o libpmpi-delay.so

if want CoMD && ! [ -d "$COMD_SRC" ]; then
	echo "CoMD: skipped ($COMD_SRC not found)"
elif want CoMD; then
	echo "CoMD ($COMD_SRC): 20x20x20 unit cells (32000 atoms), LJ, 2x2x1 ranks"
	for v in orig vs; do
		cp -r "$COMD_SRC" "comd-$v" && cp "comd-$v/Makefile.vanilla" "comd-$v/Makefile"
		mkdir -p bin
		# its Makefile writes CoMD_info.h from 'which $(CC)': made with a one-word CC
		(cd "comd-$v" && make CoMD_info.h >/dev/null 2>&1)
	done
	s=$(date +%s.%N)
	(cd comd-orig && make -j2 BIN_DIR=.. >build.log 2>&1) && mv CoMD-mpi CoMD-orig
	e=$(date +%s.%N)
	echo "  build with mpicc: $(echo "$e - $s" | bc | cut -c1-5) s ($(ls comd-vs/*.c | wc -l) files, make -j2)"
	s=$(date +%s.%N)
	(cd comd-vs && make -j2 BIN_DIR=.. CC="$SONDE vsensor cc mpicc" >build.log 2>&1) && mv CoMD-mpi CoMD-vs1
	e=$(date +%s.%N)
	echo "  build with sonde vsensor cc, file by file: $(echo "$e - $s" | bc | cut -c1-5) s"
	rm -f comd-vs/*.o
	s=$(date +%s.%N)
	# --with: the whole program analysed with each file (quoted: make passes the pattern on)
	(cd comd-vs && make -j2 BIN_DIR=.. CC="$SONDE vsensor cc --with '*.c' mpicc" >build.log 2>&1) && mv CoMD-mpi CoMD-vs
	e=$(date +%s.%N)
	echo "  build with sonde vsensor cc --with '*.c': $(echo "$e - $s" | bc | cut -c1-5) s"
	list_summary CoMD-file-by-file "" "-std=c99 -DDOUBLE -DDO_MPI" comd-vs/*.c
	list_summary CoMD "--with comd-vs/*.c" "-std=c99 -DDOUBLE -DDO_MPI" comd-vs/*.c
	if [ -x CoMD-orig ] && [ -x CoMD-vs ]; then
		args="-x 20 -y 20 -z 20 -i 2 -j 2 -k 1"
		[ "$mode" = --detect-only ] || for v in orig vs; do
			# shellcheck disable=SC2086
			SONDE_DIR=$T/cmp-comd $M "./CoMD-$v" $args -N 50 >"out-CoMD-$v" 2>/dev/null
			echo $? >"rc-CoMD-$v"
		done
		# without dates, rates, the timers' tables and the thermodynamics rows (compared
		# next, all columns but the time per atom)
		if [ "$mode" != --detect-only ]; then
			compare CoMD '[0-9]{2}:[0-9]{2}:[0-9]{2}|us/atom|atoms/us|^ *(total|loop|timestep|position|velocity|redistribute|atomHalo|force|eamHalo|commHalo|commReduce) |^ +[0-9]+ +[0-9.]+ +-[0-9]'
			awk '/^ *[0-9]+ +[0-9.]+ +-[0-9.]+/ { $7 = ""; print }' out-CoMD-orig >a.txt
			awk '/^ *[0-9]+ +[0-9.]+ +-[0-9.]+/ { $7 = ""; print }' out-CoMD-vs >b.txt
			echo "  CoMD thermodynamics table (all columns but the time per atom): $(cmp -s a.txt b.txt && echo identical || echo DIFFERS), $(wc -l <a.txt) rows"
			# shellcheck disable=SC2086
			overhead CoMD '/^loop / { print $4; exit }' $args -N 50
			instructions CoMD -x 8 -y 8 -z 8 -N 20
		fi
		# shellcheck disable=SC2086
		[ "$mode" = --no-detect ] || detect CoMD 2 5 2 $args -N 200
	else
		echo "  CoMD did not build: $(tail -q -n 3 comd-*/build.log | tr '\n' ' ')"
	fi
fi

if want IS && ! [ -d "$NPB_SRC" ]; then
	echo "IS: skipped ($NPB_SRC not found)"
elif want IS; then
	echo "NPB IS class B ($NPB_SRC)"
	for v in orig vs; do
		cp -r "$NPB_SRC" "npb-$v" && mkdir -p "npb-$v/bin"
		cp "npb-$v/config/make.def.template" "npb-$v/config/make.def"
	done
	# --with its timers: IS calls them in its iteration loop
	sed -i "s|^MPICC = mpicc|MPICC = $SONDE vsensor cc --with '../common/c_*.c' mpicc|" npb-vs/config/make.def
	for v in orig vs; do
		(cd "npb-$v" && make IS CLASS=B >build.log 2>&1) && cp "npb-$v/bin/is.B.x" "IS-$v"
	done
	list_summary IS-file-by-file "" "-Inpb-vs/IS -Inpb-vs/common" npb-vs/IS/is.c npb-vs/common/c_timers.c npb-vs/common/c_print_results.c
	list_summary IS "--with npb-vs/common/c_*.c" "-Inpb-vs/IS -Inpb-vs/common" npb-vs/IS/is.c npb-vs/common/c_timers.c npb-vs/common/c_print_results.c
	if [ -x IS-orig ] && [ -x IS-vs ]; then
		if [ "$mode" != --detect-only ]; then
			for v in orig vs; do
				SONDE_DIR=$T/cmp-is $M "./IS-$v" >"out-IS-$v" 2>/dev/null
				echo $? >"rc-IS-$v"
			done
			compare IS 'Time in|Mop/s|MPICC|Compile date'
			overhead IS '/Time in seconds/ { print $NF }'
			for v in orig vs; do
				(cd "npb-$v" && make IS CLASS=S >build-s.log 2>&1) && cp "npb-$v/bin/is.S.x" "ISS-$v"
			done
			instructions ISS
		fi
		# its iterations start after the keys are made (1.6-10.8 s into the run in the kept
		# rounds, 1.6 s on a quiet machine: bench/vsensor-sensor-times.sh): the
		# delay from its first MPI_Allreduce, the first call of its first iteration (from
		# its first MPI call, an MPI_Bcast before the keys, the window ended before it)
		[ "$mode" = --no-detect ] || detect IS 2 4 first:MPI_Allreduce
	else
		echo "  IS did not build: $(tail -q -n 3 npb-*/build.log | tr '\n' ' ')"
	fi
fi
if want PRK && ! [ -d "$PRK_SRC/MPI1" ]; then
	echo "PRK: skipped ($PRK_SRC/MPI1 not found)"
elif want PRK; then
	echo "PRK MPI1 ($PRK_SRC): Stencil, Transpose, Reduce, Synch_p2p"
	for v in orig vs; do
		cp -r "$PRK_SRC" "prk-$v"
		# objects built in the source tree would be linked as they are, uninstrumented
		find "prk-$v" -name '*.o' -delete
		printf 'MPICC=mpicc\nDEFAULT_OPT_FLAGS=-O2\n' >"prk-$v/common/make.defs"
	done
	# name:directory:program:overhead arguments (about 1-2 s at load 2):detection
	# arguments (about 8-10 s at load 2, window 2-5 s; longer when loaded):callgrind's
	# arguments (1 rank, small)
	for k in Stencil:Stencil:stencil:"100 2000":"400 2000":"10 1000" \
		Transpose:Transpose:transpose:"50 2000":"250 2000":"10 1000" \
		Reduce:Reduce:reduce:"1000 20000":"5000 20000":"200 20000" \
		P2p:Synch_p2p:p2p:"100 2000 2000":"500 2000 2000":"10 1000 1000"; do
		IFS=: read -r name dir prog oargs dargs iargs <<<"$k"
		(cd "prk-orig/MPI1/$dir" && make "$prog" >build.log 2>&1) && cp "prk-orig/MPI1/$dir/$prog" "$name-orig"
		s=$(date +%s.%N)
		(cd "prk-vs/MPI1/$dir" && make "$prog" MPICC="$SONDE vsensor cc mpicc" >build.log 2>&1) && cp "prk-vs/MPI1/$dir/$prog" "$name-vs"
		e=$(date +%s.%N)
		if ! [ -x "$name-orig" ] || ! [ -x "$name-vs" ]; then
			echo "  $name did not build: $(tail -q -n 3 prk-*/MPI1/"$dir"/build.log | tr '\n' ' ')"
			continue
		fi
		echo "  $name: built with sonde vsensor cc in $(echo "$e - $s" | bc | cut -c1-5) s"
		list_summary "$name" "" "-DMPI -DRESTRICT_KEYWORD=0 -DVERBOSE=0 -DLOOPGEN=0 -DDOUBLE=1 -DRADIUS=2 -DSTAR=1 -Iprk-vs/include" \
			"prk-vs/MPI1/$dir/$prog.c"
		if [ "$mode" != --detect-only ]; then
			for v in orig vs; do
				# shellcheck disable=SC2086
				SONDE_DIR=$T/cmp-$name $M "./$name-$v" $oargs >"out-$name-$v" 2>/dev/null
				echo $? >"rc-$name-$v"
				rm -rf "$T/cmp-$name"
			done
			compare "$name" 'Rate|time|Time'
			# shellcheck disable=SC2086
			overhead "$name" '/Avg time/ { print $NF; exit }' $oargs
			# shellcheck disable=SC2086
			instructions "$name" $iargs
		fi
		# shellcheck disable=SC2086
		[ "$mode" = --no-detect ] || detect "$name" 2 5 2 $dargs
	done
fi
echo "  load average after: $(load)"
