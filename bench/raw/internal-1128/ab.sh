#!/bin/bash
pats=('TreeWalk/peer=par' 'Goal_Fib30/impl=par.BothOf$' '^BenchmarkUniform$/peer=par' 'NestedSmall/impl=parloop$' 'ScopeSpawn/impl=par' '^BenchmarkReduce$/peer=par' 'Goal_Tiny//impl=parloop$')
rm -f /tmp/ab.old.txt /tmp/ab.new.txt
for r in 1 2 3 4 5 6; do
  if [ $((r%2)) -eq 1 ]; then order="old new"; else order="new old"; fi
  for b in $order; do
    for p in "${pats[@]}"; do
      (cd /tmp && /tmp/$b.test -test.run '^$' -test.bench "$p" -test.count 1 -test.cpu 2 -test.benchtime 0.5s 2>&1 | grep '^Benchmark' ) >> /tmp/ab.$b.txt
    done
  done
done
