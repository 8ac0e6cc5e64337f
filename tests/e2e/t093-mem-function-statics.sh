#!/usr/bin/env bash
# t093-mem-function-statics: a function's static variables are named by their scope, as gdb
# names them (`work::tab`), not by their local symbols: gcc and gfortran give each a
# symbol "name.N", so two functions' `tab` read "tab.0" and "tab.1", and Nekbone's SAVEd
# arrays "p.3", "ur.3", one suffix for arrays of two routines (the trial of 2026-11-29).
# By construction each array gets half the run's accesses or more of a pass of its own;
# an object absent from a run's samples is a SKIP of its name's check, not a pass.
. "$(dirname "$0")/lib.sh"
command -v gcc >/dev/null || { skip t093 "gcc is not installed"; exit 0; }
cat >fst.c <<'EOC'
#include <stdio.h>
__attribute__((noinline)) double work(int r)
{
	static double tab[1 << 19];
	for (int i = 0; i < (1 << 19); i++)
		tab[i] += r;
	return tab[5];
}
__attribute__((noinline)) double work2(int r)
{
	static double tab[1 << 18];
	for (int i = 0; i < (1 << 18); i++)
		tab[i] -= r;
	for (int i = 0; i < (1 << 18); i++)
		tab[i] *= 0.5;
	return tab[5];
}
int main(void)
{
	double s = 0;
	for (int r = 0; r < 300; r++)
		s += work(r) + work2(r);
	printf("%f\n", s);
	return 0;
}
EOC
gcc -O1 -g fst.c -o fst || { fail t093-build "gcc could not build fst.c"; exit 0; }
check t093-premise-local-symbols sh -c 'nm fst | grep -q " b tab\.[0-9]"'
"$SONDE" mem -q -o rec -- ./fst >out 2>err
check t093-status [ $? -eq 0 ]
o=rec/mem/objects.csv
# each name on its own array: work's 4 MiB, work2's 2 MiB (a swap would pass otherwise)
for name in work::tab=4194304 work2::tab=2097152; do
	size=${name#*=} name=${name%=*}
	n=$(csv_get $o object "$name" samples)
	if [ -n "$n" ]; then
		check "t093-named-$name" [ "$(csv_get $o object "$name" kind)-$(csv_get $o object "$name" size)" = "static-$size" ]
	elif grep -q '^tab\.[0-9]' $o; then
		fail "t093-named-$name" "objects read $(grep -o '^tab\.[0-9]*' $o | tr '\n' ' ')"
	else
		skip "t093-named-$name" "no sample in it this run"
	fi
done
check t093-no-symbol-names bash -c "! grep -q '^tab\.[0-9]' $o"

command -v gfortran >/dev/null || { skip t093-fortran "gfortran is not installed"; exit 0; }
cat >sv.f90 <<'EOC'
subroutine cg(n, s)
  integer :: n, i, r
  real(8) :: s
  real(8), save :: ur(500000)
  do r = 1, 150
    do i = 1, n
      ur(i) = ur(i) + i * r
    end do
  end do
  s = s + ur(5)
end subroutine
program main
  real(8), save :: p(500000)
  real(8) :: s
  integer :: i, r
  s = 0
  call cg(500000, s)
  do r = 1, 150
    do i = 1, 500000
      p(i) = p(i) + r
    end do
  end do
  print *, s + p(7)
end program
EOC
gfortran -O1 -g sv.f90 -o sv || { fail t093-fortran-build "gfortran could not build sv.f90"; exit 0; }
"$SONDE" mem -q -o recf -- ./sv >outf 2>errf
check t093-fortran-status [ $? -eq 0 ]
o=recf/mem/objects.csv
for name in cg::ur MAIN__::p; do
	if [ -n "$(csv_get $o object "$name" samples)" ]; then
		pass "t093-fortran-named-$name"
	elif grep -q '^[a-z]*\.[0-9]' $o; then
		fail "t093-fortran-named-$name" "objects read $(grep -o '^[a-z]*\.[0-9]*' $o | tr '\n' ' ')"
	else
		skip "t093-fortran-named-$name" "no sample in it this run"
	fi
done
