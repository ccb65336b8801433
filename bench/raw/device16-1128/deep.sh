#!/bin/bash
# Whether the depth of a seat's cut stack bounds the deep tree at 16
# workers: the library after this session's changes (devrun/bench-new.test,
# 64 points a seat) against the same with 2,048 (devrun/bench-deep.test,
# an experiment, not the library), alternated, two rounds, about a minute.
# Writes $OUT/results.tgz ({new,deep}-trees16.txt, log.txt).
. "$(dirname "$0")/lib.sh"
log start
for r in 1 2; do
  for side in new deep; do
    GOMAXPROCS=16 timeout 60 $D/bench-$side.test -test.run '^$' -test.count 1 -test.benchtime 2x \
      -test.bench 'PublishedTrees/tree=(T1|T3)/impl=(seq|par.ReduceRangeOf|par.ReduceRange|par.For)$' >> $OUT/$side-trees16.txt 2>&1 || log "exit $? $side"
    log "round $r $side"
  done
done
log done
