# Per-round ratios of the published trees: each row against the sequential walk of the same round and
# P (above 1 is faster); seq-x2 and seq-closures-x2 run two walks, so 2 x seq / them is a ceiling.
import re, sys, statistics, collections
rows = collections.defaultdict(list)  # (tree, impl, P) -> [ns], one per round
for l in open(sys.argv[1]):
    m = re.match(r'BenchmarkPublishedTrees/tree=(\w+)/impl=(\S+?)(-2)?\s+\d+\s+(\d+) ns/op', l)
    if m:
        rows[(m.group(1), m.group(2), 2 if m.group(3) else 1)].append(int(m.group(4)))
for (t, i, P), v in sorted(rows.items()):
    if i == 'seq':
        continue
    s = rows[(t, 'seq', P)]
    k = 2 if i.endswith('-x2') else 1
    r = [k * a / b for a, b in zip(s, v)]
    print(f"{t} P={P} {i:18s} median {statistics.median(v)/1e6:7.1f} ms  seq {statistics.median(s)/1e6:6.1f} ms"
          f"  seq/impl median {statistics.median(r):.2f} range {min(r):.2f}-{max(r):.2f}  n={len(r)}")
