#!/bin/bash
# Slow start on and off in one binary (par.test: go test -tags parloop_experiments -c ./par), alternated,
# 8 rounds, GOMAXPROCS=2: calls over cheap items, where slow start must not apply.
for r in 1 2 3 4 5 6 7 8; do
  for exp in default slowstart=off; do
    GOMAXPROCS=2 PARLOOP_EXPERIMENT=$exp ./par.test -test.run '^$' -test.bench 'Micro(Nested8|ForRangeTiny|ForTiny|NestedOf8)' -test.benchtime 100ms | grep ^Bench >> micro-${exp#slowstart=}.txt  # micro-default.txt, micro-off.txt
  done
done
