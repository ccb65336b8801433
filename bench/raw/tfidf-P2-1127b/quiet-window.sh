#!/usr/bin/env bash
# Quiet-window measurements of the session of 2026-11-27 (afternoon), 2-core VM.
set -uo pipefail
R=/work/main/bench/raw
cd /work/main
go build -o /tmp/q/tfidf ./examples/tfidf
(cd bench && go test -c -o /tmp/q/bench.test .)
mkdir -p $R/tfidf-P2-1127b $R/trees-1127b $R/ab-focused-1127b
# 1. TF-IDF at 2 workers, every strategy, 9 rounds; then the bound (one sequential build alone, two at once)
{ echo "# $(date -u) load $(cut -d' ' -f1-3 /proc/loadavg); GOMAXPROCS=2 tfidf -strategy all -runs 9"; GOMAXPROCS=2 /tmp/q/tfidf -strategy all -runs 9; } > $R/tfidf-P2-1127b/all.txt 2>&1
{ echo "# $(date -u) load $(cut -d' ' -f1-3 /proc/loadavg); bound: GOMAXPROCS=1 tfidf -strategy sequential -runs 3, alone then two processes at once, 3 rounds"
for r in 1 2 3; do
  GOMAXPROCS=1 /tmp/q/tfidf -strategy sequential -runs 3 2>&1 | grep "^sequential:" | sed "s/^/round $r alone: /"
  (GOMAXPROCS=1 /tmp/q/tfidf -strategy sequential -runs 3 2>&1 | grep "^sequential:" | sed "s/^/round $r copy 1: /") &
  (GOMAXPROCS=1 /tmp/q/tfidf -strategy sequential -runs 3 2>&1 | grep "^sequential:" | sed "s/^/round $r copy 2: /") &
  wait
done; } > $R/tfidf-P2-1127b/bound.txt 2>&1
# 2. The published trees at P=1 and 2, 5 alternated rounds
echo "# $(date -u) load $(cut -d' ' -f1-3 /proc/loadavg); bench.test -test.bench 'PublishedTrees/tree=(T1|T3)/impl=(seq|par.ReduceRange|par.ReduceRangeOf|par.BothOf)\$' -test.benchtime 2x -test.cpu 1,2, 5 rounds" > $R/trees-1127b/trees.txt
for r in 1 2 3 4 5; do
  /tmp/q/bench.test -test.run '^$' -test.bench 'PublishedTrees/tree=(T1|T3)/impl=(seq|par.ReduceRange|par.ReduceRangeOf|par.BothOf)$' -test.benchtime 2x -test.count 1 -test.cpu 1,2 | grep '^Benchmark' >> $R/trees-1127b/trees.txt
done
# 3. Issue 22's focused A/B: the library before the rebuild (8f8bc51) against HEAD, 5 alternated rounds of 20 iterations
cd bench
ROWS='^Benchmark(Uniform/peer=(seq|par.For|par.ForRange)|TraceOff/work=uniform/impl=(seq|par.For)|NestedSmall|Fib30/peer=(seq|par.Join|par.BothOf-direct)|IterSlice/impl=(seq|iter)|ManyCallers/peer=(seq|par.ForRange))$' PS=2 BENCHTIME=20x ./ab.sh 8f8bc51 5 > $R/ab-focused-1127b/benchstat.txt 2> $R/ab-focused-1127b/stderr.txt
raw=$(grep -o '/tmp/[^ ]*/base.txt' $R/ab-focused-1127b/stderr.txt); cp "$raw" $R/ab-focused-1127b/base.txt; cp "${raw%base.txt}new.txt" $R/ab-focused-1127b/new.txt
python3 $R/ab-rebuild/normalized.py $R/ab-focused-1127b/base.txt $R/ab-focused-1127b/new.txt > $R/ab-focused-1127b/normalized.txt 2>&1
echo "done $(date -u) load $(cut -d' ' -f1-3 /proc/loadavg)" >> $R/ab-focused-1127b/stderr.txt
