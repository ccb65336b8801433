#!/bin/bash
# ScopeSpawn (warm: -benchtime 2x) and Crawl, session start (base) against HEAD (new), alternated by round,
# at GOMAXPROCS=2; then graphsearch twice each. Usage, from bench/: raw/scope-1127c/run-spawn.sh ROUNDS TAG
# with /tmp/base.test, /tmp/new.test (bench/ test binaries) and /tmp/gs-base, /tmp/gs-new (the example).
set -u
R=${1:-5}; TAG=${2:-spawn}
OUT=$(dirname "$0")
rm -f $OUT/base.$TAG.txt $OUT/new.$TAG.txt $OUT/$TAG-load.txt $OUT/$TAG-graphsearch.txt
for r in $(seq $R); do
  for x in base new; do
    GOMAXPROCS=2 /tmp/$x.test -test.run '^$' -test.bench 'ScopeSpawn' -test.benchtime 2x 2>&1 | grep ^Bench >> $OUT/$x.$TAG.txt
    GOMAXPROCS=2 /tmp/$x.test -test.run '^$' -test.bench 'Crawl' -test.benchtime 10x 2>&1 | grep ^Bench >> $OUT/$x.$TAG.txt
  done
  uptime >> $OUT/$TAG-load.txt
done
for r in 1 2; do for x in base new; do
  echo "== $x" >> $OUT/$TAG-graphsearch.txt
  GOMAXPROCS=2 /tmp/gs-$x -strategy scope,sequential -runs 5 2>&1 | tail -2 >> $OUT/$TAG-graphsearch.txt
done; done
