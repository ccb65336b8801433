#!/bin/bash
# Slow start on and off in one binary (bench.test: go test -tags parloop_experiments -c in bench/),
# alternated, 8 rounds, GOMAXPROCS=16 on the 2-core VM: the workers' idle time stands for 16 cores'.
for r in 1 2 3 4 5 6 7 8; do
  for exp in default slowstart=off; do
    GOMAXPROCS=16 PARLOOP_EXPERIMENT=$exp ./bench.test -test.run '^$' -test.bench 'PublishedTrees$/tree=(T1|T3)/impl=par.(ReduceRangeOf|BothOf)$' -test.benchtime 2x |
      grep ^Bench | perl -pe 's/\s+[0-9.]+ w[0-9]+-(pieces|steals)\/op//g' >> p16-${exp#slowstart=}.txt  # p16-default.txt, p16-off.txt
  done
done
