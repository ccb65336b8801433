#!/bin/bash
cd "$(dirname "$0")"
rows='BenchmarkMandelbrot$/peer=(seq|conc|par.For)$|BenchmarkSkewed$/peer=(seq|conc|par.For)$|BenchmarkQuicksort$/peer=(seq|wg-cutoff|par.Join-direct)$|BenchmarkUniform$/peer=(seq|static|atomic|par.ForRange)$|BenchmarkNested$/peer=(seq|static|par.ForRange|par.For)$|BenchmarkUTS$/peer=(seq|wg-cutoff|par.For|par.ReduceRange)$|BenchmarkFib35$/peer=(seq|wg-cutoff|par.BothOf-direct)$'
for P in 16 8 4 2 1; do
  echo "=== GOMAXPROCS=$P" >> $OUT/scale2.txt
  GOMAXPROCS=$P timeout 22 ./bench.test -test.run '^$' -test.bench "$rows" -test.benchtime 5x -test.short >> $OUT/scale2.txt 2>&1
done
echo "=== unlocked at 16" >> $OUT/scale2.txt
PARLOOP_EXPERIMENT=threads=unlocked GOMAXPROCS=16 timeout 15 ./bench.test -test.run '^$' -test.bench 'BenchmarkMandelbrot$/peer=(seq|par.For)$|BenchmarkSkewed$/peer=(par.For)$|BenchmarkUTS$/peer=(par.For)$' -test.benchtime 5x -test.short >> $OUT/scale2.txt 2>&1
echo "=== pinning at 16" >> $OUT/scale2.txt
GOMAXPROCS=16 timeout 15 ./bench.test -test.run '^$' -test.bench 'Goal_Pinning' -test.benchtime 5x -test.short >> $OUT/scale2.txt 2>&1
echo done >> $OUT/scale2.txt
