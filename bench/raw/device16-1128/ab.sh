#!/bin/bash
# A/B at 16 workers of two builds of bench/ (devrun/bench.test: before,
# devrun/bench-new.test: after), alternated, two rounds, one call on the
# lent machine, about four minutes: the published trees by every form,
# the scope rows, the rows the cut points matter to, and the trees at 2
# workers. Writes $OUT/results.tgz ({old,new}-*.txt, log.txt).
. "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-2}
bench() { # bench SIDE FILE P TIMEOUT ARGS...
  local bin=$D/bench.test side=$1 f=$2 p=$3 t=$4; shift 4
  [ $side = new ] && bin=$D/bench-new.test
  GOMAXPROCS=$p timeout $t $bin -test.run '^$' -test.benchmem -test.count 1 "$@" >> $OUT/$side-$f 2>&1 || log "exit $? $side $f P=$p $*"
}
log start
for r in $(seq $ROUNDS); do
  for side in old new; do
    bench $side trees16.txt 16 90 -test.bench 'PublishedTrees/tree=(T1|T3)/impl=(seq|par.ReduceRangeOf|par.ReduceRange|par.Scope|par.BothOf|par.For)$' -test.benchtime 2x
    bench $side scope16.txt 16 60 -test.bench 'ScopeSpawn/impl=(seq|par.Scope|wg-go)$|Crawl/impl=(seq|par.Scope|wg-go)$' -test.benchtime 3x
    bench $side cuts16.txt 16 60 -test.bench 'LongFirstItem$|Skewed$/peer=par.For$|UTS$/peer=par.(For|ReduceRange)$|TreeWalk$/peer=par.Join$|Mandelbrot$/peer=par.For$' -test.benchtime 5x
    bench $side trees2.txt 2 90 -test.bench 'PublishedTrees/tree=(T1|T3)/impl=(seq|par.ReduceRangeOf|par.Scope)$' -test.benchtime 2x
    log "round $r $side"
  done
done
log done
