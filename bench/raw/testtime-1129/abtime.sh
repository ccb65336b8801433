#!/bin/bash
# alternate fresh-clone README test runs: old (b7b93b6) and new (HEAD)
for i in 1 2 3; do
  for v in old new; do
    d=/tmp/ab-$v-$i; rm -rf $d; git clone -q /work/main $d
    [ $v = old ] && git -C $d checkout -q b7b93b6
    cd $d; s=$(date +%s.%N)
    GORACE=atexit_sleep_ms=0 go test -race ./... > $d.out 2>&1; rc=$?
    e=$(date +%s.%N); echo "$v $i $(echo "$e - $s" | bc) rc=$rc"
    cd /tmp; rm -rf $d
  done
done
