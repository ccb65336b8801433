#!/usr/bin/env bash
# heuristics.sh [ROUNDS] [P]: each heuristic of the scheduler against the
# library without it (docs/DESIGN.md, "Heuristics"), A/B in one binary built
# with -tags parloop_experiments, alternated, ROUNDS rounds (default 6) at
# GOMAXPROCS=P (default 2), on the benchmarks that heuristic exists for.
# Raw outputs and benchstat tables go to raw/heuristics-P<P>/. Run it from
# bench/ on a quiet machine; HEUR="kicks cuts" limits it to some, and
# BENCHTIME (default 20x) sets each run's iterations.
set -euo pipefail
export PATH="$(go env GOPATH)/bin:$PATH" # benchstat: see README.md
rounds=${1:-6}
P=${2:-2}
out=raw/heuristics-P$P
mkdir -p "$out"
bin=$(mktemp -d)/bench.test
go test -tags parloop_experiments -c -o "$bin" .
declare -A rows=(
  [kicks]='LongFirstItem$|UTS$/peer=par.For$|Skewed$/peer=par.For$'
  [cuts]='LongFirstItem$|Skewed$/peer=par.For$|Mandelbrot$/peer=par.For$'
  [fewitems]='FewItems$/n=(2|8|32)/cost=1ms/pool=(P2|P8sleep)/impl=par.For$'
  [plainnested]='UTS$/peer=par.(For|ReduceRange)$|Nested$/peer=par.(For|ForRange)$|NestedSmall$'
  [crowds]='CallersSweep$/callers=(64|512)$/n=(1000|10000)$/impl=par.(For|ForRange)$'
  [saturation]='CallersSweep$/callers=(64|512)$/n=(1000|10000)$/impl=par.ForRange$|ManyCallers$/peer=par.ForRange$'
  [backoff]='Tiny$/peer=par.For$|Uniform$/peer=par.For$|Quicksort$/peer=par.Join$|Fib30$/peer=par.BothOf-direct$'
  [ratecut]='PublishedTrees$/tree=(T1|T3)/impl=par.(ReduceRangeOf|For)$|UTS$/peer=par.(For|ReduceRange)$'
  [slowstart]='PublishedTrees$/tree=(T1|T3)/impl=par.(ReduceRangeOf|For)$|UTS$/peer=par.(For|ReduceRange)$|Nested$/peer=par.(For|ForRange)$|NestedSmall$|Skewed$/peer=par.For$'
  [idlecheck]='PublishedTrees$/tree=(T1|T3)/impl=par.(ReduceRangeOf|For)$|UTS$/peer=par.(For|ReduceRange)$|Nested$/peer=par.(For|ForRange)$'
  [spawngrow]='ScopeSpawn$/impl=par.Scope(Of)?$|Crawl$/impl=par.Scope(Of)?$|PublishedTrees$/tree=T1/impl=par.Scope$'
)
declare -A setting=(
  [kicks]=kicks=off [cuts]=cuts=off [fewitems]=fewitems=off
  [plainnested]=plainnested=off [crowds]=crowds=off [saturation]=saturation=off
  [backoff]=backoff=off [spawngrow]=spawngrow=off [ratecut]=ratecut=off [idlecheck]=idlecheck=off
  [slowstart]=slowstart=off
)
for h in ${HEUR:-kicks cuts fewitems plainnested crowds saturation backoff spawngrow ratecut idlecheck slowstart}; do
  rm -f "$out/$h.on.txt" "$out/$h.off.txt"
  for _ in $(seq "$rounds"); do
    for side in on off; do
      exp=default; [ $side = off ] && exp=${setting[$h]}
      GOMAXPROCS=$P PARLOOP_EXPERIMENT=$exp "$bin" -test.run '^$' -test.bench "${rows[$h]}" \
        -test.benchtime "${BENCHTIME:-20x}" -test.count 1 | grep '^Benchmark' >> "$out/$h.$side.txt" || true
    done
  done
  benchstat -filter '.unit:(sec/op)' "$out/$h.on.txt" "$out/$h.off.txt" > "$out/$h.benchstat.txt" || true
  echo "== $h (on = the default, off = ${setting[$h]})"; cat "$out/$h.benchstat.txt"
done
