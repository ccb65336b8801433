#!/bin/bash
cd "$(dirname "$0")"
rows='BenchmarkMandelbrot$/peer=(seq|conc|par.For|par.ForRange)$|BenchmarkSkewed$/peer=(seq|conc|par.For|par.ForRange)$|BenchmarkQuicksort$/peer=(seq|wg-cutoff|par.Join-direct)$'
for P in 16 1 8 4; do
  echo "=== GOMAXPROCS=$P" >> $OUT/scale3.txt
  GOMAXPROCS=$P timeout 45 ./bench.test -test.run '^$' -test.bench "$rows" -test.benchtime 3x >> $OUT/scale3.txt 2>&1
done
echo done >> $OUT/scale3.txt
