#!/usr/bin/env bash
# t306: samples per CPU (perf record --sample-cpu): cpus.csv and the hottest function's rows of
# functions-cpu.csv count what `perf script` lists for the same file, sample by sample; the
# terminal header names the per-CPU totals.
. "$(dirname "$0")/lib.sh"
if ! command -v perf >/dev/null; then
	skip t306-analyze-cpus "perf is not installed"
	exit 0
fi
cat >w.c <<'C'
#include <pthread.h>
#include <stdio.h>
__attribute__((noinline)) double spin(long n)
{
	double s = 0;
	for (long i = 0; i < n; i++)
		s += (double)i * 1.0000001;
	return s;
}
static void *run(void *arg)
{
	*(double *)arg = spin(150000000);
	return NULL;
}
int main(void)
{
	pthread_t t;
	double a, b;
	pthread_create(&t, NULL, run, &a);
	run(&b);
	pthread_join(t, NULL);
	printf("%f\n", a + b);
	return 0;
}
C
gcc -O2 -g -pthread -o w w.c
if ! perf record -q -e cpu-clock --sample-cpu -o perf.data ./w >/dev/null 2>perf.err || [ ! -s perf.data ]; then
	skip t306-analyze-cpus "perf record failed: $(head -1 perf.err)"
	exit 0
fi
# the reference: every sample's CPU (and symbol) as perf script prints them
perf script -i perf.data -F cpu 2>/dev/null | tr -d '[] ' | sort -n | uniq -c |
	awk '{ print $2 + 0 "," $1 }' >perf.cpus
perf script -i perf.data -F cpu,ip,sym 2>/dev/null | awk '$NF == "spin" { gsub(/[][]/, "", $1); n[$1 + 0]++ }
	END { for (c in n) print c "," n[c] }' | sort -n >perf.spin

"$SONDE" analyze -o out perf.data >/dev/null 2>err.txt
rc=$?
check t306-analyze-runs [ "$rc" -eq 0 ]
tail -n +2 out/cpus.csv | sort -n >sonde.cpus
if [ -s perf.cpus ] && diff perf.cpus sonde.cpus >d.txt; then
	pass t306-cpus-as-perf-script
else
	fail t306-cpus-as-perf-script "perf: $(tr '\n' ' ' <perf.cpus) sonde: $(tr '\n' ' ' <sonde.cpus)"
fi
awk -F, '$2 == "spin" { print $5 "," $6 }' out/functions-cpu.csv | sort -n >sonde.spin
if [ -s perf.spin ] && diff perf.spin sonde.spin >d.txt; then
	pass t306-function-cpus-as-perf-script
else
	fail t306-function-cpus-as-perf-script "perf: $(tr '\n' ' ' <perf.spin) sonde: $(tr '\n' ' ' <sonde.spin)"
fi
"$SONDE" analyze perf.data >out.txt 2>/dev/null
first=$(head -1 perf.cpus)
if grep -q "^# cpu-clock samples per cpu:.* cpu${first%,*} ${first#*,} " out.txt; then
	pass t306-cpus-in-header
else
	fail t306-cpus-in-header "$(grep 'per cpu' out.txt), want cpu${first%,*} ${first#*,}"
fi
