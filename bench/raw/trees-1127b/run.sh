#!/usr/bin/env bash
# The published trees at P=1 and 2, 5 alternated rounds (run from bench/), then the summary.
set -euo pipefail
go test -c -o /tmp/bench.test .
for r in 1 2 3 4 5; do
  /tmp/bench.test -test.run '^$' -test.bench 'PublishedTrees/tree=(T1|T3)/impl=(seq|par.ReduceRange|par.ReduceRangeOf|par.BothOf)$' \
    -test.benchtime 2x -test.count 1 -test.cpu 1,2 | grep '^Benchmark' >> raw/trees-1127b/trees.txt
done
python3 raw/trees-1127b/summary.py raw/trees-1127b/trees.txt > raw/trees-1127b/summary.txt
