#!/bin/bash
# The scope rows and a no-regression check, session start (base: be6ccd4's
# library with this commit's bench files) against this commit (new),
# alternated by round. Usage, from bench/: raw/scope-1127c/run.sh ROUNDS
# with /tmp/base.test and /tmp/new.test built by `go test -c` in each tree.
set -u
R=${1:-5}
OUT=$(dirname "$0")
for x in base new; do rm -f $OUT/$x.p1.txt $OUT/$x.p2.txt; done
for r in $(seq $R); do
  for x in base new; do
    GOMAXPROCS=1 /tmp/$x.test -test.run '^$' -test.bench 'ScopeTask' -test.benchtime 20000x >> $OUT/$x.p1.txt 2>&1
    GOMAXPROCS=1 /tmp/$x.test -test.run '^$' -test.bench 'PublishedTrees/tree=T./impl=(seq|par.ReduceRangeOf)$' -test.benchtime 1x >> $OUT/$x.p1.txt 2>&1
    GOMAXPROCS=2 /tmp/$x.test -test.run '^$' -test.bench 'ScopeSpawn' -test.benchtime 1x >> $OUT/$x.p2.txt 2>&1
    GOMAXPROCS=2 /tmp/$x.test -test.run '^$' -test.bench 'Crawl' -test.benchtime 10x >> $OUT/$x.p2.txt 2>&1
    GOMAXPROCS=2 /tmp/$x.test -test.run '^$' -test.bench 'PublishedTrees/tree=T./impl=(seq|par.ReduceRangeOf|par.BothOf|par.Scope)$' -test.benchtime 1x >> $OUT/$x.p2.txt 2>&1
    GOMAXPROCS=2 /tmp/$x.test -test.run '^$' -test.bench 'Fib30/peer=par|Quicksort/peer=par|TreeWalk/peer=par|Uniform/peer=par|NestedSmall' -test.benchtime 0.3s >> $OUT/$x.p2.txt 2>&1
  done
  uptime >> $OUT/load.txt
done
