#!/usr/bin/env bash
# t702-bench-verdict: the recording tools take clock's de-biasing setting (SONDE_EXTRA_STEPS)
# from this machine's `sonde bench` verdict (cmd/verdict.h, doc/sonde-bench.md "The verdict
# file") and say so; the user's own setting wins; a verdict from another machine, or none,
# leaves the default and says so.  The verdicts here are scripted (a real suite's verdict is
# checked in t701), so the expected setting follows from the figures written below: the
# fewest extra steps whose four Bias-Bench shares are all within 10 points of 25 %.
. "$(dirname "$0")/lib.sh"

cpu=$("$SONDE" info --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["cpu"]["model"])')
kernel=$(uname -r)
# verdict FILE KERNEL SHARES_1 SHARES_2 SHARES_4 SHARES_8: a clock verdict at 0.9 ms with
# Bias-Bench's four shares (percent, "a/b/c/d") for settings 1 (bias-no-steps), 2, 4
# (bias-steps-N) and 8 (bias, with its extra_steps row).
verdict() {
	local f=$1 k=$2
	{
		echo "source,interval,benchmark,measure,value"
		echo "*,,machine,cpu,\"$cpu\""
		echo "*,,machine,kernel,$k"
		echo "*,,machine,host,test"
		local b steps n=3
		for b in bias-no-steps:1 bias-steps-2:2 bias-steps-4:4 bias:8; do
			steps=${b#*:} b=${b%%:*}
			echo "$n" | awk -v s="${!n}" -v b="$b" -v st="$steps" '{
				split(s, v, "/")
				for (i = 1; i <= 4; i++) printf "clock,0.9 ms,%s,bias%d,%.4f\n", b, i, v[i] / 100
				printf "clock,0.9 ms,%s,time_ratio,1.1000\n", b
				printf "clock,0.9 ms,%s,extra_steps,%d.0000\n", b, st }'
			n=$((n + 1))
		done
		echo "clock,0.9 ms,*,period,900000.0000"
		echo "clock,0.9 ms,*,date,2026-01-02 03:04 UTC"
		echo "clock,0.9 ms,*,verdict,\"clock at 0.9 ms: scripted for t702\""
	} >"$f"
}

# run_env NAME [VAR=VALUE...]: sonde mem -s clock on env(1) into rec-NAME; the program's
# environment in env-NAME, the report in rep-NAME.
run_env() {
	local name=$1; shift
	env "$@" "$SONDE" mem -s clock -o "rec-$name" -- /usr/bin/env >"env-$name" 2>"rep-$name"
}
steps_of() { sed -n 's/^SONDE_EXTRA_STEPS=//p' "env-$1"; }

# 2 is 15 points off (load 2), 4 within 3: the tools take 4.
verdict v4.csv "$kernel" 28/34/0/38 20/40/10/30 26/24/27/23 25/25/26/24
export SONDE_VERDICT=$T/v4.csv
run_env pick
check t702-pick-status [ $? -eq 0 ]
check t702-pick-env [ "$(steps_of pick)" = 4 ]
check t702-pick-says grep -q "^4 extra steps: the cheapest within 10 points of unbiased on this machine's Bias-Bench (bias 26/24/27/23 at clock 0.9 ms; verdict of 2026-01-02 03:04 UTC, $T/v4.csv)" <(header_value de-bias rep-pick)
"$SONDE" report rec-pick >rep-pick2 2>&1
check t702-pick-report-again grep -q '^4 extra steps' <(header_value de-bias rep-pick2)
# under the default, the caveat (a trial's miniBUDE read its two arrays 15x apart at 2)
check t702-pick-caveat grep -q "; a microbenchmark: real loops can read more biased at so few steps (to check: SONDE_EXTRA_STEPS=32, or --source inst on a sonde-cc build)" <(header_value de-bias rep-pick)

# Just within (10 points) counts; 2 is then the cheapest.
verdict v2.csv "$kernel" 28/34/0/38 35/25/15/25 26/24/27/23 25/25/26/24
SONDE_VERDICT=$T/v2.csv run_env edge
check t702-edge-within-10-points [ "$(steps_of edge)" = 2 ]

