#!/usr/bin/env python3
"""pairs.py [DIR]: the paired ratios of run.sh's rounds, from DIR (default:
this script's directory); python3 pairs.py > pairs.txt.

Round i of base.txt and round i of new.txt ran back to back, so each ratio
below is taken within a round: old / new pslices (the A/B), and, within the
new binary's process, peer / pslices (above 1: pslices faster). Each line:
median of the per-round ratios, their range, and the medians of the times.
"""
import collections, os, statistics, sys

here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))

def load(name):
    rows = collections.defaultdict(list)
    for line in open(os.path.join(here, name)):
        f = line.split()
        rows[f[0].removeprefix("Benchmark").removesuffix("-2")].append(float(f[2]))
    return rows

base, new = load("base.txt"), load("new.txt")

def fmt(ns):
    for unit, div in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= div:
            return f"{ns / div:.3g} {unit}"
    return f"{ns:.3g} ns"

def line(label, a, b):
    r = [x / y for x, y in zip(a, b)]
    print(f"{label:<58} {statistics.median(r):5.2f}x  {min(r):.2f}-{max(r):.2f}  "
          f"({len(r)} rounds; medians {fmt(statistics.median(a))}, {fmt(statistics.median(b))})")

print("old pslices / new pslices (same rows, round by round)")
for name in new:
    if name.endswith("/pslices") and name in base:
        line(name, base[name], new[name])
print()
print("peer / pslices, within the new binary's rounds")
for name in new:
    if name.endswith("/pslices"):
        stem = name.removesuffix("/pslices")
        for peer in ("slices", "sorty", "pargo", "calls=fewest", "calls=pslices"):
            if stem + "/" + peer in new:
                line(stem + "/" + peer + " : pslices", new[stem + "/" + peer], new[name])
print()
print("the comparator calls alone / sorty's whole sort, within the new binary's rounds")
for calls in ("calls=fewest", "calls=pslices"):
    line(f"SortFuncBound/{calls} : sorty", new[f"SortFuncBound/{calls}"], new["SortFuncBound/sorty"])
