#!/usr/bin/env bash
set -uo pipefail
R=/work/main/bench/raw/ab-focused-1127b
cd /work/main/bench
ROWS='^Benchmark(Uniform|NestedSmall|Fib30|IterSlice|ManyCallers)$/^(peer=(seq|par\.For|par\.ForRange|par\.Join|par\.BothOf-direct)|impl=(seq|base|parloop|iter))$' PS=2 BENCHTIME=20x ./ab.sh 8f8bc51 5 > $R/benchstat.txt 2> $R/stderr.txt
raw=$(grep -o '/tmp/[^ ]*/base.txt' $R/stderr.txt); cp "$raw" $R/base.txt; cp "${raw%base.txt}new.txt" $R/new.txt
python3 /work/main/bench/raw/ab-rebuild/normalized.py $R/base.txt $R/new.txt > $R/normalized.txt 2>&1
echo "done $(date -u) load $(cut -d' ' -f1-3 /proc/loadavg)" >> $R/stderr.txt
# a second TF-IDF run
{ echo "# $(date -u) load $(cut -d' ' -f1-3 /proc/loadavg); GOMAXPROCS=2 tfidf -strategy all -runs 9"; GOMAXPROCS=2 /tmp/q/tfidf -strategy all -runs 9; } > /work/main/bench/raw/tfidf-P2-1127b/all2.txt 2>&1
