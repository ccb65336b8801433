#!/bin/bash
# abrun.sh OUT ROUNDS: old and new library binaries alternated ABBA, each
# process timing the sequential walk and ReduceRangeOf of one tree.
out=$(realpath -m "$1"); rounds=$2; mkdir -p "$out"
cd "$(dirname "$0")/../../"  # bench/
for r in $(seq 1 $rounds); do
  if [ $((r % 2)) -eq 1 ]; then order="old new2"; else order="new2 old"; fi
  for v in $order; do
    for t in T3 T1; do
      f=$out/$t-$v-$r.txt
      /tmp/$v.test -test.run '^$' -test.bench "PublishedTrees/tree=$t/impl=(seq|par.ReduceRangeOf)\$" -test.benchtime 3x -test.cpu 2 > $f 2>&1
      seq=$(grep 'impl=seq-' $f | grep -o '[0-9]* ns/op' | cut -d' ' -f1)
      par=$(grep 'impl=par.ReduceRangeOf-' $f | grep -o '[0-9]* ns/op' | cut -d' ' -f1)
      idle=$(grep 'impl=par.ReduceRangeOf-' $f | grep -o '[0-9]* idle-ns/op' | cut -d' ' -f1)
      echo "$t $v $r seq=$seq par=$par ratio=$(echo "scale=3; $seq/$par" | bc) idle=$idle"
    done
  done
done
