#!/bin/bash
# The session's regression rows and scope rows, two bench binaries alternated (old, new; run anywhere):
#   ab.sh ROUNDS   with /tmp/old.test (the library at 062d5f5) and /tmp/new.test (HEAD)
# Writes /tmp/ab.old.txt and /tmp/ab.new.txt; compare with benchstat.
pats=('TreeWalk/peer=par' 'Goal_Fib30/impl=par.BothOf$' '^BenchmarkUniform$/peer=par' 'NestedSmall/impl=parloop$'
  '^BenchmarkReduce$/peer=par' 'Goal_Tiny//impl=parloop$' 'Crawl/impl=(seq|par.Scope)$')
rm -f /tmp/ab.old.txt /tmp/ab.new.txt
for r in $(seq "${1:-6}"); do
  if [ $((r%2)) -eq 1 ]; then order="old new"; else order="new old"; fi
  for b in $order; do
    for p in "${pats[@]}"; do
      (cd /tmp && /tmp/$b.test -test.run '^$' -test.bench "$p" -test.count 1 -test.cpu 2 -test.benchtime 0.5s 2>&1 | grep '^Benchmark' ) >> /tmp/ab.$b.txt
    done
    (cd /tmp && /tmp/$b.test -test.run '^$' -test.bench 'ScopeSpawn/impl=(seq|bound-closures|par.Scope)$' -test.cpu 2 -test.benchtime 2x 2>&1 | grep '^Benchmark') >> /tmp/ab.$b.txt
    (cd /tmp && GOMAXPROCS=1 /tmp/$b.test -test.run '^$' -test.bench 'ScopeTask' -test.cpu 1 -test.benchtime 4000x 2>&1 | grep '^Benchmark') >> /tmp/ab.$b.txt
  done
done
