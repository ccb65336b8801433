#!/bin/bash
# Second call on the lent machine (this session's remaining minutes): what
# bounds TF-IDF, skewed and quicksort at 16, in $OUT/ceiling.tgz.
#  1. The TF-IDF builds at GOMAXPROCS=1, one process alone, then 16 such
#     processes at once (crowd-*.txt): how much slower the same sequential
#     work runs when every core does it (the machine's own inflation).
#  2. CPU profiles of the sequential and weighted builds at P=1 and P=16.
#  3. Skewed and quicksort at P=16, 4 rounds of the main rows (5 ops a
#     sample), and BenchmarkQuicksortSpan (work/span of the quicksort).
D=$(cd "$(dirname "$0")/../../../devrun" && pwd)
RES=$(mktemp -d); T0=$(date +%s)
save() { tar -czf $OUT/ceiling.tgz -C $RES .; }
log() { echo "$(( $(date +%s) - T0 ))s $*" >> $RES/log.txt; save; }
log start
mkdir -p /tmp/corpus && tar -C /tmp/corpus -xzf $D/gosrc.tar.gz && log "corpus extracted"
TF="$D/tfidf -dir /tmp/corpus/src -strategy stealing -runs 2"
GOMAXPROCS=1 timeout 60 $TF > $RES/alone.txt 2>&1 || log "exit $? alone"
log "alone done"
N=${N:-16}
for i in $(seq $N); do GOMAXPROCS=1 timeout 90 $TF > $RES/crowd-$i.txt 2>&1 & done; wait
log "crowd done"
GOMAXPROCS=1 timeout 60 $TF > $RES/alone2.txt 2>&1 || log "exit $? alone2"
log "alone2 done"
GOMAXPROCS=16 timeout 60 $D/tfidf -dir /tmp/corpus/src -strategy weighted -runs 3 -cpuprofile $RES/tfidf-P16.prof > $RES/tfidf-prof-P16.txt 2>&1 || log "exit $? prof16"
GOMAXPROCS=1 timeout 60 $D/tfidf -dir /tmp/corpus/src -strategy weighted -runs 1 -cpuprofile $RES/tfidf-P1.prof > $RES/tfidf-prof-P1.txt 2>&1 || log "exit $? prof1"
log "profiles done"
rows='BenchmarkSkewed$/peer=(seq|wg|atomic|conc|ants|par.For|par.ForRange)$|BenchmarkQuicksort$/peer=(seq|wg-cutoff|par.Join)$'
for r in 1 2 3 4; do
  echo "=== round $r" >> $RES/rows16.txt
  GOMAXPROCS=16 timeout 60 $D/bench.test -test.run '^$' -test.bench "$rows" -test.benchtime 5x >> $RES/rows16.txt 2>&1 || log "exit $? rows $r"
  log "rows round $r"
done
GOMAXPROCS=16 timeout 60 $D/bench.test -test.run '^$' -test.bench '^BenchmarkQuicksortSpan$' -test.benchtime 3x > $RES/span.txt 2>&1 || log "exit $? span"
log done
