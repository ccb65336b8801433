#!/usr/bin/env bash
# The floor of a recursive call at parallelism 1 (run from bench/): HEAD's bench binary against one built
# with floor.patch (ReduceRangeOf at parallelism 1 finds its seat, catches a panic, runs the leaf and
# applies identity, nothing else), ROUNDS alternated rounds (default 4) of the trees at GOMAXPROCS=1; then
# the machine's ceiling at 2 workers (seq against seq-x2, HEAD's binary, the same rounds).
set -euo pipefail
R=raw/lean-1127
rounds=${ROUNDS:-4}
bin=$(mktemp -d)
(go test -c -o "$bin/head.test" .)
wt=$(mktemp -d); git worktree add -q --detach "$wt" HEAD
(cd "$wt" && git apply "$OLDPWD/$R/floor.patch" && cd bench && go test -c -o "$bin/floor.test" .)
git worktree remove --force "$wt"
rm -f $R/floor-head.txt $R/floor-floor.txt $R/ceiling.txt
for r in $(seq "$rounds"); do
  for v in head floor; do
    GOMAXPROCS=1 "$bin/$v.test" -test.run '^$' -test.bench 'PublishedTrees/tree=(T1|T3)/impl=(seq|par.ReduceRangeOf)$' \
      -test.benchtime 2x 2>/dev/null | grep '^Benchmark' >> $R/floor-$v.txt
  done
  "$bin/head.test" -test.run '^$' -test.bench 'PublishedTrees/tree=(T1|T3)/impl=(seq|seq-x2)$' -test.benchtime 2x \
    -test.cpu 2 2>/dev/null | grep '^Benchmark' >> $R/ceiling.txt
done
