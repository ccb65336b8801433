#!/bin/bash
# A/B at 16 and 8 workers on the lent machine: devrun/bench.test (HEAD)
# against devrun/bench-new.test (splits for several idle workers at once),
# alternated, 4 rounds; then the TF-IDF build with the new library at 16.
# Results in $OUT/ab.tgz (ab.txt, tfidf-new-P16.txt, log.txt).
D=$(cd "$(dirname "$0")/../../../devrun" && pwd)
RES=$(mktemp -d); T0=$(date +%s)
save() { tar -czf $OUT/ab.tgz -C $RES .; }
log() { echo "$(( $(date +%s) - T0 ))s $*" >> $RES/log.txt; save; }
rows='BenchmarkMandelbrot$/peer=(conc|atomic|par.For|par.ForRange)$|BenchmarkSkewed$/peer=(conc|atomic|par.For|par.ForRange)$|BenchmarkUniform$/peer=(pond|errgroup|par.For|par.ForRange)$|BenchmarkReduce$/peer=(atomic|par.ReduceRange)$|BenchmarkNested$/peer=(static|par.For|par.ForRange)$|BenchmarkUTS$/peer=(wg-cutoff|par.For|par.ReduceRange)$|BenchmarkQuicksort$/peer=(wg-cutoff|par.Join)$'
log start
for r in 1 2 3 4; do
  for P in 16 8; do
    for b in old new; do
      bin=$D/bench.test; [ $b = new ] && bin=$D/bench-new.test
      echo "=== $b P=$P round $r" >> $RES/ab.txt
      GOMAXPROCS=$P timeout 60 $bin -test.run '^$' -test.bench "$rows" -test.benchtime 5x -test.benchmem >> $RES/ab.txt 2>&1 || log "exit $? $b P=$P"
    done
  done
  log "round $r"
done
mkdir -p /tmp/corpus && tar -C /tmp/corpus -xzf $D/gosrc.tar.gz
GOMAXPROCS=16 timeout 60 $D/tfidf-new -dir /tmp/corpus/src -strategy stealing,weighted,dynamic -runs 3 > $RES/tfidf-new-P16.txt 2>&1 || log "exit $? tfidf"
log done
