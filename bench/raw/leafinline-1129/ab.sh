#!/bin/bash
# ab.sh ROUNDS: old.test (the library before the change) and new.test (after), built in bench/ with
# go test -tags parloop_experiments -c -o /tmp/NAME.test ., alternated (old, then new, each round);
# each process runs BenchmarkBracketed over T1 and T3, 6 ops, at 1 worker, then at 2.
set -u
for r in $(seq 1 "$1"); do
  for b in old new; do
    /tmp/$b.test -test.run '^$' -test.bench 'Bracketed/tree=(T1|T3)' -test.benchtime 6x -test.cpu 1 2>&1 | grep '^Benchmark.*tree=' >> p1-$b.txt
  done
done
for r in $(seq 1 "$1"); do
  for b in old new; do
    /tmp/$b.test -test.run '^$' -test.bench 'Bracketed/tree=(T1|T3)' -test.benchtime 6x -test.cpu 2 2>&1 | grep '^Benchmark.*tree=' >> p2-$b.txt
  done
done
