import json,re,sys,collections
d=json.load(open(sys.argv[1]))
st={};rows=[];cat=collections.Counter()
t0=min(e['ts'] for e in d if 'ts' in e)
for e in d:
    k=(e.get('name'),e.get('tid'))
    if e.get('ph')=='B': st[k]=e['ts']
    elif e.get('ph')=='E' and k in st:
        s=st.pop(k)
        m=re.match(r'Executing action \((\w+)',e['name'])
        if m: cat[m.group(1)]+=(e['ts']-s)/1e6
        if re.match(r'Executing action \((test run|build|link)',e['name']) and (e['ts']-s)/1e6>0.9:
            rows.append(((s-t0)/1e6,(e['ts']-t0)/1e6,e['name'][18:80]))
for r in sorted(rows): print("%6.1f %6.1f %s"%r)
print({k:round(v,1) for k,v in cat.items() if v>1})
