import re,sys,statistics,collections
rows=collections.defaultdict(list)  # (tree,impl,P) -> [ns]
for l in open(sys.argv[1]):
    m=re.match(r'BenchmarkPublishedTrees/tree=(\w+)/impl=(\S+?)(-2)?\s+\d+\s+(\d+) ns/op',l)
    if m: rows[(m.group(1),m.group(2),2 if m.group(3) else 1)].append(int(m.group(4)))
for (t,i,P),v in sorted(rows.items()):
    if i=='seq': continue
    s=rows[(t,'seq',P)]; s1=rows[(t,'seq',1)]
    r=[a/b for a,b in zip(s,v)]
    print(f"{t} P={P} {i:20s} median {statistics.median(v)/1e6:7.1f} ms  seq(P) {statistics.median(s)/1e6:6.1f}  speedup seq/impl median {statistics.median(r):.2f} range {min(r):.2f}-{max(r):.2f}")
