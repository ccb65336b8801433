#!/bin/bash
# The same two binaries at GOMAXPROCS=2, alternated, 6 rounds: the trees, UTS and the nested loops.
rows='PublishedTrees$/tree=(T1|T3)/impl=(seq|par.ReduceRangeOf|par.BothOf)$|UTS$/peer=par.(For|ReduceRange)$|Nested$/peer=par.(For|ForRange)$'
for r in 1 2 3 4 5 6; do
  for v in head live; do
    GOMAXPROCS=2 /tmp/$v.test -test.run '^$' -test.bench "$rows" -test.benchtime 3x |
      grep ^Bench | perl -pe 's/\s+[0-9.]+ w[0-9]+-(pieces|steals)\/op//g' >> p2-$v.txt
  done
done
