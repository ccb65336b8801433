#!/bin/bash
# GOMAXPROCS=16 on the 2-core VM: head.test (e957733) and new.test alternated, 6 rounds
for r in 1 2 3 4 5 6; do
  for v in old new; do
    bin=/tmp/new.test; [ $v = old ] && bin=/tmp/head.test
    GOMAXPROCS=16 $bin -test.run '^$' -test.bench 'PublishedTrees$/tree=(T1|T3)/impl=par.(ReduceRangeOf|BothOf)$' -test.benchtime 2x | grep ^Bench >> p16ab-$v.txt
  done
done
