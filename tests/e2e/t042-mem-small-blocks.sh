# Small heap blocks in a thread's malloc arena (an anonymous mapping, not [heap]) are
# reported as untracked small heap blocks, not as anonymous memory.
. "$(dirname "$0")/lib.sh"
"$SONDE" mem -q --source clock -o rec -- "$W/smallheap" >out 2>err
check "exit-and-output" [ "$(cat out)" = "smallheap: ok" ]
first=$(awk -F, 'NR == 2 { print $1 }' rec/mem/objects.csv)
share=$(csv_get rec/mem/objects.csv object "[heap: untracked small blocks]" share)
check "small-blocks-first ($first)" [ "$first" = "[heap: untracked small blocks]" ]
check "small-blocks-share (${share:-none})" float_between "${share:-0}" 0.7 1.0
