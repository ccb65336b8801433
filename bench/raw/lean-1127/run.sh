#!/usr/bin/env bash
# The session's A/B (run from bench/): the bench binary at the session's start (43ebe67) against HEAD (or
# the commit given), ROUNDS alternated rounds (default 5): raw/cutstack-1127/run.sh with this directory,
# this start, and the seq-x2 row among the trees (in binaries that have it).
R=raw/lean-1127 START=43ebe67 PREFIX=${PREFIX:-run1-} TREES='seq|seq-x2|par.ReduceRangeOf|par.ReduceRange|par.BothOf' \
  exec raw/cutstack-1127/run.sh "$@"
