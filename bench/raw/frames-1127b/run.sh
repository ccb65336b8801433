#!/usr/bin/env bash
# BenchmarkFramesPerLevel, 5 rounds at GOMAXPROCS=1 (run from bench/), then the instruction counts of
# frames=0 and frames=8-ptr under callgrind (one walk each).
set -euo pipefail
go test -c -o /tmp/fr.test .
for r in 1 2 3 4 5; do /tmp/fr.test -test.run '^$' -test.bench 'FramesPerLevel' -test.benchtime 2x -test.count 1 -test.cpu 1 | grep ns/op; done > raw/frames-1127b/frames.txt
for f in "frames=0" "frames=8-ptr"; do
  GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null /tmp/fr.test -test.run '^$' \
    -test.bench "FramesPerLevel/$f\$" -test.benchtime 1x -test.cpu 1 2>&1 | grep Collected | sed "s/^/$f: /"
done > raw/frames-1127b/callgrind.txt
