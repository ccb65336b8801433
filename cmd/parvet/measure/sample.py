#!/usr/bin/env python3
"""Draw the race-diagnostic sample for RESULTS.md.

Usage: sample.py OUTDIR SEED N

Reads OUTDIR/*.raceonly.races.txt (written by measure -raceonly), turns each
scratch path back into module@version/relative/path, sorts all diagnostics,
shuffles them with random.Random(SEED) and prints the first N (all of them
when there are fewer), one per line: module path:line:col: message.
"""
import glob
import os
import random
import re
import sys

out, seed, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
diags = []
for f in sorted(glob.glob(os.path.join(out, "*.raceonly.races.txt"))):
    tag = os.path.basename(f)[: -len(".raceonly.races.txt")]
    for line in open(f):
        line = line.strip()
        if not line:
            continue
        # /tmp/measure-123/m/rel/path.go:1:2: message, or a GOROOT path.
        line = re.sub(r"^/tmp/measure-\d+/m/", "", line)
        diags.append(tag + " " + line)
diags.sort()
random.Random(seed).shuffle(diags)
print("# %d race diagnostics in all; seed %d; first %d after the shuffle" % (len(diags), seed, min(n, len(diags))))
for d in diags[:n]:
    print(d)
