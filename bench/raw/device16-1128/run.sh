#!/bin/bash
# 16-core measurement of the library at HEAD, one call on the lent machine,
# about two minutes a round: the main suite at 16 workers; each heuristic
# the library still has against the library without it, alternated, two
# rounds; pslices' Sort of 10M ints; the published UTS trees; TF-IDF at
# 16 and 2 workers.
# Needs, in devrun/ (built beside the repository, not committed):
# bench.test (cd bench && go test -tags parloop_experiments -c), tfidf and
# topology (go build ./examples/...), gosrc.tar.gz (tar -C $(go env GOROOT)
# -czf gosrc.tar.gz src).
# Writes $OUT/results.tgz (machine.txt, main.txt, weighted.txt, heur.txt,
# sort.txt, trees.txt, tfidf-P*.txt, log.txt), rewritten after every step.
. "$(dirname "$0")/lib.sh"
P=${P:-16}; BT=${BT:-50ms}; SHORT=${SHORT:-}
bench() { # bench FILE P TIMEOUT ARGS...
  local f=$1 p=$2 t=$3; shift 3
  GOMAXPROCS=$p timeout $t $D/bench.test -test.run '^$' -test.benchmem -test.count 1 $SHORT "$@" >> $OUT/$f 2>&1 || log "exit $? $f P=$p $*"
}
{ date -u; uname -a; nproc; lscpu; echo; timeout 10 $D/topology; } > $OUT/machine.txt 2>&1
log start
for B in Tiny Uniform Mandelbrot Skewed Fib30 Fib35 Quicksort Reduce Nested ManyCallers TreeWalk UTS UTSAlloc; do
  bench main.txt $P 120 -test.bench "^Benchmark$B\$" -test.benchtime $BT
done
for B in Weighted FoldDocs; do bench weighted.txt $P 120 -test.bench "^Benchmark$B\$" -test.benchtime $BT; done
log "main done"
declare -A rows=(
  [kicks]='LongFirstItem$|UTS$/peer=par.For$|Skewed$/peer=par.For$|TreeWalk$/peer=par.Join$'
  [cuts]='LongFirstItem$|Skewed$/peer=par.For$|Mandelbrot$/peer=par.For$'
  [fewitems]='FewItems$/n=(2|8|32)/cost=1ms/pool=P2/impl=par.For$|Mandelbrot$/peer=par.For$'
  [plainnested]='UTS$/peer=par.(For|ReduceRange)$|Nested$/peer=par.(For|ForRange)$|NestedSmall$'
  [crowds]='CallersSweep$/callers=(64|512)$/n=(1000|10000)$/impl=par.(For|ForRange)$'
  [saturation]='CallersSweep$/callers=(64|512)$/n=(1000|10000)$/impl=par.ForRange$|ManyCallers$/peer=par.ForRange$'
  [backoff]='Tiny$/peer=par.For$|Uniform$/peer=par.For$|Quicksort$/peer=par.Join$|Fib30$/peer=par.BothOf-direct$'
)
for r in 1 2; do
  for h in kicks cuts fewitems plainnested crowds saturation backoff; do
    for side in default $h=off; do
      echo "=== $h $side round $r" >> $OUT/heur.txt
      PARLOOP_EXPERIMENT=$side bench heur.txt $P 60 -test.bench "${rows[$h]}" -test.benchtime 5x
    done
  done
  log "heuristics round $r"
done
bench sort.txt $P 60 -test.bench 'Sort10M' -test.benchtime 3x
bench trees.txt $P 120 -test.bench 'PublishedTrees' -test.benchtime 2x
log "sort, trees done"
mkdir -p /tmp/corpus && tar -C /tmp/corpus -xzf $D/gosrc.tar.gz && log "corpus extracted"
for p in $P 2; do
  GOMAXPROCS=$p timeout 90 $D/tfidf -dir /tmp/corpus/src -strategy all -runs 2 > $OUT/tfidf-P$p.txt 2>&1 || log "exit $? tfidf P=$p"
done
log done
