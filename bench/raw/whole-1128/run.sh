#!/usr/bin/env bash
# The A/B of the Of forms' direct run (run from bench/): the bench binary before it (2c06d43) against
# HEAD (or the commit given), ROUNDS alternated rounds (default 5): raw/cutstack-1127/run.sh with this
# directory and this start.
R=raw/whole-1128 START=2c06d43 PREFIX=${PREFIX:-run1-} TREES='seq|seq-x2|par.ReduceRangeOf|par.ReduceRange|par.BothOf' \
  exec raw/cutstack-1127/run.sh "$@"
