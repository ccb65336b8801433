#!/bin/bash
# 16-core measurement for issue 13 (perf), one call on the lent machine
# (the 1126b run's script, plus kicks=off among the experiments and the kick
# A/B in ab.txt in place of the third round at the two largest P).
# Needs, in devrun/ (built beside the repository, not committed): bench.test
# (cd bench && go test -c), tfidf and topology (go build ./examples/...),
# gosrc.tar.gz (tar -C $(go env GOROOT) -czf gosrc.tar.gz src).
# Writes into $OUT: machine.txt, main.txt and weighted.txt in the format of
# bench/cmd/report's raw files, exp.txt, pinning.txt, tfidf-P*.txt, traces,
# log.txt. Every step appends, so a run cut short still returns what it did.
# The results are kept in one archive, $OUT/results.tgz, rewritten after every
# step (the machine returns a few files only).
# Knobs for a local dry run: PS (GOMAXPROCS list), BT (benchtime), SHORT=-test.short.
D=$(cd "$(dirname "$0")/../../../devrun" && pwd)
PS=${PS:-"16 8 4 2 1"}; BT=${BT:-50ms}; SHORT=${SHORT:-}
T0=$(date +%s)
RES=$(mktemp -d); REAL_OUT=$OUT; OUT=$RES
save() { tar -czf $REAL_OUT/results.tgz -C $RES .; }
log() { echo "$(( $(date +%s) - T0 ))s $*" >> $OUT/log.txt; save; }
bench() { # bench FILE P TIMEOUT ARGS...
  local f=$1 p=$2 t=$3; shift 3
  GOMAXPROCS=$p timeout $t $D/bench.test -test.run '^$' -test.benchmem -test.count 1 $SHORT "$@" >> $OUT/$f 2>&1 || log "exit $? $f P=$p $*"
}
MAIN="Tiny Uniform Mandelbrot Skewed Fib30 Fib35 Quicksort Reduce Nested ManyCallers TreeWalk UTS UTSAlloc"
round() { # round PLIST
  for B in $MAIN; do for P in $1; do bench main.txt $P 120 -test.bench "^Benchmark$B\$" -test.benchtime $BT; done; done
  for B in Weighted FoldDocs; do for P in $1; do bench weighted.txt $P 120 -test.bench "^Benchmark$B\$" -test.benchtime $BT; done; done
  log "round $1 done"
}
{ date -u; uname -a; nproc; lscpu; echo; timeout 10 $D/topology; } > $OUT/machine.txt 2>&1
log start
round "$PS"
# Scheduling policies at the largest P: the default against each experiment, alternated.
TOP=${PS%% *}
EXPROWS='BenchmarkMandelbrot$/peer=(conc|par.For)$|BenchmarkSkewed$/peer=(conc|par.For)$|BenchmarkUTS$/peer=(wg-cutoff|par.For)$'
for r in 1 2 3; do
  for e in default spinners=all backoff=off victims=random threads=locked kicks=off; do
    echo "=== experiment $e round $r" >> $OUT/exp.txt
    x=$e; [ $e = default ] && x=
    PARLOOP_EXPERIMENT=$x bench exp.txt $TOP 60 -test.bench "$EXPROWS" -test.benchtime 5x
  done
done
log "experiments done"
for w in 'Mandelbrot$/peer=par.For$' 'Mandelbrot$/peer=conc$' 'Skewed$/peer=par.For$' 'Skewed$/peer=conc$'; do
  n=$(echo "$w" | tr -dc 'A-Za-z.' | tr '.' '_')
  bench trace-log.txt $TOP 30 -test.bench "^Benchmark$w" -test.benchtime 2x -test.trace $OUT/trace-$n.out
done
log "traces done"
for r in 1 2 3; do bench pinning.txt $TOP 60 -test.bench '^BenchmarkGoal_Pinning$' -test.benchtime 5x; done
log "pinning done"
mkdir -p /tmp/corpus && tar -C /tmp/corpus -xzf $D/gosrc.tar.gz && log "corpus extracted"
for P in $PS; do
  [ $P = 1 ] && continue
  runs=3; [ $P -le 4 ] && runs=2
  GOMAXPROCS=$P timeout 90 $D/tfidf -dir /tmp/corpus/src -strategy all -runs $runs > $OUT/tfidf-P$P.txt 2>&1 || log "exit $? tfidf P=$P"
done
log "tfidf done"
round "${PS% 1}"
# Kicks (a first grain wakes the last-parked worker) against none, one binary,
# alternated at the two largest P, 3 rounds, with the long first item.
TWO=$(echo $PS | cut -d' ' -f1-2)
ABROWS='BenchmarkMandelbrot$/peer=(conc|par.For|par.ForRange)$|BenchmarkSkewed$/peer=(conc|par.For|par.ForRange)$|BenchmarkUniform$/peer=(errgroup|par.For|par.ForRange)$|BenchmarkNested$/peer=(static|par.For|par.ForRange)$|BenchmarkUTS$/peer=(wg-cutoff|par.For|par.ReduceRange)$|BenchmarkQuicksort$/peer=(wg-cutoff|par.Join)$|BenchmarkLongFirstItem$/impl=(seq|par.For|par.For-after-idle)$'
for r in 1 2 3; do
  for P in $TWO; do
    for k in on off; do
      echo "=== kicks=$k P=$P round $r" >> $OUT/ab.txt
      PARLOOP_EXPERIMENT=kicks=$k bench ab.txt $P 60 -test.bench "$ABROWS" -test.benchtime 5x
    done
  done
  log "ab round $r"
done
log done
