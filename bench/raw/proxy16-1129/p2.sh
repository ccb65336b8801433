#!/bin/bash
# GOMAXPROCS=2: the library before (head.test, e957733) and after (new.test)
# with each new heuristic switched off, alternated by round.
rows='PublishedTrees$/tree=(T1|T3)/impl=par.ReduceRangeOf$|UTS$/peer=par.(For|ReduceRange)$|Nested$/peer=par.(For|ForRange)$'
for r in 1 2 3 4 5; do
  for v in old default idlecheck=off ratecut=off; do
    bin=/tmp/new.test; exp=$v
    [ $v = old ] && { bin=/tmp/head.test; exp=default; }
    GOMAXPROCS=2 PARLOOP_EXPERIMENT=$exp $bin -test.run '^$' -test.bench "$rows" -test.benchtime 2x | grep ^Bench >> p2-$v.txt  # saved as p2-old.txt, p2-default.txt, p2-noidlecheck.txt, p2-noratecut.txt
  done
done
