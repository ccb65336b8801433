import re,sys,statistics,collections
def load(f):
    passes=[]; cur={}; seen=set()
    for l in open(f):
        m=re.match(r'Benchmark(\S+)-2\s+\d+\s+([\d.]+) ns/op',l)
        if not m: continue
        k=m.group(1)
        if k in cur: passes.append(cur); cur={}
        cur[k]=float(m.group(2))
    passes.append(cur)
    return passes
def seqkey(k):
    # the sequential baseline of k's group
    g=k.rsplit('/',1)[0]
    for cand in (g+'/peer=seq', g+'/impl=seq', g+'/impl=base', g+'/peer=seq-range'):
        yield cand
B=load(sys.argv[1]); N=load(sys.argv[2])
keys=sorted(set().union(*[p.keys() for p in B]) & set().union(*[p.keys() for p in N]))
out=[]
for k in keys:
    def norm(passes):
        r=[]
        for p in passes:
            if k not in p: continue
            base=None
            for c in seqkey(k):
                if c in p and c!=k: base=p[c]; break
            r.append(p[k]/base if base else None)
        return r
    nb,nn=norm(B),norm(N)
    if not nb or None in nb or None in nn or not nn: 
        continue
    rb,rn=statistics.median(nb),statistics.median(nn)
    out.append((rn/rb,k,rb,rn,min(nn)/max(nb),max(nn)/min(nb)))
out.sort()
sel=[o for o in out if ('par' in o[1] or 'parloop' in o[1] or 'iter' in o[1].lower())]
for o in sel:
    tag='WORSE' if o[4]>1.0 else ('better' if o[5]<1.0 else '')
    print(f"{o[0]:6.3f} {o[1][:85]:85s} seq-normalized base {o[2]:8.3f} new {o[3]:8.3f} range {o[4]:.2f}-{o[5]:.2f} {tag}")
print(len(sel),"rows;", sum(1 for o in sel if o[4]>1.0),"worse beyond every sample;", sum(1 for o in sel if o[5]<1.0),"better")
