#!/bin/bash
# A/B at 16 workers of rate-cut.patch (cut points priced at the running
# grain's own rate as well as the call's published cost): devrun/bench.test
# built at the library's commit, devrun/bench-rate.test built with the
# patch applied, alternated, two rounds, about a minute and a half: the
# trees by every loop form, and the rows cut points matter to.
# Writes $OUT/results.tgz ({base,rate}-*.txt, log.txt).
. "$(dirname "$0")/lib.sh"
log start
for r in 1 2; do
  for side in base rate; do
    bin=$D/bench.test; [ $side = rate ] && bin=$D/bench-rate.test
    GOMAXPROCS=16 timeout 60 $bin -test.run '^$' -test.count 1 -test.benchtime 2x \
      -test.bench 'PublishedTrees/tree=(T1|T3)/impl=(seq|par.ReduceRangeOf|par.ReduceRange|par.For)$' >> $OUT/$side-trees16.txt 2>&1 || log "exit $? $side trees"
    GOMAXPROCS=16 timeout 60 $bin -test.run '^$' -test.count 1 -test.benchtime 5x \
      -test.bench 'LongFirstItem$|Skewed$/peer=par.For$|Mandelbrot$/peer=par.For$|UTS$/peer=par.(For|ReduceRange)$|TreeWalk$/peer=par.Join$' >> $OUT/$side-cuts16.txt 2>&1 || log "exit $? $side cuts"
    log "round $r $side"
  done
done
log done
