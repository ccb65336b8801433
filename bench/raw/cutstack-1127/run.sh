#!/usr/bin/env bash
# The session's A/B (run from bench/): the bench binary at the session's start (6db36ad) against HEAD (or
# the commit given), ROUNDS alternated rounds (default 5) of the regression rows at GOMAXPROCS=2 (10
# iterations each), the published trees at 2 workers (2 walks each), and a few rows at GOMAXPROCS=1; then
# benchstat. OTHER=name:commit adds a third binary between them (run 1 had stack:2c8198d). R, START and
# TREES (the trees' implementations) default to this run's; raw/lean-1127/run.sh sets them.
set -euo pipefail
export PATH="$(go env GOPATH)/bin:$PATH"
R=${R:-raw/cutstack-1127}
rounds=${ROUNDS:-5}
new=${1:-HEAD}
prefix=${PREFIX:-run2-}
bin=$(mktemp -d)
variants="start:${START:-6db36ad} ${OTHER:-} new:$new"
names=""
for v in $variants; do
  name=${v%%:*}; rev=${v#*:}; names="$names $name"
  wt=$(mktemp -d); git worktree add -q --detach "$wt" "$rev"
  (cd "$wt/bench" && go test -c -o "$bin/$name.test" .)
  git worktree remove --force "$wt"
done
rows='^Benchmark(Uniform|Skewed|NestedSmall|Nested|Quicksort|Fib30|TreeWalk|UTS|LongFirstItem|Reduce|Weighted|Mandelbrot|Goal_Tiny)$/.*(par|parloop|seq)'
for v in $names; do rm -f $R/$prefix$v.p2.txt $R/$prefix$v.trees.txt $R/$prefix$v.p1.txt; done
for r in $(seq "$rounds"); do
  for v in $names; do
    GOMAXPROCS=2 "$bin/$v.test" -test.run '^$' -test.bench "$rows" -test.benchtime 10x 2>/dev/null | grep '^Benchmark' >> $R/$prefix$v.p2.txt
    "$bin/$v.test" -test.run '^$' -test.bench "PublishedTrees/tree=(T1|T3)/impl=(${TREES:-seq|par.ReduceRangeOf|par.ReduceRange|par.BothOf})\$" \
      -test.benchtime 2x -test.cpu 2 2>/dev/null | grep '^Benchmark' >> $R/$prefix$v.trees.txt
    GOMAXPROCS=1 "$bin/$v.test" -test.run '^$' -test.bench '^Benchmark(Uniform|NestedSmall|Fib30)$/.*(par|parloop|seq)|PublishedTrees/tree=(T1|T3)/impl=(seq|par.ReduceRangeOf)$' \
      -test.benchtime 2x 2>/dev/null | grep '^Benchmark' >> $R/$prefix$v.p1.txt
  done
done
for part in p2 trees p1; do
  for v in $names; do
    [[ $v == start ]] || benchstat $R/${prefix}start.$part.txt $R/$prefix$v.$part.txt > $R/${prefix}benchstat.$part.start-$v.txt 2>&1 || true
  done
done
echo "$prefix done $(date -u) load $(cut -d' ' -f1-3 /proc/loadavg)" >> $R/log.txt
