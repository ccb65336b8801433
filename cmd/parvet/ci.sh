#!/usr/bin/env bash
# CI for parvet, run from this directory (cmd/parvet): vet, staticcheck and
# the analyzers' tests. Expects staticcheck on PATH
# (go install honnef.co/go/tools/cmd/staticcheck@v0.8.2).
set -euo pipefail
cd "$(dirname "$0")"
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet ./...
staticcheck ./...
go test ./...
