#!/bin/bash
# 16-core measurement at the start of the one-call-path rebuild (issue 22),
# one call on the lent machine: the 1126c script cut to fit about 5 minutes
# (one full round, two rounds of the scheduling experiments, TF-IDF at 16 and
# 2 workers, two rounds of the kick A/B at 16), so that a later run after the
# rebuild fits in the same session's device time.
# Needs, in devrun/ (built beside the repository, not committed): bench.test
# (cd bench && go test -c), tfidf and topology (go build ./examples/...),
# gosrc.tar.gz (tar -C $(go env GOROOT) -czf gosrc.tar.gz src).
# Writes $OUT/results.tgz (machine.txt, main.txt, weighted.txt, exp.txt,
# ab.txt, tfidf-P*.txt, log.txt), rewritten after every step.
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
{ date -u; uname -a; nproc; lscpu; echo; timeout 10 $D/topology; } > $OUT/machine.txt 2>&1
log start
for B in $MAIN; do for P in $PS; do bench main.txt $P 120 -test.bench "^Benchmark$B\$" -test.benchtime $BT; done; done
for B in Weighted FoldDocs; do for P in $PS; do bench weighted.txt $P 120 -test.bench "^Benchmark$B\$" -test.benchtime $BT; done; done
log "round done"
TOP=${PS%% *}
EXPROWS='BenchmarkMandelbrot$/peer=(conc|par.For)$|BenchmarkSkewed$/peer=(conc|par.For)$|BenchmarkUTS$/peer=(wg-cutoff|par.For)$|BenchmarkTreeWalk$/peer=(wg-cutoff|par.Join|par.Both-direct)$'
for r in 1 2; do
  for e in default spinners=all backoff=off victims=random threads=locked kicks=off; do
    echo "=== experiment $e round $r" >> $OUT/exp.txt
    x=$e; [ $e = default ] && x=
    PARLOOP_EXPERIMENT=$x bench exp.txt $TOP 60 -test.bench "$EXPROWS" -test.benchtime 5x
  done
done
log "experiments done"
mkdir -p /tmp/corpus && tar -C /tmp/corpus -xzf $D/gosrc.tar.gz && log "corpus extracted"
for P in $TOP 2; do
  GOMAXPROCS=$P timeout 60 $D/tfidf -dir /tmp/corpus/src -strategy all -runs 2 > $OUT/tfidf-P$P.txt 2>&1 || log "exit $? tfidf P=$P"
done
log "tfidf done"
log done
