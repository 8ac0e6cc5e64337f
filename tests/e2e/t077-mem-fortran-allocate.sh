#!/usr/bin/env bash
# t077-mem-fortran-allocate: the arrays of one Fortran ALLOCATE statement are objects of
# their own, told apart by the calls' order on the line.  gfortran gives every malloc of
# the statement the same line and column, and a column was the only thing that told two
# calls on a line apart: NPB CG's 13 arrays read as one object, "alloc_space
# (cg_data.f90:109)" at 58% (the trial of 2026-11-29).  By construction: a(n) swept whole
# and b(n) one element in 4, each round; a is allocated first.  a gets more of the time
# than b (4x the accesses, a pass over the same lines); the test asks only for more.
. "$(dirname "$0")/lib.sh"
command -v gfortran >/dev/null || { skip t077 "gfortran is not installed"; exit 0; }
cat >two.f90 <<'EOF2'
program two
  implicit none
  integer, parameter :: n = 200000
  double precision, allocatable :: a(:), b(:)
  integer :: r, i
  double precision :: s
  allocate(a(n), b(n))
  a = 0; b = 0
  do r = 1, 1500
    do i = 1, n
      a(i) = a(i) + 1
    end do
    do i = 1, n, 4
      b(i) = b(i) + 1
    end do
  end do
  s = a(7) + b(9)
  print *, s
end program
EOF2
gfortran -O1 -g two.f90 -o two || { fail t077-build "gfortran could not build two.f90"; exit 0; }
"$SONDE" mem -q -o rec -- ./two >out 2>err
check t077-status [ $? -eq 0 ]
o=rec/mem/objects.csv
first=$(csv_get $o object "two (two.f90:7) [call 1 of 2 on the line]" samples)
second=$(csv_get $o object "two (two.f90:7) [call 2 of 2 on the line]" samples)
echo "    call 1 (a): ${first:-none} samples, call 2 (b): ${second:-none}"
check t077-two-objects [ -n "$first" -a -n "$second" ]
check t077-one-alloc-each [ "$(csv_get $o object "two (two.f90:7) [call 1 of 2 on the line]" allocs)-$(csv_get $o object "two (two.f90:7) [call 2 of 2 on the line]" allocs)" = 1-1 ]
check t077-no-merged-object bash -c "! grep -q '^two (two.f90:7),' $o"
check t077-a-more-than-b [ "${first:-0}" -gt "${second:-0}" ]
