#!/usr/bin/env bash
# run.sh [ROUNDS]: the A/B of pslices' own sequential sort (branch pslices-leaf)
# against pslices with slices' sorts at its leaves (BASE, default cd8688a), on
# the sort benchmarks of the bench module, GOMAXPROCS=2, ROUNDS alternated
# rounds (default 10). Both binaries are built with the working tree's sort
# benchmark files (pslices_test.go, pslices_bound_test.go,
# pslices_types_test.go: public API only), so that both run every row. Run it
# from bench/; it writes base.txt, new.txt and load.txt (uptime after each
# process) here, and benchstat.txt. With ROWS=targets it runs only the rows
# that issue 23's peers target names (ints at 10^4 and 10^6, SortFunc of the
# records and its bound), for a quiet spell of the machine, into quiet/.
set -euo pipefail
export PATH="$(go env GOPATH)/bin:$PATH"
base=${BASE:-cd8688a}
rounds=${1:-10}
here=$(cd "$(dirname "$0")" && pwd)
if [[ ${ROWS:-all} == targets ]]; then here=$here/quiet; fi
mkdir -p "$here"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$(git rev-parse --show-toplevel)" archive "$base" | tar -x -C "$tmp"
cp pslices_test.go pslices_bound_test.go pslices_types_test.go "$tmp/bench/"
(cd "$tmp/bench" && go test -c -o "$tmp/base.test" .)
go test -c -o "$tmp/new.test" .
: > "$here/base.txt"; : > "$here/new.txt"; : > "$here/load.txt"
bench() { # bench VERSION REGEX BENCHTIME
  GOMAXPROCS=2 "$tmp/$1.test" -test.run '^$' -test.bench "$2" -test.benchtime "$3" -test.count 1 |
    grep '^Benchmark' >> "$here/$1.txt"
  echo "$1 $(uptime)" >> "$here/load.txt"
}
for r in $(seq "$rounds"); do
  for v in base new; do
    if [[ ${ROWS:-all} == targets ]]; then
      bench $v 'SortInts/^n=10000$/' 200x
      bench $v 'SortInts/^n=1000000$/|SortFuncStruct|SortFuncBound' 3x
      continue
    fi
    bench $v 'SortInts/^n=10000$/|SortTypes/.*/.*/^n=10000$' 200x
    bench $v 'SortInts/^n=100000$/' 30x
    bench $v 'SortInts/^n=(1000000|10000000)$/|SortShapes|SortFuncStruct|SortStableFuncStruct|SortFuncBound|SortTypes/.*/.*/^n=1000000$' 3x
  done
  echo "round $r done" >> "$here/load.txt"
done
benchstat "$here/base.txt" "$here/new.txt" > "$here/benchstat.txt" || true
