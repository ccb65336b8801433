#!/bin/bash
# 16-core scaling check (issue 13), one call: lscpu, topology summary,
# mandelbrot / skewed / quicksort at GOMAXPROCS 1..16, pinning at 16.
cd "$(dirname "$0")"
lscpu > $OUT/lscpu.txt 2>&1
timeout 10 ./topology > $OUT/topology.txt 2>&1
rows='BenchmarkMandelbrot$/peer=(seq|conc|static|par.For|par.ForRange)$|BenchmarkSkewed$/peer=(seq|conc|par.For|par.ForRange)$|BenchmarkQuicksort$/peer=(seq|wg-cutoff|par.Join-direct)$'
for P in 16 1 2 4 8; do
  echo "=== GOMAXPROCS=$P" >> $OUT/scale.txt
  GOMAXPROCS=$P timeout 40 ./bench.test -test.run '^$' -test.bench "$rows" -test.benchtime 2x -test.short >> $OUT/scale.txt 2>&1
done
echo "=== pinning at 16" >> $OUT/scale.txt
GOMAXPROCS=16 timeout 30 ./bench.test -test.run '^$' -test.bench 'Goal_Pinning' -test.benchtime 3x -test.short >> $OUT/scale.txt 2>&1
echo done >> $OUT/scale.txt
