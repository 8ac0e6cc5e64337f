#!/usr/bin/env bash
# t073-mem-unmapped-file: a file mapping the program unmaps before it exits keeps its name,
# "[file: NAME]": the runtime copies its lines of /proc/self/maps at the munmap (as a
# dlclose'd library's), where before only the exit's copy named mappings and the samples
# in it read "[unknown]" (the trial of 2026-11-28: Phoenix's linear_regression maps its
# input, 54% of the samples, and unmaps it first).  mf maps a 1 MiB file and sums it many
# times, then unmaps it: by construction nearly all samples are in the file.
. "$(dirname "$0")/lib.sh"
command -v gcc >/dev/null || { skip t073 "gcc is not installed"; exit 0; }
cat >mf.c <<'EOC'
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int fd = open(argv[1], O_RDONLY);
	size_t n = 1 << 20;
	const volatile long *p = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
	if (fd < 0 || p == MAP_FAILED)
		return 1;
	long s = 0;
	for (int r = 0; r < 20000; r++)
		for (size_t i = 0; i < n / sizeof(long); i += 8)
			s += p[i];
	munmap((void *)p, n);
	close(fd);
	printf("%ld\n", s);
	return 0;
}
EOC
gcc -O2 -g mf.c -o mf || { fail t073-build "gcc could not build mf.c"; exit 0; }
head -c 1048576 /dev/zero >input.dat
"$SONDE" mem -q -o rec -- ./mf input.dat >out 2>err
check t073-status [ $? -eq 0 ]
f=$(awk -F, '$1 == "[file: input.dat]" { print $3 }' rec/mem/objects.csv)
all=$(awk -F, 'NR > 1 { s += $3 } END { print s + 0 }' rec/mem/objects.csv)
echo "    samples: file ${f:-0} of $all; top object: $(sed -n 2p rec/mem/objects.csv | cut -c1-80)"
check "t073-file-named-${f:-0}-of-$all" awk -v f="${f:-0}" -v a="$all" 'BEGIN { exit !(f > 0 && 2 * f > a) }'
check t073-closed-copy grep -q "input.dat" rec/*.maps.closed
