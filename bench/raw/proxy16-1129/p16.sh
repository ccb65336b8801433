#!/bin/bash
# one binary, three settings alternated, GOMAXPROCS=16 on the 2-core VM
for r in 1 2 3 4 5 6; do
  for exp in default idlecheck=off ratecut=off; do
    GOMAXPROCS=16 PARLOOP_EXPERIMENT=$exp /tmp/new.test -test.run '^$' -test.bench 'PublishedTrees$/tree=(T1|T3)/impl=par.ReduceRangeOf$' -test.benchtime 2x | grep ^Bench >> p16-$exp.txt  # saved as p16-default.txt, p16-noidlecheck.txt, p16-noratecut.txt
  done
done
