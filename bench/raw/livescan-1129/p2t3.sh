#!/bin/bash
# T3 by ReduceRangeOf and the sequential walk at GOMAXPROCS=2, the two binaries alternated, 10 rounds.
for r in $(seq 10); do
  for v in head live; do
    GOMAXPROCS=2 /tmp/$v.test -test.run '^$' -test.bench 'PublishedTrees$/tree=T3/impl=(seq|par.ReduceRangeOf)$' -test.benchtime 3x |
      grep ^Bench | perl -pe 's/\s+[0-9.]+ w[0-9]+-(pieces|steals)\/op//g' >> p2t3-$v.txt
  done
done
