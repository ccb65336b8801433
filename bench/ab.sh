#!/usr/bin/env bash
# ab.sh BASE [ROUNDS]: an alternated A/B of the bench binary built at commit
# BASE against the one built from the working tree, on the rows that must
# not get worse (the tiny and uniform goals, 64 callers, the nested matmul,
# quicksort, fib(30)), at GOMAXPROCS 1 and 2, ROUNDS rounds (default 4) of
# 300 ms per benchmark, then benchstat of the two. ROWS, PS and BENCHTIME
# override the rows, the GOMAXPROCS list and the benchtime: ROWS=. PS=2
# BENCHTIME=3x is every benchmark of the module, the full report's suite. Each side is built from
# its own tree (BASE in a temporary git worktree), so an API change between
# them does not matter. Run it from bench/. With CHRT=1 every benchmark
# process runs at SCHED_FIFO priority 10 (chrt -f 10, as root): other
# processes on the machine then barely disturb it, at the price of a
# scheduler that places woken threads on idle CPUs more eagerly than CFS
# does; say so when you quote such figures.
set -euo pipefail
export PATH="$(go env GOPATH)/bin:$PATH" # benchstat: see README.md
base=${1:?usage: ab.sh BASE [ROUNDS]}
rounds=${2:-4}
out=$(mktemp -d)
wt=$(mktemp -d)
trap 'git worktree remove --force "$wt" >/dev/null 2>&1 || true; rm -rf "$wt"' EXIT
git worktree add -q --detach "$wt" "$base"
(cd "$wt/bench" && go test -tags parloop_experiments -c -o "$out/base.test" .)
go test -tags parloop_experiments -c -o "$out/new.test" .
rows=${ROWS:-'Goal_(Tiny|Uniform)$|(ManyCallers|Nested|Quicksort|Fib30)/peer=(seq|par[.].*)$'}
ps=${PS:-"1 2"}
benchtime=${BENCHTIME:-300ms}
prefix=()
if [[ ${CHRT:-0} == 1 ]]; then prefix=(chrt -f 10); fi
for _ in $(seq "$rounds"); do
  for v in base new; do
    for P in $ps; do
      GOMAXPROCS=$P "${prefix[@]}" "$out/$v.test" -test.run '^$' -test.bench "$rows" \
        -test.benchtime "$benchtime" -test.count 1 | grep '^Benchmark' >> "$out/$v.txt"
    done
  done
done
benchstat "$out/base.txt" "$out/new.txt"
echo "raw: $out/base.txt $out/new.txt" >&2
