# tests/workloads/mpi/mpi-test.sh - sourced by the MPI end-to-end tests
# (tests/e2e/t20*-mpi-*.sh) after tests/e2e/lib.sh.
# Gives: mpi_setup NAME (builds mpi-memwork with mpicc into $T, or prints "SKIP NAME: why"
# and exits when this machine cannot run an Open MPI job), $MW (the built workload),
# $MPI_SRC, mpi_run (mpirun with the options a small VM needs), mpi_alloc_line,
# rank_shares, work_rank_shares and proc_get.
MPI_SRC=$SONDE_TOP/tests/workloads/mpi/mpi-memwork.c
MW=$T/mpi-memwork

# Root is allowed (CI containers), more ranks than cores, no binding (2-core VMs),
# shared memory only (no network needed).
mpi_run() {
	mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader "$@"
}

mpi_setup() {
	local name=$1
	if ! command -v mpirun >/dev/null; then
		skip "$name" "mpirun not found (Debian: openmpi-bin)"
		exit 0
	fi
	if ! command -v mpicc >/dev/null; then
		skip "$name" "mpicc not found (Debian: libopenmpi-dev)"
		exit 0
	fi
	if ! mpirun --version 2>&1 | grep -q 'Open MPI'; then
		skip "$name" "mpirun is not Open MPI's ($(mpirun --version 2>&1 | head -1)); the tests use its options"
		exit 0
	fi
	if ! mpi_run -np 2 true >mpi-probe.log 2>&1; then
		skip "$name" "mpirun cannot start 2 local processes here: $(tr '\n' ' ' <mpi-probe.log | head -c 200)"
		exit 0
	fi
	if [ ! -x "$SONDE" ]; then
		fail "$name-built" "$SONDE missing (make build-tests)"
		exit 0
	fi
	if ! mpicc -std=gnu11 -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror \
		"$MPI_SRC" -o "$MW" >mpicc.log 2>&1; then
		fail "$name-mpicc" "$(tr '\n' ' ' <mpicc.log | head -c 300)"
		exit 0
	fi
}

# The source line of the workload's heap allocation (the object's name ends with it).
mpi_alloc_line() { grep -n '/\* ALLOC_SITE \*/' "$MPI_SRC" | head -1 | cut -d: -f1; }

# rank_shares THREADS_CSV: "rank share samples" a line, by rank, from the per-thread rows.
rank_shares() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		{ s[$h["rank"]] += $h["samples"]; t += $h["samples"] }
		END { for (r in s) printf "%s %.4f %d\n", r, t ? s[r] / t : 0, s[r] }' "$1" | sort -n
}

# proc_get FILE KEY: the last value of KEY in a .proc file (a later key wins).
# work_rank_shares THREADS_CSV OBJECT_THREADS_CSV OBJECT...: "rank share samples" a line, by
# rank, counting only the samples on the named objects (the workload's own arrays: the rest
# is MPI_Init/Finalize and the wait, whose CPU time varies with the machine's load).
work_rank_shares() {
	local threads=$1 objthreads=$2
	shift 2
	awk -F, -v objs="$(printf '%s\n' "$@")" '
		BEGIN { n = split(objs, o, "\n"); for (i = 1; i <= n; i++) want[o[i]] = 1 }
		FNR == 1 { for (i = 1; i <= NF; i++) h[FILENAME, $i] = i; next }
		FILENAME == ARGV[1] { rank[$h[FILENAME, "thread"]] = $h[FILENAME, "rank"]; next }
		($h[FILENAME, "object"] in want) {
			r = rank[$h[FILENAME, "thread"]]; s[r] += $h[FILENAME, "samples"]
			t += $h[FILENAME, "samples"]
		}
		END { for (r in s) printf "%s %.4f %d\n", r, t ? s[r] / t : 0, s[r] }' \
		"$threads" "$objthreads" | sort -n
}
proc_get() { awk -F= -v k="$2" '$1 == k { v = substr($0, length(k) + 2) } END { print v }' "$1"; }
