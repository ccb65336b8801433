#!/usr/bin/env bash
# The A/B of the direct nested call (run from bench/): the bench binary before it (fac0629) against
# HEAD (or the commit given), ROUNDS alternated rounds (default 5): raw/cutstack-1127/run.sh with this
# directory and this start.
R=raw/direct-1128 START=fac0629 PREFIX=${PREFIX:-run1-} TREES='seq|seq-x2|par.ReduceRangeOf|par.ReduceRange|par.BothOf|par.For' \
  exec raw/cutstack-1127/run.sh "$@"
