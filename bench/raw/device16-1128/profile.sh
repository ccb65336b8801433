#!/bin/bash
# What the walks of the published trees spend at 16 workers, one call on
# the lent machine, about two minutes: a CPU profile of each parloop form
# on T3 and of ReduceRangeOf on T1 at 16 workers, then the tree rows at 2
# workers (a quiet 2-core measurement beside the shared machine's), three
# rounds. Needs devrun/bench.test (see run.sh).
# Writes $OUT/results.tgz (prof-*.pprof, prof-*.txt, trees-P2.txt, log.txt).
. "$(dirname "$0")/lib.sh"
log start
for row in T3/impl=par.ReduceRangeOf T3/impl=par.BothOf T3/impl=par.Scope T1/impl=par.ReduceRangeOf T1/impl=par.Scope; do
  name=$(echo $row | tr '/=.' '---')
  GOMAXPROCS=16 timeout 60 $D/bench.test -test.run '^$' -test.bench "PublishedTrees/tree=$row\$" -test.benchtime 4x \
    -test.cpuprofile $OUT/prof-$name.pprof > $OUT/prof-$name.txt 2>&1 || log "exit $? $row"
  log "profiled $row"
done
for r in 1 2 3; do
  GOMAXPROCS=2 timeout 90 $D/bench.test -test.run '^$' -test.benchmem -test.bench 'PublishedTrees/tree=(T1|T3)/impl=(seq|seq-x2|par.ReduceRangeOf|par.ReduceRange|par.BothOf)$' \
    -test.benchtime 2x >> $OUT/trees-P2.txt 2>&1 || log "exit $? trees P2"
  log "trees P2 round $r"
done
log done
