#!/usr/bin/env bash
# The trees and NestedSmall (run from bench/), the bench binary before the direct nested call (fac0629)
# against HEAD (or the commit given), ROUNDS alternated rounds (default 4): the published trees at 2 workers
# (2 walks each) and at 1, NestedSmall at 1 and 2; then benchstat.
set -euo pipefail
export PATH="$(go env GOPATH)/bin:$PATH"
R=raw/direct-1128 rounds=${ROUNDS:-4} new=${1:-HEAD} prefix=${PREFIX:-trees-}
bin=$(mktemp -d)
for v in start:fac0629 new:$new; do
  wt=$(mktemp -d); git worktree add -q --detach "$wt" "${v#*:}"
  (cd "$wt/bench" && go test -c -o "$bin/${v%%:*}.test" .)
  git worktree remove --force "$wt"
done
for v in start new; do rm -f $R/$prefix$v.p2.txt $R/$prefix$v.p1.txt; done
for r in $(seq "$rounds"); do
  for v in start new; do
    GOMAXPROCS=2 "$bin/$v.test" -test.run '^$' -test.bench 'PublishedTrees/tree=(T1|T3)/impl=(seq|seq-x2|par.ReduceRangeOf|par.ReduceRange|par.BothOf|par.For)$' \
      -test.benchtime 2x 2>/dev/null | grep '^Benchmark' >> $R/$prefix$v.p2.txt
    GOMAXPROCS=2 "$bin/$v.test" -test.run '^$' -test.bench 'NestedSmall/impl=parloop$' -test.benchtime 20000x 2>/dev/null | grep '^Benchmark' >> $R/$prefix$v.p2.txt
    GOMAXPROCS=1 "$bin/$v.test" -test.run '^$' -test.bench 'PublishedTrees/tree=(T1|T3)/impl=(seq|par.ReduceRangeOf)$|NestedSmall/impl=parloop$' \
      -test.benchtime 2x 2>/dev/null | grep '^Benchmark' >> $R/$prefix$v.p1.txt
  done
done
for part in p2 p1; do benchstat $R/${prefix}start.$part.txt $R/${prefix}new.$part.txt > $R/${prefix}benchstat.$part.txt 2>&1 || true; done
echo "$prefix done $(date -u) load $(cut -d' ' -f1-3 /proc/loadavg)" >> $R/log.txt