# The user's setting wins, and the report says whose it is.
run_env user SONDE_EXTRA_STEPS=16
check t702-user-env [ "$(steps_of user)" = 16 ]
check t702-user-says grep -q '^16 extra steps, set by the user (SONDE_EXTRA_STEPS=16)' <(header_value de-bias rep-user)

# Another machine's verdict (another kernel) is not used.
verdict other.csv "0.0.1-elsewhere" 28/34/0/38 20/40/10/30 26/24/27/23 25/25/26/24
SONDE_VERDICT=$T/other.csv run_env other
check t702-other-machine-env [ -z "$(steps_of other)" ]
check t702-other-machine-says grep -q "^no verdict for this machine ($T/other.csv is from .*, kernel 0.0.1-elsewhere): default 8 extra steps; run sonde bench" <(header_value de-bias rep-other)

# No verdict at all.
SONDE_VERDICT=$T/none.csv run_env none
check t702-none-env [ -z "$(steps_of none)" ]
check t702-none-says grep -q '^no verdict: default 8 extra steps; run sonde bench' <(header_value de-bias rep-none)

# No setting within 10 points: the default, and why.
verdict bad.csv "$kernel" 28/34/0/38 20/40/10/30 40/20/20/20 38/22/20/20
SONDE_VERDICT=$T/bad.csv run_env bad
check t702-none-fits-env [ -z "$(steps_of bad)" ]
check t702-none-fits-says grep -q '^8 extra steps, the default: no setting of this machine.s verdict .* is within 10 points of unbiased (best: 8, bias 38/22/20/20)' <(header_value de-bias rep-bad)

# Other sources are not touched (inst and hw have no de-biasing setting).
env "$SONDE" mem -s inst -o rec-inst -- /usr/bin/env >env-inst 2>rep-inst
check t702-inst-untouched [ -z "$(steps_of inst)" ]
check t702-inst-no-line sh -c '! grep -q "de-bias" rep-inst'

# comm: the same setting, the same line.
"$SONDE" comm -s clock -o rec-comm -- /usr/bin/env >env-comm 2>rep-comm
check t702-comm-env [ "$(steps_of comm)" = 4 ]
check t702-comm-says grep -q "^  de-biasing: 4 extra steps: the cheapest within 10 points" rep-comm

# sonde info shows the verdict and the setting the tools take.
"$SONDE" info >info.txt 2>&1
check t702-info-verdict grep -q '^  clock at 0.9 ms: scripted for t702 \[2026-01-02 03:04 UTC\]' info.txt
check t702-info-setting grep -q '^  clock de-biasing for mem and comm: 4 extra steps' info.txt
check t702-info-json python3 -c 'import json, subprocess, sys
d = json.loads(subprocess.run([sys.argv[1], "info", "--json"], capture_output=True).stdout)
v = d["bench_verdict"]
assert v["present"] and v["this_machine"] and v["extra_steps"] == 4, v
assert v["extra_steps_from"] == "verdict" and v["verdicts"][0]["source"] == "clock", v' "$SONDE"
SONDE_VERDICT=$T/other.csv "$SONDE" info >info-other.txt 2>&1
check t702-info-other-machine grep -q "^sonde bench verdict ($T/other.csv): from another machine, not used" info-other.txt

# A suite that measures no clock (hw is skipped here, or measured) keeps the clock rows.
cp v4.csv keep.csv
SONDE_VERDICT=$T/keep.csv "$SONDE" bench -s hw --runs 1 >/dev/null 2>bench-err
check t702-keep-status [ $? -eq 0 ]
check t702-keep-says grep -q "^sonde bench: verdict saved in $T/keep.csv" bench-err
check t702-keep-clock-rows grep -q '^clock,0.9 ms,bias-steps-4,bias1,0.2600' keep.csv
check t702-keep-hw-row grep -q '^hw,' keep.csv
SONDE_VERDICT=$T/keep.csv run_env keep
check t702-keep-still-picks [ "$(steps_of keep)" = 4 ]

# A file that is not a verdict: no setting, and the reason.
echo "hello" >junk.csv
SONDE_VERDICT=$T/junk.csv run_env junk
check t702-junk-env [ -z "$(steps_of junk)" ]
check t702-junk-says grep -q "^no verdict ($T/junk.csv is not a sonde bench verdict" <(header_value de-bias rep-junk)
