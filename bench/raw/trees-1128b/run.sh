#!/usr/bin/env bash
# The published trees at HEAD, 1 and 2 workers, ROUNDS rounds (default 7; run from bench/): every form
# and both bounds (seq-x2, seq-closures-x2) in each round, then the per-round ratios (summary.py).
set -euo pipefail
R=raw/trees-1128b
[ -n "${NOBUILD:-}" ] || go test -c -o /tmp/trees-head.test .
rm -f $R/trees.txt $R/log.txt
for r in $(seq "${ROUNDS:-7}"); do
  /tmp/trees-head.test -test.run '^$' -test.bench 'PublishedTrees/tree=(T1|T3)/impl=(seq|seq-x2|seq-closures-x2|par.ReduceRange|par.ReduceRangeOf|par.BothOf|par.Scope)$' \
    -test.benchtime 2x -test.count 1 -test.cpu 2 | grep '^Benchmark' >> $R/trees.txt
  /tmp/trees-head.test -test.run '^$' -test.bench 'PublishedTrees/tree=(T1|T3)/impl=(seq|par.ReduceRangeOf)$' \
    -test.benchtime 2x -test.count 1 -test.cpu 1 | grep '^Benchmark' >> $R/trees.txt
  echo "round $r $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)" >> $R/log.txt
done
python3 $R/summary.py $R/trees.txt > $R/summary.txt
