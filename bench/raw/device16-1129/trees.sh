#!/bin/bash
# 16-core check of the deep-recursion changes of 2026-11-29 (the cut
# stack's segments, cuts priced at the grain's rate, nested calls framed
# while a seat spins; ../proxy16-1129/README.md; slow start for costly
# items, ../slowstart-1129/README.md), one call on a lent
# machine, about five minutes: the published trees by every form at 16
# workers, the library before (devrun/bench-old.test, built at e957733)
# and at HEAD (devrun/bench.test) alternated, then each new heuristic and
# spawngrow off against the defaults, alternated, in HEAD's binary.
# Needs, in devrun/ beside the repository: both binaries (cd bench && go
# test -tags parloop_experiments -c -o ../devrun/bench.test .).
# Writes $OUT/results.tgz ({old,new}-trees.txt, heur-*.txt, log.txt).
. "$(dirname "$0")/lib.sh"
trees='PublishedTrees/tree=(T1|T3)/impl=(seq|par.ReduceRangeOf|par.ReduceRange|par.BothOf|par.Scope)$'
for r in 1 2; do
  for side in old new; do
    bin=$D/bench.test; [ $side = old ] && bin=$D/bench-old.test
    GOMAXPROCS=16 timeout 100 $bin -test.run '^$' -test.count 1 -test.benchtime 2x -test.bench "$trees" >> $OUT/$side-trees.txt 2>&1 || log "exit $? $side trees"
    log "round $r $side"
  done
done
declare -A rows=(
  [ratecut]='PublishedTrees/tree=(T1|T3)/impl=par.(ReduceRangeOf|For)$|UTS$/peer=par.(For|ReduceRange)$'
  [idlecheck]='PublishedTrees/tree=(T1|T3)/impl=par.(ReduceRangeOf|For)$|UTS$/peer=par.(For|ReduceRange)$|Nested$/peer=par.(For|ForRange)$'
  [slowstart]='PublishedTrees/tree=(T1|T3)/impl=par.(ReduceRangeOf|For)$|Nested$/peer=par.(For|ForRange)$'
  [spawngrow]='ScopeSpawn$/impl=par.Scope(Of)?$|Crawl$/impl=par.Scope(Of)?$|PublishedTrees/tree=T1/impl=par.Scope$'
)
for r in 1 2; do
  for h in ratecut idlecheck slowstart spawngrow; do
    for side in default $h=off; do
      echo "=== $h $side round $r" >> $OUT/heur-$h.txt
      GOMAXPROCS=16 PARLOOP_EXPERIMENT=$side timeout 60 $D/bench.test -test.run '^$' -test.count 1 -test.benchtime 2x -test.bench "${rows[$h]}" >> $OUT/heur-$h.txt 2>&1 || log "exit $? $h $side"
    done
  done
  log "heuristics round $r"
done
log done
