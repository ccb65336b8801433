#!/bin/bash
# The library before (head.test, 9f0b5b7) and with the live word (live.test), alternated, 8 rounds,
# GOMAXPROCS=16 on the 2-core VM; each is `go test -tags parloop_experiments -c` in bench/.
for r in 1 2 3 4 5 6 7 8; do
  for v in head live; do
    GOMAXPROCS=16 /tmp/$v.test -test.run '^$' -test.bench 'PublishedTrees$/tree=(T1|T3)/impl=par.(ReduceRangeOf|BothOf)$' -test.benchtime 2x |
      grep ^Bench | perl -pe 's/\s+[0-9.]+ w[0-9]+-(pieces|steals)\/op//g' >> p16-$v.txt
  done
done
