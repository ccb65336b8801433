#!/usr/bin/env bash
# The scheduler's share of ScopeSpawn's CPU at 2 workers, two bench binaries alternated (run anywhere):
#   profile-ab.sh ROUNDS A.test B.test
# Each round profiles `ScopeSpawn/impl=par.Scope` (6 runs) with each binary and prints the profile's
# total samples, the bodies' (workloads.spin), and the bodies' fraction: 1 - fraction is what the
# scheduler, the caller's closures and the collector take.
set -euo pipefail
rounds=$1; shift
for r in $(seq "$rounds"); do
  for b in "$@"; do
    GOMAXPROCS=2 "$b" -test.run '^$' -test.bench 'ScopeSpawn/impl=par.Scope$' -test.benchtime 6x -test.cpu 2 \
      -test.cpuprofile /tmp/profile-ab.prof >/dev/null 2>&1
    echo "$(basename "$b" .test) $(go tool pprof -top -nodecount=300 "$b" /tmp/profile-ab.prof 2>/dev/null |
      awk '/Total samples/{t=$(NF-1)} /workloads.spin/{s=$1} END{printf "total %s spin %s frac %.3f", t, s, s/t}')"
  done
done
