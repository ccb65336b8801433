#!/bin/bash
# Slow start on and off in one binary, alternated, 10 rounds, GOMAXPROCS=2: the trees by ReduceRangeOf
# and the sequential walk.
for r in $(seq 10); do
  for exp in default slowstart=off; do
    GOMAXPROCS=2 PARLOOP_EXPERIMENT=$exp ./bench.test -test.run '^$' -test.bench 'PublishedTrees$/tree=(T1|T3)/impl=(seq|par.ReduceRangeOf)$' -test.benchtime 3x |
      grep ^Bench | perl -pe 's/\s+[0-9.]+ w[0-9]+-(pieces|steals)\/op//g' >> p2-${exp#slowstart=}.txt  # p2-default.txt, p2-off.txt
  done
done
