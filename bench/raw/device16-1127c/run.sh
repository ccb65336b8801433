#!/bin/bash
# 16-core measurement of what bounds the TF-IDF build at 16 workers, one
# call on the lent machine, about a minute: the sequential build alone
# (GOMAXPROCS=1), then 16 sequential builds at once in 16 processes (the
# machine's throughput for this work: 16 × alone / at-once is the most any
# parallel build can reach), then -strategy all at 16 workers, three rounds.
# Needs, in devrun/ (built beside the repository, not committed): tfidf and
# topology (go build ./examples/...), gosrc.tar.gz (tar -C $(go env GOROOT)
# -czf gosrc.tar.gz src).
# Writes $OUT/results.tgz (machine.txt, alone.txt, copies/*.txt,
# tfidf-P16.txt, log.txt), rewritten after every step.
D=$(cd "$(dirname "$0")/../../../devrun" && pwd)
P=${P:-16}; RUNS=${RUNS:-3}
T0=$(date +%s)
RES=$(mktemp -d); REAL_OUT=$OUT; OUT=$RES
save() { tar -czf $REAL_OUT/results.tgz -C $RES .; }
log() { echo "$(( $(date +%s) - T0 ))s $*" >> $OUT/log.txt; save; }
{ date -u; uname -a; nproc; lscpu; echo; timeout 10 $D/topology; } > $OUT/machine.txt 2>&1
log start
mkdir -p /tmp/corpus && tar -C /tmp/corpus -xzf $D/gosrc.tar.gz && log "corpus extracted"
seqbuild() { GOMAXPROCS=1 timeout 120 $D/tfidf -dir /tmp/corpus/src -strategy sequential -runs $RUNS; }
seqbuild > $OUT/alone.txt 2>&1 || log "exit $? alone"
log "alone done"
mkdir -p $OUT/copies
for i in $(seq $P); do seqbuild > $OUT/copies/$i.txt 2>&1 & done
wait
log "copies done"
GOMAXPROCS=$P timeout 120 $D/tfidf -dir /tmp/corpus/src -strategy all -runs $RUNS > $OUT/tfidf-P$P.txt 2>&1 || log "exit $? tfidf P=$P"
log done
